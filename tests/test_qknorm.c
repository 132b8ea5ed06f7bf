/* test_qknorm.c: the per-head LayerNorm of qk-norm (src/model/qknorm.c), forward and backward.
 *
 *   - forward: against LayerNorm written out by the book in double in the test, per (token,
 *     head) vector of a strided (N, 3C) layout, including a vector of mean ≈ 1000 (where
 *     E[x²] − mean² would cancel); the saved mean and rstd too; entries outside the head
 *     vectors are not written.
 *   - backward alone: with L = Σ w·out for fixed random w, dinp, dweight and dbias match central
 *     finite differences of L in double to < 1e-6 relative error; dinp is overwritten (the
 *     buffer held garbage, and what lies outside the head vectors keeps it), dweight and dbias
 *     accumulate (run on zeroed and on GC_PREFILL buffers).
 *   - with attention, as in the model: qkv → [LayerNorm(q), LayerNorm(k), v] → attention, with
 *     L = Σ w·attention output, at scale 1/√d_k and at scale 1, for 1 and 2 heads: the q, k and
 *     v parts of d qkv (each on its own) and the q_norm and k_norm weight and the q_norm bias gradients match finite
 *     differences. The k_norm bias gradient is 0 in exact arithmetic (adding one vector to every
 *     key adds the same number to all of a query's scores, which the softmax ignores), so it is
 *     checked to be 0 up to rounding, and finite differences must agree.
 * Each finite-difference comparison also proves that a gradient off by 1 % would fail. */
#include <stdio.h>
#include <string.h>

#include "gradcheck.h"
#include "model/attention.h"
#include "model/qknorm.h"
#include "testutil.h"

#define EPS 1e-5

/* ---- forward against the book ------------------------------------------------------------ */

START_TEST(test_forward_matches_the_book) {
    enum { N = 5, NH = 2, HS = 6, C = NH * HS, S = 3 * C };
    static real inp[N * S], out[N * S], mean[N * NH], rstd[N * NH], weight[HS], bias[HS];
    Rng rng;
    rng_seed(&rng, 3);
    gc_fill_normal(inp, N * S, &rng, 0.5, 2.0);
    gc_fill_normal(inp + 2 * S + HS, HS, &rng, 1000, 1); /* token 2, head 1: a large mean */
    gc_fill_normal(weight, HS, &rng, 1, 0.5);
    gc_fill_normal(bias, HS, &rng, 0, 0.5);
    gc_fill(out, N * S, 7); /* sentinel: only the head vectors of the k part may change */
    /* the k part (channels C..2C-1), as the model normalises it */
    qknorm_forward(out + C, mean, rstd, inp + C, weight, bias, N, NH, HS, S, EPS);
    for (int n = 0; n < N; n++) {
        for (int c = 0; c < S; c++)
            if (c < C || c >= 2 * C)
                ck_assert_msg(out[n * S + c] == 7, "row %d channel %d outside the k part written", n, c);
        for (int h = 0; h < NH; h++) {
            const real *x = inp + n * S + C + h * HS;
            double m = 0, v = 0;
            for (int i = 0; i < HS; i++) m += x[i];
            m /= HS;
            for (int i = 0; i < HS; i++) v += (x[i] - m) * (x[i] - m);
            v /= HS; /* biased */
            double s = 1 / sqrt(v + EPS);
            ck_assert_msg(fabs(mean[n * NH + h] - m) <= 1e-12 * fmax(1, fabs(m)), "mean %d,%d", n, h);
            ck_assert_msg(fabs(rstd[n * NH + h] - s) <= 1e-10 * s, "rstd %d,%d: %.17g vs %.17g", n, h,
                          (double)rstd[n * NH + h], s);
            for (int i = 0; i < HS; i++) {
                double want = (x[i] - m) * s * weight[i] + bias[i];
                ck_assert_msg(fabs(out[n * S + C + h * HS + i] - want) <= 1e-10,
                              "out[%d, head %d, %d] = %.17g, by the book %.17g", n, h, i,
                              (double)out[n * S + C + h * HS + i], want);
            }
        }
    }
}
END_TEST

/* ---- backward of the LayerNorm alone ----------------------------------------------------- */

enum { LN = 4, LNH = 2, LHS = 5, LC = LNH * LHS, LS = 3 * LC };
static real l_inp[LN * LS], l_out[LN * LS], l_w[LN * LS], l_mean[LN * LNH], l_rstd[LN * LNH];
static real l_weight[LHS], l_bias[LHS];

/* L = Σ w·out over the q part (channels 0..C-1) of the strided layout */
static double loss_alone(void *ctx) {
    (void)ctx;
    qknorm_forward(l_out, l_mean, l_rstd, l_inp, l_weight, l_bias, LN, LNH, LHS, LS, EPS);
    double L = 0;
    for (int n = 0; n < LN; n++) L += gc_dot(l_w + n * LS, l_out + n * LS, LC);
    return L;
}

START_TEST(test_backward_alone) {
    real prefill = _i ? (real)GC_PREFILL : 0;
    Rng rng;
    rng_seed(&rng, 17);
    gc_fill_normal(l_inp, LN * LS, &rng, -0.3, 1.7);
    gc_fill_normal(l_inp + LS + LHS, LHS, &rng, 1000, 1); /* token 1, head 1: a large mean */
    gc_fill_normal(l_weight, LHS, &rng, 1, 0.5);
    gc_fill_normal(l_bias, LHS, &rng, 0, 0.5);
    gc_fill_normal(l_w, LN * LS, &rng, 0, 1);
    loss_alone(NULL);
    real dinp[LN * LS], dweight[LHS], dbias[LHS];
    gc_fill(dinp, LN * LS, 7); /* garbage: overwritten inside the head vectors, kept outside */
    gc_fill(dweight, LHS, prefill);
    gc_fill(dbias, LHS, prefill);
    qknorm_backward(dinp, dweight, dbias, l_w, l_inp, l_weight, l_mean, l_rstd, LN, LNH, LHS, LS);
    printf("qknorm alone (prefill %g):\n", (double)prefill);
    for (int n = 0; n < LN; n++)
        for (int c = LC; c < LS; c++)
            ck_assert_msg(dinp[n * LS + c] == 7, "dinp row %d channel %d outside the q part written", n, c);
    /* finite differences over the whole strided buffer: outside the q part L does not depend
     * on inp, so the numeric gradient there is 0 and is compared with dinp − 7 = 0 */
    double num[LN * LS], *num_w = num; /* reused for the parameters below */
    gc_numeric(l_inp, LN * LS, loss_alone, NULL, 1e-5, num);
    for (int n = 0; n < LN; n++)
        for (int c = LC; c < LS; c++) {
            ck_assert_msg(num[n * LS + c] == 0, "L depends on a channel outside the q part");
            dinp[n * LS + c] = 0;
        }
    /* h = 1e-5 for the mean-1000 vector, as in test_layernorm.c */
    gc_expect("qknorm dinp", dinp, 0, num, LN * LS, GC_TOL);
    gc_numeric(l_weight, LHS, loss_alone, NULL, GC_H, num_w);
    gc_expect("qknorm dweight", dweight, prefill, num_w, LHS, GC_TOL);
    gc_check("qknorm dbias", l_bias, LHS, loss_alone, NULL, GC_H, dbias, prefill, GC_TOL);
}
END_TEST

/* ---- with attention, as in the model ------------------------------------------------------ */

enum { B = 2, T = 5, C = 8, MAXNH = 2, N = B * T, S = 3 * C };
enum { NQKV = N * S, NOUT = N * C, NATT = B * MAXNH * T * T };

static int NH;
static real scale;
static real qkv[NQKV], qkvn[NQKV], w[NOUT], out[NOUT], preatt[NATT], att[NATT];
static real qw[C], qb[C], kw[C], kb[C]; /* [d_k] used, d_k <= C */
static real q_mean[N * MAXNH], q_rstd[N * MAXNH], k_mean[N * MAXNH], k_rstd[N * MAXNH];

/* L = Σ w · attention([LayerNorm(q; qw, qb), LayerNorm(k; kw, kb), v]) */
static double loss_attn(void *ctx) {
    (void)ctx;
    int hs = C / NH;
    qknorm_forward(qkvn, q_mean, q_rstd, qkv, qw, qb, N, NH, hs, S, EPS);
    qknorm_forward(qkvn + C, k_mean, k_rstd, qkv + C, kw, kb, N, NH, hs, S, EPS);
    for (int n = 0; n < N; n++) memcpy(qkvn + n * S + 2 * C, qkv + n * S + 2 * C, C * sizeof(real));
    attention_forward(out, preatt, att, qkvn, B, T, C, NH, attn_scores_fixed(scale), NULL);
    return gc_dot(w, out, NOUT);
}

/* _i = 2·(heads index) + scale index */
START_TEST(test_with_attention) {
    NH = _i / 2 ? 2 : 1;
    int hs = C / NH, si = _i % 2;
    scale = si ? R(1.0) : (real)(1 / sqrt((double)hs));
    const char *sname = si ? "1" : "1/sqrt(d_k)";
    Rng rng;
    rng_seed(&rng, 101 + (uint64_t)_i);
    gc_fill_normal(qkv, NQKV, &rng, 0.2, 1.5);
    gc_fill_normal(qw, (size_t)hs, &rng, 1, 0.4);
    gc_fill_normal(qb, (size_t)hs, &rng, 0, 0.3);
    gc_fill_normal(kw, (size_t)hs, &rng, 1, 0.4);
    gc_fill_normal(kb, (size_t)hs, &rng, 0, 0.3);
    gc_fill_normal(w, NOUT, &rng, 0, 1);
    loss_attn(NULL);

    /* the model's backward: attention into d qkvn, then each LayerNorm into d qkv, v copied */
    real dqkvn[NQKV], dqkv[NQKV], dpreatt[NATT], dqw[C] = {0}, dqb[C] = {0}, dkw[C] = {0},
         dkb[C] = {0};
    attention_backward(dqkvn, dpreatt, w, qkvn, att, B, T, C, NH, attn_scores_fixed(scale), NULL, NULL);
    qknorm_backward(dqkv, dqw, dqb, dqkvn, qkv, qw, q_mean, q_rstd, N, NH, hs, S);
    qknorm_backward(dqkv + C, dkw, dkb, dqkvn + C, qkv + C, kw, k_mean, k_rstd, N, NH, hs, S);
    for (int n = 0; n < N; n++) memcpy(dqkv + n * S + 2 * C, dqkvn + n * S + 2 * C, C * sizeof(real));

    char name[96];
    printf("qk-norm + attention NH=%d scale=%s:\n", NH, sname);
    /* q, k and v parts compared on their own, so that a wrong k part cannot hide behind a
     * larger v gradient */
    static double num_qkv[NQKV], num_part[N * C];
    static real part[N * C];
    gc_numeric(qkv, NQKV, loss_attn, NULL, GC_H, num_qkv);
    for (int p = 0; p < 3; p++) {
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++) {
                part[n * C + c] = dqkv[n * S + p * C + c];
                num_part[n * C + c] = num_qkv[n * S + p * C + c];
            }
        snprintf(name, sizeof name, "qknorm+attn NH=%d scale=%s d%c", NH, sname, "qkv"[p]);
        gc_expect(name, part, 0, num_part, N * C, GC_TOL);
    }
    snprintf(name, sizeof name, "qknorm+attn NH=%d scale=%s d q_norm.weight", NH, sname);
    gc_check(name, qw, (size_t)hs, loss_attn, NULL, GC_H, dqw, 0, GC_TOL);
    snprintf(name, sizeof name, "qknorm+attn NH=%d scale=%s d q_norm.bias", NH, sname);
    gc_check(name, qb, (size_t)hs, loss_attn, NULL, GC_H, dqb, 0, GC_TOL);
    snprintf(name, sizeof name, "qknorm+attn NH=%d scale=%s d k_norm.weight", NH, sname);
    gc_check(name, kw, (size_t)hs, loss_attn, NULL, GC_H, dkw, 0, GC_TOL);

    /* d k_norm.bias = 0: analytic at double rounding of the gradients around it, and the loss
     * does not move when the bias does */
    double num[C], gmax = 0;
    for (int i = 0; i < hs; i++) gmax = fmax(gmax, fabs(dkw[i]));
    gc_numeric(kb, (size_t)hs, loss_attn, NULL, GC_H, num);
    for (int i = 0; i < hs; i++) {
        ck_assert_msg(fabs(dkb[i]) <= 1e-12 * gmax, "d k_norm.bias[%d] = %g, not 0 (|d k_norm.weight| "
                      "up to %g)", i, (double)dkb[i], gmax);
        ck_assert_msg(fabs(num[i]) <= 1e-8 * gmax, "finite differences of k_norm.bias[%d] = %g", i,
                      num[i]);
    }
    printf("  %-50s 0 (|analytic| <= 1e-12 |d k_norm.weight|)\n", "d k_norm.bias");
}
END_TEST

TU_MAIN_TIMEOUT("qknorm", 60, test_forward_matches_the_book, TU_LOOP(test_backward_alone, 0, 2),
                TU_LOOP(test_with_attention, 0, 4));
