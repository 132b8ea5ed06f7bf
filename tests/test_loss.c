/* test_loss.c: crossentropy_backward is the exact gradient of crossentropy_forward's mean.
 *
 * The scalar is the returned masked mean itself. dlogits from crossentropy_backward matches
 * central finite differences of it in double to < 1e-6 relative error (1) for random logits and
 * a mask with zeros and partial weights (0.5, 0.25), where masked rows must get no gradient, and
 * (2) for logits of ±1000, where a naive exp() overflows: every loss must be finite and equal
 * its closed form, and the gradient must still be right. (3) An all-zero mask gives loss 0 and
 * an all-zero dlogits. Each run also uses a buffer pre-filled with GC_PREFILL to prove that
 * dlogits is overwritten, and each comparison proves that a gradient off by 1 % would fail. */
#include <stdio.h>

#include "gradcheck.h"
#include "model/loss.h"
#include "testutil.h"

enum { N = 6, V = 5 };

static real logits[N * V], probs[N * V], losses[N];
static int targets[N];
static float mask[N];

static double loss(void *ctx) {
    (void)ctx;
    return crossentropy_forward(losses, probs, logits, targets, mask, N, V);
}

static void check(const char *name, real prefill, double h) {
    loss(NULL);
    real dlogits[N * V];
    gc_fill(dlogits, N * V, prefill);
    crossentropy_backward(dlogits, probs, targets, mask, N, V);
    gc_check(name, logits, N * V, loss, NULL, h, dlogits, 0, GC_TOL); /* overwritten */
}

START_TEST(test_loss_random_masked) {
    real prefill = _i ? (real)GC_PREFILL : 0;
    static const float m[N] = {1, 0, 0.5f, 1, 0.25f, 0};
    Rng rng;
    rng_seed(&rng, 61);
    gc_fill_normal(logits, N * V, &rng, 0, 2);
    for (int n = 0; n < N; n++) targets[n] = (int)rng_below(&rng, V), mask[n] = m[n];
    printf("loss (prefill %g):\n", (double)prefill);
    check("loss dlogits, mask with 0, 0.5, 0.25", prefill, GC_H);
}
END_TEST

START_TEST(test_loss_large_logits) {
    real prefill = _i ? (real)GC_PREFILL : 0;
    static const real z[N * V] = {
        1000, -1000, 999, 0, 1000,    /* target 0:  log(2 + e^-1) */
        1000, -1000, 999, 0, 1000,    /* target 1:  2000 + log(2 + e^-1) */
        -1000, -1000, -1000, -1000, -1000, /* target 2: log 5 */
        -1000, 1000, -999, 3, 2,      /* target 3:  997 */
        1000, 1000, 1000, 1000, 1000, /* target 4:  log 5 */
        0.5, -1000, 1000, 0.25, -0.75, /* target 2: ≈ 0 */
    };
    static const int t[N] = {0, 1, 2, 3, 4, 2};
    const double lse0 = log(2 + exp(-1.0));
    const double want[N] = {lse0, 2000 + lse0, log(5.0), 997, log(5.0), 0};
    for (int i = 0; i < N * V; i++) logits[i] = z[i];
    for (int n = 0; n < N; n++) targets[n] = t[n], mask[n] = n == 2 ? 0.5f : 1;
    double l = loss(NULL);
    for (int n = 0; n < N; n++)
        ck_assert_msg(isfinite(losses[n]) && fabs(losses[n] - want[n]) < 1e-9 * fmax(1, want[n]),
                      "loss[%d] = %.17g, want %.17g", n, (double)losses[n], want[n]);
    ck_assert_msg(isfinite(l), "mean loss %g not finite", l);
    printf("loss, logits ±1000 (prefill %g): mean loss %.6f\n", (double)prefill, l);
    /* |L| ≈ 500 here, so rounding noise in L is ~1e-13 and h = 1e-6 would leave 3e-7 of noise;
     * h = 1e-4 gives ~3e-9 (softmax derivatives are O(1) in the logits, so the h² truncation
     * error is small too). */
    check("loss dlogits, logits +-1000", prefill, 1e-4);
}
END_TEST

START_TEST(test_loss_zero_mask) {
    Rng rng;
    rng_seed(&rng, 62);
    gc_fill_normal(logits, N * V, &rng, 0, 2);
    for (int n = 0; n < N; n++) targets[n] = n % V, mask[n] = 0;
    real l = crossentropy_forward(losses, probs, logits, targets, mask, N, V);
    ck_assert_msg(l == 0, "all-zero mask: loss %.17g, want 0", (double)l);
    for (int n = 0; n < N; n++) ck_assert_msg(isfinite(losses[n]), "losses[%d] not finite", n);
    for (int pass = 0; pass < 2; pass++) {
        real c = pass ? (real)GC_PREFILL : 0, d[N * V];
        gc_fill(d, N * V, c);
        crossentropy_backward(d, probs, targets, mask, N, V);
        for (int i = 0; i < N * V; i++) /* overwritten with zeros */
            ck_assert_msg(d[i] == 0, "all-zero mask: dlogits[%d] = %g, want 0", i, (double)d[i]);
    }
    printf("loss, all-zero mask: loss 0 and no gradient\n");
}
END_TEST

TU_MAIN("loss", TU_LOOP(test_loss_random_masked, 0, 2), TU_LOOP(test_loss_large_logits, 0, 2),
        test_loss_zero_mask);
