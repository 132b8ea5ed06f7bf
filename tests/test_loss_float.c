/* test_loss_float.c: the float build's cross-entropy at logits near ±1000.
 *
 * test_loss runs in double, where the order of (max − z_target) + log Σ and
 * (max + log Σ) − z_target does not show. In float the spacing of numbers near 1000 is 6.1e-5,
 * so adding log Σ to the maximum first rounds it to that spacing (4e-5 relative error on a loss
 * of ~1); the loss must match the double closed form to 1e-6 relative. */
#include <check.h>
#include <math.h>

#include "model/loss.h"
#include "testutil.h"

enum { N = 8, V = 3 };

START_TEST(test_loss_near_1000) {
    /* row n: logits (1000, 1000 − d_n, −1000) with target 1: loss = d + log(1 + e^−d) */
    static const double d[N] = {0.5, 0.3, 0.123, 0.7, 1.1, 0.05, 0.9, 0.37};
    real logits[N * V], probs[N * V], losses[N];
    int targets[N];
    float mask[N];
    for (int n = 0; n < N; n++) {
        logits[n * V] = 1000;
        logits[n * V + 1] = (real)(1000 - d[n]);
        logits[n * V + 2] = -1000;
        targets[n] = 1;
        mask[n] = 1;
    }
    crossentropy_forward(losses, probs, logits, targets, mask, N, V);
    for (int n = 0; n < N; n++) {
        double dd = 1000 - (double)logits[n * V + 1]; /* d as float could hold it */
        double want = dd + log1p(exp(-dd));
        ck_assert_msg(fabs(losses[n] - want) <= 1e-6 * want, "row %d: loss %.9g, want %.9g", n,
                      (double)losses[n], want);
    }
}
END_TEST

TU_MAIN("loss_float", test_loss_near_1000);
