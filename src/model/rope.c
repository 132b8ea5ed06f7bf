/* rope.c: rotary position embedding on q and k, forward and backward side by side (rope.h). The
 * backward is the same loop with the angle negated: the transpose of a rotation. */
#include "model/rope.h"

#include <math.h>

void rope_tables(real *cos_t, real *sin_t, int max_T, int hs) {
    int half = hs / 2;
    for (int i = 0; i < half; i++) {
        double freq = pow(10000.0, -2.0 * i / hs);
        for (int t = 0; t < max_T; t++) {
            double a = t * freq;
            cos_t[(long)t * half + i] = (real)cos(a);
            sin_t[(long)t * half + i] = (real)sin(a);
        }
    }
}

/* Rotates the pairs of every head's q and k by +a (dir = 1) or −a (dir = −1). */
static void rotate(real *qkv, const real *cos_t, const real *sin_t, int B, int T, int C, int NH,
                   real dir) {
    int hs = C / NH, half = hs / 2;
    long N = (long)B * T, C3 = 3L * C;
#pragma omp parallel for schedule(static)
    for (long n = 0; n < N; n++) {
        long t = n % T;
        const real *cs = cos_t + t * half, *sn = sin_t + t * half;
        real *row = qkv + n * C3;
        for (int part = 0; part < 2 * NH; part++) { /* the NH heads of q, then the NH of k */
            real *x = row + (long)part * hs;
            for (int i = 0; i < half; i++) {
                real c = cs[i], s = dir * sn[i];
                real x0 = x[2 * i], x1 = x[2 * i + 1];
                x[2 * i] = x0 * c - x1 * s;
                x[2 * i + 1] = x0 * s + x1 * c;
            }
        }
    }
}

void rope_forward(real *qkv, const real *cos_t, const real *sin_t, int B, int T, int C, int NH) {
    rotate(qkv, cos_t, sin_t, B, T, C, NH, R(1.0));
}

void rope_backward(real *dqkv, const real *cos_t, const real *sin_t, int B, int T, int C, int NH) {
    rotate(dqkv, cos_t, sin_t, B, T, C, NH, R(-1.0));
}
