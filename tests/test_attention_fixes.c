/* test_attention_fixes.c: the attention variants of AttnScores (attention.h) — logit soft-capping,
 * a learned factor per head and a causal window — against the book and finite differences.
 *
 * Forward: out, the capped logits (preatt) and each (b, head)'s largest logit before the cap
 * (smax) are recomputed here in double from q, k, v by the formulas of
 * ../shared/reference/README.md (s = f_h·q·k, s ← c·tanh(s/c), causal softmax, P·V) and must
 * match to 1e-12 relative (the build is double).
 * Backward: with L = Σ w·out for fixed random w, dqkv matches central differences of L over qkv,
 * and d L / d log_scale[h] (attention_backward's per-(b, head) terms added over b) matches central
 * differences over log_scale, both to < 1e-6 relative, for soft-cap alone, a learned factor
 * alone, and both, and with a causal window of 2 or 3 keys, with 1 and 2 heads; gc_check also
 * proves a gradient off by 1 % would fail.
 * attention_backward_scratch gives the same bits as attention_backward. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradcheck.h"
#include "model/attention.h"
#include "testutil.h"

enum { B = 2, T = 5, C = 8, MAXNH = 2 };
enum { NQKV = B * T * 3 * C, NOUT = B * T * C, NATT = B * MAXNH * T * T };

/* _i: bit 0 = NH 2, _i >> 1 = variant: 0 soft-cap, 1 learned, 2 both, 3 a window of 2 keys with
 * the soft-cap, 4 a window of 3 keys with a learned scale */
static int NH;
static AttnScores sc;
static real log_scale[MAXNH];
static real qkv[NQKV], w[NOUT], out[NOUT], pre[NATT], att[NATT], smax[B * MAXNH];

static double loss_qkv(void *ctx) {
    (void)ctx;
    attention_forward(out, pre, att, qkv, B, T, C, NH, sc, smax);
    return gc_dot(w, out, NOUT);
}

static void setup_case(int i) {
    NH = 1 + (i & 1);
    int variant = i >> 1, hs = C / NH;
    Rng rng;
    rng_seed(&rng, 901 + (uint64_t)i);
    gc_fill_normal(qkv, NQKV, &rng, 0, 1);
    gc_fill_normal(w, NOUT, &rng, 0, 1);
    /* factors around 1: logits of std ~√hs, large enough that a cap of 1.5 bites */
    for (int h = 0; h < NH; h++) log_scale[h] = (real)(0.3 * (h ? -1 : 1));
    sc = attn_scores_fixed((real)(1 / sqrt(hs)));
    if (variant == 0 || variant == 2 || variant == 3) sc.softcap = (real)1.5;
    if (variant == 1 || variant == 2 || variant == 4) sc.log_scale = log_scale;
    if (variant >= 3) sc.window = variant - 1;
}

START_TEST(test_forward_by_the_book) {
    setup_case(_i);
    loss_qkv(NULL);
    int hs = C / NH, capped = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            double f = sc.log_scale ? exp((double)log_scale[h]) : (double)sc.scale, mx = -INFINITY;
            for (int i = 0; i < T; i++) {
                double s[T], p[T], rmax = -INFINITY, sum = 0;
                const real *q = qkv + ((size_t)b * T + i) * 3 * C + h * hs;
                int lo = sc.window > 0 && i - sc.window + 1 > 0 ? i - sc.window + 1 : 0;
                for (int j = 0; j < lo; j++) s[j] = p[j] = 0; /* not seen: weight 0 */
                for (int j = lo; j <= i; j++) {
                    const real *k = qkv + ((size_t)b * T + j) * 3 * C + C + h * hs;
                    double dot = 0;
                    for (int d = 0; d < hs; d++) dot += (double)q[d] * k[d];
                    s[j] = f * dot;
                    mx = fmax(mx, s[j]);
                    if (sc.softcap > 0) {
                        capped += fabs(s[j]) > sc.softcap;
                        s[j] = sc.softcap * tanh(s[j] / sc.softcap);
                    }
                    rmax = fmax(rmax, s[j]);
                }
                for (int j = lo; j <= i; j++) sum += p[j] = exp(s[j] - rmax);
                const real *prow = pre + (((size_t)b * NH + h) * T + i) * T;
                const real *arow = att + (((size_t)b * NH + h) * T + i) * T;
                for (int j = 0; j <= i; j++) {
                    ck_assert_msg(fabs(prow[j] - s[j]) <= 1e-12 * fmax(1, fabs(s[j])),
                                  "logit (%d,%d,%d,%d): %.17g, by the book %.17g", b, h, i, j,
                                  (double)prow[j], s[j]);
                    ck_assert_msg(fabs(arow[j] - p[j] / sum) <= 1e-12, "P (%d,%d,%d,%d)", b, h, i, j);
                }
                for (int d = 0; d < hs; d++) {
                    double o = 0;
                    for (int j = 0; j <= i; j++)
                        o += p[j] / sum * qkv[((size_t)b * T + j) * 3 * C + 2 * C + h * hs + d];
                    double got = out[((size_t)b * T + i) * C + h * hs + d];
                    ck_assert_msg(fabs(got - o) <= 1e-12 * fmax(1, fabs(o)), "out (%d,%d,%d)", b, i, d);
                }
            }
            ck_assert_msg(fabs(smax[b * NH + h] - mx) <= 1e-12 * fmax(1, fabs(mx)),
                          "smax (%d,%d): %.17g, by the book %.17g (before the cap)", b, h,
                          (double)smax[b * NH + h], mx);
        }
    /* the case must exercise the cap, or a cap that does nothing would pass */
    if (sc.softcap > 0) ck_assert_msg(capped > 0, "no logit beyond the cap: the case tests nothing");
}
END_TEST

/* L as a function of log_scale, for the finite differences. */
static double loss_log_scale(void *ctx) { return loss_qkv(ctx); }

START_TEST(test_gradients) {
    setup_case(_i);
    loss_qkv(NULL);
    real dqkv[NQKV], dpre[NATT];
    double dls[B * MAXNH];
    gc_fill(dqkv, NQKV, 7); /* garbage: overwritten */
    attention_backward(dqkv, dpre, w, qkv, att, B, T, C, NH, sc, sc.log_scale ? dls : NULL, NULL);
    char name[96];
    snprintf(name, sizeof name, "NH=%d softcap=%g learned=%d dqkv", NH, (double)sc.softcap,
             sc.log_scale != NULL);
    gc_check(name, qkv, NQKV, loss_qkv, NULL, GC_H, dqkv, 0, GC_TOL);
    if (sc.log_scale) {
        real dlog[MAXNH];
        for (int h = 0; h < NH; h++) {
            double g = 0;
            for (int b = 0; b < B; b++) g += dls[b * NH + h];
            dlog[h] = (real)g;
        }
        snprintf(name, sizeof name, "NH=%d softcap=%g d log_scale", NH, (double)sc.softcap);
        gc_check(name, log_scale, (size_t)NH, loss_log_scale, NULL, GC_H, dlog, 0, GC_TOL);
    }
    /* the training entry point: the same bits, with its per-thread slots */
    real dqkv2[NQKV];
    double dls2[B * MAXNH];
    long per = attention_scratch_per_slot(T, sc);
    real *slots = gc_alloc((size_t)(2 * per), sizeof(real));
    loss_qkv(NULL);
    attention_backward_scratch(dqkv2, slots, 2, w, qkv, att, B, T, C, NH, sc,
                               sc.log_scale ? dls2 : NULL, NULL);
    ck_assert_msg(memcmp(dqkv, dqkv2, sizeof dqkv) == 0, "dqkv of attention_backward_scratch");
    if (sc.log_scale)
        ck_assert_msg(memcmp(dls, dls2, (size_t)(B * NH) * sizeof(double)) == 0,
                      "d log_scale of attention_backward_scratch");
    free(slots);
}
END_TEST

TU_MAIN_TIMEOUT("attention_fixes", 60, TU_LOOP(test_forward_by_the_book, 0, 10),
                TU_LOOP(test_gradients, 0, 10));
