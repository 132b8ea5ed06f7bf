#include "model/residual.h"

void residual_forward(real *out, const real *a, const real *b, long N) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++) out[i] = a[i] + b[i];
}

void residual_backward(real *da, real *db, const real *dout, long N) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++) {
        da[i] += dout[i];
        db[i] += dout[i];
    }
}
