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
 * proves that a gradient off by 1 % would fail. */
#include <stdio.h>

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
    attention_forward(out, preatt, att, qkv, B, T, C, NH, scale);
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
    attention_backward(dqkv, dpreatt, w, qkv, att, B, T, C, NH, scale);

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

int main(void) {
    Suite *s = suite_create("attention");
    TCase *tc = tcase_create("gradcheck");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_attention_grads, 0, 2 * 4 * 4);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
