#include "model/gelu.h"

#define GELU_K R(0.7978845608028654) /* sqrt(2/pi) */
#define GELU_A R(0.044715)

void gelu_forward(real *out, const real *inp, long N) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++) {
        real u = inp[i];
        out[i] = R(0.5) * u * (R(1.0) + rtanh(GELU_K * (u + GELU_A * u * u * u)));
    }
}

void gelu_backward(real *dinp, const real *inp, const real *dout, long N) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++) {
        real u = inp[i];
        real th = rtanh(GELU_K * (u + GELU_A * u * u * u));
        /* d/du tanh(g(u)) = (1 - tanh²) g'(u); 1 - tanh² avoids cosh overflow for large |u|. */
        real dth = (R(1.0) - th * th) * GELU_K * (R(1.0) + R(3.0) * GELU_A * u * u);
        dinp[i] += (R(0.5) * (R(1.0) + th) + R(0.5) * u * dth) * dout[i];
    }
}
