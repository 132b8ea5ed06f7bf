/* test_param_mult.c: the per-tensor multipliers init.q_mult, init.k_mult (model_scale_qk,
 * src/model/model.c) and optim.lr_q_mult, optim.lr_k_mult (optim_set_qk_lr_mult,
 * src/optim/optim.c), and the equivalence they exist to show (issue 42):
 *
 *   under Adam, training with the factor c on the logits, s = c·(x W_q)(x W_k)ᵀ, at rate η is
 *   training with factor 1 where W_q (and its bias) starts c times larger and learns at c·η.
 *
 * Why: s is the same function of W̃_q = c·W_q; ∂L/∂W̃_q = (1/c)·∂L/∂W_q, so Adam's m̃ = m/c,
 * ṽ = v/c², and its step m̂/(√v̂ + ε) is unchanged when ε → 0; at rate c·η, W̃_q moves c times what
 * W_q moves, and the decoupled decay W̃_q·η·wd (not multiplied by c) is c times W_q's. Exact with
 * clipping off (the global norm sees ∂L/∂W̃_q, not ∂L/∂W_q) and ε negligible.
 *
 * The test trains ./train's own path in-process (train_run: run_setup's init and multipliers,
 * the step, AdamW with weight decay 0.1, warm-up and cosine) for 200 steps, scale sqrt_dk against
 * scale none with init.q_mult = optim.lr_q_mult = c = 1/√d_k, optim.eps = 1e-30, at d_k 16 and 64,
 * in both blocks (gpt2: W_q's bias goes with it; llama: no bias, RoPE), and compares the logged
 * losses and accuracies of every step, every parameter of the final checkpoints, and the logits of
 * a forward pass over the validation batch.
 *
 * The tolerance, derived: c = 1/4 and 1/8 are powers of two, and multiplying by a power of two is
 * exact in binary floating point (no overflow, no underflow into subnormals), and it commutes with
 * every correctly rounded operation: fl(2ᵏa ∘ b) = 2ᵏ fl(a ∘ b), fused multiply-adds included.
 * Every number of the second run is then the first's times a power of two (W_q, its gradient, m,
 * v, √v̂) or the very same number (everything else: q·k, the softmax, the loss), operation for
 * operation, except where ε enters: √v̂ + ε differs from c⁻¹(√v̂ + cε), which in float32 changes
 * nothing while ε = 1e-30 is below half an ulp of √v̂, i.e. for √v̂ > 2²⁴·1e-30 ≈ 1.7e-23, i.e.
 * every gradient entry 0 or above ~1e-23 in magnitude (a float32 g² underflows below ~1e-19
 * anyway). So the expected difference is 0: the tolerance is 0 (bit for bit), and any
 * difference is a bug or one of the listed exceptions. With clipping on, ε = 1e-8, or one
 * multiplier left out, the runs must differ (each asserted below, so the comparison is seen
 * failing). A non-power-of-two c (d_k 32) rounds W̃_q = fl(c·W_q) at init and drifts from
 * there; that regime is not what this test claims.
 *
 * That the multipliers reach only the init and the optimizer: a model built from a config with
 * multipliers has the same ModelConfig, the same forward and the same gradients as one without
 * (so the finite-difference checks of tests/test_model.c, over the scale settings, cover every
 * forward change, the C/d_k scale included as the number it resolves to), and model_scale_qk
 * multiplies exactly the q and k thirds of attn.qkv.weight and attn.qkv.bias. */
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

static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/scaledot_test_param_mult_XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

/* the equivalence over 200 steps (issue 42's floor); each condition's failure shows in 50 */
enum { STEPS = 200, CONDITION_STEPS = 50 };

/* One run of the pair: its name and its --set lines beyond the common ones. */
static void train_pair_run(const char *name, int d_k, const char *block, int steps,
                           const char *const *sets) {
    Config c;
    config_defaults(&c);
    char buf[CONFIG_STR + 64];
    const char *common[] = {
        "task.name=sort", "task.length=4", "task.symbols=8", "task.val_size=32",
        "model.n_layers=2", "train.batch_size=8", "train.eval_every=50", "log.every=1",
        "log.progress=0", "run.threads=1", "optim.lr=3e-3", "optim.eps=1e-30",
        "optim.weight_decay=0.1", "optim.warmup_steps=10", "optim.schedule=cosine",
        "optim.min_lr=3e-4", "train.checkpoint_every=0",
    };
    for (size_t i = 0; i < sizeof common / sizeof *common; i++)
        ck_assert_int_eq(config_set(&c, common[i], 1), 0);
    /* d_k 16: d_model 32, 2 heads; d_k 64: d_model 64, 1 head */
    snprintf(buf, sizeof buf, "model.d_model=%d", d_k < 32 ? 2 * d_k : d_k);
    ck_assert_int_eq(config_set(&c, buf, 1), 0);
    snprintf(buf, sizeof buf, "model.n_heads=%d", d_k < 32 ? 2 : 1);
    ck_assert_int_eq(config_set(&c, buf, 1), 0);
    snprintf(buf, sizeof buf, "model.block=%s", block);
    ck_assert_int_eq(config_set(&c, buf, 1), 0);
    snprintf(buf, sizeof buf, "train.steps=%d", steps);
    ck_assert_int_eq(config_set(&c, buf, 1), 0);
    snprintf(buf, sizeof buf, "run.dir=%s", tmp);
    ck_assert_int_eq(config_set(&c, buf, 1), 0);
    snprintf(buf, sizeof buf, "run.name=%s", name);
    ck_assert_int_eq(config_set(&c, buf, 1), 0);
    for (int i = 0; sets[i]; i++) ck_assert_int_eq(config_set(&c, sets[i], 1), 0);
    ck_assert_int_eq(config_validate(&c), 0);
    ck_assert_int_eq(train_run(&c), EXIT_OK);
}

/* A finished run's checkpoint loaded as ./train --eval would: *m and *t (caller frees both). */
static void load_run(const char *name, Config *c, Model *m, Task *t) {
    char ck[400];
    snprintf(ck, sizeof ck, "%s/%s/checkpoint.bin", tmp, name);
    config_defaults(c);
    ck_assert_int_eq(checkpoint_load_config(ck, c, NULL), 0);
    ck_assert_int_eq(task_init(t, c), 0);
    ModelConfig mc = train_model_config(c, t);
    ck_assert_int_eq(model_build(m, &mc, c->batch_size), 0);
    Optimizer o;
    ck_assert_int_eq(train_optim_init(&o, c, m->n_params), 0);
    CheckpointState st;
    ck_assert_int_eq(checkpoint_load(ck, m, &o, &st), 0);
    optim_free(&o);
}

/* loss.csv's step, train_loss, val_loss, val_token_acc, val_answer_acc of every row, as text
 * (the elapsed time and the global gradient norm, which sees ∂L/∂W̃_q, are left out). */
static char *loss_columns(const char *name) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s/loss.csv", tmp, name);
    char *text = tu_read_file(path, NULL);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    char *out = tu_csv_columns(text, 5, 0, NULL);
    ck_assert_ptr_nonnull(out);
    free(text);
    return out;
}

/* The validation loss of the last row of a run's loss.csv (the final evaluation). */
static double final_val_loss(const char *name) {
    char *rows = loss_columns(name);
    size_t n = strlen(rows);
    while (n > 0 && rows[n - 1] == '\n') rows[--n] = '\0';
    const char *last = strrchr(rows, '\n'), *p = last ? last + 1 : rows;
    for (int commas = 0; *p && commas < 2; p++) commas += *p == ',';
    double v = strtod(p, NULL);
    free(rows);
    return v;
}

/* The largest |a − b| / max(|b|, 1e-3) over every parameter of run b against run a, with a's
 * query third of attn.qkv.* first multiplied by q_ratio (what run b's W_q should be), and over the
 * logits of a forward pass of both on the validation batch; the loss.csv rows are compared as
 * text into *same_logs. */
static double run_difference(const char *a, const char *b, double q_ratio, int *same_logs) {
    Config ca, cb;
    Model ma, mb;
    Task ta, tb;
    load_run(a, &ca, &ma, &ta);
    load_run(b, &cb, &mb, &tb);
    ck_assert_int_eq(ma.n_params, mb.n_params);
    double worst = 0;
    for (int i = 0; i < ma.n_tensors; i++) {
        const TensorInfo *t = &ma.tensors[i];
        for (size_t k = 0; k < t->numel; k++) {
            double ratio = t->qkv_thirds && k < t->numel / 3 ? q_ratio : 1.0;
            double x = ratio * (double)ma.params[t->offset + k], y = mb.params[t->offset + k];
            double d = fabs(x - y) / fmax(fabs(y), 1e-3);
            if (d > worst) worst = d;
        }
    }
    int B = ta.n_val < ca.batch_size ? ta.n_val : ca.batch_size, T = ta.seq_len;
    model_forward(&ma, ta.val_tokens, ta.val_targets, ta.val_mask, B, T);
    model_forward(&mb, tb.val_tokens, tb.val_targets, tb.val_mask, B, T);
    for (size_t k = 0; k < (size_t)B * T * (size_t)ma.cfg.vocab_size; k++) {
        double d = fabs((double)ma.logits[k] - (double)mb.logits[k]) /
                   fmax(fabs((double)mb.logits[k]), 1e-3);
        if (d > worst) worst = d;
    }
    char *la = loss_columns(a), *lb = loss_columns(b);
    *same_logs = strcmp(la, lb) == 0;
    free(la);
    free(lb);
    model_free(&ma);
    model_free(&mb);
    task_free(&ta);
    task_free(&tb);
    return worst;
}

static const struct {
    const char *block;
    int d_k;
} CASES[] = {{"gpt2", 16}, {"gpt2", 64}, {"llama", 16}, {"llama", 64}};

/* 1/√d_k as the --set text: 0.25 and 0.125, exact */
static const char *inv_sqrt_dk(int d_k) { return d_k == 16 ? "0.25" : "0.125"; }

START_TEST(test_scale_is_wq_init_and_lr) {
    const char *block = CASES[_i].block;
    int d_k = CASES[_i].d_k;
    char qi[64], ql[64];
    snprintf(qi, sizeof qi, "init.q_mult=%s", inv_sqrt_dk(d_k));
    snprintf(ql, sizeof ql, "optim.lr_q_mult=%s", inv_sqrt_dk(d_k));
    train_pair_run("scaled", d_k, block, STEPS,
                   (const char *const[]){"attention.scale=sqrt_dk", NULL});
    train_pair_run("mult", d_k, block, STEPS,
                   (const char *const[]){"attention.scale=none", qi, ql, NULL});
    int same_logs;
    double d = run_difference("scaled", "mult", 1.0 / sqrt((double)d_k), &same_logs);
    printf("%s d_k %d: sqrt_dk vs none with W_q's init and lr x 1/sqrt(d_k): max relative "
           "difference %.3g over the parameters and logits after %d steps; loss.csv %s\n",
           block, d_k, d, STEPS, same_logs ? "identical" : "DIFFERS");
    fflush(stdout);
    ck_assert_msg(d == 0, "%s d_k %d: the runs differ by %.3g (relative), expected bit for bit",
                  block, d_k, d);
    ck_assert_msg(same_logs, "%s d_k %d: the logged losses differ", block, d_k);
}
END_TEST

/* The comparison above seen failing, on the gpt2 block at d_k 64: _i = 0 init.q_mult left out,
 * 1 optim.lr_q_mult left out, 2 gradient clipping on (1.0; the global norm is about 3 at the
 * start, so the clip bites, and it sees the gradient of W̃_q, 8 times W_q's), 3 ε = 1e-8 (the
 * step m̂/(√v̂ + ε) depends on the gradient's scale when ε is not negligible; issue 42's float64
 * check: 7e-3 relative on the loss after 300 steps). Each must leave a difference well above
 * rounding: the threshold 1e-4 is 800 float32 ulps at 1. 50 steps suffice (measured: 635, 184,
 * 81.6 and 3.27 relative after 50); the 200 of the equivalence would only cost time. */
START_TEST(test_equivalence_needs_each_condition) {
    static const char *const what[] = {"init.q_mult left out", "optim.lr_q_mult left out",
                                       "clipping at 1.0", "optim.eps 1e-8"};
    const char *const scaled[][3] = {
        {"attention.scale=sqrt_dk", NULL, NULL},
        {"attention.scale=sqrt_dk", NULL, NULL},
        {"attention.scale=sqrt_dk", "optim.grad_clip=1", NULL},
        {"attention.scale=sqrt_dk", "optim.eps=1e-8", NULL},
    };
    const char *const mult[][6] = {
        {"attention.scale=none", "optim.lr_q_mult=0.125", NULL},
        {"attention.scale=none", "init.q_mult=0.125", NULL},
        {"attention.scale=none", "init.q_mult=0.125", "optim.lr_q_mult=0.125",
         "optim.grad_clip=1", NULL},
        {"attention.scale=none", "init.q_mult=0.125", "optim.lr_q_mult=0.125", "optim.eps=1e-8",
         NULL},
    };
    train_pair_run("scaled", 64, "gpt2", CONDITION_STEPS, scaled[_i]);
    train_pair_run("mult", 64, "gpt2", CONDITION_STEPS, mult[_i]);
    int same_logs;
    double d = run_difference("scaled", "mult", 0.125, &same_logs);
    printf("gpt2 d_k 64, %s: max relative difference %.3g after %d steps; loss.csv %s; final "
           "val_loss %.6g (sqrt_dk) vs %.6g (none with multipliers)\n", what[_i], d, CONDITION_STEPS,
           same_logs ? "identical" : "differs", final_val_loss("scaled"), final_val_loss("mult"));
    ck_assert_msg(d > 1e-4 && !same_logs, "%s: the runs still agree (%.3g)", what[_i], d);
}
END_TEST

/* Configs that differ only in the four multipliers build models with the same ModelConfig, the
 * same loss and the same gradients from the same parameters (the multipliers do not reach the
 * forward or backward pass); model_scale_qk multiplies exactly the query third (by 3) and the
 * key third (by 0.5, both exact in binary) of attn.qkv.weight and .bias and nothing else, and
 * draws no random number. Both blocks (_i = 0 gpt2, 1 llama). */
START_TEST(test_multipliers_outside_forward) {
    Config c0, c1;
    config_defaults(&c0);
    const char *sets[] = {"task.name=sort", "task.length=4", "task.symbols=8", "task.val_size=16",
                          "model.d_model=16", "model.n_heads=2", _i ? "model.block=llama"
                                                                     : "model.block=gpt2"};
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
        ck_assert_int_eq(config_set(&c0, sets[i], 1), 0);
    c1 = c0;
    const char *mult[] = {"init.q_mult=3", "init.k_mult=0.5", "optim.lr_q_mult=0.25",
                          "optim.lr_k_mult=7"};
    for (size_t i = 0; i < 4; i++) ck_assert_int_eq(config_set(&c1, mult[i], 1), 0);
    Task t;
    ck_assert_int_eq(task_init(&t, &c0), 0);
    ModelConfig m0c = train_model_config(&c0, &t), m1c = train_model_config(&c1, &t);
    Model m0, m1;
    ck_assert_int_eq(model_build(&m0, &m0c, 4), 0);
    ck_assert_int_eq(model_build(&m1, &m1c, 4), 0);
    ck_assert_int_eq(m0.n_params, m1.n_params);
    ck_assert(m0c.scale == m1c.scale && m0c.block == m1c.block && m0c.d_model == m1c.d_model &&
              m0c.n_heads == m1c.n_heads && m0c.qk_norm == m1c.qk_norm);
    Rng r0, r1;
    rng_seed(&r0, 7);
    rng_seed(&r1, 7);
    model_init_fan_in(&m0, &r0);
    model_init_fan_in(&m1, &r1);
    model_scale_qk(&m1, 3.0, 0.5);
    /* no number drawn: the two streams are still in step */
    ck_assert(rng_normal(&r0) == rng_normal(&r1));
    int n_thirds = 0;
    for (int i = 0; i < m0.n_tensors; i++) {
        const TensorInfo *ti = &m0.tensors[i];
        size_t n = strlen(ti->name);
        int is_qkv = (n >= 15 && strcmp(ti->name + n - 15, "attn.qkv.weight") == 0) ||
                     (n >= 13 && strcmp(ti->name + n - 13, "attn.qkv.bias") == 0);
        ck_assert_int_eq(ti->qkv_thirds, is_qkv);
        n_thirds += is_qkv;
        for (size_t k = 0; k < ti->numel; k++) {
            double f = !is_qkv ? 1.0 : k < ti->numel / 3 ? 3.0 : k < 2 * ti->numel / 3 ? 0.5 : 1.0;
            ck_assert_msg(m1.params[ti->offset + k] == (real)(f * m0.params[ti->offset + k]),
                          "%s[%zu]: %.9g, want %g x %.9g", ti->name, k,
                          (double)m1.params[ti->offset + k], f, (double)m0.params[ti->offset + k]);
        }
    }
    ck_assert_int_eq(n_thirds, _i ? 2 : 4); /* 2 layers: weight (and bias, gpt2) each */
    /* the same parameters in both: the same loss and gradients, bit for bit */
    memcpy(m1.params, m0.params, m0.n_params * sizeof(real));
    int B = 4, T = t.seq_len;
    real l0 = model_forward(&m0, t.val_tokens, t.val_targets, t.val_mask, B, T);
    real l1 = model_forward(&m1, t.val_tokens, t.val_targets, t.val_mask, B, T);
    ck_assert(l0 == l1);
    model_zero_grad(&m0);
    model_zero_grad(&m1);
    model_backward(&m0);
    model_backward(&m1);
    ck_assert(memcmp(m0.grads, m1.grads, m0.n_params * sizeof(real)) == 0);
    /* and the optimizer gets them: train_optim_init passes the rate multipliers on */
    Optimizer o;
    ck_assert_int_eq(train_optim_init(&o, &c1, m1.n_params), 0);
    ck_assert(o.lr_q_mult == 0.25 && o.lr_k_mult == 7.0);
    optim_free(&o);
    model_free(&m0);
    model_free(&m1);
    task_free(&t);
}
END_TEST

/* The step-0 logit std predicted from the init (init_check.txt, --where, sweep.csv) follows the
 * init multipliers: q entries have std √C·σ·q_mult and k entries √C·σ·k_mult, so std(q·k) =
 * √d_k·C·σ²·q_mult·k_mult (model.h's derivation with σ² → σ_q·σ_k); with qk-norm the norm undoes
 * them. By hand: fan_in (σ² = 1/64), d_model 64, one head (d_k 64), scale none, q_mult 0.125,
 * k_mult 2: 8·64·(1/64)·0.25 = 2; with qk-norm scale·√d_k = 8; scale sqrt_dk without
 * multipliers: 1. */
START_TEST(test_predicted_std_follows_init_mult) {
    static const struct {
        const char *sets[4];
        double want;
    } cases[] = {
        {{"attention.scale=none", "init.q_mult=0.125", "init.k_mult=2", NULL}, 2.0},
        {{"attention.scale=none", "init.q_mult=0.125", "attention.qk_norm=layernorm", NULL}, 8.0},
        {{"attention.scale=sqrt_dk", NULL}, 1.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Config c;
        config_defaults(&c);
        for (int k = 0; cases[i].sets[k]; k++) ck_assert_int_eq(config_set(&c, cases[i].sets[k], 1), 0);
        double got = train_predicted_logit_std(&c);
        ck_assert_msg(fabs(got - cases[i].want) <= 1e-12 * cases[i].want, "case %zu: %.17g, want %g",
                      i, got, cases[i].want);
    }
}
END_TEST

/* 200-step runs, two per test */
TU_MAIN_FIXTURE_TIMEOUT("param_mult", setup, teardown, 60,
                        TU_LOOP(test_scale_is_wq_init_and_lr, 0, 4),
                        TU_LOOP(test_equivalence_needs_each_condition, 0, 4),
                        TU_LOOP(test_multipliers_outside_forward, 0, 2),
                        test_predicted_std_follows_init_mult);
