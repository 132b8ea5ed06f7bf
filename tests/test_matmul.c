/* test_matmul.c: matmul_backward is the exact gradient of matmul_forward (y = x·Wᵀ + b).
 *
 * With L = Σ w·out for fixed random w, dinp, dweight and dbias from matmul_backward (dout = w)
 * match central finite differences of L in double to < 1e-6 relative error, with a bias and on
 * the bias == NULL path (forward without bias, backward with dbias == NULL). Run on zeroed and on
 * pre-filled (GC_PREFILL) buffers to prove that dinp is overwritten and dweight and dbias are
 * accumulated (+=). Each comparison also proves that a
 * gradient off by 1 % would fail. */
#include <stdio.h>

#include "gradcheck.h"
#include "model/matmul.h"
#include "testutil.h"

enum { N = 5, C = 4, OC = 3 };

static real inp[N * C], weight[OC * C], bias[OC], w[N * OC], out[N * OC];
static int use_bias;

static double loss(void *ctx) {
    (void)ctx;
    matmul_forward(out, inp, weight, use_bias ? bias : NULL, N, C, OC);
    return gc_dot(w, out, N * OC);
}

/* _i: bit 0 = pre-fill the gradient buffers, bit 1 = no bias */
START_TEST(test_matmul_grads) {
    real prefill = (_i & 1) ? (real)GC_PREFILL : 0;
    use_bias = !(_i & 2);
    Rng rng;
    rng_seed(&rng, 41);
    gc_fill_normal(inp, N * C, &rng, 0, 1);
    gc_fill_normal(weight, OC * C, &rng, 0, 1);
    gc_fill_normal(bias, OC, &rng, 0, 1);
    gc_fill_normal(w, N * OC, &rng, 0, 1);
    real dinp[N * C], dweight[OC * C], dbias[OC];
    gc_fill(dinp, N * C, prefill);
    gc_fill(dweight, OC * C, prefill);
    gc_fill(dbias, OC, prefill);
    matmul_backward(dinp, dweight, use_bias ? dbias : NULL, w, inp, weight, N, C, OC);
    printf("matmul (%s, prefill %g):\n", use_bias ? "bias" : "bias NULL", (double)prefill);
    /* dinp is overwritten (whatever the buffer held), dweight and dbias accumulate */
    gc_check("matmul dinp", inp, N * C, loss, NULL, GC_H, dinp, 0, GC_TOL);
    gc_check("matmul dweight", weight, OC * C, loss, NULL, GC_H, dweight, prefill, GC_TOL);
    if (use_bias) gc_check("matmul dbias", bias, OC, loss, NULL, GC_H, dbias, prefill, GC_TOL);
}
END_TEST

TU_MAIN("matmul", TU_LOOP(test_matmul_grads, 0, 4));
