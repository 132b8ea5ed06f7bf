/* test_attention.c: attention_backward is the exact gradient of attention_forward.
 *
 * With L = Σ w·out for fixed random w, dqkv from attention_backward (dout = w) matches central
 * finite differences of L in double to < 1e-6 relative error, for scale = 1/√d_k, 1, 1/d_k and
 * 0.37, sequence lengths T = 1 and 5, and NH = 1 and 2 heads. dpreatt is checked as the gradient
 * of L with respect to the pre-softmax logits z = scale·q·k themselves: finite differences over
 * z of a plain reference softmax(z)·V (itself checked against attention_forward) must match it,
 * it must be exactly 0 above the diagonal although the buffer held garbage (it is overwritten,
 * not accumulated), and its rows must sum to ~0 (softmax is shift-invariant). dqkv is checked on
 * zeroed and on pre-filled (GC_PREFILL) buffers to prove that it is overwritten. Each comparison also
 * proves that a gradient off by 1 % would fail.
 *
 * The softmax pass-through (softmax_row_pass, AttnGradStats): hand-made rows whose |dz| / |dp| is
 * known in closed form (uniform, one-hot, just above and just below the 0.01 threshold, rows
 * that are not counted), and attention_backward's per-(b, head) sums against a recomputation by
 * the book in double (softmax of scale·q·k, dP = dO·Vᵀ) and against finite differences of the
 * loss with respect to P; with stats the gradients are bitwise those without. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradcheck.h"
#include "model/attention.h"
#include "testutil.h"

enum { B = 2, C = 8, MAXT = 5, MAXNH = 2 };
enum { NQKV = B * MAXT * 3 * C, NOUT = B * MAXT * C, NATT = B * MAXNH * MAXT * MAXT };

static const struct { int T, NH; } shapes[] = {{1, 1}, {1, 2}, {5, 1}, {5, 2}};
static const char *scale_names[] = {"1/sqrt(d_k)", "1", "1/d_k", "0.37"};

static int T, NH;
static real scale;
static real qkv[NQKV], w[NOUT], out[NOUT], preatt[NATT], att[NATT], z[NATT];

static double loss_qkv(void *ctx) {
    (void)ctx;
    attention_forward(out, preatt, att, qkv, B, T, C, NH, attn_scores_fixed(scale), NULL);
    return gc_dot(w, out, (size_t)B * T * C);
}

/* L as a function of the logits z (B,NH,T,T): Σ w·(softmax(z)·V), by the book. */
static double loss_logits(void *ctx) {
    (void)ctx;
    int hs = C / NH;
    double L = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++)
            for (int i = 0; i < T; i++) {
                const real *zr = z + (((size_t)b * NH + h) * T + i) * T;
                double mx = -INFINITY, sum = 0, p[MAXT];
                for (int j = 0; j <= i; j++) mx = fmax(mx, zr[j]);
                for (int j = 0; j <= i; j++) sum += p[j] = exp(zr[j] - mx);
                for (int d = 0; d < hs; d++) {
                    double o = 0;
                    for (int j = 0; j <= i; j++)
                        o += p[j] / sum * qkv[((size_t)b * T + j) * 3 * C + 2 * C + h * hs + d];
                    L += w[((size_t)b * T + i) * C + h * hs + d] * o;
                }
            }
    return L;
}

/* _i = 2·(4·shape + scale) + prefill */
START_TEST(test_attention_grads) {
    int combo = _i / 2, si = combo % 4;
    real prefill = (_i % 2) ? (real)GC_PREFILL : 0;
    T = shapes[combo / 4].T, NH = shapes[combo / 4].NH;
    int dk = C / NH;
    const real scales[] = {(real)(1 / sqrt(dk)), 1, (real)(1.0 / dk), (real)0.37};
    scale = scales[si];
    size_t nqkv = (size_t)B * T * 3 * C, natt = (size_t)B * NH * T * T;
    Rng rng;
    rng_seed(&rng, 71 + (uint64_t)combo);
    gc_fill_normal(qkv, nqkv, &rng, 0, 1);
    gc_fill_normal(w, (size_t)B * T * C, &rng, 0, 1);
    double L = loss_qkv(NULL);

    real dqkv[NQKV], dpreatt[NATT];
    gc_fill(dqkv, nqkv, prefill);
    gc_fill(dpreatt, natt, 7); /* garbage: must be overwritten */
    attention_backward(dqkv, dpreatt, w, qkv, att, B, T, C, NH, attn_scores_fixed(scale), NULL, NULL);

    char name[96];
    printf("attention B=%d T=%d C=%d NH=%d scale=%s (prefill %g):\n", B, T, C, NH,
           scale_names[si], (double)prefill);
    snprintf(name, sizeof name, "attention T=%d NH=%d scale=%s dqkv", T, NH, scale_names[si]);
    gc_check(name, qkv, nqkv, loss_qkv, NULL, GC_H, dqkv, 0, GC_TOL); /* overwritten */

    /* dpreatt against finite differences through the logits */
    for (size_t k = 0; k < natt; k++) z[k] = preatt[k];
    double Lz = loss_logits(NULL);
    ck_assert_msg(fabs(Lz - L) <= 1e-12 * fmax(1, fabs(L)), "reference softmax·V gives %.17g, "
                  "attention_forward %.17g", Lz, L);
    double maxd = 0;
    for (size_t r = 0; r < natt / T; r++) { /* rows (b,h,i) */
        int i = (int)(r % T);
        double sum = 0;
        for (int j = 0; j < T; j++) {
            double d = dpreatt[r * T + j];
            ck_assert_msg(j <= i || d == 0, "dpreatt row %zu col %d above the diagonal = %g", r, j, d);
            sum += d;
            maxd = fmax(maxd, fabs(d));
        }
        ck_assert_msg(fabs(sum) <= 1e-12 * fmax(maxd, 1e-300) + 1e-300,
                      "dpreatt row %zu sums to %g, not ~0", r, sum);
    }
    snprintf(name, sizeof name, "attention T=%d NH=%d scale=%s dpreatt", T, NH, scale_names[si]);
    if (T == 1) {
        /* one key: softmax ≡ 1, so L does not depend on z and dpreatt is exactly 0 */
        ck_assert_msg(maxd == 0, "%s: T = 1 but max |dpreatt| = %g", name, maxd);
        printf("  %-50s exactly 0 (T = 1)\n", name);
    } else {
        gc_check(name, z, natt, loss_logits, NULL, GC_H, dpreatt, 0, GC_TOL);
    }
}
END_TEST

/* ---- softmax pass-through ------------------------------------------------------------------ */

/* Rows of a softmax with a known pass-through |dz| / |dp|, dz = p ⊙ (dp − p·dp). */
START_TEST(test_softmax_row_pass_known_rows) {
    /* n = 2, p = (1 − e, e), dp = (1, −1): p·dp = 1 − 2e, dz = 2e(1 − e)·(1, −1), so the
     * pass-through is 2e(1 − e); e from the pass wanted, just either side of 0.01 */
    double e_hi = (1 - sqrt(1 - 2 * 0.0101)) / 2, e_lo = (1 - sqrt(1 - 2 * 0.0099)) / 2;
    struct {
        const char *what;
        int n;
        real p[4], dp[4];
        double pass; /* expected |dz| / |dp| */
        int counted, blocked;
    } rows[] = {
        /* mean dp = 1, dp − mean = (0, 1, 2, −3): |dz| = √14 / 4, |dp| = √18 */
        {"uniform over 4 keys", 4, {0.25, 0.25, 0.25, 0.25}, {1, 2, 3, -2}, sqrt(14.0 / 18) / 4, 1, 0},
        /* dp − mean = (1, −1)·(a − b)/2: |dz| = |a − b| / (2√2), |dp| = √(a² + b²) */
        {"uniform over 2 keys", 2, {0.5, 0.5}, {3, -1}, 4 / (2 * sqrt(2.0)) / sqrt(10.0), 1, 0},
        {"one-hot: blocked whatever dp", 3, {0, 1, 0}, {5, -1, 2}, 0, 1, 1},
        {"pass 0.0101: just above the threshold", 2, {1 - e_hi, e_hi}, {1, -1}, 0.0101, 1, 0},
        {"pass 0.0099: just below the threshold", 2, {1 - e_lo, e_lo}, {1, -1}, 0.0099, 1, 1},
        {"no gradient arrives (dp = 0): not counted", 3, {0.2, 0.3, 0.5}, {0, 0, 0}, 0, 0, 0},
        {"one key (query 0): not counted", 1, {1}, {3}, 0, 0, 0},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        SoftmaxRowPass r = softmax_row_pass(rows[k].p, rows[k].dp, rows[k].n);
        double dp2 = 0;
        for (int j = 0; j < rows[k].n; j++) dp2 += rows[k].dp[j] * rows[k].dp[j];
        printf("  row %-45s pass %.9f (expected %.9f) counted %d blocked %d\n", rows[k].what,
               r.pass, rows[k].pass, r.counted, r.blocked);
        ck_assert_msg(fabs(r.pass - rows[k].pass) <= 1e-12, "%s: pass %.15g, expected %.15g",
                      rows[k].what, r.pass, rows[k].pass);
        ck_assert_msg(fabs(r.dp_sumsq - dp2) <= 1e-12 * dp2, "%s: |dp|² %g, expected %g",
                      rows[k].what, r.dp_sumsq, dp2);
        ck_assert_msg(fabs(r.dz_sumsq - r.pass * r.pass * dp2) <= 1e-12 * fmax(dp2, 1e-300),
                      "%s: |dz|² %g, expected %g", rows[k].what, r.dz_sumsq, r.pass * r.pass * dp2);
        ck_assert_msg(r.counted == rows[k].counted && r.blocked == rows[k].blocked,
                      "%s: counted %d blocked %d, expected %d and %d", rows[k].what, r.counted,
                      r.blocked, rows[k].counted, rows[k].blocked);
    }
}
END_TEST

enum { PB = 2, PT = 6, PC = 8 };
enum { PQKV = PB * PT * 3 * PC, POUT = PB * PT * PC, PATT = PB * 2 * PT * PT };
static int p_nh;
static real p_qkv[PQKV], p_w[POUT], p_P[PATT];

/* L = Σ w·(P·V) as a function of the probabilities P (B,NH,T,T) themselves, visible j <= i. */
static double loss_probs(void *ctx) {
    (void)ctx;
    int hs = PC / p_nh;
    double L = 0;
    for (int b = 0; b < PB; b++)
        for (int h = 0; h < p_nh; h++)
            for (int i = 0; i < PT; i++)
                for (int d = 0; d < hs; d++) {
                    double o = 0;
                    for (int j = 0; j <= i; j++)
                        o += p_P[(((size_t)b * p_nh + h) * PT + i) * PT + j] *
                             p_qkv[((size_t)b * PT + j) * 3 * PC + 2 * PC + h * hs + d];
                    L += p_w[((size_t)b * PT + i) * PC + h * hs + d] * o;
                }
    return L;
}

/* _i: NH = 1 or 2 (bit 0) times scale 1/√d_k or 4 (bit 1: saturated rows, some blocked) */
START_TEST(test_attention_pass_stats) {
    p_nh = 1 + (_i & 1);
    int NH = p_nh, hs = PC / NH, saturated = _i >> 1;
    real sc = saturated ? 4 : (real)(1 / sqrt(hs));
    Rng rng;
    rng_seed(&rng, 501 + (uint64_t)_i);
    gc_fill_normal(p_qkv, PQKV, &rng, 0, 1);
    gc_fill_normal(p_w, POUT, &rng, 0, 1);
    /* query row 3 of example 1 gets no gradient (as a position the loss does not read) */
    for (int c = 0; c < PC; c++) p_w[((size_t)1 * PT + 3) * PC + c] = 0;
    real out[POUT], pre[PATT], att[PATT], dqkv[PQKV], dz[PATT], dqkv0[PQKV], dz0[PATT];
    double dprob[PB * 2], dlogit[PB * 2];
    int rows[PB * 2], blocked[PB * 2];
    AttnGradStats st = {dprob, dlogit, rows, blocked};
    attention_forward(out, pre, att, p_qkv, PB, PT, PC, NH, attn_scores_fixed(sc), NULL);
    attention_backward(dqkv, dz, p_w, p_qkv, att, PB, PT, PC, NH, attn_scores_fixed(sc), NULL, &st);
    attention_backward(dqkv0, dz0, p_w, p_qkv, att, PB, PT, PC, NH, attn_scores_fixed(sc), NULL, NULL);
    size_t natt = (size_t)PB * NH * PT * PT;
    ck_assert_msg(memcmp(dqkv, dqkv0, sizeof dqkv) == 0 && memcmp(dz, dz0, natt * sizeof(real)) == 0,
                  "the gradients with stats differ from those without");

    /* by the book, in double: P = softmax(scale·q·k), dP = dO·Vᵀ, dZ = P ⊙ (dP − rowsum) */
    int all_blocked = 0, all_counted = 0;
    for (int b = 0; b < PB; b++)
        for (int h = 0; h < NH; h++) {
            double ss = 0, zz = 0;
            int n_rows = 0, n_blocked = 0;
            for (int i = 0; i < PT; i++) {
                const real *q = p_qkv + ((size_t)b * PT + i) * 3 * PC + h * hs;
                double z[PT], p[PT], dp[PT], mx = -INFINITY, sum = 0, pdp = 0, dp2 = 0, dz2 = 0;
                for (int j = 0; j <= i; j++) {
                    const real *k = p_qkv + ((size_t)b * PT + j) * 3 * PC + PC + h * hs;
                    const real *v = k + PC;
                    const real *dout = p_w + ((size_t)b * PT + i) * PC + h * hs;
                    z[j] = dp[j] = 0;
                    for (int d = 0; d < hs; d++) z[j] += sc * (double)q[d] * k[d];
                    for (int d = 0; d < hs; d++) dp[j] += (double)dout[d] * v[d];
                    mx = fmax(mx, z[j]);
                }
                for (int j = 0; j <= i; j++) sum += p[j] = exp(z[j] - mx);
                for (int j = 0; j <= i; j++) pdp += (p[j] /= sum) * dp[j];
                for (int j = 0; j <= i; j++) {
                    dp2 += dp[j] * dp[j];
                    dz2 += pow(p[j] * (dp[j] - pdp), 2);
                }
                ss += dp2;
                zz += dz2;
                if (i > 0 && dp2 > 0) {
                    n_rows++;
                    n_blocked += sqrt(dz2 / dp2) < 0.01;
                }
            }
            int slot = b * NH + h;
            ck_assert_msg(fabs(dprob[slot] - ss) <= 1e-10 * ss, "b %d h %d: Σ dP² %.12g, by the "
                          "book %.12g", b, h, dprob[slot], ss);
            /* float dZ against the double one: relative 1e-4 (zz is 0 only with one key) */
            ck_assert_msg(fabs(dlogit[slot] - zz) <= 1e-4 * zz + 1e-30, "b %d h %d: Σ dZ² %.12g, "
                          "by the book %.12g", b, h, dlogit[slot], zz);
            ck_assert_msg(rows[slot] == n_rows && blocked[slot] == n_blocked,
                          "b %d h %d: %d rows, %d blocked; by the book %d and %d", b, h,
                          rows[slot], blocked[slot], n_rows, n_blocked);
            all_blocked += n_blocked;
            all_counted += n_rows;
        }
    /* every row but query 0 and the one without gradient is counted */
    ck_assert_int_eq(all_counted, NH * (PB * (PT - 1) - 1));
    /* saturated, both kinds occur, so the blocked counts were really compared (a soft row is
     * blocked too when its dp is nearly the same on every key: softmax drops that component) */
    ck_assert_msg(all_blocked < all_counted && (!saturated || all_blocked > 0),
                  "%d of %d rows blocked", all_blocked, all_counted);

    /* Σ dP² again, from finite differences of L with respect to each visible P_ij */
    memcpy(p_P, att, natt * sizeof(real));
    double *num = gc_alloc(natt, sizeof(double));
    gc_numeric(p_P, natt, loss_probs, NULL, GC_H, num);
    for (int b = 0; b < PB; b++)
        for (int h = 0; h < NH; h++) {
            double ss = 0;
            for (int i = 0; i < PT; i++)
                for (int j = 0; j <= i; j++) ss += pow(num[(((size_t)b * NH + h) * PT + i) * PT + j], 2);
            ck_assert_msg(fabs(dprob[b * NH + h] - ss) <= 1e-7 * ss, "b %d h %d: Σ dP² %.12g, "
                          "finite differences %.12g", b, h, dprob[b * NH + h], ss);
        }
    free(num);
    printf("attention pass stats NH=%d scale=%s: %d of %d counted rows blocked\n", NH,
           saturated ? "4" : "1/sqrt(d_k)", all_blocked, all_counted);
}
END_TEST

int main(void) {
    Suite *s = suite_create("attention");
    TCase *tc = tcase_create("gradcheck");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_attention_grads, 0, 2 * 4 * 4);
    suite_add_tcase(s, tc);
    TCase *pass = tcase_create("softmax pass-through");
    tcase_set_timeout(pass, 60);
    tcase_add_test(pass, test_softmax_row_pass_known_rows);
    tcase_add_loop_test(pass, test_attention_pass_stats, 0, 4);
    suite_add_tcase(s, pass);
    return tu_run(s);
}
