/* qknorm.c: the per-head LayerNorm of query-key normalisation, forward and backward, over head
 * vectors that sit strided inside the qkv activations (qknorm.h gives the layout and formula).
 *
 * layernorm.c's kernels normalise contiguous rows of C; here a "row" is one head's hs entries,
 * and consecutive heads of a token are contiguous but tokens are 3C apart, so the same
 * arithmetic (two-pass variance, lane sums of vecmath.h) is applied per (token, head) vector. */
#include "model/qknorm.h"

#include "model/vecmath.h"

void qknorm_forward(real *out, real *mean, real *rstd, const real *inp, const real *weight,
                    const real *bias, int N, int NH, int hs, long stride, real eps) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int n = 0; n < N; n++)
        for (int h = 0; h < NH; h++) {
            const real *x = inp + n * stride + (long)h * hs;
            real *o = out + n * stride + (long)h * hs;
            real m = lane_sum(x, hs) / (real)hs;
            real s = R(1.0) / rsqrt(lane_sq_dev(x, m, hs) / (real)hs + eps);
            for (int c = 0; c < hs; c++) o[c] = (x[c] - m) * s * weight[c] + bias[c];
            mean[(long)n * NH + h] = m;
            rstd[(long)n * NH + h] = s;
        }
}

/* Σ_c g[c] and Σ_c g[c]·n[c] over one head vector, g = dy·weight, n = (x − m)·s. */
static void g_sums(const real *x, const real *dy, const real *weight, real m, real s, int n,
                   real *g_sum, real *gn_sum) {
    real ag[LANES] = {0}, agn[LANES] = {0}, tg = 0, tgn = 0;
    int c = 0;
    for (; c + LANES <= n; c += LANES) LANE_LOOP for (int l = 0; l < LANES; l++) {
            real g = dy[c + l] * weight[c + l];
            ag[l] += g;
            agn[l] += g * (x[c + l] - m) * s;
        }
    for (; c < n; c++) {
        real g = dy[c] * weight[c];
        tg += g;
        tgn += g * (x[c] - m) * s;
    }
    *g_sum = lanes_total(ag) + tg;
    *gn_sum = lanes_total(agn) + tgn;
}

void qknorm_backward(real *dinp, real *dweight, real *dbias, const real *dout, const real *inp,
                     const real *weight, const real *mean, const real *rstd, int N, int NH,
                     int hs, long stride) {
#pragma omp parallel
    {
        /* dinp: (row, head) vectors shared out; the loop below writes only dweight and dbias
         * and reads nothing this one writes, so no barrier between them. */
#pragma omp for collapse(2) schedule(static) nowait
        for (int n = 0; n < N; n++)
            for (int h = 0; h < NH; h++) {
                long off = n * stride + (long)h * hs, r = (long)n * NH + h;
                const real *x = inp + off, *dy = dout + off;
                real m = mean[r], s = rstd[r], g_mean, gn_mean;
                g_sums(x, dy, weight, m, s, hs, &g_mean, &gn_mean);
                g_mean /= (real)hs;
                gn_mean /= (real)hs;
                real *dx = dinp + off;
                for (int c = 0; c < hs; c++)
                    dx[c] = s * (dy[c] * weight[c] - g_mean - (x[c] - m) * s * gn_mean);
            }
        /* dweight, dbias: one thread per channel, summed over the vectors in (row, head) order */
#pragma omp for schedule(static)
        for (int c = 0; c < hs; c++) {
            real dw = dweight[c], db = dbias[c];
            for (int n = 0; n < N; n++)
                for (int h = 0; h < NH; h++) {
                    long off = n * stride + (long)h * hs + c, r = (long)n * NH + h;
                    dw += dout[off] * (inp[off] - mean[r]) * rstd[r];
                    db += dout[off];
                }
            dweight[c] = dw;
            dbias[c] = db;
        }
    }
}
