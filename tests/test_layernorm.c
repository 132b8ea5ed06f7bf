/* test_layernorm.c: layernorm_backward is the exact gradient of layernorm_forward.
 *
 * With L = Σ w·out for fixed random w, dinp, dweight and dbias from layernorm_backward
 * (dout = w) match central finite differences of L in double to < 1e-6 relative error. The
 * weight and bias are random (not 1 and 0), so a backward that ignores them fails, and one row
 * has mean ≈ 1000 with unit spread, where cancellation in x − mean is worst. Run on zeroed and
 * on pre-filled (GC_PREFILL) buffers to prove accumulation (+=). Each comparison also proves that
 * a gradient off by 1 % would fail. */
#include <stdio.h>

#include "gradcheck.h"
#include "model/layernorm.h"
#include "testutil.h"

enum { N = 4, C = 7 };
#define EPS 1e-5

static real inp[N * C], weight[C], bias[C], w[N * C], out[N * C], mean[N], rstd[N];

static double loss(void *ctx) {
    (void)ctx;
    layernorm_forward(out, mean, rstd, inp, weight, bias, N, C, EPS);
    return gc_dot(w, out, N * C);
}

START_TEST(test_layernorm_grads) {
    real prefill = _i ? (real)GC_PREFILL : 0;
    Rng rng;
    rng_seed(&rng, 31);
    gc_fill_normal(inp, N * C, &rng, 0, 1.5);
    gc_fill_normal(inp + 2 * C, C, &rng, 1000, 1); /* row 2: large mean offset */
    gc_fill_normal(weight, C, &rng, 1, 0.5);
    gc_fill_normal(bias, C, &rng, 0, 0.5);
    gc_fill_normal(w, N * C, &rng, 0, 1);
    loss(NULL); /* mean and rstd for backward */
    real dinp[N * C], dweight[C], dbias[C];
    gc_fill(dinp, N * C, prefill);
    gc_fill(dweight, C, prefill);
    gc_fill(dbias, C, prefill);
    layernorm_backward(dinp, dweight, dbias, w, inp, weight, mean, rstd, N, C);
    printf("layernorm (prefill %g):\n", (double)prefill);
    /* The mean-1000 row loses ~1e-13 absolute to rounding in x − mean, so L is noisy at ~1e-13;
     * h = 1e-5 balances that noise (1e-13 / h) against truncation (h²): 5e-9 vs 4e-8 at 1e-6. */
    gc_check("layernorm dinp", inp, N * C, loss, NULL, 1e-5, dinp, prefill, GC_TOL);
    gc_check("layernorm dweight", weight, C, loss, NULL, GC_H, dweight, prefill, GC_TOL);
    gc_check("layernorm dbias", bias, C, loss, NULL, GC_H, dbias, prefill, GC_TOL);
}
END_TEST

TU_MAIN("layernorm", TU_LOOP(test_layernorm_grads, 0, 2));
