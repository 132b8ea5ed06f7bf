/* optim.c: the optimizer stage: AdamW and SGD updates of the flat parameter buffer, clipping,
 * the learning-rate schedule (formulas and sources in optim.h). Called by the training loop after
 * model_backward. */
#include "optim/optim.h"

#include <math.h>
#include <stdlib.h>

int optim_init(Optimizer *o, OptimizerKind kind, double beta1, double beta2, double eps,
               double weight_decay, double momentum, size_t n) {
    o->kind = kind;
    o->beta1 = beta1;
    o->beta2 = beta2;
    o->eps = eps;
    o->weight_decay = weight_decay;
    o->momentum = momentum;
    o->lr_q_mult = o->lr_k_mult = o->lr_hidden_mult = 1.0;
    o->t = 0;
    o->n = n;
    o->m = calloc(n, sizeof(real));
    o->v = kind == OPTIMIZER_ADAMW ? calloc(n, sizeof(real)) : NULL;
    if (!o->m || (kind == OPTIMIZER_ADAMW && !o->v)) {
        optim_free(o);
        return -1;
    }
    return 0;
}

void optim_set_qk_lr_mult(Optimizer *o, double q_mult, double k_mult) {
    o->lr_q_mult = q_mult;
    o->lr_k_mult = k_mult;
}

void optim_set_hidden_lr_mult(Optimizer *o, double mult) { o->lr_hidden_mult = mult; }

void optim_free(Optimizer *o) {
    free(o->m);
    free(o->v);
    o->m = o->v = NULL;
}

/* Called inside the one parallel region of optim_step: `omp for nowait`, as tensors are
 * disjoint, so a step has one barrier instead of one per tensor. lr: this part's rate;
 * lr_wd: its decoupled decay, lr·weight_decay of the unmultiplied rate (optim.h). */
static void adamw_tensor(const Optimizer *o, real *p, const real *g, real *m, real *v, size_t n,
                         double lr, double lr_wd) {
    /* 1 − β in double: from a float β2 = 0.999 (0.99900001) it would be 1.3e-5 relative too
     * small against the bias correction computed in double, making the first updates 6.4e-6
     * too large; rounded once from double, (1 − β)/(1 − βᵗ) is exactly 1 at t = 1. */
    real b1 = (real)o->beta1, b2 = (real)o->beta2;
    real a1 = (real)(1.0 - o->beta1), a2 = (real)(1.0 - o->beta2);
    real c1 = (real)(1.0 - pow(o->beta1, (double)(o->t + 1)));
    real c2 = (real)(1.0 - pow(o->beta2, (double)(o->t + 1)));
    real decay = (real)(1.0 - lr_wd), rlr = (real)lr, eps = (real)o->eps;
#pragma omp for schedule(static) nowait
    for (size_t i = 0; i < n; i++) {
        m[i] = b1 * m[i] + a1 * g[i];
        v[i] = b2 * v[i] + a2 * g[i] * g[i];
        real mhat = m[i] / c1, vhat = v[i] / c2;
        p[i] = p[i] * decay - rlr * mhat / (rsqrt(vhat) + eps);
    }
}

static void sgd_tensor(const Optimizer *o, real *p, const real *g, real *m, size_t n, double lr,
                       double lr_wd) {
    real mu = (real)o->momentum, decay = (real)(1.0 - lr_wd), rlr = (real)lr;
#pragma omp for schedule(static) nowait
    for (size_t i = 0; i < n; i++) {
        m[i] = mu * m[i] + g[i];
        p[i] = p[i] * decay - rlr * m[i];
    }
}

void optim_step(Optimizer *o, real *params, const real *grads, const TensorInfo *tensors,
                int n_tensors, double lr) {
    const double qkv_mult[3] = {o->lr_q_mult, o->lr_k_mult, 1.0}; /* q, k, v thirds */
#pragma omp parallel
    for (int i = 0; i < n_tensors; i++) {
        const TensorInfo *t = &tensors[i];
        double wd = t->ndim >= 2 ? o->weight_decay : 0.0;
        int parts = t->qkv_thirds ? 3 : 1;
        size_t len = t->numel / (size_t)parts;
        for (int k = 0; k < parts; k++) {
            size_t off = t->offset + (size_t)k * len;
            /* the one place a tensor's rate is made: μP's hidden factor times q's or k's */
            double rate = lr * (t->hidden ? o->lr_hidden_mult : 1.0) * (parts == 3 ? qkv_mult[k] : 1.0);
            double lr_wd = lr * wd; /* the decay of the unmultiplied rate (optim.h) */
            if (o->kind == OPTIMIZER_ADAMW)
                adamw_tensor(o, params + off, grads + off, o->m + off, o->v + off, len, rate,
                             lr_wd);
            else
                sgd_tensor(o, params + off, grads + off, o->m + off, len, rate, lr_wd);
        }
    }
    o->t++;
}

double optim_lr_at(const LrSchedule *s, int step) {
    if (step < s->warmup_steps) return s->lr * (double)(step + 1) / (double)s->warmup_steps;
    if (s->shape == LR_CONSTANT) return s->lr;
    int span = s->steps - s->warmup_steps;
    if (span <= 1) return s->lr;
    double progress = (double)(step - s->warmup_steps) / (double)(span - 1);
    if (progress > 1) progress = 1;
    return s->min_lr + 0.5 * (s->lr - s->min_lr) * (1.0 + cos(3.141592653589793 * progress));
}

void optim_clip_grads(real *grads, size_t n, double max_norm, double norm) {
    /* isfinite: a NaN norm compares false anyway; an infinite one would scale by 0 and hide
     * which gradient overflowed (the caller reports a non-finite norm and skips the update) */
    if (max_norm > 0 && isfinite(norm) && norm > max_norm) {
        real s = (real)(max_norm / norm);
        for (size_t i = 0; i < n; i++) grads[i] *= s;
    }
}
