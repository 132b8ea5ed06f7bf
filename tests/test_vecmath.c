/* test_vecmath.c: the inline kernels of vecmath.h that have no test program of their own.
 *
 * residual_forward: its gradient with respect to each input is dout itself. model_backward
 * relies on this: it has no residual backward kernel and hands the gradient of a block's output
 * unchanged to both the branch and the skip path. With L = Σ w_i·(a_i + b_i) for fixed random w,
 * central finite differences of L in double match w for both inputs to < 1e-6 relative error,
 * and a gradient off by 1 % would fail.
 *
 * lane_sq_dev: Σ (x_j − m)² against the same sum in long double, one term at a time, for row
 * lengths below, at and around the lane count (the tail summed on its own) and for rows whose
 * mean is far from 0 (the centred form keeps their digits). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gradcheck.h"
#include "model/vecmath.h"
#include "testutil.h"

enum { N = 23 };

static real a[N], b[N], w[N], out[N];

static double loss(void *ctx) {
    (void)ctx;
    residual_forward(out, a, b, N);
    return gc_dot(w, out, N);
}

START_TEST(test_residual_passes_gradient_through) {
    Rng rng;
    rng_seed(&rng, 11);
    gc_fill_normal(a, N, &rng, 0, 1);
    gc_fill_normal(b, N, &rng, 0, 2);
    gc_fill_normal(w, N, &rng, 0, 1);
    printf("residual: d/da and d/db of sum(w * (a + b)) against dout = w:\n");
    gc_check("residual da = dout", a, N, loss, NULL, GC_H, w, 0, GC_TOL);
    gc_check("residual db = dout", b, N, loss, NULL, GC_H, w, 0, GC_TOL);
}
END_TEST

/* Row lengths and means: below one lane group, exactly one and two, with tails of 1 and 15. */
static const struct {
    int n;
    double mean;
} SQ_DEV_CASES[] = {{1, 0}, {7, 0.5}, {15, -3}, {16, 0}, {17, 2}, {31, 0}, {64, 1000},
                    {72, -1000}, {200, 7}};

START_TEST(test_lane_sq_dev_matches_long_double) {
    Rng rng;
    rng_seed(&rng, 5);
    for (size_t k = 0; k < sizeof SQ_DEV_CASES / sizeof *SQ_DEV_CASES; k++) {
        int n = SQ_DEV_CASES[k].n;
        real x[200];
        gc_fill_normal(x, (size_t)n, &rng, SQ_DEV_CASES[k].mean, 1);
        long double m = 0, want = 0;
        for (int j = 0; j < n; j++) m += x[j];
        real mr = (real)(m / n);
        for (int j = 0; j < n; j++) want += ((long double)x[j] - mr) * ((long double)x[j] - mr);
        double got = lane_sq_dev(x, mr, n);
        double rel = fabs(got - (double)want) / (want > 0 ? (double)want : 1.0); /* n = 1: 0 */
        ck_assert_msg(rel < (sizeof(real) == sizeof(double) ? 1e-13 : 1e-5),
                      "n = %d, mean %g: lane_sq_dev %.17g, long double %.17Lg (rel. err %g)", n,
                      SQ_DEV_CASES[k].mean, got, want, rel);
    }
    /* n = 0: an empty row sums to 0 */
    real none[1] = {5};
    ck_assert(lane_sq_dev(none, 1, 0) == 0);
}
END_TEST

TU_MAIN("vecmath", test_residual_passes_gradient_through, test_lane_sq_dev_matches_long_double);
