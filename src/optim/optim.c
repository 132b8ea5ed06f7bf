/* optim.c: the optimizer stage: AdamW and SGD updates of the flat parameter buffer, clipping,
 * the learning-rate schedule (formulas and sources in optim.h). Called by the training loop after
 * model_backward. */
#include "optim/optim.h"

#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__AVX512F__) && !defined(SCALEDOT_DOUBLE)
#include <immintrin.h>
#endif

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
#if defined(__AVX512F__) && !defined(SCALEDOT_DOUBLE)
    /* 16 lanes at a time, each lane the scalar loop's operations below as gcc contracts them
     * (m = fma(m, β1, (1−β1)·g), v = fma(v, β2, (1−β2)·g·g), then divisions, the square root
     * and the update unfused), so the results are the same bits; the scalar loop was not
     * vectorised (sqrtf may set errno) and took 13 % of a bf16 step at the width shapes. The
     * thread's share is whole vectors, the last one masked. */
    int t = 0, T = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    T = omp_get_num_threads();
#endif
    size_t nv = (n + 15) / 16, lo = nv * (size_t)t / (size_t)T * 16;
    size_t hi = nv * (size_t)(t + 1) / (size_t)T * 16;
    __m512 vb1 = _mm512_set1_ps(b1), vb2 = _mm512_set1_ps(b2), va1 = _mm512_set1_ps(a1);
    __m512 va2 = _mm512_set1_ps(a2), vc1 = _mm512_set1_ps(c1), vc2 = _mm512_set1_ps(c2);
    __m512 vdecay = _mm512_set1_ps(decay), vlr = _mm512_set1_ps(rlr), veps = _mm512_set1_ps(eps);
    /* the _round_ forms are builtins the compiler may not contract into FMAs (gcc contracts
     * _mm512_mul_ps and _mm512_sub_ps, plain vector arithmetic, under -ffp-contract=fast) */
    enum { rn = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }; /* a constant, as clang needs */
    for (size_t i = lo; i < hi && i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 gi = _mm512_maskz_loadu_ps(k, g + i);
        __m512 mi = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, m + i), vb1,
                                    _mm512_mul_round_ps(va1, gi, rn));
        __m512 vi = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, v + i), vb2,
                                    _mm512_mul_round_ps(_mm512_mul_round_ps(va2, gi, rn), gi, rn));
        __m512 mhat = _mm512_div_round_ps(mi, vc1, rn), vhat = _mm512_div_round_ps(vi, vc2, rn);
        __m512 den = _mm512_add_round_ps(_mm512_sqrt_round_ps(vhat, rn), veps, rn);
        __m512 step = _mm512_div_round_ps(_mm512_mul_round_ps(mhat, vlr, rn), den, rn);
        __m512 pd = _mm512_mul_round_ps(_mm512_maskz_loadu_ps(k, p + i), vdecay, rn);
        _mm512_mask_storeu_ps(m + i, k, mi);
        _mm512_mask_storeu_ps(v + i, k, vi);
        _mm512_mask_storeu_ps(p + i, k, _mm512_sub_round_ps(pd, step, rn));
    }
#else
#pragma omp for schedule(static) nowait
    for (size_t i = 0; i < n; i++) {
        m[i] = b1 * m[i] + a1 * g[i];
        v[i] = b2 * v[i] + a2 * g[i] * g[i];
        real mhat = m[i] / c1, vhat = v[i] / c2;
        p[i] = p[i] * decay - rlr * mhat / (rsqrt(vhat) + eps);
    }
#endif
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
