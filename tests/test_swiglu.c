/* test_swiglu.c: the SwiGLU activation of the LLaMA MLP (src/model/swiglu.c), forward and
 * backward, on the fused (N, 2F) [gate | up] layout.
 *
 *   - forward against silu(g)·u = g·u / (1 + exp(−g)) written out in double in the test
 *     (libm's exp), over g from −80 to 80 (both sides of the overflow-safe sigmoid's branch and
 *     past float exp's cutoff), and sigmoid itself at 0 and far out.
 *   - backward: with L = Σ w·out for fixed random w, dgu (g and u halves, each on its own)
 *     matches central finite differences of L to < 1e-6; dgu is overwritten (it held garbage).
 * Each finite-difference comparison also proves that a gradient off by 1 % would fail. */
#include <stdio.h>
#include <string.h>

#include "gradcheck.h"
#include "model/swiglu.h"
#include "testutil.h"

enum { N = 5, F = 19, NGU = N * 2 * F, NOUT = N * F };

static real gu[NGU], out[NOUT], w[NOUT];

START_TEST(test_forward_matches_the_book) {
    Rng rng;
    rng_seed(&rng, 3);
    gc_fill_normal(gu, NGU, &rng, 0, 3);
    for (int j = 0; j < F; j++) gu[j] = (real)(-80 + 160.0 * j / (F - 1)); /* row 0: g far out */
    swiglu_forward(out, gu, N, F);
    for (int n = 0; n < N; n++)
        for (int j = 0; j < F; j++) {
            double g = gu[n * 2 * F + j], u = gu[n * 2 * F + F + j];
            double want = g * u / (1 + exp(-g));
            ck_assert_msg(fabs(out[n * F + j] - want) <= 1e-12 * fmax(1, fabs(want)),
                          "out[%d, %d] = %.17g, by the book %.17g (g %g, u %g)", n, j,
                          (double)out[n * F + j], want, g, u);
        }
    ck_assert(swiglu_sigmoid(0) == R(0.5));
    ck_assert(fabs(swiglu_sigmoid(R(30.0)) - 1) < 1e-12);
    ck_assert(swiglu_sigmoid(R(-30.0)) > 0 && fabs(swiglu_sigmoid(R(-30.0)) - exp(-30.0)) < 1e-24);
}
END_TEST

static double loss(void *ctx) {
    (void)ctx;
    swiglu_forward(out, gu, N, F);
    return gc_dot(w, out, NOUT);
}

START_TEST(test_backward) {
    Rng rng;
    rng_seed(&rng, 23);
    gc_fill_normal(gu, NGU, &rng, 0, 2.5);
    gc_fill_normal(w, NOUT, &rng, 0, 1);
    static real dgu[NGU], part[NOUT];
    static double num[NGU], num_part[NOUT];
    gc_fill(dgu, NGU, 7); /* garbage: must be overwritten */
    swiglu_backward(dgu, w, gu, N, F);
    gc_numeric(gu, NGU, loss, NULL, GC_H, num);
    printf("swiglu:\n");
    for (int p = 0; p < 2; p++) {
        for (int n = 0; n < N; n++)
            for (int j = 0; j < F; j++) {
                part[n * F + j] = dgu[n * 2 * F + p * F + j];
                num_part[n * F + j] = num[n * 2 * F + p * F + j];
            }
        gc_expect(p ? "swiglu d up" : "swiglu d gate", part, 0, num_part, NOUT, GC_TOL);
    }
}
END_TEST

TU_MAIN("swiglu", test_forward_matches_the_book, test_backward);
