#include "model/matmul.h"

void matmul_forward(real *out, const real *inp, const real *weight, const real *bias, int N,
                    int C, int OC) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *x = inp + (long)n * C;
        real *y = out + (long)n * OC;
        for (int o = 0; o < OC; o++) {
            const real *w = weight + (long)o * C;
            real acc = bias ? bias[o] : R(0.0);
            for (int c = 0; c < C; c++) acc += x[c] * w[c];
            y[o] = acc;
        }
    }
}

void matmul_backward(real *dinp, real *dweight, real *dbias, const real *dout, const real *inp,
                     const real *weight, int N, int C, int OC) {
    /* dinp: one row per thread iteration. */
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *dy = dout + (long)n * OC;
        real *dx = dinp + (long)n * C;
        for (int o = 0; o < OC; o++) {
            const real *w = weight + (long)o * C;
            real d = dy[o];
            for (int c = 0; c < C; c++) dx[c] += d * w[c];
        }
    }
    /* dweight, dbias: one output channel per thread iteration, rows summed in order. */
#pragma omp parallel for schedule(static)
    for (int o = 0; o < OC; o++) {
        real *dw = dweight + (long)o * C;
        real db = 0;
        for (int n = 0; n < N; n++) {
            real d = dout[(long)n * OC + o];
            const real *x = inp + (long)n * C;
            for (int c = 0; c < C; c++) dw[c] += d * x[c];
            db += d;
        }
        if (dbias) dbias[o] += db;
    }
}
