/* test_residual.c: residual_backward is the exact gradient of residual_forward.
 *
 * With L = Σ w_i·(a_i + b_i) for fixed random w, the gradients da and db that residual_backward
 * produces from dout = w match central finite differences of L in double to < 1e-6 relative
 * error, for both branches, and they are accumulated (+=) into buffers that already hold a value.
 * Each comparison also proves that a gradient off by 1 % would fail. */
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

/* _i = 0: gradient buffers zeroed first; _i = 1: pre-filled with GC_PREFILL. */
START_TEST(test_residual_grads) {
    real prefill = _i ? (real)GC_PREFILL : 0;
    Rng rng;
    rng_seed(&rng, 11);
    gc_fill_normal(a, N, &rng, 0, 1);
    gc_fill_normal(b, N, &rng, 0, 2);
    gc_fill_normal(w, N, &rng, 0, 1);
    real da[N], db[N];
    gc_fill(da, N, prefill);
    gc_fill(db, N, prefill);
    residual_backward(da, db, w, N);
    printf("residual (prefill %g):\n", (double)prefill);
    gc_check("residual da", a, N, loss, NULL, GC_H, da, prefill, GC_TOL);
    gc_check("residual db", b, N, loss, NULL, GC_H, db, prefill, GC_TOL);
}
END_TEST

int main(void) {
    Suite *s = suite_create("residual");
    TCase *tc = tcase_create("gradcheck");
    tcase_add_loop_test(tc, test_residual_grads, 0, 2);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
