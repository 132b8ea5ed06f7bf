/* test_evaluate.c: the validation pass and greedy decoding of src/train/evaluate.c, against an
 * evaluation written here from the model's logits: per example a batch of one through
 * model_forward, the loss as -log softmax in double, the first argmax, greedy answers fed back
 * token by token. The model is a random one whose final LayerNorm bias leans towards one symbol,
 * so that some validation answers are right and some wrong (checked, so the case stays
 * informative); --eval's listing must show the wrong ones first, in validation order. */
#include "train/evaluate.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "train/train.h"
#include "util/rng.h"
#include "testutil.h"

enum { MAX_T = 8 };

static Task task;
static Model model;

/* copy of 2 symbols out of 6: tokens p0 p1 SEP a0, answers at positions 2 and 3; 18 validation
 * examples in batches of up to 4 (4 + 4 + 4 + 4 + 2). */
static void setup(void) {
    Config c;
    config_defaults(&c);
    c.task = TASK_COPY;
    c.task_length = 2;
    c.task_symbols = 6;
    c.val_size = 18;
    c.d_model = 8;
    c.n_heads = 2;
    c.n_layers = 1;
    c.seed = 3;
    ck_assert_int_eq(task_init(&task, &c), 0);
    ck_assert_int_le(task.seq_len, MAX_T);
    ModelConfig mc = train_model_config(&c, &task);
    ck_assert_int_eq(model_build(&model, &mc, 4), 0);
    Rng rng;
    rng_seed(&rng, 5);
    model_init_fan_in(&model, &rng);
    /* lean the logits towards symbol 2: the final LayerNorm's bias along its head row */
    const int C = model.cfg.d_model;
    for (int i = 0; i < C; i++) model.p.lnf_b[i] += (real)2 * model.p.head_w[2 * C + i];
}

static void teardown(void) {
    model_free(&model);
    task_free(&task);
}

static int argmax_here(const real *z, int n) {
    int best = 0;
    for (int v = 1; v < n; v++)
        if (z[v] > z[best]) best = v;
    return best;
}

/* -log softmax(z)[target] in double. */
static double nll_here(const real *z, int n, int target) {
    double m = z[0], s = 0;
    for (int v = 1; v < n; v++) m = fmax(m, z[v]);
    for (int v = 0; v < n; v++) s += exp((double)z[v] - m);
    return log(s) + m - z[target];
}

/* Greedy decoding of example b with prompt tokens `in`, written here; returns the answer length. */
static int greedy_here(int b, const int *in, int *out) {
    int T = task.seq_len, V = model.cfg.vocab_size, tokens[MAX_T], n = 0;
    memcpy(tokens, in, sizeof(int) * (size_t)T);
    const int *tg = task.val_targets + (size_t)b * T;
    const float *mk = task.val_mask + (size_t)b * T;
    for (int i = 0; i < T; i++) {
        if (mk[i] == 0) continue;
        model_forward(&model, tokens, tg, mk, 1, T);
        out[n] = argmax_here(model.logits + (size_t)i * V, V);
        if (i + 1 < T) tokens[i + 1] = out[n];
        n++;
    }
    return n;
}

/* Teacher-forced right or wrong of every example; the counts and loss of the whole set. */
static EvalResult eval_here(int *right) {
    int T = task.seq_len, V = model.cfg.vocab_size;
    double loss = 0, mask = 0, tok = 0, n_tok = 0, ans = 0;
    for (int b = 0; b < task.n_val; b++) {
        const int *tg = task.val_targets + (size_t)b * T;
        const float *mk = task.val_mask + (size_t)b * T;
        model_forward(&model, task.val_tokens + (size_t)b * T, tg, mk, 1, T);
        right[b] = 1;
        for (int i = 0; i < T; i++) {
            if (mk[i] == 0) continue;
            const real *z = model.logits + (size_t)i * V;
            int ok = argmax_here(z, V) == tg[i];
            tok += ok;
            n_tok++;
            right[b] &= ok;
            loss += mk[i] * nll_here(z, V, tg[i]);
            mask += mk[i];
        }
        ans += right[b];
    }
    return (EvalResult){loss / mask, tok / n_tok, ans / task.n_val};
}

START_TEST(test_validation_pass) {
    int right[64];
    EvalResult want = eval_here(right);
    int n_right = (int)lround(want.answer_acc * task.n_val);
    ck_assert_msg(n_right > 0 && n_right < task.n_val, "%d of %d right: not informative", n_right,
                  task.n_val);
    EvalResult got = evaluate_validation(&model, &task);
    ck_assert_msg(fabs(got.loss - want.loss) < 1e-5 * want.loss, "loss %.9g, want %.9g", got.loss,
                  want.loss);
    ck_assert_msg(got.token_acc == want.token_acc, "token acc %g, want %g", got.token_acc,
                  want.token_acc);
    ck_assert_msg(got.answer_acc == want.answer_acc, "answer acc %g, want %g", got.answer_acc,
                  want.answer_acc);
}
END_TEST

/* bits per byte = nats / ln 2, ln 2 computed here; non-finite stays so. */
START_TEST(test_bits_per_byte) {
    static const double NATS[] = {0, 1, 0.5, 2.0794415416798357 /* ln 8: 3 bits */, 5.545177444479562,
                                  1e-9, 123.456};
    for (size_t i = 0; i < sizeof NATS / sizeof NATS[0]; i++) {
        double want = NATS[i] / log(2.0);
        ck_assert_msg(fabs(evaluate_bits_per_byte(NATS[i]) - want) <= 1e-15 * fmax(1, want),
                      "%g nats: %.17g bits, expected %.17g", NATS[i],
                      evaluate_bits_per_byte(NATS[i]), want);
    }
    ck_assert(fabs(evaluate_bits_per_byte(log(256.0)) - 8.0) < 1e-14); /* uniform over bytes */
    ck_assert(isnan(evaluate_bits_per_byte(NAN)));
    ck_assert(isinf(evaluate_bits_per_byte(INFINITY)));
}
END_TEST

/* The text task has no answers: its answer accuracy is the token accuracy. */
START_TEST(test_text_answer_acc_is_token_acc) {
    EvalResult copy = evaluate_validation(&model, &task);
    ck_assert(copy.answer_acc != copy.token_acc); /* the case is informative: they differ */
    task.kind = TASK_TEXT;
    EvalResult text = evaluate_validation(&model, &task);
    task.kind = TASK_COPY;
    ck_assert(text.token_acc == copy.token_acc);
    ck_assert(text.answer_acc == text.token_acc);
    ck_assert(text.loss == copy.loss);
}
END_TEST

START_TEST(test_greedy) {
    int T = task.seq_len, tokens[MAX_T], got[MAX_T], want[MAX_T], differs = 0;
    for (int b = 0; b < task.n_val; b++) {
        const int *val = task.val_tokens + (size_t)b * T;
        int nw = greedy_here(b, val, want);
        int ng = evaluate_greedy(&model, &task, b, tokens, got);
        ck_assert_int_eq(nw, 2);
        ck_assert_msg(ng == nw && memcmp(got, want, sizeof(int) * (size_t)nw) == 0,
                      "example %d: %d %d, want %d %d", b, got[0], got[1], want[0], want[1]);
        /* the first answer token comes from the prompt alone; the second follows the first */
        differs |= want[0] != val[3];
        /* a prompt of the user's in example b's layout: symbols 5 4 */
        int mine[MAX_T];
        memcpy(mine, val, sizeof(int) * (size_t)T);
        mine[0] = 5;
        mine[1] = 4;
        int keep[MAX_T];
        memcpy(keep, mine, sizeof keep);
        nw = greedy_here(b, keep, want);
        ng = evaluate_greedy_tokens(&model, &task, b, mine, got);
        ck_assert_msg(ng == nw && memcmp(got, want, sizeof(int) * (size_t)nw) == 0,
                      "prompt 5 4 in example %d: %d %d, want %d %d", b, got[0], got[1], want[0],
                      want[1]);
        ck_assert(mine[0] == 5 && mine[1] == 4); /* the prompt is read, not overwritten */
    }
    ck_assert_msg(differs, "greedy never differs from teacher forcing: not informative");
}
END_TEST

START_TEST(test_examples_wrong_first) {
    int right[64], T = task.seq_len;
    EvalResult r = eval_here(right);
    int wrong = task.n_val - (int)lround(r.answer_acc * task.n_val);
    /* n: examples to list; the header must say how many wrong ones and whether right ones follow */
    const int NS[] = {0, 1, wrong, wrong + 2, task.n_val, task.n_val + 5};
    for (size_t c = 0; c < sizeof NS / sizeof NS[0]; c++) {
        int n = NS[c];
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(evaluate_print_examples(&model, &task, n, f), 0);
        fclose(f);
        char want[4096];
        int shown_wrong = wrong < n ? wrong : n;
        int w = snprintf(want, sizeof want, "%d of %d validation answers wrong", wrong, task.n_val);
        if (shown_wrong > 0)
            w += snprintf(want + w, sizeof want - (size_t)w, "; the first %d of them%s:\n",
                          shown_wrong, shown_wrong < n ? ", then right ones" : "");
        else
            w += snprintf(want + w, sizeof want - (size_t)w, "; the first right ones:\n");
        ck_assert_msg(strncmp(buf, want, (size_t)w) == 0, "n = %d: header\n%s\nwant\n%s", n, buf,
                      want);
        /* then the listed examples: the wrong ones in order, then the right ones in order */
        const char *line = buf + w;
        int listed = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int b = 0; b < task.n_val && listed < n; b++) {
                if (right[b] != pass) continue;
                int ans[MAX_T], na = greedy_here(b, task.val_tokens + (size_t)b * T, ans);
                char tail[256], name[32];
                int tw = snprintf(tail, sizeof tail, "   model:");
                for (int i = 0; i < na; i++) {
                    task_token_name(&task, ans[i], name, sizeof name);
                    tw += snprintf(tail + tw, sizeof tail - (size_t)tw, " %s", name);
                }
                snprintf(tail + tw, sizeof tail - (size_t)tw, "   %s\n", pass ? "right" : "WRONG");
                const char *end = strchr(line, '\n');
                ck_assert_msg(end && strncmp(line, "  ", 2) == 0, "n = %d: line %d missing:\n%s",
                              n, listed, buf);
                size_t ll = (size_t)(end + 1 - line), tl = strlen(tail);
                ck_assert_msg(ll >= tl && strncmp(end + 1 - tl, tail, tl) == 0,
                              "n = %d, line %d (example %d): '%.*s', want it to end '%s'", n,
                              listed, b, (int)ll, line, tail);
                line = end + 1;
                listed++;
            }
        ck_assert_msg(*line == 0, "n = %d: more lines than %d:\n%s", n, listed, line);
        free(buf);
    }
}
END_TEST

TU_MAIN_FIXTURE("evaluate", setup, teardown, test_validation_pass, test_greedy, test_bits_per_byte,
                test_text_answer_acc_is_token_acc, test_examples_wrong_first);
