/* test_mup.c: the preset model.param = mup (Yang et al. 2022, Tensor Programs V, Table 3 for Adam;
 * microsoft/mup's MuReadout and MuAdamW), as src/train/run_setup.c applies it with the width
 * multiplier m = model.d_model / model.base_width:
 *
 *   - at m = 1 (d_model 128, base width 128) the preset is standard but for W_q's zero init: a
 *     standard run whose step-0 checkpoint has W_q (and its bias) set to 0 here, then resumed,
 *     and the mup run end in the same parameters, bit for bit, with the same logged losses after
 *     step 0 (a preset that touched anything else at m = 1 would differ);
 *   - at m = 2 (d_model 64, base width 32), from the same seed: W_q is 0, head.weight is √2
 *     times standard's (to float rounding, computed here in double), every other tensor is
 *     standard's bit for bit; the logits of the same parameters are half standard's (exact: a
 *     power of two); the optimizer gets the hidden rate 1/2; and the tensors the rate multiplies
 *     (TensorInfo.hidden) are exactly the blocks' weight matrices, listed here by hand for both
 *     blocks (not the embeddings, not head.weight, no 1-D tensor); the step-0 logit std predicted
 *     from the config is 0. The rate itself is
 *     tests/test_optim.c's, the readout's gradient tests/test_model.c's;
 *   - init.k_mult still scales W_k under mup (init.q_mult, whose W_q mup zeroes, is refused:
 *     tests/test_validate.c). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "model/model.h"
#include "optim/optim.h"
#include "tasks/tasks.h"
#include "testutil.h"
#include "train/checkpoint.h"
#include "train/checkpoint_config.h"
#include "train/train.h"

static char tmp[256];

static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/scaledot_test_mup_XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

/* A config of the sort task in tmp/name with the common settings and the extra --set lines. */
static void make_config(Config *c, const char *name, int steps, const char *const *sets) {
    static const char *const common[] = {
        "task.name=sort", "task.length=4", "task.symbols=8", "task.val_size=32",
        "model.n_layers=2", "model.n_heads=2", "train.batch_size=8", "train.eval_every=10",
        "log.every=1", "log.progress=0", "run.threads=1", "optim.lr=3e-3",
        "optim.weight_decay=0.1", "optim.warmup_steps=5", "train.checkpoint_every=0",
        "init.scheme=gpt2", NULL,
    };
    char where[3][CONFIG_STR + 64];
    snprintf(where[0], sizeof where[0], "run.dir=%s", tmp);
    snprintf(where[1], sizeof where[1], "run.name=%s", name);
    snprintf(where[2], sizeof where[2], "train.steps=%d", steps);
    const char *const *lists[] = {common, (const char *const[]){where[0], where[1], where[2], NULL},
                                  sets};
    config_defaults(c);
    for (int l = 0; l < 3; l++)
        for (int i = 0; lists[l][i]; i++) ck_assert_int_eq(config_set(c, lists[l][i], 1), 0);
    ck_assert_int_eq(config_validate(c), 0);
}

static void ckpt_path(char *out, size_t n, const char *name) {
    snprintf(out, n, "%s/%s/checkpoint.bin", tmp, name);
}

/* A run's checkpoint loaded into *m (built from its own config; caller frees), *st its state,
 * *o its optimizer (caller frees). */
static void load_ckpt(const char *name, Config *c, Model *m, Optimizer *o, CheckpointState *st) {
    char ck[400];
    ckpt_path(ck, sizeof ck, name);
    config_defaults(c);
    ck_assert_int_eq(checkpoint_load_config(ck, c, NULL), 0);
    Task t;
    ck_assert_int_eq(task_init(&t, c), 0);
    ModelConfig mc = train_model_config(c, &t);
    task_free(&t);
    ck_assert_int_eq(model_build(m, &mc, c->batch_size), 0);
    ck_assert_int_eq(train_optim_init(o, c, m->n_params), 0);
    ck_assert_int_eq(checkpoint_load(ck, m, o, st), 0);
}

/* loss.csv's rows after step 0, their first five columns (step, train_loss, val_loss and the
 * accuracies; not the elapsed time, not the gradient norm's column beyond them). */
static char *rows_after_step0(const char *name) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s/loss.csv", tmp, name);
    char *text = tu_read_file(path, NULL);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    char *out = tu_csv_columns(text, 5, 1, "0,");
    ck_assert_ptr_nonnull(out);
    free(text);
    return out;
}

/* Runs a and b (their extra --set lines sa, sb) trained to step 0, each loaded back: its config,
 * model and optimizer (caller frees the last two). */
static void step0_pair(const char *a, const char *const *sa, Config *ca, Model *ma, Optimizer *oa,
                       const char *b, const char *const *sb, Config *cb, Model *mb,
                       Optimizer *ob) {
    Config c;
    CheckpointState st;
    make_config(&c, a, 0, sa);
    ck_assert_int_eq(train_run(&c), EXIT_OK);
    make_config(&c, b, 0, sb);
    ck_assert_int_eq(train_run(&c), EXIT_OK);
    load_ckpt(a, ca, ma, oa, &st);
    load_ckpt(b, cb, mb, ob, &st);
}

static int is_query_entry(const TensorInfo *t, size_t k) {
    return t->qkv_thirds && k < t->numel / 3;
}

enum { STEPS = 30 };

START_TEST(test_mup_at_width_1_is_standard_with_zero_wq) {
    Config cs, cm;
    const char *const std_sets[] = {"model.d_model=128", NULL};
    const char *const mup_sets[] = {"model.d_model=128", "model.param=mup",
                                    "model.base_width=128", NULL};
    /* standard to step 0, W_q set to 0 in its checkpoint, then on to STEPS */
    make_config(&cs, "std", 0, std_sets);
    ck_assert_int_eq(train_run(&cs), EXIT_OK);
    Config cl;
    Model m;
    Optimizer o;
    CheckpointState st;
    load_ckpt("std", &cl, &m, &o, &st);
    ck_assert_int_eq(st.step, 0);
    for (int i = 0; i < m.n_tensors; i++)
        for (size_t k = 0; k < m.tensors[i].numel; k++)
            if (is_query_entry(&m.tensors[i], k)) m.params[m.tensors[i].offset + k] = 0;
    char ck[400], *text = NULL;
    ckpt_path(ck, sizeof ck, "std");
    ck_assert_int_eq(checkpoint_read_config(ck, &text), 0);
    ck_assert_int_eq(checkpoint_save(ck, text, &m, &o, &st), 0);
    free(text);
    optim_free(&o);
    model_free(&m);
    make_config(&cs, "std", STEPS, std_sets);
    ck_assert_int_eq(train_run_from(&cs, ck, NULL), EXIT_OK);
    make_config(&cm, "mup", STEPS, mup_sets);
    ck_assert_int_eq(train_run(&cm), EXIT_OK);

    Model ms, mm;
    Optimizer os, om;
    CheckpointState ss, sm;
    load_ckpt("std", &cl, &ms, &os, &ss);
    Config cl2;
    load_ckpt("mup", &cl2, &mm, &om, &sm);
    ck_assert_int_eq(ss.step, STEPS);
    ck_assert_int_eq(sm.step, STEPS);
    ck_assert_int_eq(ms.n_params, mm.n_params);
    size_t n_diff = 0;
    for (size_t k = 0; k < ms.n_params; k++) n_diff += ms.params[k] != mm.params[k];
    char *rs = rows_after_step0("std"), *rm = rows_after_step0("mup");
    printf("mup at width multiplier 1 against standard with W_q zeroed: %zu of %zu parameters "
           "differ after %d steps; loss.csv after step 0 %s\n", n_diff, ms.n_params, STEPS,
           strcmp(rs, rm) == 0 ? "identical" : "DIFFERS");
    ck_assert_msg(n_diff == 0, "%zu parameters differ", n_diff);
    ck_assert_msg(strlen(rs) > 0 && strcmp(rs, rm) == 0, "the logged losses differ:\n%s\n---\n%s",
                  rs, rm);
    free(rs);
    free(rm);
    optim_free(&os);
    optim_free(&om);
    model_free(&ms);
    model_free(&mm);
}
END_TEST

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The blocks' weight matrices, from the reference README's tensor tables (gpt2, llama). */
static int is_hidden_by_hand(const char *name) {
    static const char *const hidden[] = {"attn.qkv.weight", "attn.proj.weight", "mlp.fc.weight",
                                         "mlp.proj.weight", "mlp.gate.weight", "mlp.up.weight",
                                         "mlp.down.weight"};
    for (size_t i = 0; i < sizeof hidden / sizeof *hidden; i++)
        if (ends_with(name, hidden[i])) return 1;
    return 0;
}

/* _i = 0 gpt2, 1 llama */
START_TEST(test_mup_at_width_2) {
    const char *block = _i ? "model.block=llama" : "model.block=gpt2";
    Config ls, lm;
    Model ms, mm;
    Optimizer os, om;
    step0_pair("std2", (const char *const[]){"model.d_model=64", block, NULL}, &ls, &ms, &os,
               "mup2", (const char *const[]){"model.d_model=64", block, "model.param=mup",
                                             "model.base_width=32", NULL},
               &lm, &mm, &om);
    ck_assert_int_eq(ms.n_params, mm.n_params);
    int n_hidden = 0;
    for (int i = 0; i < ms.n_tensors; i++) {
        const TensorInfo *t = &ms.tensors[i];
        ck_assert_msg(t->hidden == is_hidden_by_hand(t->name), "%s: hidden %d", t->name,
                      t->hidden);
        n_hidden += t->hidden;
        int head = strcmp(t->name, "head.weight") == 0;
        for (size_t k = 0; k < t->numel; k++) {
            double s = ms.params[t->offset + k], u = mm.params[t->offset + k];
            if (is_query_entry(t, k))
                ck_assert_msg(u == 0, "%s[%zu] = %g, want 0", t->name, k, u);
            else if (head)
                ck_assert_msg(fabs(u - sqrt(2.0) * s) <= 1.2e-7 * fabs(sqrt(2.0) * s),
                              "head.weight[%zu] = %.9g, want sqrt(2) x %.9g", k, u, s);
            else
                ck_assert_msg(u == s, "%s[%zu] = %.9g, standard's %.9g", t->name, k, u, s);
        }
    }
    ck_assert_int_eq(n_hidden, 2 * (_i ? 5 : 4));
    /* the hidden rate 1/m, and the logits of the same parameters half standard's */
    ck_assert(om.lr_hidden_mult == 0.5 && os.lr_hidden_mult == 1.0);
    ck_assert(mm.cfg.readout_mult == (real)0.5);
    /* W_q = 0 (bias too): every step-0 logit is 0, and so is the std init_check.txt predicts */
    ck_assert(train_predicted_logit_std(&lm) == 0.0 && train_predicted_logit_std(&ls) > 0.0);
    memcpy(mm.params, ms.params, ms.n_params * sizeof(real));
    Task t;
    ck_assert_int_eq(task_init(&t, &ls), 0);
    int B = 8, T = t.seq_len, V = ms.cfg.vocab_size;
    model_forward(&ms, t.val_tokens, t.val_targets, t.val_mask, B, T);
    model_forward(&mm, t.val_tokens, t.val_targets, t.val_mask, B, T);
    for (size_t k = 0; k < (size_t)B * T * V; k++)
        ck_assert_msg(mm.logits[k] == (real)0.5 * ms.logits[k], "logit %zu: %.9g, standard's %.9g",
                      k, (double)mm.logits[k], (double)ms.logits[k]);
    task_free(&t);
    optim_free(&os);
    optim_free(&om);
    model_free(&ms);
    model_free(&mm);
}
END_TEST

/* init.k_mult is read under mup (config_validate refuses only init.q_mult there): from the same
 * seed, k_mult = 2 makes every W_k entry (key third of attn.qkv.weight and .bias) exactly twice
 * the run's without it (a power of two: exact in float), W_q is 0 in both, every other parameter
 * is the same, bit for bit. Step 0 checkpoints. */
START_TEST(test_mup_reads_k_mult) {
    const char *const plain[] = {"model.d_model=64", "model.param=mup", "model.base_width=32",
                                 NULL};
    const char *const with_k[] = {"model.d_model=64", "model.param=mup", "model.base_width=32",
                                  "init.k_mult=2", NULL};
    Config c1, c2;
    Model m1, m2;
    Optimizer o1, o2;
    step0_pair("plain", plain, &c1, &m1, &o1, "k2", with_k, &c2, &m2, &o2);
    size_t n_key = 0, n_query = 0;
    for (int i = 0; i < m1.n_tensors; i++) {
        const TensorInfo *t = &m1.tensors[i];
        for (size_t k = 0; k < t->numel; k++) {
            double a = m1.params[t->offset + k], b = m2.params[t->offset + k];
            int key = t->qkv_thirds && k >= t->numel / 3 && k < 2 * (t->numel / 3);
            if (is_query_entry(t, k)) {
                ck_assert_msg(a == 0 && b == 0, "%s[%zu]: W_q %g, %g", t->name, k, a, b);
                n_query++;
            } else if (key) {
                ck_assert_msg(b == 2 * a, "%s[%zu]: %g is not 2 x %g", t->name, k, b, a);
                n_key += a != 0;
            } else {
                ck_assert_msg(a == b, "%s[%zu]: %g != %g", t->name, k, a, b);
            }
        }
    }
    ck_assert_msg(n_key > 0 && n_query > 0, "%zu nonzero key entries, %zu query entries", n_key,
                  n_query);
    optim_free(&o1);
    optim_free(&o2);
    model_free(&m1);
    model_free(&m2);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("mup", setup, teardown, 60, test_mup_at_width_1_is_standard_with_zero_wq,
                        TU_LOOP(test_mup_at_width_2, 0, 2), test_mup_reads_k_mult);
