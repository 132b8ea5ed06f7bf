/* rmsnorm.c: RMSNorm with a gain only, forward and backward side by side (rmsnorm.h), over
 * vectors that may sit strided inside a wider row (a whole residual row, or one head's q or k
 * inside qkv). Fixed-order lane sums, so results do not depend on the thread count. */
#include "model/rmsnorm.h"

#include "model/vecmath.h"

void rmsnorm_forward(real *out, real *rstd, const real *inp, const real *weight, int N, int NH,
                     int hs, long stride, real eps) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int n = 0; n < N; n++)
        for (int h = 0; h < NH; h++) {
            const real *x = inp + n * stride + (long)h * hs;
            real *o = out + n * stride + (long)h * hs;
            real s = R(1.0) / rsqrt(lane_dot(x, x, hs) / (real)hs + eps);
            for (int c = 0; c < hs; c++) o[c] = x[c] * s * weight[c];
            rstd[(long)n * NH + h] = s;
        }
}

/* Σ_c g[c]·n[c] over one vector, g = dy·weight, n = x·s. */
static real gn_sum(const real *x, const real *dy, const real *weight, real s, int n) {
    real acc[LANES] = {0}, tail = 0;
    int c = 0;
    for (; c + LANES <= n; c += LANES)
        LANE_LOOP for (int l = 0; l < LANES; l++) acc[l] += dy[c + l] * weight[c + l] * x[c + l] * s;
    for (; c < n; c++) tail += dy[c] * weight[c] * x[c] * s;
    return lanes_total(acc) + tail;
}

/* Channels per block of dweight: one thread sums a block over all (row, vector) pairs. */
enum { BLOCK = 64 };

/* dweight[c] += Σ dy·x·s for c in [c0, c0 + w), over the (row, vector) pairs in order. */
static void weight_grad_block(real *dweight, const real *dout, const real *inp, const real *rstd,
                              int N, int NH, int hs, long stride, int c0, int w) {
    for (int n = 0; n < N; n++)
        for (int h = 0; h < NH; h++) {
            long off = n * stride + (long)h * hs + c0;
            const real *x = inp + off, *dy = dout + off;
            real s = rstd[(long)n * NH + h];
            if (w == BLOCK) /* a constant trip count, vectorised */
                LANE_LOOP for (int j = 0; j < BLOCK; j++) dweight[c0 + j] += dy[j] * x[j] * s;
            else
                for (int j = 0; j < w; j++) dweight[c0 + j] += dy[j] * x[j] * s;
        }
}

void rmsnorm_backward(real *dinp, real *dweight, const real *dout, const real *inp,
                      const real *weight, const real *rstd, int N, int NH, int hs, long stride) {
#pragma omp parallel
    {
        /* dinp: (row, vector) pairs shared out; the loop below writes only dweight and reads
         * nothing this one writes, so no barrier between them. */
#pragma omp for collapse(2) schedule(static) nowait
        for (int n = 0; n < N; n++)
            for (int h = 0; h < NH; h++) {
                long off = n * stride + (long)h * hs;
                const real *x = inp + off, *dy = dout + off;
                real s = rstd[(long)n * NH + h];
                real gn_mean = gn_sum(x, dy, weight, s, hs) / (real)hs;
                real *dx = dinp + off;
                for (int c = 0; c < hs; c++) dx[c] += s * (dy[c] * weight[c] - x[c] * s * gn_mean);
            }
#pragma omp for schedule(static)
        for (int c0 = 0; c0 < hs; c0 += BLOCK)
            weight_grad_block(dweight, dout, inp, rstd, N, NH, hs, stride, c0,
                              hs - c0 < BLOCK ? hs - c0 : BLOCK);
    }
}
