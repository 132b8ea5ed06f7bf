/* test_sample.c: the sampler and generation (src/train/sample.c). Draw frequencies at each
 * temperature and top-k within a tolerance of the probabilities computed here in long double;
 * temperature 0 and top-k 1 are the argmax, ties to the lowest id; generation slides its context
 * exactly as a greedy decoding done here; the byte escaping round-trips all 256 values through
 * an unescaper written here; sample.txt is written whole, never through a link; and ./train
 * --eval --prompt --generate on a tiny trained sort run: greedy equals a decoding done here from
 * the checkpoint, a seed reproduces its bytes, bad options are refused with exit code 2. */
#include "train/sample.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "temp_names.h"
#include "testutil.h"
#include "tinyrun.h"

#define MAXV 8

/* The exact probabilities of the sampler's rule, computed here: candidates by a selection sort
 * on (logit descending, id ascending), then softmax at temperature in long double. */
static void exact_probs(const real *z, int V, double temperature, int top_k, long double *p) {
    int order[MAXV];
    for (int v = 0; v < V; v++) order[v] = v;
    for (int i = 0; i < V; i++)
        for (int j = i + 1; j < V; j++)
            if (z[order[j]] > z[order[i]] || (z[order[j]] == z[order[i]] && order[j] < order[i])) {
                int s = order[i];
                order[i] = order[j];
                order[j] = s;
            }
    int k = top_k == 0 || top_k > V ? V : top_k;
    long double top = z[order[0]], sum = 0;
    for (int v = 0; v < V; v++) p[v] = 0;
    for (int i = 0; i < k; i++) sum += p[order[i]] = expl(((long double)z[order[i]] - top) / temperature);
    for (int v = 0; v < V; v++) p[v] /= sum;
}

static const struct {
    real z[MAXV];
    int V;
    double temperature;
    int top_k;
} DRAWS[] = {
    {{1, 2, 0.5f, 2, -1}, 5, 1, 0},
    {{1, 2, 0.5f, 2, -1}, 5, 1, 5},        /* k = V: every token */
    {{1, 2, 0.5f, 2, -1}, 5, 0.5, 3},      /* ids 1, 3, then 0 */
    {{1, 2, 0.5f, 2, -1}, 5, 2, 2},        /* the two tied maxima */
    {{1, 2, 0.5f, 2, -1}, 5, 3, 4},
    {{2, 2, 2, 1}, 4, 1, 2},               /* a tie at the cut: ids 0 and 1, never 2 */
    {{-3, 0.25f, 4, 1, 1, 1, -2, 0}, 8, 0.7, 0},
    {{1000, 999, 998, -1000}, 4, 1, 0},    /* exp(1000) overflows: the max must come off */
    {{-1000, -1001, -1002}, 3, 0.5, 0},    /* exp(-2000) underflows likewise */
};

START_TEST(test_frequencies_match_exact_probabilities) {
    const int N = 200000;
    for (size_t c = 0; c < sizeof DRAWS / sizeof *DRAWS; c++) {
        int V = DRAWS[c].V, top[MAXV];
        long double want[MAXV];
        double p[MAXV];
        long count[MAXV] = {0};
        exact_probs(DRAWS[c].z, V, DRAWS[c].temperature, DRAWS[c].top_k, want);
        Rng rng;
        rng_seed(&rng, 42 + c);
        for (int n = 0; n < N; n++) {
            int v = sample_next(DRAWS[c].z, V, DRAWS[c].temperature, DRAWS[c].top_k, &rng, p, top);
            TU_CHECK_MSG(v >= 0 && v < V, "case %zu: token %d", c, v);
            count[v]++;
        }
        for (int v = 0; v < V; v++) {
            double f = (double)count[v] / N, e = (double)want[v];
            double tol = 5 * sqrt(e * (1 - e) / N) + 1e-12; /* five standard deviations */
            ck_assert_msg(fabs(f - e) <= tol, "case %zu: token %d drawn %.5f, exact %.5f (tol %.5f)",
                          c, v, f, e, tol);
            if (e == 0) ck_assert_msg(count[v] == 0, "case %zu: token %d is not a candidate", c, v);
        }
    }
}
END_TEST

/* Temperature 0 at any top-k, and top-k 1 at any temperature: the argmax (by hand), lowest id on
 * ties; no draw is taken. */
START_TEST(test_greedy_rules) {
    static const struct {
        real z[MAXV];
        int V, argmax;
    } CASES[] = {
        {{1, 3, 3, 0}, 4, 1},  {{5, 1, 2}, 3, 0},         {{-2, -1, -1.5f}, 3, 1},
        {{0, 0, 0, 0, 7}, 5, 4}, {{4, 4, 4, 4}, 4, 0},    {{-1e30f, 2, 1e30f, 1e30f}, 4, 2},
    };
    static const struct { double temperature; int top_k; } RULES[] = {
        {0, 0}, {0, 1}, {0, 3}, {1, 1}, {5, 1}, {1e-3, 1},
    };
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; c++)
        for (size_t r = 0; r < sizeof RULES / sizeof *RULES; r++) {
            Rng rng, before;
            rng_seed(&rng, 9);
            before = rng;
            double p[MAXV];
            int top[MAXV];
            int v = sample_next(CASES[c].z, CASES[c].V, RULES[r].temperature, RULES[r].top_k, &rng,
                                p, top);
            ck_assert_msg(v == CASES[c].argmax, "case %zu rule %zu: %d, want %d", c, r, v,
                          CASES[c].argmax);
            ck_assert_msg(memcmp(&rng, &before, sizeof rng) == 0, "case %zu rule %zu drew", c, r);
        }
}
END_TEST

/* The reader of the escaping, written here: "\\" is '\', "\xHH" byte HH, anything else itself.
 * Returns the number of bytes, or -1 on a malformed escape. */
static int unescape(const char *s, unsigned char *out) {
    int n = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] != '\\') {
            out[n++] = (unsigned char)s[i];
        } else if (s[i + 1] == '\\') {
            out[n++] = '\\';
            i++;
        } else if (s[i + 1] == 'x' && s[i + 2] && s[i + 3]) {
            unsigned hi, lo;
            char h[3] = {s[i + 2], 0, 0}, l[3] = {s[i + 3], 0, 0};
            if (sscanf(h, "%1x", &hi) != 1 || sscanf(l, "%1x", &lo) != 1) return -1;
            out[n++] = (unsigned char)(hi * 16 + lo);
            i += 3;
        } else {
            return -1;
        }
    }
    return n;
}

START_TEST(test_escape) {
    static const struct { const char *in, *out; } CASES[] = {
        {"plain text, 0-9 ~!", "plain text, 0-9 ~!"}, {"a\\b", "a\\\\b"}, {"\n", "\n"},
        {"\t", "\\x09"}, {"\r\n", "\\x0d\n"}, {"\x7f", "\\x7f"}, {"\xff\x80", "\\xff\\x80"},
        {"\x1b[0m", "\\x1b[0m"}, {"\\x41", "\\\\x41"}, {"", ""},
    };
    char out[64];
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; c++) {
        size_t n = sample_escape((const unsigned char *)CASES[c].in, strlen(CASES[c].in), out);
        ck_assert_msg(strcmp(out, CASES[c].out) == 0, "case %zu: '%s', want '%s'", c, out,
                      CASES[c].out);
        ck_assert_uint_eq(n, strlen(CASES[c].out));
    }
    /* every byte value, each alone and all in a row, comes back */
    unsigned char all[256], back[256];
    char esc[4 * 256 + 1];
    for (int b = 0; b < 256; b++) {
        all[b] = (unsigned char)b;
        sample_escape(all + b, 1, esc);
        ck_assert_msg(unescape(esc, back) == 1 && back[0] == b, "byte %d: '%s'", b, esc);
    }
    size_t n = sample_escape(all, 256, esc);
    ck_assert_uint_eq(n, strlen(esc));
    ck_assert_int_eq(unescape(esc, back), 256);
    ck_assert(memcmp(all, back, 256) == 0);
    for (size_t i = 0; i < n; i++) /* printable ASCII and newlines only */
        ck_assert_msg(esc[i] == '\n' || (esc[i] >= 0x20 && esc[i] < 0x7f), "char %zu: %d", i, esc[i]);
}
END_TEST

/* A random model: V tokens, contexts up to max_T. */
static void random_model(Model *m, int V, int max_T) {
    ModelConfig mc = {.vocab_size = V, .d_model = 8, .n_heads = 2, .n_layers = 1, .d_ff = 16,
                      .max_seq_len = max_T, .ln_eps = 1e-5f, .scale = 0.5f, .qk_norm = 0};
    ck_assert_int_eq(model_build(m, &mc, 1), 0);
    Rng rng;
    rng_seed(&rng, 11);
    model_init_fan_in(m, &rng);
}

/* Greedy generation done here: the last min(len, ctx) tokens forward, argmax at the last. */
static void greedy_here(Model *m, int ctx, const int *prompt, int n_prompt, int n_new, int *out) {
    int seq[512], targets[512] = {0}, V = m->cfg.vocab_size;
    float mask[512] = {0};
    memcpy(seq, prompt, sizeof(int) * (size_t)n_prompt);
    for (int len = n_prompt; len < n_prompt + n_new; len++) {
        int w = len < ctx ? len : ctx;
        model_forward(m, seq + len - w, targets, mask, 1, w);
        const real *z = m->logits + (size_t)(w - 1) * V;
        int best = 0;
        for (int v = 1; v < V; v++)
            if (z[v] > z[best]) best = v;
        seq[len] = best;
    }
    memcpy(out, seq + n_prompt, sizeof(int) * (size_t)n_new);
}

START_TEST(test_generate_slides_its_context) {
    Model m;
    random_model(&m, 7, 5);
    static const struct { int prompt[6], n_prompt, ctx, n_new; } CASES[] = {
        {{3}, 1, 5, 12},                 /* fills the context, then slides */
        {{1, 2, 3, 4, 5, 6}, 6, 5, 4},   /* a prompt longer than the context */
        {{0, 6, 2}, 3, 3, 9},            /* a context shorter than the model's */
        {{4, 4}, 2, 1, 5},               /* one token of context */
    };
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; c++) {
        int got[64], want[64];
        SampleOptions o = {.n_new = CASES[c].n_new, .temperature = 0, .top_k = 0, .seed = 1};
        ck_assert_int_eq(sample_generate(&m, CASES[c].ctx, CASES[c].prompt, CASES[c].n_prompt, &o,
                                         got), 0);
        greedy_here(&m, CASES[c].ctx, CASES[c].prompt, CASES[c].n_prompt, CASES[c].n_new, want);
        for (int i = 0; i < CASES[c].n_new; i++)
            ck_assert_msg(got[i] == want[i], "case %zu token %d: %d, want %d", c, i, got[i], want[i]);
    }
    /* a seed gives the same tokens again; a context beyond the model's is refused */
    int a[40], b[40];
    SampleOptions o = {.n_new = 40, .temperature = 2, .top_k = 5, .seed = 77};
    int prompt[2] = {1, 2};
    ck_assert_int_eq(sample_generate(&m, 5, prompt, 2, &o, a), 0);
    ck_assert_int_eq(sample_generate(&m, 5, prompt, 2, &o, b), 0);
    ck_assert(memcmp(a, b, sizeof a) == 0);
    TuCapture ce;
    tu_capture_begin(&ce, 2);
    int rc = sample_generate(&m, 6, prompt, 2, &o, a);
    int bad_id[1] = {7};
    int rc2 = sample_generate(&m, 5, bad_id, 1, &o, a);
    char *err = tu_capture_end(&ce);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(rc2, -1);
    ck_assert_msg(strstr(err, "outside the vocabulary"), "%s", err);
    free(err);
    model_free(&m);
}
END_TEST

static char tmpdir[256];

/* sample.txt: the comment lines, then the escaped prompt and greedy continuation, read back
 * through the unescaper here; a link at path is replaced, a link at its first temporary name
 * (util/whole_write.h: NAME.tmp.PID.0) is neither written through nor removed, and no
 * temporary file of the write is left. */
START_TEST(test_write_file) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_sample_XXXXXX");
    Model m;
    random_model(&m, 256, 16);
    int prompt[32];
    static const char P[] = "In the \\ beginning\n\tGod \x01\xfe created";
    for (int i = 0; i < 32; i++) prompt[i] = (unsigned char)P[i];
    SampleOptions o = {.n_new = 40, .temperature = 0, .top_k = 0, .seed = 1};
    int want[40];
    greedy_here(&m, 16, prompt, 32, 40, want);
    char path[400], victim[400], tmp[460];
    snprintf(path, sizeof path, "%s/sample.txt", tmpdir);
    snprintf(victim, sizeof victim, "%s/victim.txt", tmpdir);
    ck_assert_int_eq(atomic_temp_name(path, (long)getpid(), 0, tmp, sizeof tmp), 0);
    tu_write_file(victim, "the user's\n");
    ck_assert_int_eq(symlink(victim, path), 0);
    ck_assert_int_eq(symlink(victim, tmp), 0);
    ck_assert_int_eq(sample_write_file(path, &m, 16, prompt, 32, &o), 0);
    char *victim_text = tu_read_file(victim, NULL);
    ck_assert_str_eq(victim_text, "the user's\n");
    free(victim_text);
    ck_assert_int_eq(unlink(tmp), 0); /* the planted link, left alone ... */
    temp_names_assert_none(tmpdir);   /* ... and no temporary file of the write's */
    char *text = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    static const char HEAD[] = "# sample: temperature 0, top-k 0, seed 1, 40 bytes after a "
                               "32-byte prompt\n# prompt: ";
    ck_assert_msg(strncmp(text, HEAD, strlen(HEAD)) == 0, "%s", text);
    const char *body = strchr(strchr(text, '\n') + 1, '\n') + 1;
    size_t n_chars = 0;
    ck_assert_int_eq(sscanf(strchr(text, '\n') + 1, "# prompt: %zu characters", &n_chars), 1);
    /* 32 bytes: 27 printable as they are, the backslash doubled, the newline as it is, and
     * \x09 \x01 \xfe four characters each */
    ck_assert_uint_eq(n_chars, 27 + 2 + 1 + 3 * 4);
    size_t blen = strlen(body);
    ck_assert(blen > 0 && body[blen - 1] == '\n');
    char *copy = strndup(body, blen - 1);
    unsigned char bytes[4 * 72];
    ck_assert_int_eq(unescape(copy, bytes), 72);
    unsigned char prompt_back[32];
    char *prompt_part = strndup(body, n_chars);
    ck_assert_int_eq(unescape(prompt_part, prompt_back), 32);
    for (int i = 0; i < 32; i++) ck_assert_int_eq(bytes[i], prompt[i]);
    for (int i = 0; i < 40; i++) ck_assert_msg(bytes[32 + i] == want[i], "byte %d", i);
    free(prompt_part);
    free(copy);
    free(text);
    /* again with the link where the first temporary file goes: not followed, its target left
     * alone, and left itself (never removed: it is not ours) */
    ck_assert_int_eq(symlink(victim, tmp), 0);
    ck_assert_int_eq(sample_write_file(path, &m, 16, prompt, 32, &o), 0);
    ck_assert_int_eq(unlink(tmp), 0);
    temp_names_assert_none(tmpdir);
    char *again = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(again);
    ck_assert(strncmp(again, HEAD, strlen(HEAD)) == 0);
    free(again);
    victim_text = tu_read_file(victim, NULL);
    ck_assert_str_eq(victim_text, "the user's\n");
    free(victim_text);
    model_free(&m);
    tu_remove_tree(tmpdir);
}
END_TEST

/* A text run's sample: the first 32 tokens of validation example 0 (here all 16 of a shorter
 * context) and 200 greedy bytes, in run_dir/sample.txt. */
START_TEST(test_write_run) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_sample_XXXXXX");
    Model m;
    random_model(&m, 256, 16);
    int val[2 * 16];
    for (int i = 0; i < 32; i++) val[i] = (i * 37 + 5) % 256;
    Task t = {.seq_len = 16, .n_val = 2, .val_tokens = val, .vocab_size = 256};
    ck_assert_int_eq(sample_write_run(tmpdir, &m, &t), 0);
    int want[200];
    greedy_here(&m, 16, val, 16, 200, want);
    char path[400];
    snprintf(path, sizeof path, "%s/sample.txt", tmpdir);
    char *text = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    static const char HEAD[] = "# sample: temperature 0, top-k 0, seed 1, 200 bytes after a "
                               "16-byte prompt\n";
    ck_assert_msg(strncmp(text, HEAD, strlen(HEAD)) == 0, "%.200s", text);
    char *body = strchr(strchr(text, '\n') + 1, '\n') + 1;
    body[strlen(body) - 1] = 0; /* the final newline */
    unsigned char bytes[4 * 216 + 1];
    ck_assert_int_eq(unescape(body, bytes), 216);
    for (int i = 0; i < 16; i++) ck_assert_int_eq(bytes[i], val[i]);
    for (int i = 0; i < 200; i++) ck_assert_msg(bytes[16 + i] == want[i], "byte %d", i);
    free(text);
    model_free(&m);
    tu_remove_tree(tmpdir);
}
END_TEST

static void train_tiny(void) {
    tiny_train(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_sample_XXXXXX", "sort");
}

/* The greedy continuation of the sort prompt p[0..3) SEP from the checkpoint, done here with
 * greedy_here at the task's length (T = 6). */
static void checkpoint_greedy(const int *p, int n_new, int *out) {
    Model m;
    Task t;
    tiny_load(tmpdir, &m, &t);
    int prompt[4] = {p[0], p[1], p[2], t.sep};
    greedy_here(&m, 6, prompt, 4, n_new, out);
    model_free(&m);
    task_free(&t);
}

START_TEST(test_generate_command) {
    train_tiny();
    static const int prompts[][3] = {{5, 0, 3}, {1, 1, 4}};
    for (size_t k = 0; k < 2; k++) {
        const int *p = prompts[k];
        int ans[10];
        checkpoint_greedy(p, 10, ans);
        char args[160], want[200];
        snprintf(args, sizeof args, "--eval runs/t --prompt \"%d %d %d |\" --generate 10 "
                                    "--temperature 0", p[0], p[1], p[2]);
        ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
        int n = snprintf(want, sizeof want, "prompt: %d %d %d <sep>   generated:", p[0], p[1], p[2]);
        static const char *const NAMES[8] = {"0", "1", "2", "3", "4", "5", "<sep>", "<pad>"};
        for (int i = 0; i < 10; i++)
            n += snprintf(want + n, sizeof want - (size_t)n, " %s", NAMES[ans[i]]);
        snprintf(want + n, sizeof want - (size_t)n, "\n");
        ck_assert_msg(tu_train_output_contains(tmpdir, want), "case %zu: want '%s'", k, want);
    }
    /* the same seed and options: the same bytes; the output file is compared whole */
    char first[300], again[300];
    snprintf(first, sizeof first, "%s/first.txt", tmpdir);
    snprintf(again, sizeof again, "%s/out.txt", tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, "--eval runs/t --prompt \"2 0 4 <sep>\" --generate 30 "
                                          "--temperature 1.5 --top-k 5 --seed 12345"), 0);
    ck_assert_int_eq(rename(again, first), 0);
    ck_assert_int_eq(tu_run_train(tmpdir, "--eval runs/t --prompt \"2 0 4 <sep>\" --generate 30 "
                                          "--temperature 1.5 --top-k 5 --seed 12345"), 0);
    char *a = tu_read_file(first, NULL), *b = tu_read_file(again, NULL);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(a, b);
    ck_assert_msg(strncmp(a, "prompt: 2 0 4 <sep>   generated: ", 33) == 0, "%s", a);
    free(a);
    free(b);
    static const struct { const char *args, *says; } BAD[] = {
        {"--eval runs/t --prompt \"1 2\" --generate 3 --top-k 9",
         "error: --top-k (argument 8): 9 is larger than the vocabulary (8 tokens)\n"},
        {"--eval runs/t --prompt \"1 x\" --generate 3",
         "error: --prompt (argument 4): 'x' (token 2) is not in the task's vocabulary"},
        {"--eval runs/t --prompt \" \" --generate 3", "error: --prompt (argument 4): no symbols given"},
        {"--eval runs/t --prompt \"1\" --generate 0",
         "error: --generate (argument 6): needs a number of tokens from 1"},
        {"--eval runs/t --prompt \"1\" --generate 3 --temperature -1",
         "error: --temperature (argument 8): needs a finite"},
    };
    for (size_t k = 0; k < sizeof BAD / sizeof *BAD; k++) {
        ck_assert_msg(tu_run_train(tmpdir, BAD[k].args) == 2, "case %zu: exit code", k);
        ck_assert_msg(tu_train_output_contains(tmpdir, BAD[k].says), "case %zu: no '%s'", k,
                      BAD[k].says);
    }
    tu_remove_tree(tmpdir);
}
END_TEST

TU_MAIN_TIMEOUT("sample", 120, test_frequencies_match_exact_probabilities, test_greedy_rules,
                test_escape, test_generate_slides_its_context, test_write_file, test_write_run,
                test_generate_command);
