/* test_rope.c: rotary position embedding (src/model/rope.c), forward and backward.
 *
 *   - tables and forward against the book: angle a = t·10000^(−2i/d_k) and the rotation of the
 *     interleaved pair (2i, 2i+1) written out in double in the test, for every row, head and
 *     pair of q and k in the (B·T, 3C) layout, 2 heads; v is not touched; position 0 is the
 *     identity.
 *   - the property RoPE exists for: after the rotation, q at position t and k at position s have
 *     the same dot product as the same vectors at t + 3 and s + 3 (it depends on t − s only).
 *   - backward alone: with L = Σ w·rope(qkv) for fixed random w, rope_backward (dqkv = w
 *     rotated back in place) matches central finite differences of L to < 1e-6.
 *   - with attention, as in the model: L = Σ w·attention(rope(qkv)) at scale 1/√d_k, 1 and 2
 *     heads: the q, k and v parts of d qkv (each on its own) match finite differences.
 * Each finite-difference comparison also proves that a gradient off by 1 % would fail. */
#include <stdio.h>
#include <string.h>

#include "gradcheck.h"
#include "model/attention.h"
#include "model/rope.h"
#include "testutil.h"

enum { B = 2, T = 6, C = 8, MAXNH = 2, N = B * T, S = 3 * C, NQKV = N * S, NOUT = N * C };
enum { NATT = B * MAXNH * T * T, TAB = 16 * C / 2 };

static real cos_t[TAB], sin_t[TAB];

START_TEST(test_forward_matches_the_book) {
    enum { NH = 2, HS = C / NH };
    static real qkv[NQKV], rot[NQKV];
    Rng rng;
    rng_seed(&rng, 7);
    gc_fill_normal(qkv, NQKV, &rng, 0.1, 1.3);
    rope_tables(cos_t, sin_t, T, HS);
    memcpy(rot, qkv, sizeof qkv);
    rope_forward(rot, cos_t, sin_t, B, T, C, NH);
    for (int n = 0; n < N; n++) {
        int t = n % T;
        for (int c = 2 * C; c < S; c++)
            ck_assert_msg(rot[n * S + c] == qkv[n * S + c], "v changed at row %d channel %d", n, c);
        for (int part = 0; part < 2; part++)
            for (int h = 0; h < NH; h++)
                for (int i = 0; i < HS / 2; i++) {
                    int c0 = part * C + h * HS + 2 * i;
                    double a = t * pow(10000.0, -(2.0 * i) / HS);
                    double x0 = qkv[n * S + c0], x1 = qkv[n * S + c0 + 1];
                    double y0 = x0 * cos(a) - x1 * sin(a), y1 = x0 * sin(a) + x1 * cos(a);
                    ck_assert_msg(fabs(rot[n * S + c0] - y0) <= 1e-12 &&
                                      fabs(rot[n * S + c0 + 1] - y1) <= 1e-12,
                                  "row %d (t %d) %c head %d pair %d: (%.17g, %.17g), by the book "
                                  "(%.17g, %.17g)",
                                  n, t, "qk"[part], h, i, (double)rot[n * S + c0],
                                  (double)rot[n * S + c0 + 1], y0, y1);
                    if (t == 0)
                        ck_assert(rot[n * S + c0] == qkv[n * S + c0] &&
                                  rot[n * S + c0 + 1] == qkv[n * S + c0 + 1]);
                }
    }
}
END_TEST

/* q·k after the rotation depends on the positions only through t − s */
START_TEST(test_relative_position) {
    enum { HS = C, LONG_T = 16 };
    rope_tables(cos_t, sin_t, LONG_T, HS);
    static real qkv[LONG_T * S];
    Rng rng;
    rng_seed(&rng, 9);
    real q[HS], k[HS];
    gc_fill_normal(q, HS, &rng, 0, 1);
    gc_fill_normal(k, HS, &rng, 0, 1);
    for (int t = 0; t < LONG_T; t++) { /* the same q and k at every position, one sequence */
        memcpy(qkv + t * S, q, sizeof q);
        memcpy(qkv + t * S + C, k, sizeof k);
    }
    rope_forward(qkv, cos_t, sin_t, 1, LONG_T, C, 1);
    for (int t = 0; t + 3 < LONG_T; t++)
        for (int s = 0; s + 3 < LONG_T; s++) {
            double d0 = 0, d3 = 0;
            for (int c = 0; c < HS; c++) {
                d0 += (double)qkv[t * S + c] * qkv[s * S + C + c];
                d3 += (double)qkv[(t + 3) * S + c] * qkv[(s + 3) * S + C + c];
            }
            ck_assert_msg(fabs(d0 - d3) <= 1e-12 * (1 + fabs(d0)),
                          "q_%d.k_%d = %.17g but q_%d.k_%d = %.17g", t, s, d0, t + 3, s + 3, d3);
        }
}
END_TEST

static int NH;
static real scale;
static real qkv[NQKV], qkvr[NQKV], w[NQKV], out[NOUT], preatt[NATT], att[NATT];

/* L = Σ w·rope(qkv), over all 3C channels (v included: it passes unchanged) */
static double loss_alone(void *ctx) {
    (void)ctx;
    memcpy(qkvr, qkv, sizeof qkv);
    rope_forward(qkvr, cos_t, sin_t, B, T, C, NH);
    return gc_dot(w, qkvr, NQKV);
}

START_TEST(test_backward_alone) {
    NH = _i ? 2 : 1;
    rope_tables(cos_t, sin_t, T, C / NH);
    Rng rng;
    rng_seed(&rng, 13 + (uint64_t)_i);
    gc_fill_normal(qkv, NQKV, &rng, 0, 1.2);
    gc_fill_normal(w, NQKV, &rng, 0, 1);
    static real dqkv[NQKV];
    memcpy(dqkv, w, sizeof w);
    rope_backward(dqkv, cos_t, sin_t, B, T, C, NH);
    char name[64];
    snprintf(name, sizeof name, "rope alone NH=%d dqkv", NH);
    printf("rope alone NH=%d:\n", NH);
    gc_check(name, qkv, NQKV, loss_alone, NULL, GC_H, dqkv, 0, GC_TOL);
}
END_TEST

/* L = Σ w · attention(rope(qkv)) */
static double loss_attn(void *ctx) {
    (void)ctx;
    memcpy(qkvr, qkv, sizeof qkv);
    rope_forward(qkvr, cos_t, sin_t, B, T, C, NH);
    attention_forward(out, preatt, att, qkvr, B, T, C, NH, attn_scores_fixed(scale), NULL);
    return gc_dot(w, out, NOUT);
}

START_TEST(test_with_attention) {
    NH = _i ? 2 : 1;
    int hs = C / NH;
    scale = (real)(1 / sqrt((double)hs));
    rope_tables(cos_t, sin_t, T, hs);
    Rng rng;
    rng_seed(&rng, 201 + (uint64_t)_i);
    gc_fill_normal(qkv, NQKV, &rng, 0.2, 1.5);
    gc_fill_normal(w, NOUT, &rng, 0, 1);
    loss_attn(NULL);
    /* the model's backward: attention into d (rotated qkv), then rotated back in place */
    static real dqkv[NQKV], dpreatt[NATT];
    attention_backward(dqkv, dpreatt, w, qkvr, att, B, T, C, NH, attn_scores_fixed(scale), NULL,
                       NULL);
    rope_backward(dqkv, cos_t, sin_t, B, T, C, NH);
    printf("rope + attention NH=%d:\n", NH);
    static double num_qkv[NQKV], num_part[NOUT];
    static real part[NOUT];
    gc_numeric(qkv, NQKV, loss_attn, NULL, GC_H, num_qkv);
    for (int p = 0; p < 3; p++) {
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++) {
                part[n * C + c] = dqkv[n * S + p * C + c];
                num_part[n * C + c] = num_qkv[n * S + p * C + c];
            }
        char name[64];
        snprintf(name, sizeof name, "rope+attn NH=%d d%c", NH, "qkv"[p]);
        gc_expect(name, part, 0, num_part, NOUT, GC_TOL);
    }
}
END_TEST

TU_MAIN_TIMEOUT("rope", 60, test_forward_matches_the_book, test_relative_position,
                TU_LOOP(test_backward_alone, 0, 2), TU_LOOP(test_with_attention, 0, 2));
