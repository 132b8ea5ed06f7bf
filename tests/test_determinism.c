/* test_determinism.c: the numbers do not depend on the thread count.
 *
 * Every kernel gives each output element one writer thread and a summation order fixed by the
 * shapes alone (matmul.c, attention.c), so a run must be bitwise the same on 1, 2, 3 or 4
 * threads. Checked three ways, each at shapes where OpenMP really splits the work into several
 * chunks per thread (with 12-row tiles, N = B·T rows give N/12 strips to share out):
 *   - kernels: matmul forward/backward and attention forward/backward outputs, bitwise, on
 *     1..4 threads, with and without the caller's packing scratch; attention_backward's
 *     softmax pass-through sums (AttnGradStats) too;
 *   - model: 5 AdamW steps of a 2-layer model (N = 288 rows: 24 strips; 48 (batch, head)
 *     pairs): the loss and every parameter gradient at every step, the final parameters, and
 *     the pass-through statistics of a model_backward_diag after the last step; the same for
 *     the model with qk-norm;
 *   - train_run: 30 logged steps of the recall task on 1, 2 and 4 threads (run.threads):
 *     loss.csv without its elapsed_s and tokens_per_s columns, grad_norms.csv and attention.csv
 *     (softmax_pass, blocked_rows, ...), byte for byte, so exactly the logged numbers are
 *     proven equal.
 * Without OpenMP the thread count is ignored and the test passes trivially. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "config/config.h"
#include "model/attention.h"
#include "model/matmul.h"
#include "model/model.h"
#include "optim/optim.h"
#include "train/train.h"
#include "gradcheck.h"
#include "testutil.h"
#include "util/rng.h"

static const int thread_counts[] = {1, 2, 3, 4};
enum { N_COUNTS = sizeof thread_counts / sizeof thread_counts[0] };

static void set_threads(int n) {
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

static void assert_same(const real *a, const real *b, size_t n, const char *what, int threads) {
    for (size_t i = 0; i < n; i++)
        TU_CHECK_MSG(memcmp(&a[i], &b[i], sizeof(real)) == 0,
                     "%s[%zu] differs on %d threads: %.9g vs %.9g on 1 thread", what, i, threads,
                     (double)b[i], (double)a[i]);
}

/* ---- kernels ----------------------------------------------------------------------------- */

START_TEST(test_matmul_is_thread_count_independent) {
    /* 300 rows = 25 strips of 12; 200 columns = 7 panels (one partial); K = 300 > one K block */
    enum { N = 300, C = 300, OC = 200 };
    Rng rng;
    rng_seed(&rng, 7);
    real *x = gc_normal_array((size_t)N * C, &rng), *w = gc_normal_array((size_t)OC * C, &rng);
    real *b = gc_normal_array(OC, &rng), *dy = gc_normal_array((size_t)N * OC, &rng);
    size_t len = matmul_scratch_len(C);
    real *scratch = malloc(len * sizeof(real));
    real *ref[4] = {NULL}, *got[4];
    size_t sizes[4] = {(size_t)N * OC, (size_t)N * C, (size_t)OC * C, OC};
    const char *names[4] = {"out", "dinp", "dweight", "dbias"};
    for (int t = 0; t < N_COUNTS; t++)
        for (int with_scratch = 0; with_scratch < 2; with_scratch++) {
            set_threads(thread_counts[t]);
            for (int k = 0; k < 4; k++) got[k] = calloc(sizes[k], sizeof(real));
            matmul_forward_scratch(got[0], x, w, b, N, C, OC, with_scratch ? scratch : NULL, len);
            matmul_backward_scratch(got[1], got[2], got[3], dy, x, w, N, C, OC,
                                    with_scratch ? scratch : NULL, len);
            for (int k = 0; k < 4; k++) {
                if (!ref[k]) {
                    ref[k] = got[k];
                    continue;
                }
                assert_same(ref[k], got[k], sizes[k], names[k], thread_counts[t]);
                free(got[k]);
            }
        }
    for (int k = 0; k < 4; k++) free(ref[k]);
    free(x), free(w), free(b), free(dy), free(scratch);
}
END_TEST

START_TEST(test_attention_is_thread_count_independent) {
    /* B·NH = 12 (batch, head) pairs; T = 40 crosses tile edges (12-row strips, 32 columns) */
    enum { B = 4, T = 40, C = 48, NH = 3 };
    size_t nqkv = (size_t)B * T * 3 * C, nout = (size_t)B * T * C, natt = (size_t)B * NH * T * T;
    Rng rng;
    rng_seed(&rng, 11);
    real *qkv = gc_normal_array(nqkv, &rng), *dout = gc_normal_array(nout, &rng);
    real *ref[5] = {NULL}, *got[5];
    size_t sizes[5] = {nout, natt, natt, nqkv, natt};
    const char *names[5] = {"out", "preatt", "att", "dqkv", "dpreatt"};
    double ref_dprob[B * NH];
    int ref_rows[B * NH], ref_blocked[B * NH];
    /* the training path: no preatt, per-thread T × T slots (4: one per thread at most) */
    real *out2 = malloc(nout * sizeof(real)), *att2 = malloc(natt * sizeof(real));
    real *dqkv2 = malloc(nqkv * sizeof(real)), *slots = malloc(4 * (size_t)T * T * sizeof(real));
    for (int t = 0; t < N_COUNTS; t++) {
        set_threads(thread_counts[t]);
        for (int k = 0; k < 5; k++) got[k] = calloc(sizes[k], sizeof(real));
        double dprob[B * NH], dlogit[B * NH], dprob2[B * NH], dlogit2[B * NH];
        int rows[B * NH], blocked[B * NH], rows2[B * NH], blocked2[B * NH];
        AttnGradStats st = {dprob, dlogit, rows, blocked}, st2 = {dprob2, dlogit2, rows2, blocked2};
        /* scale 2: saturated rows, so some are blocked and the counts are not all 0 */
        attention_forward(got[0], got[1], got[2], qkv, B, T, C, NH, attn_scores_fixed(R(2.0)), NULL);
        attention_backward(got[3], got[4], dout, qkv, got[2], B, T, C, NH, attn_scores_fixed(R(2.0)), NULL, &st);
        attention_forward(out2, NULL, att2, qkv, B, T, C, NH, attn_scores_fixed(R(2.0)), NULL);
        assert_same(got[0], out2, nout, "out without preatt", thread_counts[t]);
        assert_same(got[2], att2, natt, "att without preatt", thread_counts[t]);
        /* as many slots as threads, and (on the last count) fewer: 1 slot for 4 threads */
        int n_slots = t == N_COUNTS - 1 ? 1 : thread_counts[t];
        attention_backward_scratch(dqkv2, slots, n_slots, dout, qkv, att2, B, T, C, NH,
                                   attn_scores_fixed(R(2.0)), NULL, &st2);
        assert_same(got[3], dqkv2, nqkv, "dqkv of attention_backward_scratch", thread_counts[t]);
        ck_assert_msg(memcmp(dprob, dprob2, sizeof dprob) == 0 &&
                          memcmp(dlogit, dlogit2, sizeof dlogit) == 0 &&
                          memcmp(rows, rows2, sizeof rows) == 0 &&
                          memcmp(blocked, blocked2, sizeof blocked) == 0,
                      "attention_backward_scratch (%d slots) sums differ on %d threads", n_slots,
                      thread_counts[t]);
        for (int i = 0; i < B * NH; i++) { /* Σ dZ² of each pair, in double here */
            double zz = 0;
            for (long j = 0; j < (long)T * T; j++) zz += (double)got[4][i * T * T + j] * got[4][i * T * T + j];
            ck_assert_msg(fabs(dlogit[i] - zz) <= 1e-12 * zz, "pair %d: dlogit_sumsq %.17g, "
                          "summed here %.17g", i, dlogit[i], zz);
        }
        if (t == 0) {
            memcpy(ref_dprob, dprob, sizeof dprob);
            memcpy(ref_rows, rows, sizeof rows);
            memcpy(ref_blocked, blocked, sizeof blocked);
            int any = 0;
            for (int i = 0; i < B * NH; i++) any += blocked[i];
            ck_assert_msg(any > 0, "no blocked row: the counts would compare zeros");
        } else {
            ck_assert_msg(memcmp(ref_dprob, dprob, sizeof dprob) == 0 &&
                              memcmp(ref_rows, rows, sizeof rows) == 0 &&
                              memcmp(ref_blocked, blocked, sizeof blocked) == 0,
                          "attention pass-through sums differ on %d threads", thread_counts[t]);
        }
        for (int k = 0; k < 5; k++) {
            if (!ref[k]) {
                ref[k] = got[k];
                continue;
            }
            assert_same(ref[k], got[k], sizes[k], names[k], thread_counts[t]);
            free(got[k]);
        }
    }
    for (int k = 0; k < 5; k++) free(ref[k]);
    free(qkv), free(dout), free(out2), free(att2), free(dqkv2), free(slots);
}
END_TEST

/* ---- the model --------------------------------------------------------------------------- */

enum { MB = 12, MT = 24, MSTEPS = 5 };

/* Trains a fresh model for MSTEPS AdamW steps on `threads` threads; returns the losses, every
 * step's gradients (concatenated) and the final parameters, all malloc'd, and in pass the
 * dprob_norm and blocked_rows of a model_backward_diag on the last batch ([2·L·NH]). */
enum { MPASS = 2 * 2 * 4 };
static void train_model(int threads, int qk_norm, int block, int matmul, real *losses,
                        real **grads, real **params, size_t *n, double *pass) {
    ModelConfig mc = {.vocab_size = 20, .d_model = 64, .n_heads = 4, .n_layers = 2, .d_ff = 256,
                      .max_seq_len = MT, .ln_eps = R(1e-5), .scale = R(0.25), .qk_norm = qk_norm,
                      .block = block, .matmul = matmul};
    set_threads(4); /* scratch sized for the most threads used */
    Model m;
    ck_assert_int_eq(model_build(&m, &mc, MB), 0);
    set_threads(threads);
    Rng rng;
    rng_seed(&rng, 2024);
    model_init_fan_in(&m, &rng);
    Optimizer opt;
    ck_assert_int_eq(optim_init(&opt, OPTIMIZER_ADAMW, 0.9, 0.999, 1e-8, 0.1, 0, m.n_params), 0);
    int tokens[MB * MT], targets[MB * MT];
    float mask[MB * MT];
    *n = m.n_params;
    *grads = malloc(MSTEPS * m.n_params * sizeof(real));
    *params = malloc(m.n_params * sizeof(real));
    for (int s = 0; s < MSTEPS; s++) {
        for (int i = 0; i < MB * MT; i++) {
            tokens[i] = (int)rng_below(&rng, 20);
            targets[i] = (int)rng_below(&rng, 20);
            mask[i] = (float)(i % 3 != 0);
        }
        losses[s] = model_forward(&m, tokens, targets, mask, MB, MT);
        model_zero_grad(&m);
        model_backward(&m);
        memcpy(*grads + s * m.n_params, m.grads, m.n_params * sizeof(real));
        optim_step(&opt, m.params, m.grads, m.tensors, m.n_tensors, 1e-2);
    }
    memcpy(*params, m.params, m.n_params * sizeof(real));
    model_forward(&m, tokens, targets, mask, MB, MT);
    model_backward_diag(&m);
    int LH = mc.n_layers * mc.n_heads;
    ck_assert_int_eq(2 * LH, MPASS);
    memcpy(pass, m.dprob_norm, LH * sizeof(double));
    memcpy(pass + LH, m.blocked_rows, LH * sizeof(double));
    optim_free(&opt);
    model_free(&m);
}

/* _i = 1: the qk-norm model (its per-head LayerNorms: 1152 (row, head) vectors, 16 channels);
 * _i = 2: the LLaMA block (RMSNorm, RoPE, SwiGLU); _i = 3: the LLaMA block with qk-norm;
 * _i = 4 .. 7: the same four with model.matmul = bf16 (matmul_bf16.c, the kernel the CPU has) */
START_TEST(test_model_steps_are_thread_count_independent) {
    real ref_loss[MSTEPS], loss[MSTEPS], *ref_g, *ref_p, *g, *p;
    double ref_pass[MPASS], pass[MPASS];
    size_t n;
    int qk = _i % 2, block = _i / 2 % 2 ? MODEL_BLOCK_LLAMA : MODEL_BLOCK_GPT2;
    int mm = _i / 4 ? MODEL_MATMUL_BF16 : MODEL_MATMUL_FLOAT32;
    train_model(1, qk, block, mm, ref_loss, &ref_g, &ref_p, &n, ref_pass);
    for (int t = 1; t < N_COUNTS; t++) {
        train_model(thread_counts[t], qk, block, mm, loss, &g, &p, &n, pass);
        for (int i = 0; i < MPASS; i++)
            ck_assert_msg(memcmp(&ref_pass[i], &pass[i], sizeof(double)) == 0,
                          "%s of (layer, head) %d differs on %d threads: %.17g vs %.17g",
                          i < MPASS / 2 ? "dprob_norm" : "blocked_rows", i % (MPASS / 2),
                          thread_counts[t], pass[i], ref_pass[i]);
        assert_same(ref_loss, loss, MSTEPS, "loss at step", thread_counts[t]);
        assert_same(ref_g, g, MSTEPS * n, "gradient (step-major, table order)", thread_counts[t]);
        assert_same(ref_p, p, n, "final parameter", thread_counts[t]);
        free(g), free(p);
    }
    free(ref_g), free(ref_p);
}
END_TEST

/* ---- train_run's logs -------------------------------------------------------------------- */

/* The whole file; fails the test when it cannot be read. */
static char *read_file(const char *path) {
    char *s = tu_read_file(path, NULL);
    ck_assert_msg(s != NULL, "cannot read %s", path);
    return s;
}

/* A CSV text with the columns named in drop (found in the header) removed from every row. */
static char *drop_columns(const char *csv, const char *const *drop, int n_drop) {
    char *out = malloc(strlen(csv) + 1), *o = out;
    int skip[64] = {0}, col = 0;
    const char *p = csv;
    for (const char *q = p; *q && *q != '\n'; col++) { /* header: which columns to drop */
        size_t w = strcspn(q, ",\n");
        for (int d = 0; d < n_drop; d++)
            if (strlen(drop[d]) == w && strncmp(q, drop[d], w) == 0 && col < 64) skip[col] = 1;
        q += w + (q[w] == ',');
    }
    while (*p) {
        int first = 1;
        for (col = 0;; col++) {
            size_t w = strcspn(p, ",\n");
            if (!(col < 64 && skip[col])) {
                if (!first) *o++ = ',';
                memcpy(o, p, w);
                o += w;
                first = 0;
            }
            p += w;
            if (*p != ',') break;
            p++;
        }
        if (*p == '\n') *o++ = *p++;
    }
    *o = 0;
    return out;
}

START_TEST(test_train_run_logs_are_thread_count_independent) {
    char dir[64];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_test_determinism_XXXXXX");
    static const int runs[] = {1, 2, 4};
    static const char *const timing[] = {"elapsed_s", "tokens_per_s"};
    char *ref_loss = NULL, *ref_grad = NULL, *ref_attn = NULL;
    for (int r = 0; r < 3; r++) {
        Config c;
        config_defaults(&c);
        snprintf(c.run_dir, sizeof c.run_dir, "%s", dir);
        snprintf(c.run_name, sizeof c.run_name, "threads%d", runs[r]);
        c.threads = runs[r];
        c.task = TASK_RECALL;
        c.task_pairs = 4;
        c.task_symbols = 8;
        c.d_model = 32;
        c.n_heads = 2;
        c.n_layers = 2;
        c.steps = 30;
        c.batch_size = 16;
        c.eval_every = 10;
        c.log_every = 1;
        c.progress = 0;
        ck_assert_int_eq(train_run(&c), EXIT_OK);
        char path[600];
        snprintf(path, sizeof path, "%s/%s/loss.csv", dir, c.run_name);
        char *raw = read_file(path), *loss = drop_columns(raw, timing, 2);
        free(raw);
        snprintf(path, sizeof path, "%s/%s/grad_norms.csv", dir, c.run_name);
        char *grad = read_file(path);
        snprintf(path, sizeof path, "%s/%s/attention.csv", dir, c.run_name);
        char *attn = read_file(path);
        if (r == 0) {
            ref_loss = loss;
            ref_grad = grad;
            ref_attn = attn;
            ck_assert_msg(strstr(attn, ",softmax_pass,blocked_rows") != NULL,
                          "attention.csv has the pass-through columns");
            ck_assert_msg(strstr(loss, "elapsed_s") == NULL, "timing columns were dropped");
            continue;
        }
        ck_assert_msg(strcmp(ref_loss, loss) == 0, "loss.csv differs on %d threads:\n%s\nvs\n%s",
                      runs[r], loss, ref_loss);
        ck_assert_msg(strcmp(ref_grad, grad) == 0, "grad_norms.csv differs on %d threads", runs[r]);
        ck_assert_msg(strcmp(ref_attn, attn) == 0, "attention.csv differs on %d threads", runs[r]);
        free(loss), free(grad), free(attn);
    }
    free(ref_loss), free(ref_grad), free(ref_attn);
    tu_remove_tree(dir);
}
END_TEST

TU_MAIN_TIMEOUT("determinism", 120, test_matmul_is_thread_count_independent,
                test_attention_is_thread_count_independent,
                TU_LOOP(test_model_steps_are_thread_count_independent, 0, 8),
                test_train_run_logs_are_thread_count_independent);
