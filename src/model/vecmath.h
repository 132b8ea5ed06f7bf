/* vecmath.h: small inline helpers of the row and element-wise kernels, written so that gcc and
 * clang vectorise them under IEEE-strict flags (no -ffast-math), with results that depend on the
 * data and the row length only, never on the thread count. */
#ifndef SCALEDOT_VECMATH_H
#define SCALEDOT_VECMATH_H

#include <stddef.h>

#include "model/real.h"

/* Row sums keep LANES interleaved running sums (lane l adds x[l], x[l + LANES], ...), added
 * pairwise in a fixed tree at the end; the tail (n mod LANES values) is summed on its own and
 * added last. One running sum would be a dependency chain the compiler may not reorder, which
 * made LayerNorm several times slower; `omp simd` asks for vector code and changes no order. */
enum { LANES = 16 };
#define LANE_LOOP _Pragma("omp simd")

/* acc[0] + ... + acc[LANES-1] as a pairwise tree (4 dependent adds); acc is used as scratch. */
static inline real lanes_total(real acc[LANES]) {
    for (int w = LANES / 2; w > 0; w /= 2)
        for (int l = 0; l < w; l++) acc[l] += acc[l + w];
    return acc[0];
}

/* Σ_j x[j] over j < n. */
static inline real lane_sum(const real *x, int n) {
    real acc[LANES] = {0}, tail = 0;
    int j = 0;
    for (; j + LANES <= n; j += LANES) LANE_LOOP for (int l = 0; l < LANES; l++) acc[l] += x[j + l];
    for (; j < n; j++) tail += x[j];
    return lanes_total(acc) + tail;
}

/* Σ_j x[j]·y[j] over j < n. */
static inline real lane_dot(const real *x, const real *y, int n) {
    real acc[LANES] = {0}, tail = 0;
    int j = 0;
    for (; j + LANES <= n; j += LANES)
        LANE_LOOP for (int l = 0; l < LANES; l++) acc[l] += x[j + l] * y[j + l];
    for (; j < n; j++) tail += x[j] * y[j];
    return lanes_total(acc) + tail;
}

/* Σ_j (x[j] − m)² over j < n: the centred second pass of a LayerNorm variance (layernorm.c,
 * qknorm.c), not E[x²] − m², which cancels badly when |mean| ≫ std. */
static inline real lane_sq_dev(const real *x, real m, int n) {
    real acc[LANES] = {0}, tail = 0;
    int j = 0;
    for (; j + LANES <= n; j += LANES) LANE_LOOP for (int l = 0; l < LANES; l++) {
            real d = x[j + l] - m;
            acc[l] += d * d;
        }
    for (; j < n; j++) tail += (x[j] - m) * (x[j] - m);
    return lanes_total(acc) + tail;
}

/* Σ_j x[j]² over j < n, in double (for norms of whole gradient buffers, where float partial
 * sums of millions of terms would lose digits). */
static inline double lane_sumsq_double(const real *x, size_t n) {
    double acc[LANES] = {0}, tail = 0;
    size_t j = 0;
    for (; j + LANES <= n; j += LANES)
        LANE_LOOP for (int l = 0; l < LANES; l++) acc[l] += (double)x[j + l] * x[j + l];
    for (; j < n; j++) tail += (double)x[j] * x[j];
    for (int w = LANES / 2; w > 0; w /= 2)
        for (int l = 0; l < w; l++) acc[l] += acc[l + w];
    return acc[0] + tail;
}

/* The residual connection x + f(x) of each block (He et al. 2016, eq. 1): out = a + b,
 * elementwise over N values. Its backward is the identity, so there is no kernel for it:
 * model_backward hands the gradient of the sum unchanged to both inputs (tests/test_vecmath.c
 * checks that identity by finite differences). */
static inline void residual_forward(real *out, const real *a, const real *b, long N) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++) out[i] = a[i] + b[i];
}

/* For a loop that calls exp_nonpositive: vector code in float; none in the double build, which
 * calls libm (clang warns when asked to vectorise what it cannot). */
#ifdef SCALEDOT_DOUBLE
#define EXP_LOOP
static inline real exp_nonpositive(real x) { return exp(x); }
#else
#define EXP_LOOP LANE_LOOP
/* exp(x) for x <= 0, branch-free so that `omp simd` loops vectorise it (glibc's expf is a scalar
 * call gcc cannot vectorise without -ffast-math). x = n·ln2 + r with |r| <= ln2/2, exp(r) by its
 * Taylor polynomial of degree 7 (truncation error < 5e-9 relative), 2^n put into the exponent
 * bits. Below EXP_CUTOFF it returns 0: a saturated softmax row is full of such values, and
 * they and their products with gradients would be subnormal floats, which x86 handles on a slow
 * microcode path (with the cutoff at −87 the shipped unscaled run took 38 % longer).
 * NaN stays NaN. */
#define EXP_CUTOFF (-69.0f) /* exp(−69) ≈ 1e-30 */
static inline float exp_nonpositive(float x) {
    /* a NaN reaching the int conversion below would be undefined behaviour: it computes on the
     * cutoff and is put back at the end */
    float xc = x >= EXP_CUTOFF ? x : EXP_CUTOFF;
    const float magic = 12582912.0f; /* 1.5·2^23: adding it rounds to an integer */
    float n = (xc * 1.44269504f + magic) - magic;
    float r = (xc - n * 0.693145752f) - n * 1.42860677e-6f; /* ln2 split for an exact n·ln2_hi */
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int bits = ((int)n + 127) << 23;
    float scale;
    __builtin_memcpy(&scale, &bits, sizeof scale);
    return x >= EXP_CUTOFF ? p * scale : x == x ? 0.0f : x;
}
#endif

#endif
