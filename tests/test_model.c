/* test_model.c: model_backward is the exact gradient of model_forward's loss, end to end.
 *
 * A small model (V=7, C=8, 2 heads, 2 layers, d_ff=12, max_seq_len=6) on B=2 sequences of T=5
 * tokens, with a mask that drops some positions and half-weights one, is initialised with
 * model_init_fan_in and then gets random LayerNorm weights (≠ 1) and biases (≠ 0) so that every
 * parameter's gradient is exercised. For each of scale = 1/√d_k, 1, 1/d_k and 0.37, the gradient
 * of every tensor (named from the tensor table) matches central finite differences of the loss
 * in double to < 1e-6 relative error, both into zeroed gradients and into gradients pre-filled
 * with GC_PREFILL (model_backward accumulates). Each comparison also proves that a gradient off
 * by 1 % would fail, so a 1 % bug in any kernel along any path is caught. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradcheck.h"
#include "model/model.h"
#include "testutil.h"

enum { B = 2, T = 5 };

static const char *scale_names[] = {"1/sqrt(d_k)", "1", "1/d_k", "0.37"};
static const float mask[B * T] = {1, 0, 1, 1, 0.5f, 0, 1, 1, 0, 1};
static int tokens[B * T], targets[B * T];
static Model m;

static double loss(void *ctx) {
    (void)ctx;
    return model_forward(&m, tokens, targets, mask, B, T);
}

static void build(int si) {
    ModelConfig cfg = {.vocab_size = 7, .d_model = 8, .n_heads = 2, .n_layers = 2, .d_ff = 12,
                       .max_seq_len = 6, .ln_eps = (real)1e-5};
    double dk = (double)cfg.d_model / cfg.n_heads;
    const double scales[] = {1 / sqrt(dk), 1, 1 / dk, 0.37};
    cfg.scale = (real)scales[si];
    ck_assert_int_eq(model_build(&m, &cfg, B), 0);
    Rng rng;
    rng_seed(&rng, 2024);
    model_init_fan_in(&m, &rng);
    for (int i = 0; i < m.n_tensors; i++) { /* LayerNorm weights and all biases off 1 and 0 */
        const TensorInfo *t = &m.tensors[i];
        if (t->ndim != 1) continue;
        size_t n = strlen(t->name);
        int is_weight = n >= 6 && strcmp(t->name + n - 6, "weight") == 0;
        gc_fill_normal(m.params + t->offset, t->numel, &rng, is_weight ? 1 : 0, 0.3);
    }
    for (int k = 0; k < B * T; k++) {
        tokens[k] = (int)rng_below(&rng, (uint32_t)cfg.vocab_size);
        targets[k] = (int)rng_below(&rng, (uint32_t)cfg.vocab_size);
    }
}

/* Compares every tensor's slice of grads (minus prefill) with num, then asserts: a failure lists
 * every failing tensor by name (the one nearest the loss shows where a bug is) and the worst. */
static void compare_all(const char *label, const real *grads, real prefill, const double *num) {
    char failed[1024] = "", name[128];
    double worst = 0;
    const char *worst_name = "";
    int n_failed = 0;
    for (int i = 0; i < m.n_tensors; i++) {
        const TensorInfo *t = &m.tensors[i];
        snprintf(name, sizeof name, "%s %s", label, t->name);
        double broken, e = gc_report(name, grads + t->offset, prefill, num + t->offset, t->numel,
                                     GC_TOL, &broken);
        if (!(e < GC_TOL && broken > GC_TOL)) {
            size_t len = strlen(failed);
            snprintf(failed + len, sizeof failed - len, " %s", t->name);
            n_failed++;
        }
        if (!(e < worst)) worst = e, worst_name = t->name;
    }
    printf("  %s worst: %s %.2e\n", label, worst_name, worst);
    fflush(stdout);
    ck_assert_msg(n_failed == 0, "%s: %d tensor(s) fail the gradient check (max rel err < %.0e "
                  "and x%.2f must fail):%s; worst %s, max rel err %.3e", label, n_failed, GC_TOL,
                  GC_BREAK, failed, worst_name, worst);
}

/* _i = index of the scale */
START_TEST(test_model_grads) {
    int si = _i;
    build(si);
    double L = loss(NULL);
    model_zero_grad(&m);
    model_backward(&m);
    real *grads = gc_alloc(m.n_params, sizeof *grads);
    memcpy(grads, m.grads, m.n_params * sizeof *grads);
    double *num = gc_alloc(m.n_params, sizeof *num);
    gc_numeric(m.params, m.n_params, loss, NULL, GC_H, num);
    printf("model scale=%s: loss %.6f, %zu parameters\n", scale_names[si], L, m.n_params);
    char label[64];
    snprintf(label, sizeof label, "model scale=%s", scale_names[si]);
    compare_all(label, grads, 0, num);

    /* model_backward accumulates: the same comparison into gradients pre-filled with GC_PREFILL */
    loss(NULL);
    gc_fill(m.grads, m.n_params, (real)GC_PREFILL);
    model_backward(&m);
    snprintf(label, sizeof label, "model scale=%s, += into %g,", scale_names[si], GC_PREFILL);
    gc_quiet = 1;
    compare_all(label, m.grads, (real)GC_PREFILL, num);
    gc_quiet = 0;
    free(num);
    free(grads);
    model_free(&m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("gradcheck");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_model_grads, 0, 4);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
