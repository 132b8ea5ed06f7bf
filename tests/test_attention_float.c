/* test_attention_float.c: the float build's attention softmax on extreme logits.
 *
 * test_attention checks the kernel's gradients in double; the product runs in float, where
 * exp(200) overflows (float's largest value is 3.4e38 = e^88.7). Logits of ±200 must still give
 * rows that are finite, sum to 1 and equal the softmax computed here in double with the row
 * maximum subtracted; the output must be P·V. */
#include <check.h>
#include <math.h>
#include <stdio.h>

#include "model/attention.h"
#include "testutil.h"

/* T = 21: rows longer than the 16 running lanes of the row kernels, with a tail. */
enum { B = 2, T = 21, C = 1 };

START_TEST(test_softmax_logits_200) {
    static real qkv[B * T * 3 * C], out[B * T * C], pre[B * T * T], att[B * T * T];
    /* q·k = ±200 with scale 1: q = 20 (row b = 0) or −20 (b = 1), k = ±10 by a fixed pattern,
     * v = position-dependent. Some rows hold one +200 key among −200 ones, some several. */
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            real *x = qkv + ((size_t)b * T + t) * 3 * C;
            x[0] = b == 0 ? 20 : -20;
            x[1] = (t % 3 == 0 || t == 17) ? 10 : -10;
            x[2] = (real)(0.25 * t - 1);
        }
    attention_forward(out, pre, att, qkv, B, T, C, 1, attn_scores_fixed(R(1.0)), NULL);
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++) {
            const real *z = pre + ((size_t)b * T + i) * T, *p = att + ((size_t)b * T + i) * T;
            double zmax = -INFINITY, den = 0, sum = 0, o = 0;
            for (int j = 0; j <= i; j++) zmax = fmax(zmax, (double)z[j]);
            ck_assert_msg(fabs(zmax) == 200, "b %d row %d: max logit %g, want ±200", b, i, zmax);
            for (int j = 0; j <= i; j++) den += exp((double)z[j] - zmax);
            for (int j = 0; j <= i; j++) {
                double want = exp((double)z[j] - zmax) / den;
                ck_assert_msg(isfinite(p[j]) && fabs(p[j] - want) < 1e-6,
                              "b %d row %d key %d: p = %g, want %g", b, i, j, (double)p[j], want);
                sum += p[j];
                o += want * qkv[((size_t)b * T + j) * 3 * C + 2];
            }
            for (int j = i + 1; j < T; j++) ck_assert(p[j] == 0);
            ck_assert_msg(fabs(sum - 1) < 1e-6, "b %d row %d sums to %.9g", b, i, sum);
            ck_assert_msg(fabs(out[(size_t)b * T + i] - o) < 1e-5, "b %d row %d: out %g, want %g",
                          b, i, (double)out[(size_t)b * T + i], o);
        }
}
END_TEST

TU_MAIN("attention_float", test_softmax_logits_200);
