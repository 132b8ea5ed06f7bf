#include "report/softmax_stats.h"

#include <math.h>
#include <stdlib.h>

int softmax_row(double *p, const double *x, int n) {
    int imax = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[imax]) imax = i;
    double m = x[imax], sum = 0.0;
    for (int i = 0; i < n; i++) {
        p[i] = exp(x[i] - m);
        sum += p[i];
    }
    double inv = 1.0 / sum;
    for (int i = 0; i < n; i++) p[i] *= inv;
    return imax;
}

double softmax_entropy(const double *p, int n) {
    double h = 0.0;
    for (int i = 0; i < n; i++)
        if (p[i] > 0.0) h -= p[i] * log(p[i]);
    return h;
}

/* Index of the largest entry of p (n), and the sums over the other entries of p_j and p_j². */
static int split_max(const double *p, int n, double *rest, double *rest_sq) {
    int imax = 0;
    for (int i = 1; i < n; i++)
        if (p[i] > p[imax]) imax = i;
    double s = 0.0, s2 = 0.0;
    for (int j = 0; j < n; j++)
        if (j != imax) {
            s += p[j];
            s2 += p[j] * p[j];
        }
    *rest = s;
    *rest_sq = s2;
    return imax;
}

double softmax_jacobian_frobenius(const double *p, int n) {
    double rest, rest_sq;
    int imax = split_max(p, n, &rest, &rest_sq);
    double pm = p[imax];
    double sum_sq = rest_sq + pm * pm;
    double f2 = 0.0;
    for (int i = 0; i < n; i++) {
        /* 1 − p_i and Σ_{j≠i} p_j². For i ≠ imax, p_i² ≤ Σp²/2 (p_imax² ≥ p_i² is in the sum
         * too), so the subtraction loses at most one bit; for imax both are summed directly. */
        double one_minus = i == imax ? rest : 1.0 - p[i];
        double others_sq = i == imax ? rest_sq : sum_sq - p[i] * p[i];
        double d = p[i] * one_minus;
        f2 += d * d + p[i] * p[i] * others_sq;
    }
    return sqrt(f2);
}

double softmax_jacobian_max_diag(const double *p, int n) {
    double rest, rest_sq;
    int imax = split_max(p, n, &rest, &rest_sq);
    double best = 0.0;
    for (int i = 0; i < n; i++) {
        double d = p[i] * (i == imax ? rest : 1.0 - p[i]);
        if (d > best) best = d;
    }
    return best;
}

void welford_add(Welford *w, double x) {
    w->n++;
    double delta = x - w->mean;
    w->mean += delta / (double)w->n;
    w->m2 += delta * (x - w->mean);
}

double welford_variance(const Welford *w) { return w->n < 2 ? 0.0 : w->m2 / (double)(w->n - 1); }

int softmax_measure(SoftmaxStats *out, const double *scales, int n_scales, int d_k, int n_keys,
                    int samples, Rng *rng) {
    if (d_k < 1 || n_keys < 1 || samples < 1 || n_scales < 1 || n_scales > SOFTMAX_MAX_SCALES)
        return -1;
    double *q = malloc((size_t)d_k * sizeof *q);
    double *dots = malloc((size_t)n_keys * sizeof *dots);
    double *x = malloc((size_t)n_keys * sizeof *x);
    if (!q || !dots || !x) {
        free(q);
        free(dots);
        free(x);
        return -1;
    }
    Welford var[SOFTMAX_MAX_SCALES] = {{0}};
    /* Row means are accumulated as sums of per-row values, then divided once. */
    double sum_max[SOFTMAX_MAX_SCALES] = {0}, sum_h[SOFTMAX_MAX_SCALES] = {0};
    double sum_jac[SOFTMAX_MAX_SCALES] = {0};
    long n_sat[SOFTMAX_MAX_SCALES] = {0};

    for (int s = 0; s < samples; s++) {
        for (int i = 0; i < d_k; i++) q[i] = rng_normal(rng);
        for (int j = 0; j < n_keys; j++) {
            double dot = 0.0;
            for (int i = 0; i < d_k; i++) dot += q[i] * rng_normal(rng);
            dots[j] = dot;
        }
        for (int c = 0; c < n_scales; c++) {
            for (int j = 0; j < n_keys; j++) {
                x[j] = scales[c] * dots[j];
                welford_add(&var[c], x[j]);
            }
            int imax = softmax_row(x, x, n_keys);
            sum_max[c] += x[imax];
            sum_h[c] += softmax_entropy(x, n_keys);
            sum_jac[c] += softmax_jacobian_frobenius(x, n_keys);
            if (x[imax] > SOFTMAX_SATURATED) n_sat[c]++;
        }
    }
    for (int c = 0; c < n_scales; c++) {
        out[c] = (SoftmaxStats){
            .scale = scales[c],
            .logit_mean = var[c].mean,
            .logit_var = welford_variance(&var[c]),
            .max_weight = sum_max[c] / samples,
            .entropy = sum_h[c] / samples,
            .jacobian_frob = sum_jac[c] / samples,
            .saturated = (double)n_sat[c] / samples,
        };
    }
    free(q);
    free(dots);
    free(x);
    return 0;
}
