/* test_rmsnorm.c: RMSNorm with a gain only (src/model/rmsnorm.c), forward and backward, in both
 * layouts it serves: whole rows (NH = 1, hs = C = stride: the LLaMA block's ln1, ln2, ln_f) and
 * head vectors strided inside (N, 3C) qkv (qk-RMSNorm).
 *
 *   - forward: against y = x / sqrt(mean(x²) + eps) · weight written out in double in the
 *     test, per (row, head) vector of the strided layout, including a vector of rms ≈ 1e-3 (where
 *     eps is not negligible); the saved rstd too; entries outside the vectors are not written.
 *   - backward: with L = Σ w·out for fixed random w, dinp and dweight match central finite
 *     differences of L in double to < 1e-6 relative error, in both layouts (rows of C = 70, so
 *     that the 16-lane sums and the 64-channel blocks of dweight both have a tail), on zeroed
 *     and on GC_PREFILL buffers (dinp and dweight accumulate); in the strided layout the entries
 *     outside the vectors keep what the buffer held.
 * Each finite-difference comparison also proves that a gradient off by 1 % would fail. */
#include <stdio.h>

#include "gradcheck.h"
#include "model/rmsnorm.h"
#include "testutil.h"

#define EPS 1e-5

/* ---- forward against the book ------------------------------------------------------------ */

START_TEST(test_forward_matches_the_book) {
    enum { N = 5, NH = 2, HS = 6, C = NH * HS, S = 3 * C };
    static real inp[N * S], out[N * S], rstd[N * NH], weight[HS];
    Rng rng;
    rng_seed(&rng, 5);
    gc_fill_normal(inp, N * S, &rng, 0.5, 2.0);
    gc_fill_normal(inp + 3 * S + C + HS, HS, &rng, 0, 1e-3); /* token 3, head 1: eps matters */
    gc_fill_normal(weight, HS, &rng, 1, 0.5);
    gc_fill(out, N * S, 7); /* sentinel: only the head vectors of the k part may change */
    rmsnorm_forward(out + C, rstd, inp + C, weight, N, NH, HS, S, EPS);
    for (int n = 0; n < N; n++) {
        for (int c = 0; c < S; c++)
            if (c < C || c >= 2 * C)
                ck_assert_msg(out[n * S + c] == 7, "row %d channel %d outside the k part written", n, c);
        for (int h = 0; h < NH; h++) {
            const real *x = inp + n * S + C + h * HS;
            double ms = 0;
            for (int i = 0; i < HS; i++) ms += (double)x[i] * x[i];
            double s = 1 / sqrt(ms / HS + EPS);
            ck_assert_msg(fabs(rstd[n * NH + h] - s) <= 1e-10 * s, "rstd %d,%d: %.17g vs %.17g", n,
                          h, (double)rstd[n * NH + h], s);
            for (int i = 0; i < HS; i++) {
                double want = x[i] * s * weight[i];
                ck_assert_msg(fabs(out[n * S + C + h * HS + i] - want) <= 1e-10,
                              "out[%d, head %d, %d] = %.17g, by the book %.17g", n, h, i,
                              (double)out[n * S + C + h * HS + i], want);
            }
        }
    }
}
END_TEST

/* ---- backward, both layouts -------------------------------------------------------------- */

/* The layouts: rows (NH = 1, hs = C = stride = 70) and heads (NH = 2, hs = 5, stride 3·10, the
 * q part). */
static const struct {
    const char *name;
    int N, NH, hs, stride;
} LAYOUTS[] = {{"rows", 3, 1, 70, 70}, {"heads", 4, 2, 5, 30}};
enum { MAXBUF = 4 * 70, MAXHS = 70 };

static int L_N, L_NH, L_HS, L_S;
static real l_inp[MAXBUF], l_out[MAXBUF], l_w[MAXBUF], l_rstd[MAXBUF], l_weight[MAXHS];

/* L = Σ w·out over the vectors (w is 0 outside them) */
static double loss(void *ctx) {
    (void)ctx;
    rmsnorm_forward(l_out, l_rstd, l_inp, l_weight, L_N, L_NH, L_HS, L_S, EPS);
    double L = 0;
    for (int n = 0; n < L_N; n++) L += gc_dot(l_w + n * L_S, l_out + n * L_S, (size_t)(L_NH * L_HS));
    return L;
}

/* _i = 2·layout + prefill */
START_TEST(test_backward) {
    int k = _i / 2;
    real prefill = _i % 2 ? (real)GC_PREFILL : 0;
    L_N = LAYOUTS[k].N, L_NH = LAYOUTS[k].NH, L_HS = LAYOUTS[k].hs, L_S = LAYOUTS[k].stride;
    int n_all = L_N * L_S, width = L_NH * L_HS;
    Rng rng;
    rng_seed(&rng, 41 + (uint64_t)k);
    gc_fill(l_w, MAXBUF, 0);
    gc_fill_normal(l_inp, (size_t)n_all, &rng, 0.3, 1.5);
    gc_fill_normal(l_inp + L_S, (size_t)L_HS, &rng, 0, 1e-3); /* row 1, vector 0: eps matters */
    gc_fill_normal(l_weight, (size_t)L_HS, &rng, 1, 0.5);
    for (int n = 0; n < L_N; n++) gc_fill_normal(l_w + n * L_S, (size_t)width, &rng, 0, 1);
    loss(NULL); /* rstd for backward */
    static real dinp[MAXBUF], dweight[MAXHS];
    gc_fill(dinp, (size_t)n_all, prefill);
    gc_fill(dweight, (size_t)L_HS, prefill);
    rmsnorm_backward(dinp, dweight, l_w, l_inp, l_weight, l_rstd, L_N, L_NH, L_HS, L_S);
    printf("rmsnorm %s (prefill %g):\n", LAYOUTS[k].name, (double)prefill);
    /* outside the vectors L does not depend on inp: the numeric gradient there is 0, and dinp
     * must still hold the prefill, so the comparison of dinp − prefill covers those entries too */
    char name[64];
    snprintf(name, sizeof name, "rmsnorm %s dinp", LAYOUTS[k].name);
    gc_check(name, l_inp, (size_t)n_all, loss, NULL, GC_H, dinp, prefill, GC_TOL);
    for (int n = 0; n < L_N; n++)
        for (int c = width; c < L_S; c++)
            ck_assert_msg(dinp[n * L_S + c] == prefill, "dinp row %d channel %d outside written", n, c);
    snprintf(name, sizeof name, "rmsnorm %s dweight", LAYOUTS[k].name);
    gc_check(name, l_weight, (size_t)L_HS, loss, NULL, GC_H, dweight, prefill, GC_TOL);
}
END_TEST

TU_MAIN("rmsnorm", test_forward_matches_the_book, TU_LOOP(test_backward, 0, 4));
