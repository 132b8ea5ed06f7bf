#include "model/layernorm.h"

void layernorm_forward(real *out, real *mean, real *rstd, const real *inp, const real *weight,
                       const real *bias, int N, int C, real eps) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *x = inp + (long)n * C;
        real m = 0;
        for (int c = 0; c < C; c++) m += x[c];
        m /= (real)C;
        /* Two passes: the variance of the centred values, not E[x²] − m², which cancels badly
         * when |mean| ≫ std. */
        real v = 0;
        for (int c = 0; c < C; c++) {
            real d = x[c] - m;
            v += d * d;
        }
        v /= (real)C;
        real s = R(1.0) / rsqrt(v + eps);
        real *o = out + (long)n * C;
        for (int c = 0; c < C; c++) o[c] = (x[c] - m) * s * weight[c] + bias[c];
        mean[n] = m;
        rstd[n] = s;
    }
}

void layernorm_backward(real *dinp, real *dweight, real *dbias, const real *dout,
                        const real *inp, const real *weight, const real *mean, const real *rstd,
                        int N, int C) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *x = inp + (long)n * C;
        const real *dy = dout + (long)n * C;
        real m = mean[n], s = rstd[n];
        real g_mean = 0, gn_mean = 0;
        for (int c = 0; c < C; c++) {
            real g = dy[c] * weight[c];
            g_mean += g;
            gn_mean += g * (x[c] - m) * s;
        }
        g_mean /= (real)C;
        gn_mean /= (real)C;
        real *dx = dinp + (long)n * C;
        for (int c = 0; c < C; c++) {
            real norm = (x[c] - m) * s;
            dx[c] += s * (dy[c] * weight[c] - g_mean - norm * gn_mean);
        }
    }
    /* Parameter gradients: rows outer for contiguous access, channels inner; serial so the
     * order of the sum is fixed. Cost is O(N·C), small next to the matmuls. */
    for (int n = 0; n < N; n++) {
        const real *x = inp + (long)n * C;
        const real *dy = dout + (long)n * C;
        real m = mean[n], s = rstd[n];
        for (int c = 0; c < C; c++) {
            dweight[c] += dy[c] * (x[c] - m) * s;
            dbias[c] += dy[c];
        }
    }
}
