/* layernorm.c: LayerNorm over d_model, forward and backward side by side (layernorm.h), with
 * fixed-order lane sums so that results do not depend on the thread count. */
#include "model/layernorm.h"

#include "model/vecmath.h"

void layernorm_forward(real *out, real *mean, real *rstd, const real *inp, const real *weight,
                       const real *bias, int N, int C, real eps) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *x = inp + (long)n * C;
        real m = lane_sum(x, C) / (real)C;
        /* Two passes: the variance of the centred values, not E[x²] − m², which cancels badly
         * when |mean| ≫ std. */
        real v = lane_sq_dev(x, m, C) / (real)C;
        real s = R(1.0) / rsqrt(v + eps);
        real *o = out + (long)n * C;
        for (int c = 0; c < C; c++) o[c] = (x[c] - m) * s * weight[c] + bias[c];
        mean[n] = m;
        rstd[n] = s;
    }
}

/* Σ_c g[c] and Σ_c g[c]·n[c] for one row, g = dy·weight, n = (x − m)·s. */
static inline void row_g_sums(const real *x, const real *dy, const real *weight, real m, real s,
                              int C, real *g_sum, real *gn_sum) {
    real ag[LANES] = {0}, agn[LANES] = {0}, tg = 0, tgn = 0;
    int c = 0;
    for (; c + LANES <= C; c += LANES) LANE_LOOP for (int l = 0; l < LANES; l++) {
            real g = dy[c + l] * weight[c + l];
            ag[l] += g;
            agn[l] += g * (x[c + l] - m) * s;
        }
    for (; c < C; c++) {
        real g = dy[c] * weight[c];
        tg += g;
        tgn += g * (x[c] - m) * s;
    }
    *g_sum = lanes_total(ag) + tg;
    *gn_sum = lanes_total(agn) + tgn;
}

/* Channels per block of the parameter gradients: one thread sums a block over all rows. */
enum { BLOCK = 64 };

/* dweight[c] += Σ_n dy·(x − m)·s and dbias[c] += Σ_n dy for c in [c0, c0 + w), rows in order. */
static void param_grad_block(real *dweight, real *dbias, const real *dout, const real *inp,
                             const real *mean, const real *rstd, int N, int C, int c0, int w) {
    for (int n = 0; n < N; n++) {
        const real *x = inp + (long)n * C + c0;
        const real *dy = dout + (long)n * C + c0;
        real m = mean[n], s = rstd[n];
        if (w == BLOCK) /* a constant trip count, vectorised */
            LANE_LOOP for (int j = 0; j < BLOCK; j++) {
                dweight[c0 + j] += dy[j] * (x[j] - m) * s;
                dbias[c0 + j] += dy[j];
            }
        else
            for (int j = 0; j < w; j++) {
                dweight[c0 + j] += dy[j] * (x[j] - m) * s;
                dbias[c0 + j] += dy[j];
            }
    }
}

void layernorm_backward(real *dinp, real *dweight, real *dbias, const real *dout,
                        const real *inp, const real *weight, const real *mean, const real *rstd,
                        int N, int C) {
#pragma omp parallel
    {
        /* dinp: rows shared out; the loop below does not read dinp, so no barrier between. */
#pragma omp for schedule(static) nowait
        for (int n = 0; n < N; n++) {
            const real *x = inp + (long)n * C;
            const real *dy = dout + (long)n * C;
            real m = mean[n], s = rstd[n], g_mean, gn_mean;
            row_g_sums(x, dy, weight, m, s, C, &g_mean, &gn_mean);
            g_mean /= (real)C;
            gn_mean /= (real)C;
            real *dx = dinp + (long)n * C;
            for (int c = 0; c < C; c++) {
                real norm = (x[c] - m) * s;
                dx[c] += s * (dy[c] * weight[c] - g_mean - norm * gn_mean);
            }
        }
        /* dweight, dbias: each channel summed over the rows in row order by one thread. */
#pragma omp for schedule(static)
        for (int c0 = 0; c0 < C; c0 += BLOCK)
            param_grad_block(dweight, dbias, dout, inp, mean, rstd, N, C, c0,
                             C - c0 < BLOCK ? C - c0 : BLOCK);
    }
}
