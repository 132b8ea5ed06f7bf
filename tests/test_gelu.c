/* test_gelu.c: gelu_backward, with the derivative gelu_forward saved, is the exact derivative of
 * gelu_forward (tanh form).
 *
 * With L = Σ w·GELU(u) for fixed random w, dinp from gelu_backward (dout = w) matches central
 * finite differences of L in double to < 1e-6 relative error, over random u and hand-picked
 * points (0, ±1e-3, ±2.5, ±5, ±10, ±30). A second input holds only large |u| (±8 … ±30), where
 * tanh saturates to ±1 and a cosh-based derivative would overflow: there the gradient must be
 * 1 for u ≫ 0 and 0 for u ≪ 0, finite everywhere. Run on zeroed and pre-filled (GC_PREFILL)
 * buffers to prove that dinp is overwritten, and in place (dinp = dout) with the same result;
 * gelu_forward gives the same output and derivative when the derivative overwrites its input.
 * Each comparison also proves a 1 % error would fail. */
#include <stdio.h>

#include "gradcheck.h"
#include "model/gelu.h"
#include "testutil.h"

enum { NR = 20, NS = 13, N = NR + NS, NL = 8 };

static const real special[NS] = {0, 1e-3, -1e-3, 2.5, -2.5, 5, -5, 10, -10, 30, -30, 0.5, -0.5};
static const real large[NL] = {8, -8, 12, -12, 20, -20, 30, -30};
static real inp[N], w[N], out[N], dg[N];
static real *cur_inp, *cur_w; /* the input the loss runs over */
static long cur_n;

static double loss(void *ctx) {
    (void)ctx;
    gelu_forward(out, dg, cur_inp, cur_n);
    return gc_dot(cur_w, out, (size_t)cur_n);
}

START_TEST(test_gelu_grads) {
    real prefill = _i ? (real)GC_PREFILL : 0;
    Rng rng;
    rng_seed(&rng, 51);
    gc_fill_normal(inp, NR, &rng, 0, 2);
    for (int i = 0; i < NS; i++) inp[NR + i] = special[i];
    gc_fill_normal(w, N, &rng, 0, 1);
    printf("gelu (prefill %g):\n", (double)prefill);

    real dinp[N], dgelu[N], out_alias[N], d_alias[N];
    gelu_forward(out, dgelu, inp, N);
    for (int i = 0; i < N; i++) d_alias[i] = inp[i];
    gelu_forward(out_alias, d_alias, d_alias, N); /* the derivative over its own input */
    for (int i = 0; i < N; i++)
        ck_assert_msg(out_alias[i] == out[i] && d_alias[i] == dgelu[i],
                      "gelu_forward with dgelu = inp differs at %d", i);
    gc_fill(dinp, N, prefill);
    gelu_backward(dinp, dgelu, w, N);
    cur_inp = inp, cur_w = w, cur_n = N;
    /* dinp is overwritten, whatever the buffer held */
    gc_check("gelu dinp", inp, N, loss, NULL, GC_H, dinp, 0, GC_TOL);
    real inplace[N]; /* dinp may be dout: the same numbers in place */
    for (int i = 0; i < N; i++) inplace[i] = w[i];
    gelu_backward(inplace, dgelu, inplace, N);
    for (int i = 0; i < N; i++)
        ck_assert_msg(inplace[i] == dinp[i], "in place [%d]: %.17g vs %.17g", i,
                      (double)inplace[i], (double)dinp[i]);

    real big[NL], wl[NL], dbig[NL], obig[NL], dgbig[NL];
    for (int i = 0; i < NL; i++) big[i] = large[i], wl[i] = 1;
    gelu_forward(obig, dgbig, big, NL);
    gc_fill(dbig, NL, prefill);
    gelu_backward(dbig, dgbig, wl, NL);
    cur_inp = big, cur_w = wl, cur_n = NL;
    gc_check("gelu dinp, |u| >= 8 (saturated tanh)", big, NL, loss, NULL, GC_H, dbig, 0, GC_TOL);
    for (int i = 0; i < NL; i++) {
        double g = dbig[i], want = big[i] > 0 ? 1 : 0;
        ck_assert_msg(fabs(g - want) < 1e-12, "GELU'(%g) = %.17g, want %g", (double)big[i], g, want);
    }
}
END_TEST

TU_MAIN("gelu", TU_LOOP(test_gelu_grads, 0, 2));
