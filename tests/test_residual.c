/* test_residual.c: the gradient of residual_forward with respect to each input is dout itself.
 *
 * model_backward relies on this: it has no residual backward kernel and hands the gradient of a
 * block's output unchanged to both the branch and the skip path. With L = Σ w_i·(a_i + b_i) for
 * fixed random w, central finite differences of L in double match w for both inputs to < 1e-6
 * relative error, and a gradient off by 1 % would fail. */
#include <stdio.h>
#include <stdlib.h>

#include "gradcheck.h"
#include "model/residual.h"
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

int main(void) {
    Suite *s = suite_create("residual");
    TCase *tc = tcase_create("gradcheck");
    tcase_add_test(tc, test_residual_passes_gradient_through);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
