/* test_qk_clip.c: QK-clip (model_qk_clip, model.h) on a small model with 2 heads.
 *
 * After a forward pass, each head's largest logit S_max is recomputed here in double from the
 * q and k the attention read (s = scale·q·k over j ≤ i, every example of the batch). With the
 * threshold tau between the heads' maxima of layer 0, exactly the heads above tau must be clipped:
 * their q and k rows of attn.qkv.weight and attn.qkv.bias multiplied by sqrt(tau / S_max), every
 * other parameter untouched bit for bit, clip_count raised by one for them only. A second forward
 * on the same batch then gives layer 0's clipped head a largest logit of tau (q and k each shrank
 * by the square root; layer 0's input does not depend on any clipped weight). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "testutil.h"
#include "util/rng.h"

enum { V = 7, C = 16, NH = 2, HS = C / NH, L = 2, BT = 3, TT = 6 };

/* S_max of (layer l, head h) by the book, in double, from the activations of the last forward. */
static double smax_by_hand(const Model *m, int l, int h) {
    const real *qkv = m->acts[l].attn_qkv;
    double mx = -INFINITY;
    for (int b = 0; b < BT; b++)
        for (int i = 0; i < TT; i++)
            for (int j = 0; j <= i; j++) {
                double dot = 0;
                for (int d = 0; d < HS; d++)
                    dot += (double)qkv[((size_t)b * TT + i) * 3 * C + h * HS + d] *
                           qkv[((size_t)b * TT + j) * 3 * C + C + h * HS + d];
                mx = fmax(mx, m->cfg.scale * dot);
            }
    return mx;
}

/* A batch of random tokens and targets, every position in the loss. */
static void random_batch(Rng *rng, int *tokens, int *targets, float *mask) {
    for (int k = 0; k < BT * TT; k++) {
        tokens[k] = (int)rng_below(rng, V);
        targets[k] = (int)rng_below(rng, V);
        mask[k] = 1;
    }
}

START_TEST(test_clip_heads_above_tau) {
    ModelConfig mc = {.vocab_size = V, .d_model = C, .n_heads = NH, .n_layers = L, .d_ff = 4 * C,
                      .max_seq_len = TT, .ln_eps = (real)1e-5, .scale = 1, .qk_clip = 1};
    Model m;
    ck_assert_int_eq(model_build(&m, &mc, BT), 0);
    Rng rng;
    rng_seed(&rng, 5);
    model_init_fan_in(&m, &rng);
    /* biases that are not 0, so that their scaling is seen */
    for (int l = 0; l < L; l++)
        for (int r = 0; r < 3 * C; r++) m.p.block[l].qkv_b[r] = (real)(0.1 * rng_normal(&rng));
    int tokens[BT * TT], targets[BT * TT];
    float mask[BT * TT];
    random_batch(&rng, tokens, targets, mask);
    model_forward(&m, tokens, targets, mask, BT, TT);
    double s[L][NH];
    for (int l = 0; l < L; l++)
        for (int h = 0; h < NH; h++) {
            s[l][h] = smax_by_hand(&m, l, h);
            ck_assert_msg(fabs(m.logit_max[l * NH + h] - s[l][h]) <= 1e-5 * fabs(s[l][h]),
                          "layer %d head %d: logit_max %g, by hand %g", l, h,
                          (double)m.logit_max[l * NH + h], s[l][h]);
        }
    /* tau between layer 0's two heads: one is clipped there, one is not */
    int hi = s[0][1] > s[0][0];
    double tau = 0.5 * (s[0][0] + s[0][1]);
    ck_assert_msg(fabs(s[0][0] - s[0][1]) > 0.2 * tau, "heads too close to split: %g, %g", s[0][0],
                  s[0][1]);
    real *before = malloc(m.n_params * sizeof(real));
    memcpy(before, m.params, m.n_params * sizeof(real));
    int want_total = 0;
    for (int l = 0; l < L; l++)
        for (int h = 0; h < NH; h++) want_total += s[l][h] > tau;

    ck_assert_int_eq(model_qk_clip(&m, tau), want_total);

    for (int l = 0; l < L; l++) {
        size_t w0 = (size_t)(m.p.block[l].qkv_w - m.params), b0 = (size_t)(m.p.block[l].qkv_b - m.params);
        for (int h = 0; h < NH; h++) {
            int clipped = s[l][h] > tau;
            ck_assert_int_eq(m.clip_count[l * NH + h], clipped);
            double f = clipped ? sqrt(tau / s[l][h]) : 1;
            for (int part = 0; part < 3; part++) /* q, k: scaled; v: never */
                for (int r = part * C + h * HS; r < part * C + (h + 1) * HS; r++) {
                    double want_f = part < 2 ? f : 1;
                    for (int c = 0; c < C; c++) {
                        size_t k = w0 + (size_t)r * C + c;
                        ck_assert_msg(fabs(m.params[k] - want_f * before[k]) <= 1e-6 * fabs(before[k]),
                                      "layer %d head %d row %d: %g, want %g", l, h, r,
                                      (double)m.params[k], want_f * before[k]);
                        before[k] = m.params[k]; /* checked: excluded from the untouched test */
                    }
                    ck_assert(fabs(m.params[b0 + r] - want_f * before[b0 + r]) <=
                              1e-6 * fabs(before[b0 + r]));
                    before[b0 + r] = m.params[b0 + r];
                }
        }
    }
    ck_assert_msg(memcmp(before, m.params, m.n_params * sizeof(real)) == 0,
                  "a parameter outside the clipped heads' q and k changed");

    model_forward(&m, tokens, targets, mask, BT, TT);
    double again = smax_by_hand(&m, 0, hi);
    ck_assert_msg(fabs(again - tau) <= 1e-4 * tau, "layer 0 head %d: largest logit %g after the "
                  "clip, tau %g", hi, again, tau);
    ck_assert_msg(fabs(smax_by_hand(&m, 0, !hi) - s[0][!hi]) <= 1e-5 * fabs(s[0][!hi]),
                  "the head below tau changed");
    free(before);
    model_free(&m);
}
END_TEST

/* The LLaMA block (no qkv bias; RoPE rotates q and k, a linear map, so shrinking them still
 * shrinks every logit by the same factor): layer 0's clipped head ends at tau. */
START_TEST(test_clip_llama) {
    ModelConfig mc = {.vocab_size = V, .d_model = C, .n_heads = NH, .n_layers = L, .d_ff = 4 * C,
                      .max_seq_len = TT, .ln_eps = (real)1e-5, .scale = 1, .qk_clip = 1,
                      .block = MODEL_BLOCK_LLAMA};
    Model m;
    ck_assert_int_eq(model_build(&m, &mc, BT), 0);
    Rng rng;
    rng_seed(&rng, 6);
    model_init_fan_in(&m, &rng);
    int tokens[BT * TT], targets[BT * TT];
    float mask[BT * TT];
    random_batch(&rng, tokens, targets, mask);
    model_forward(&m, tokens, targets, mask, BT, TT);
    double s0 = smax_by_hand(&m, 0, 0), s1 = smax_by_hand(&m, 0, 1);
    double tau = 0.5 * fmin(s0, s1); /* both heads of layer 0 clipped */
    ck_assert(tau > 0);
    ck_assert_int_ge(model_qk_clip(&m, tau), 2);
    model_forward(&m, tokens, targets, mask, BT, TT);
    for (int h = 0; h < NH; h++) {
        double again = smax_by_hand(&m, 0, h);
        ck_assert_msg(fabs(again - tau) <= 1e-4 * tau, "llama head %d: %g after the clip, tau %g",
                      h, again, tau);
    }
    model_free(&m);
}
END_TEST

/* Without qk_clip the model keeps no maxima, and the clip is a no-op. */
START_TEST(test_off_does_nothing) {
    ModelConfig mc = {.vocab_size = V, .d_model = C, .n_heads = NH, .n_layers = L, .d_ff = 4 * C,
                      .max_seq_len = TT, .ln_eps = (real)1e-5, .scale = 1};
    Model m;
    ck_assert_int_eq(model_build(&m, &mc, BT), 0);
    ck_assert_ptr_null(m.logit_max);
    ck_assert_int_eq(model_qk_clip(&m, 1e-9), 0);
    model_free(&m);
}
END_TEST

TU_MAIN("qk_clip", test_clip_heads_above_tau, test_clip_llama, test_off_does_nothing);
