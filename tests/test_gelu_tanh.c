/* test_gelu_tanh.c: the float build's vectorisable tanh and exp against libm (in double).
 * tanh, over a dense grid and at the edges: absolute error below 1e-6 everywhere, relative error
 * below 1e-5 where |tanh| >= 1e-3, exact oddness, and saturation to ±1 without NaN for huge
 * inputs. exp_nonpositive (vecmath.h, the softmax's exp): relative error below 1e-6 down to its
 * cutoff, exactly 0 below it, never a subnormal float, NaN kept, exp(0) = 1 and exp(−inf) = 0. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/gelu.h"
#include "model/vecmath.h"
#include "testutil.h"

START_TEST(test_tanh_matches_libm) {
    double worst_abs = 0, worst_rel = 0, at_abs = 0, at_rel = 0;
    for (int i = -2000000; i <= 2000000; i++) {
        float x = (float)i * 1e-5f; /* [-20, 20] */
        double ref = tanh((double)x), got = gelu_tanh(x);
        double ea = fabs(got - ref);
        if (ea > worst_abs) {
            worst_abs = ea;
            at_abs = x;
        }
        if (fabs(ref) >= 1e-3 && ea / fabs(ref) > worst_rel) {
            worst_rel = ea / fabs(ref);
            at_rel = x;
        }
    }
    printf("gelu_tanh vs libm tanh on [-20, 20]: worst absolute error %.3g at %g, worst relative "
           "error %.3g at %g\n", worst_abs, at_abs, worst_rel, at_rel);
    ck_assert_msg(worst_abs < 1e-6, "absolute error %.3g at %g", worst_abs, at_abs);
    ck_assert_msg(worst_rel < 1e-5, "relative error %.3g at %g", worst_rel, at_rel);
}
END_TEST

START_TEST(test_tanh_edges) {
    float xs[] = {0.0f, 1e-30f, 1e-8f, 0.0999999f, 0.1f, 0.1000001f, 3.0f, 9.0f, 50.0f, 1e30f, INFINITY};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        float x = xs[i];
        float p = gelu_tanh(x), n = gelu_tanh(-x);
        ck_assert_msg(p == -n, "odd at %g: %g vs %g", x, p, n);
        ck_assert_msg(isfinite(p) && fabsf(p) <= 1.0f, "bounded at %g: %g", x, p);
        ck_assert_msg(fabs(p - tanh((double)x)) < 1e-6, "at %g: %g vs %g", x, p, tanh((double)x));
    }
    ck_assert(gelu_tanh(1e30f) == 1.0f);
    ck_assert(gelu_tanh(0.0f) == 0.0f);
}
END_TEST

START_TEST(test_exp_nonpositive) {
    double worst = 0, at = 0;
    int subnormal = 0;
    for (int i = 0; i <= 2000000; i++) {
        float x = (float)i * -1e-4f; /* [-200, 0] */
        float got = exp_nonpositive(x);
        if (fpclassify(got) == FP_SUBNORMAL) subnormal++;
        if (x >= EXP_CUTOFF) {
            double rel = fabs(got - exp((double)x)) / exp((double)x);
            if (rel > worst) worst = rel, at = x;
        } else {
            TU_CHECK_MSG(got == 0.0f, "exp_nonpositive(%g) = %g below the cutoff", x, got);
        }
    }
    printf("exp_nonpositive vs libm exp on [%g, 0]: worst relative error %.3g at %g\n",
           (double)EXP_CUTOFF, worst, at);
    ck_assert_msg(worst < 1e-6, "relative error %.3g at %g", worst, at);
    ck_assert_msg(subnormal == 0, "%d subnormal results", subnormal);
    ck_assert(exp_nonpositive(0.0f) == 1.0f);
    ck_assert(exp_nonpositive(-INFINITY) == 0.0f);
    ck_assert(isnan(exp_nonpositive(NAN)));
}
END_TEST

TU_MAIN("gelu_tanh", test_tanh_matches_libm, test_tanh_edges, test_exp_nonpositive);
