/* test_diagnostics.c: attention statistics on hand-made rows with known entropy, maximum and
 * saturation, and the init check on a model whose q and k are known. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "train/diagnostics.h"

/* One head, one batch, T = 3: row 0 sees one key, row 1 two, row 2 three. */
START_TEST(test_head_stats_known_rows) {
    enum { T = 3 };
    real pre[T * T] = {0}, att[T * T] = {0};
    /* row 0: single key (left out of row statistics) */
    pre[0] = 2;
    att[0] = 1;
    /* row 1: uniform over 2 keys: entropy log 2, normalized 1, max 0.5 */
    pre[3] = 1;
    pre[4] = 1;
    att[3] = att[4] = 0.5;
    /* row 2: saturated: max 0.995 */
    pre[6] = 10;
    pre[7] = -1;
    pre[8] = -3;
    att[6] = 0.995f;
    att[7] = 0.004f;
    att[8] = 0.001f;
    HeadStats s = diag_head_stats(pre, att, 1, T, 1, 0);
    double h2 = -(0.995 * log(0.995) + 0.004 * log(0.004) + 0.001 * log(0.001));
    ck_assert_double_eq_tol(s.entropy, (log(2.0) + h2) / 2, 1e-6);
    ck_assert_double_eq_tol(s.entropy_norm, (1.0 + h2 / log(3.0)) / 2, 1e-6);
    ck_assert_double_eq_tol(s.max_weight, (0.5 + 0.995) / 2, 1e-6);
    ck_assert_double_eq_tol(s.saturated_frac, 0.5, 1e-12);
    ck_assert_double_eq_tol(s.logit_absmax, 10, 1e-6);
    /* logits: 2, 1, 1, 10, -1, -3 -> mean 10/6 */
    double mean = 10.0 / 6, var = 0;
    double v[] = {2, 1, 1, 10, -1, -3};
    for (int i = 0; i < 6; i++) var += (v[i] - mean) * (v[i] - mean) / 6;
    ck_assert_double_eq_tol(s.logit_mean, mean, 1e-6);
    ck_assert_double_eq_tol(s.logit_std, sqrt(var), 1e-6);
}
END_TEST

/* Two heads: the statistics of head 1 must come from head 1's slice only. */
START_TEST(test_head_stats_picks_head) {
    enum { T = 2, NH = 2 };
    real pre[NH * T * T] = {0}, att[NH * T * T] = {0};
    att[0] = 1;
    att[2] = 0.5;
    att[3] = 0.5; /* head 0: uniform row */
    att[4] = 1;
    att[6] = 1;
    att[7] = 0; /* head 1: one-hot row */
    HeadStats h0 = diag_head_stats(pre, att, 1, T, NH, 0);
    HeadStats h1 = diag_head_stats(pre, att, 1, T, NH, 1);
    ck_assert_double_eq_tol(h0.entropy_norm, 1, 1e-6);
    ck_assert_double_eq_tol(h0.saturated_frac, 0, 1e-12);
    ck_assert_double_eq_tol(h1.entropy, 0, 1e-12);
    ck_assert_double_eq_tol(h1.saturated_frac, 1, 1e-12);
    ck_assert_double_eq_tol(h1.max_weight, 1, 1e-12);
}
END_TEST

/* A model whose q and k are known exactly: qkv.weight = 0 and qkv.bias = (q0, k0, 0) make
 * q = q0 and k = k0 at every position whatever LayerNorm gives, so var q = var(q0 entries),
 * var k = var(k0 entries), and q·k = q0·k0 for every pair (variance 0). */
START_TEST(test_init_check_known_model) {
    ModelConfig mc = {.vocab_size = 5, .d_model = 4, .n_heads = 1, .n_layers = 1, .d_ff = 8,
                      .max_seq_len = 3, .ln_eps = 1e-5f, .scale = 0.5f};
    Model m;
    ck_assert_int_eq(model_build(&m, &mc, 2), 0);
    Rng rng;
    rng_seed(&rng, 3);
    model_init_fan_in(&m, &rng);
    BlockTensors *w = &m.p.block[0];
    memset(w->qkv_w, 0, sizeof(real) * 12 * 4);
    real q0[4] = {1, -1, 2, -2}, k0[4] = {3, 3, -3, -3};
    for (int c = 0; c < 4; c++) {
        w->qkv_b[c] = q0[c];
        w->qkv_b[4 + c] = k0[c];
    }
    int tokens[6] = {0, 1, 2, 3, 4, 0}, targets[6] = {1, 2, 3, 4, 0, 1};
    float mask[6] = {1, 1, 1, 1, 1, 1};
    model_forward(&m, tokens, targets, mask, 2, 3);
    InitCheck c = diag_init_check(&m, 0);
    ck_assert_int_eq(c.d_k, 4);
    ck_assert_double_eq_tol(c.var_q, 2.5, 1e-5);  /* mean 0, mean square (1+1+4+4)/4 */
    ck_assert_double_eq_tol(c.var_k, 9.0, 1e-5);
    ck_assert_double_eq_tol(c.var_qk, 0.0, 1e-4); /* q0·k0 = 3 - 3 - 6 + 6 = 0, constant */
    ck_assert_double_eq_tol(c.var_logits, 0.0, 1e-4);
    model_free(&m);
}
END_TEST

/* Random unit-variance q and k (fan_in init, LayerNorm on random embeddings): the measured
 * variance of q·k is near d_k, and the scaled logits near d_k·scale². */
START_TEST(test_init_check_fan_in_near_prediction) {
    ModelConfig mc = {.vocab_size = 50, .d_model = 64, .n_heads = 2, .n_layers = 1, .d_ff = 16,
                      .max_seq_len = 32, .ln_eps = 1e-5f, .scale = 1.0f};
    Model m;
    ck_assert_int_eq(model_build(&m, &mc, 8), 0);
    Rng rng;
    rng_seed(&rng, 11);
    model_init_fan_in(&m, &rng);
    int tokens[8 * 32], targets[8 * 32];
    float mask[8 * 32];
    for (int i = 0; i < 8 * 32; i++) {
        tokens[i] = (int)rng_below(&rng, 50);
        targets[i] = 0;
        mask[i] = 1;
    }
    model_forward(&m, tokens, targets, mask, 8, 32);
    InitCheck c = diag_init_check(&m, 0);
    ck_assert_msg(c.var_q > 0.7 && c.var_q < 1.4, "var q %g", c.var_q);
    ck_assert_msg(c.var_k > 0.7 && c.var_k < 1.4, "var k %g", c.var_k);
    ck_assert_msg(c.var_qk > 0.5 * 32 && c.var_qk < 2.0 * 32, "var q.k %g, d_k 32", c.var_qk);
    ck_assert_double_eq_tol(c.var_logits, c.var_qk, 1e-3 * c.var_qk); /* scale 1 */
    model_free(&m);
}
END_TEST

/* The saturation threshold is max p > 0.99: rows at 0.9895 and 0.95 are not saturated, rows at
 * 0.9905 and 0.999 are (a threshold of 0.9 or 0.995 would count 3 or 1 of the 4). */
START_TEST(test_saturation_threshold) {
    enum { T = 5 };
    static const double maxp[T - 1] = {0.9895, 0.9905, 0.95, 0.999};
    real pre[T * T] = {0}, att[T * T] = {0};
    att[0] = 1;
    for (int i = 1; i < T; i++) {
        att[i * T] = (real)maxp[i - 1];
        for (int j = 1; j <= i; j++) att[i * T + j] = (real)((1 - maxp[i - 1]) / i);
    }
    HeadStats s = diag_head_stats(pre, att, 1, T, 1, 0);
    ck_assert_double_eq_tol(s.saturated_frac, 2.0 / 4, 1e-12);
}
END_TEST

int main(void) {
    Suite *s = suite_create("diagnostics");
    TCase *tc = tcase_create("diagnostics");
    tcase_add_test(tc, test_head_stats_known_rows);
    tcase_add_test(tc, test_head_stats_picks_head);
    tcase_add_test(tc, test_init_check_known_model);
    tcase_add_test(tc, test_init_check_fan_in_near_prediction);
    tcase_add_test(tc, test_saturation_threshold);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
