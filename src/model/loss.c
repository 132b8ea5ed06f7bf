/* loss.c: the last layer of the model: softmax cross-entropy over the vocabulary, masked mean,
 * forward and backward side by side (loss.h). */
#include "model/loss.h"

static double mask_total(const float *mask, int N) {
    double s = 0;
    for (int n = 0; n < N; n++) s += mask[n];
    return s;
}

real crossentropy_forward(real *losses, real *probs, const real *logits, const int *targets,
                          const float *mask, int N, int V) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const real *z = logits + (long)n * V;
        real *p = probs + (long)n * V;
        real maxv = z[0];
        for (int v = 1; v < V; v++)
            if (z[v] > maxv) maxv = z[v];
        real sum = 0;
        for (int v = 0; v < V; v++) {
            p[v] = rexp(z[v] - maxv);
            sum += p[v];
        }
        real inv = R(1.0) / sum;
        for (int v = 0; v < V; v++) p[v] *= inv;
        /* (max − z_t) first: both are near the logits' size and their difference is exact-ish;
         * (max + log Σ) − z_t rounds log Σ away at logits near ±1000 (4e-5 relative error) */
        losses[n] = (maxv - z[targets[n]]) + rlog(sum);
    }
    double total = mask_total(mask, N);
    if (total == 0) return 0;
    double acc = 0;
    for (int n = 0; n < N; n++) acc += mask[n] * (double)losses[n];
    return (real)(acc / total);
}

void crossentropy_backward(real *dlogits, const real *probs, const int *targets,
                           const float *mask, int N, int V) {
    double total = mask_total(mask, N);
    real inv = total == 0 ? 0 : (real)(1.0 / total);
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        /* masked rows get exact zeros (w·p would turn a NaN p into NaN) */
        real w = (real)mask[n] * inv;
        const real *p = probs + (long)n * V;
        real *d = dlogits + (long)n * V;
        for (int v = 0; v < V; v++) d[v] = w == 0 ? 0 : w * p[v];
        if (w != 0) d[targets[n]] -= w;
    }
}
