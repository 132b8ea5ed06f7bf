/* test_optim.c: AdamW, SGD with momentum, weight-decay groups, global-norm clipping and the
 * learning-rate schedule of src/optim against a few lines of reference code in double written
 * here from the papers' formulas (never from src/optim):
 *   AdamW (Loshchilov and Hutter 2019, Alg. 2; PyTorch): m = β1·m + (1−β1)·g,
 *     v = β2·v + (1−β2)·g², p = p·(1 − lr·wd) − lr·(m/(1−β1ᵗ)) / (√(v/(1−β2ᵗ)) + eps)
 *   SGD (PyTorch): m = μ·m + g, p = p·(1 − lr·wd) − lr·m
 * Three or more steps with a different gradient each step, so that β errors show (at t = 1 the
 * bias correction cancels them). The W_q and W_k rate multipliers on the thirds of a fused qkv
 * tensor, with the decay not multiplied, against the same formulas per element. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "optim/optim.h"
#include "testutil.h"

/* Two tensors: a 2-D "weight" (decayed) of 4 and a 1-D "bias" (never decayed) of 2. */
enum { NW = 4, NB = 2, N = NW + NB, STEPS = 4 };
static const TensorInfo TENSORS[2] = {
    {.name = "w", .ndim = 2, .shape = {2, 2}, .offset = 0, .numel = NW},
    {.name = "b", .ndim = 1, .shape = {NB, 0}, .offset = NW, .numel = NB},
};
static const double P0[N] = {0.5, -1.25, 2.0, 0.75, -0.3, 1.5};
/* A different gradient every step, signs and sizes changing, so m and v differ from g. */
static const double G[STEPS][N] = {
    {0.3, -0.2, 1.5, -0.01, 0.7, -2.0},
    {-0.9, 0.4, 0.2, 0.05, -0.1, 1.0},
    {0.1, 1.2, -0.6, 0.02, 0.3, 0.5},
    {2.0, -0.5, 0.9, -0.03, -1.1, 0.25},
};

typedef struct {
    double beta1, beta2, eps, wd, lr;
} AdamCase;

/* One reference AdamW step on p, m, v (double), t = step number from 1. */
static void ref_adamw(double *p, double *m, double *v, const double *g, int t, const AdamCase *c) {
    for (int i = 0; i < N; i++) {
        double wd = i < NW ? c->wd : 0.0;
        m[i] = c->beta1 * m[i] + (1 - c->beta1) * g[i];
        v[i] = c->beta2 * v[i] + (1 - c->beta2) * g[i] * g[i];
        double mh = m[i] / (1 - pow(c->beta1, t)), vh = v[i] / (1 - pow(c->beta2, t));
        p[i] = p[i] * (1 - c->lr * wd) - c->lr * mh / (sqrt(vh) + c->eps);
    }
}

static void ref_sgd(double *p, double *m, const double *g, double mu, double wd_w, double lr) {
    for (int i = 0; i < N; i++) {
        double wd = i < NW ? wd_w : 0.0;
        m[i] = mu * m[i] + g[i];
        p[i] = p[i] * (1 - lr * wd) - lr * m[i];
    }
}

/* tol: float rounding of a handful of operations on values of size ~1, with margin. */
static void assert_close(const real *got, const double *want, const char *what, int step) {
    for (int i = 0; i < N; i++)
        ck_assert_msg(fabs((double)got[i] - want[i]) <= 2e-6 * fmax(1, fabs(want[i])),
                      "%s, step %d, p[%d] = %.9g, reference %.9g", what, step, i, (double)got[i],
                      want[i]);
}

/* Rows: the defaults, a slow β1 with a fast β2 (a β1/β2 swap changes every step), a large
 * lr·wd = 0.5 (a decay applied to the bias, or with the wrong sign, is 25 % off), a big eps. */
static const AdamCase ADAM_CASES[] = {
    {0.9, 0.999, 1e-8, 0.0, 0.01},
    {0.99, 0.6, 1e-8, 0.1, 0.05},
    {0.5, 0.9, 1e-8, 1.0, 0.5},
    {0.8, 0.95, 0.3, 0.2, 0.1},
};

START_TEST(test_adamw_matches_reference) {
    const AdamCase *c = &ADAM_CASES[_i];
    Optimizer o;
    ck_assert_int_eq(optim_init(&o, OPTIMIZER_ADAMW, c->beta1, c->beta2, c->eps, c->wd, 0.9, N), 0);
    real p[N], g[N];
    double rp[N], rm[N] = {0}, rv[N] = {0};
    for (int i = 0; i < N; i++) p[i] = (real)P0[i], rp[i] = P0[i];
    for (int s = 0; s < STEPS; s++) {
        for (int i = 0; i < N; i++) g[i] = (real)G[s][i];
        optim_step(&o, p, g, TENSORS, 2, c->lr);
        ref_adamw(rp, rm, rv, G[s], s + 1, c);
        assert_close(p, rp, "AdamW", s + 1);
    }
    ck_assert_int_eq(o.t, STEPS);
    optim_free(&o);
}
END_TEST

/* The first AdamW step moves every parameter by lr·sign(g) exactly (eps aside): m̂ = g and
 * v̂ = g². A (1 − β2) rounded from a float β2 made it 6.4e-6 too large at β2 = 0.999. */
START_TEST(test_adamw_first_step_is_lr) {
    static const double betas2[] = {0.999, 0.9999, 0.98};
    for (size_t k = 0; k < sizeof betas2 / sizeof betas2[0]; k++) {
        Optimizer o;
        ck_assert_int_eq(optim_init(&o, OPTIMIZER_ADAMW, 0.9, betas2[k], 1e-30, 0, 0, N), 0);
        real p[N] = {0}, g[N];
        for (int i = 0; i < N; i++) g[i] = (real)G[0][i];
        optim_step(&o, p, g, TENSORS, 2, 1.0);
        for (int i = 0; i < N; i++) {
            double want = G[0][i] > 0 ? -1.0 : 1.0;
            ck_assert_msg(fabs((double)p[i] - want) < 1e-6,
                          "beta2 %g: first step of p[%d] is %.9g, want %g", betas2[k], i,
                          (double)p[i], want);
        }
        optim_free(&o);
    }
}
END_TEST

typedef struct {
    double mu, wd, lr;
} SgdCase;

static const SgdCase SGD_CASES[] = {
    {0.9, 0.0, 0.1},
    {0.5, 0.0, 0.3},
    {0.0, 0.0, 0.2},   /* plain SGD */
    {0.9, 1.0, 0.5},   /* lr·wd = 0.5 */
};

START_TEST(test_sgd_matches_reference) {
    const SgdCase *c = &SGD_CASES[_i];
    Optimizer o;
    ck_assert_int_eq(optim_init(&o, OPTIMIZER_SGD, 0.9, 0.999, 1e-8, c->wd, c->mu, N), 0);
    real p[N], g[N];
    double rp[N], rm[N] = {0};
    for (int i = 0; i < N; i++) p[i] = (real)P0[i], rp[i] = P0[i];
    for (int s = 0; s < STEPS; s++) {
        for (int i = 0; i < N; i++) g[i] = (real)G[s][i];
        optim_step(&o, p, g, TENSORS, 2, c->lr);
        ref_sgd(rp, rm, G[s], c->mu, c->wd, c->lr);
        assert_close(p, rp, "SGD", s + 1);
    }
    optim_free(&o);
}
END_TEST

/* Weight decay alone (zero gradients, SGD): the 2-D tensor shrinks by (1 − lr·wd) a step, the
 * 1-D one not at all. */
START_TEST(test_weight_decay_groups) {
    Optimizer o;
    ck_assert_int_eq(optim_init(&o, OPTIMIZER_SGD, 0.9, 0.999, 1e-8, 0.8, 0.9, N), 0);
    real p[N], g[N] = {0};
    for (int i = 0; i < N; i++) p[i] = (real)P0[i];
    for (int s = 0; s < 3; s++) optim_step(&o, p, g, TENSORS, 2, 0.5);
    for (int i = 0; i < N; i++) {
        double want = i < NW ? P0[i] * 0.6 * 0.6 * 0.6 : (double)(real)P0[i];
        ck_assert_msg(fabs((double)p[i] - want) < 1e-6, "p[%d] = %.9g, want %.9g", i,
                      (double)p[i], want);
    }
    optim_free(&o);
}
END_TEST

/* ---- the W_q and W_k rate multipliers (optim_set_qk_lr_mult) and μP's hidden-matrix factor
 * (optim_set_hidden_lr_mult)
 * A fused [3·2, 1] "qkv" weight (qkv_thirds and hidden: entries 0-1 q, 2-3 k, 4-5 v) and a [3]
 * "qkv" bias (q, k, v one entry each) beside a plain 1-D tensor, a hidden [2, 1] matrix and a 2-D
 * tensor that is not hidden (as an embedding): the reference, written here from the rule (rate
 * lr·q_mult on the q third, lr·k_mult on the k third, times hidden_mult on a hidden tensor, lr
 * elsewhere; the decoupled decay lr·wd on 2-D tensors, of the unmultiplied lr), runs ref_adamw's
 * formula per element. With wd = 0.5 and q_mult = 4, a decay multiplied too (1 − 4·0.1·0.5 = 0.8
 * instead of 0.95 a step) is off by far more than the tolerance, and a multiplier on the wrong
 * third (q's on k, or on v), on the bias's wrong entry, the hidden factor left out or put on the
 * embedding-like tensor fail the same way. SGD takes the same rates. */
enum { NQ = 6, NQB = 3, NQO = 2, NQH = 2, NQE = 2, NQKV = NQ + NQB + NQO + NQH + NQE };
static const TensorInfo QKV_TENSORS[5] = {
    {.name = "qkv.w", .ndim = 2, .shape = {6, 1}, .offset = 0, .numel = NQ, .qkv_thirds = 1,
     .hidden = 1},
    {.name = "qkv.b", .ndim = 1, .shape = {3, 1}, .offset = NQ, .numel = NQB, .qkv_thirds = 1},
    {.name = "other", .ndim = 1, .shape = {2, 1}, .offset = NQ + NQB, .numel = NQO},
    {.name = "mlp.w", .ndim = 2, .shape = {2, 1}, .offset = NQ + NQB + NQO, .numel = NQH,
     .hidden = 1},
    {.name = "emb", .ndim = 2, .shape = {2, 1}, .offset = NQ + NQB + NQO + NQH, .numel = NQE},
};
/* the multiplier of each entry (q 4, k 0.25, hidden 0.5), and whether its tensor is decayed */
static const double QKV_MULT[NQKV] = {2, 2, 0.125, 0.125, 0.5, 0.5, 4, 0.25, 1, 1, 1,
                                      0.5, 0.5, 1, 1};
static const int QKV_DECAYED[NQKV] = {1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1};

START_TEST(test_qk_lr_mult) {
    const int sgd = _i;
    const double lr = 0.1, wd = 0.5, b1 = 0.9, b2 = 0.99, eps = 1e-8, mu = 0.9;
    Optimizer o;
    ck_assert_int_eq(optim_init(&o, sgd ? OPTIMIZER_SGD : OPTIMIZER_ADAMW, b1, b2, eps, wd, mu,
                                NQKV), 0);
    optim_set_qk_lr_mult(&o, 4, 0.25);
    optim_set_hidden_lr_mult(&o, 0.5);
    real p[NQKV], g[NQKV];
    double rp[NQKV], rm[NQKV] = {0}, rv[NQKV] = {0};
    for (int i = 0; i < NQKV; i++) p[i] = (real)(0.3 * (i + 1) - 1.1), rp[i] = (double)p[i];
    for (int s = 0; s < STEPS; s++) {
        for (int i = 0; i < NQKV; i++) g[i] = (real)G[s][i % N]; /* G's rows, reused */
        optim_step(&o, p, g, QKV_TENSORS, 5, lr);
        for (int i = 0; i < NQKV; i++) {
            double gi = (double)g[i], decay = 1 - lr * (QKV_DECAYED[i] ? wd : 0);
            if (sgd) {
                rm[i] = mu * rm[i] + gi;
                rp[i] = rp[i] * decay - lr * QKV_MULT[i] * rm[i];
                continue;
            }
            rm[i] = b1 * rm[i] + (1 - b1) * gi;
            rv[i] = b2 * rv[i] + (1 - b2) * gi * gi;
            double mh = rm[i] / (1 - pow(b1, s + 1)), vh = rv[i] / (1 - pow(b2, s + 1));
            rp[i] = rp[i] * decay - lr * QKV_MULT[i] * mh / (sqrt(vh) + eps);
        }
        for (int i = 0; i < NQKV; i++)
            ck_assert_msg(fabs((double)p[i] - rp[i]) <= 2e-6 * fmax(1, fabs(rp[i])),
                          "%s, step %d, p[%d] = %.9g, reference %.9g", sgd ? "SGD" : "AdamW",
                          s + 1, i, (double)p[i], rp[i]);
    }
    optim_free(&o);
}
END_TEST

/* ---- clipping: g = (3, 4, 0, 12), norm 13 */

typedef struct {
    double max_norm, norm; /* norm passed in (the caller's pre-clip norm) */
    double factor;         /* expected g_out / g_in, NAN = bitwise unchanged */
} ClipCase;

static const ClipCase CLIP_CASES[] = {
    {6.5, 13, 0.5},           /* above: scaled to the bound */
    {1.0, 13, 1.0 / 13},      /* far above */
    {13, 13, NAN},            /* equal: untouched */
    {20, 13, NAN},            /* below */
    {0, 13, NAN},             /* 0 = off */
    {1.0, INFINITY, NAN},     /* a non-finite norm leaves the gradients for the divergence report */
    {1.0, NAN, NAN},
};

START_TEST(test_clip) {
    const ClipCase *c = &CLIP_CASES[_i];
    static const real g0[4] = {3, 4, 0, 12};
    real g[4];
    memcpy(g, g0, sizeof g);
    optim_clip_grads(g, 4, c->max_norm, c->norm);
    for (int i = 0; i < 4; i++) {
        if (isnan(c->factor))
            ck_assert_msg(g[i] == g0[i], "max_norm %g, norm %g: g[%d] changed to %g", c->max_norm,
                          c->norm, i, (double)g[i]);
        else
            ck_assert_msg(fabs(g[i] - g0[i] * c->factor) < 1e-6, "max_norm %g: g[%d] = %.9g, want %.9g",
                          c->max_norm, i, (double)g[i], g0[i] * c->factor);
    }
    if (!isnan(c->factor)) {
        double n2 = 0;
        for (int i = 0; i < 4; i++) n2 += (double)g[i] * g[i];
        ck_assert_double_eq_tol(sqrt(n2), c->max_norm, 1e-6 * c->max_norm);
    }
}
END_TEST

/* ---- schedule: lr 1, min_lr 0.1, warm-up 4, 15 steps: cosine over steps 4..14 (10 intervals) */

typedef struct {
    LrShape shape;
    int warmup, steps, step;
    double want;
} LrCase;

static const LrCase LR_CASES[] = {
    {LR_COSINE, 4, 15, 0, 0.25},   /* first step: lr/warmup */
    {LR_COSINE, 4, 15, 1, 0.5},
    {LR_COSINE, 4, 15, 3, 1.0},    /* last warm-up step reaches lr */
    {LR_COSINE, 4, 15, 4, 1.0},    /* first cosine step: still lr */
    {LR_COSINE, 4, 15, 9, 0.55},   /* halfway: (lr + min_lr)/2 */
    {LR_COSINE, 4, 15, 13, 0.12202456766718092}, /* 0.1 + 0.45·(1 + cos(0.9π)) */
    {LR_COSINE, 4, 15, 14, 0.1},   /* the last step reaches min_lr */
    {LR_COSINE, 0, 11, 0, 1.0},    /* no warm-up: the first step is at lr */
    {LR_COSINE, 0, 11, 5, 0.55},
    {LR_COSINE, 0, 11, 10, 0.1},
    {LR_CONSTANT, 4, 15, 0, 0.25},
    {LR_CONSTANT, 4, 15, 3, 1.0},
    {LR_CONSTANT, 4, 15, 14, 1.0},
    {LR_CONSTANT, 0, 15, 0, 1.0},
};

START_TEST(test_lr_schedule) {
    const LrCase *c = &LR_CASES[_i];
    LrSchedule sched = {.lr = 1.0, .min_lr = 0.1, .warmup_steps = c->warmup, .steps = c->steps,
                        .shape = c->shape};
    double got = optim_lr_at(&sched, c->step);
    ck_assert_msg(fabs(got - c->want) < 1e-12, "%s, warm-up %d, %d steps: lr at step %d = %.15g, want %.15g",
                  c->shape == LR_COSINE ? "cosine" : "constant", c->warmup, c->steps, c->step,
                  got, c->want);
}
END_TEST

TU_MAIN("optim",
        TU_LOOP(test_adamw_matches_reference, 0, (int)(sizeof ADAM_CASES / sizeof ADAM_CASES[0])),
        test_adamw_first_step_is_lr,
        TU_LOOP(test_sgd_matches_reference, 0, (int)(sizeof SGD_CASES / sizeof SGD_CASES[0])),
        test_weight_decay_groups, TU_LOOP(test_qk_lr_mult, 0, 2),
        TU_LOOP(test_clip, 0, (int)(sizeof CLIP_CASES / sizeof CLIP_CASES[0])),
        TU_LOOP(test_lr_schedule, 0, (int)(sizeof LR_CASES / sizeof LR_CASES[0])));
