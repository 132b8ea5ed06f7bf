/* gelu.c: the MLP's GELU (tanh form), forward and backward side by side (gelu.h); the forward
 * saves GELU' for the backward. */
#include "model/gelu.h"

#include "model/vecmath.h"

#define GELU_K R(0.7978845608028654) /* sqrt(2/pi) */
#define GELU_A R(0.044715)

#ifdef SCALEDOT_DOUBLE
static inline real tanh_inline(real x) { return tanh(x); }
#else
/* tanh(x) = sign(x)·(1 − e)/(1 + e) with e = exp(−2|x|); below |x| = 0.1 that difference
 * cancels, so the Taylor series x − x³/3 + 2x⁵/15 − 17x⁷/315 is used (error < 3e-11). Measured
 * against libm's tanhf over [−20, 20]: tests/test_gelu_tanh.c. Inline, so the loops vectorise. */
static inline real tanh_inline(real x) {
    float a = x < 0 ? -x : x;
    float e = exp_nonpositive(-2.0f * a);
    float big = (1.0f - e) / (1.0f + e);
    float a2 = a * a;
    float small = a * (1.0f + a2 * (-1.0f / 3.0f + a2 * (2.0f / 15.0f + a2 * (-17.0f / 315.0f))));
    float t = a < 0.1f ? small : big;
    return x < 0 ? -t : t;
}
#endif

real gelu_tanh(real x) { return tanh_inline(x); }

/* libm's tanh (double build) cannot be vectorised; asking for simd there makes clang warn. */
#ifdef SCALEDOT_DOUBLE
#define ELEMENTWISE_LOOP _Pragma("omp parallel for schedule(static)")
#else
#define ELEMENTWISE_LOOP _Pragma("omp parallel for simd schedule(static)")
#endif

/* The derivative is taken here, where tanh is at hand, so that backward is a multiply instead
 * of a second tanh (which cost as much as the forward). */
void gelu_forward(real *out, real *dgelu, const real *inp, long N) {
    ELEMENTWISE_LOOP
    for (long i = 0; i < N; i++) {
        real u = inp[i];
        real th = tanh_inline(GELU_K * (u + GELU_A * u * u * u));
        /* d/du tanh(g(u)) = (1 - tanh²) g'(u); 1 - tanh² avoids cosh overflow for large |u|. */
        real dth = (R(1.0) - th * th) * GELU_K * (R(1.0) + R(3.0) * GELU_A * u * u);
        out[i] = R(0.5) * u * (R(1.0) + th);
        dgelu[i] = R(0.5) * (R(1.0) + th) + R(0.5) * u * dth;
    }
}

void gelu_backward(real *dinp, const real *dgelu, const real *dout, long N) {
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < N; i++) dinp[i] = dgelu[i] * dout[i];
}
