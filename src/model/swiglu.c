/* swiglu.c: silu(gate) ⊙ up of the LLaMA MLP, forward and backward side by side (swiglu.h). */
#include "model/swiglu.h"

#include "model/vecmath.h"

/* e = e^(−|x|) <= 1 never overflows; σ(x) = 1/(1 + e) for x >= 0 and e/(1 + e) below. */
static inline real sigmoid_inline(real x) {
    real e = exp_nonpositive(x < 0 ? x : -x);
    real r = R(1.0) / (R(1.0) + e);
    return x < 0 ? e * r : r;
}

real swiglu_sigmoid(real x) { return sigmoid_inline(x); }

void swiglu_forward(real *out, const real *gu, int N, int F) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *g = gu + 2L * F * n, *u = g + F;
        real *o = out + (long)F * n;
        EXP_LOOP for (int j = 0; j < F; j++) o[j] = g[j] * sigmoid_inline(g[j]) * u[j];
    }
}

void swiglu_backward(real *dgu, const real *dout, const real *gu, int N, int F) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *g = gu + 2L * F * n, *u = g + F, *dy = dout + (long)F * n;
        real *dg = dgu + 2L * F * n, *du = dg + F;
        EXP_LOOP for (int j = 0; j < F; j++) {
            real s = sigmoid_inline(g[j]);
            dg[j] = dy[j] * u[j] * s * (R(1.0) + g[j] * (R(1.0) - s));
            du[j] = dy[j] * g[j] * s;
        }
    }
}
