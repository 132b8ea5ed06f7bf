/* residual.c: the residual add x + f(x) of each block (forward only: its gradient passes
 * unchanged to both inputs, see model.c's backward). */
#include "model/residual.h"

void residual_forward(real *out, const real *a, const real *b, long N) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++) out[i] = a[i] + b[i];
}
