/* softmax_stats.c: the measurements behind the 1/sqrt(d_k) scale for --softmax-table
 * (table_internal.h): q.k variance and softmax saturation on random vectors; trains nothing. */
#include "report/table/table_internal.h"

#include <math.h>
#include <stdlib.h>

#include "model/attention.h"

int softmax_row_double(double *p, const double *x, int n) {
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

void welford_merge(Welford *a, const Welford *b) {
    if (b->n == 0) return;
    long n = a->n + b->n;
    double delta = b->mean - a->mean;
    a->mean += delta * ((double)b->n / (double)n);
    a->m2 += b->m2 + delta * delta * ((double)a->n * (double)b->n / (double)n);
    a->n = n;
}

/* What one row contributes, for one scale. */
typedef struct {
    Welford logits; /* over the row's n_keys logits */
    double max_p, entropy, jac;
} RowStats;

/* Rows per parallel block: bounds the scratch memory whatever `samples` is. */
enum { BLOCK_ROWS = 256 };

/* One row from its own generator: q (d_k) then each key, logits into x (n_keys) per scale. */
static void measure_row(RowStats *rs, const double *scales, int n_scales, int d_k, int n_keys,
                        uint64_t seed, double *scratch) {
    double *q = scratch, *dots = q + d_k, *x = dots + n_keys;
    Rng r;
    rng_seed(&r, seed);
    for (int i = 0; i < d_k; i++) q[i] = rng_normal(&r);
    for (int j = 0; j < n_keys; j++) {
        double dot = 0.0;
        for (int i = 0; i < d_k; i++) dot += q[i] * rng_normal(&r);
        dots[j] = dot;
    }
    for (int c = 0; c < n_scales; c++) {
        RowStats *o = &rs[c];
        o->logits = (Welford){0};
        for (int j = 0; j < n_keys; j++) {
            x[j] = scales[c] * dots[j];
            welford_add(&o->logits, x[j]);
        }
        int imax = softmax_row_double(x, x, n_keys);
        o->max_p = x[imax];
        o->entropy = softmax_entropy(x, n_keys);
        o->jac = softmax_jacobian_frobenius(x, n_keys);
    }
}

int softmax_measure(SoftmaxStats *out, const double *scales, int n_scales, int d_k, int n_keys,
                    int samples, Rng *rng) {
    if (d_k < 1 || n_keys < 1 || samples < 1 || n_scales < 1 || n_scales > SOFTMAX_MAX_SCALES)
        return -1;
    size_t per_row = (size_t)d_k + 2 * (size_t)n_keys;
    double *scratch = malloc(BLOCK_ROWS * per_row * sizeof *scratch);
    RowStats *rows = malloc((size_t)BLOCK_ROWS * n_scales * sizeof *rows);
    uint64_t *seeds = malloc(BLOCK_ROWS * sizeof *seeds);
    if (!scratch || !rows || !seeds) {
        free(scratch);
        free(rows);
        free(seeds);
        return -1;
    }
    Welford var[SOFTMAX_MAX_SCALES] = {{0}};
    double sum_max[SOFTMAX_MAX_SCALES] = {0}, sum_h[SOFTMAX_MAX_SCALES] = {0};
    double sum_jac[SOFTMAX_MAX_SCALES] = {0};
    long n_sat[SOFTMAX_MAX_SCALES] = {0};

    for (int r0 = 0; r0 < samples; r0 += BLOCK_ROWS) {
        int nb = samples - r0 < BLOCK_ROWS ? samples - r0 : BLOCK_ROWS;
        for (int b = 0; b < nb; b++) seeds[b] = rng_u64(rng);
        /* Each row has its own generator, scratch and output slot: one writer per element. */
#pragma omp parallel for schedule(static)
        for (int b = 0; b < nb; b++)
            measure_row(rows + (size_t)b * n_scales, scales, n_scales, d_k, n_keys, seeds[b],
                        scratch + (size_t)b * per_row);
        /* Reduced serially in row order, so the result does not depend on the thread count. */
        for (int b = 0; b < nb; b++)
            for (int c = 0; c < n_scales; c++) {
                const RowStats *o = &rows[(size_t)b * n_scales + c];
                welford_merge(&var[c], &o->logits);
                sum_max[c] += o->max_p;
                sum_h[c] += o->entropy;
                sum_jac[c] += o->jac;
                if (o->max_p > SOFTMAX_SATURATED) n_sat[c]++;
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
    free(scratch);
    free(rows);
    free(seeds);
    return 0;
}

/* ------------------------------------------------------ the pass-through of random rows */

/* What one row contributes, for one logit std. */
typedef struct {
    double dz_sumsq;   /* Σ_k |J·e_k|², the row's |dL/dZ|² averaged over dL/dp, times n */
    int counted, blocked, saturated;
} RowPass;

/* One row from its own generator: z (n) then dp (n), both N(0,1); per std, logits std·z. */
static void pass_row(RowPass *rp, const double *stds, int n_stds, int n, uint64_t seed,
                     double *scratch, real *rscratch) {
    double *z = scratch, *x = z + n;
    real *p = rscratch, *dp = p + n, *unit = dp + n;
    Rng r;
    rng_seed(&r, seed);
    for (int j = 0; j < n; j++) z[j] = rng_normal(&r);
    for (int j = 0; j < n; j++) dp[j] = (real)rng_normal(&r);
    for (int j = 0; j < n; j++) unit[j] = 0;
    for (int c = 0; c < n_stds; c++) {
        for (int j = 0; j < n; j++) x[j] = stds[c] * z[j];
        softmax_row_double(x, x, n);
        real pmax = 0;
        for (int j = 0; j < n; j++) {
            p[j] = (real)x[j];
            if (p[j] > pmax) pmax = p[j];
        }
        SoftmaxRowPass one = softmax_row_pass(p, dp, n);
        double dz = 0.0;
        for (int k = 0; k < n; k++) {
            unit[k] = 1;
            dz += softmax_row_pass(p, unit, n).dz_sumsq;
            unit[k] = 0;
        }
        rp[c] = (RowPass){.dz_sumsq = dz,
                          .counted = one.counted,
                          .blocked = one.blocked,
                          .saturated = pmax > SOFTMAX_SATURATED};
    }
}

/* Standard error of a fraction k/m of m independent rows. */
static double fraction_se(long k, long m) {
    double f = m > 0 ? (double)k / (double)m : 0.0;
    return m > 0 ? sqrt(f * (1.0 - f) / (double)m) : 0.0;
}

int softmax_random_row_pass(RandomRowPass *out, const double *stds, int n_stds, int n, int samples,
                            Rng *rng) {
    if (n < 2 || samples < 1 || n_stds < 1 || n_stds > SOFTMAX_MAX_STDS) return -1;
    for (int c = 0; c < n_stds; c++)
        if (!(stds[c] >= 0.0) || isinf(stds[c])) return -1;
    double *scratch = malloc(BLOCK_ROWS * 2 * (size_t)n * sizeof *scratch);
    real *rscratch = malloc(BLOCK_ROWS * 3 * (size_t)n * sizeof *rscratch);
    RowPass *rows = malloc((size_t)BLOCK_ROWS * n_stds * sizeof *rows);
    uint64_t *seeds = malloc(BLOCK_ROWS * sizeof *seeds);
    if (!scratch || !rscratch || !rows || !seeds) {
        free(scratch);
        free(rscratch);
        free(rows);
        free(seeds);
        return -1;
    }
    Welford jf[SOFTMAX_MAX_STDS] = {{0}};
    double sum_dz[SOFTMAX_MAX_STDS] = {0}, sum_dp[SOFTMAX_MAX_STDS] = {0};
    long counted[SOFTMAX_MAX_STDS] = {0}, blocked[SOFTMAX_MAX_STDS] = {0};
    long saturated[SOFTMAX_MAX_STDS] = {0};
    for (int r0 = 0; r0 < samples; r0 += BLOCK_ROWS) {
        int nb = samples - r0 < BLOCK_ROWS ? samples - r0 : BLOCK_ROWS;
        for (int b = 0; b < nb; b++) seeds[b] = rng_u64(rng);
        /* Each row has its own generator, scratch and output slot: one writer per element. */
#pragma omp parallel for schedule(static)
        for (int b = 0; b < nb; b++)
            pass_row(rows + (size_t)b * n_stds, stds, n_stds, n, seeds[b],
                     scratch + (size_t)b * 2 * n, rscratch + (size_t)b * 3 * n);
        /* Reduced serially in row order, so the result does not depend on the thread count. */
        for (int b = 0; b < nb; b++)
            for (int c = 0; c < n_stds; c++) {
                const RowPass *o = &rows[(size_t)b * n_stds + c];
                sum_dz[c] += o->dz_sumsq;
                sum_dp[c] += n; /* Σ_k |e_k|² */
                welford_add(&jf[c], o->dz_sumsq / n);
                counted[c] += o->counted;
                blocked[c] += o->blocked;
                saturated[c] += o->saturated;
            }
    }
    for (int c = 0; c < n_stds; c++) {
        double pass = diag_softmax_pass(sqrt(sum_dz[c]), sqrt(sum_dp[c]));
        double se_mean = sqrt(welford_variance(&jf[c]) / samples);
        out[c] = (RandomRowPass){
            .n = n,
            .logit_std = stds[c],
            .pass = pass,
            .pass_se = pass > 0 ? se_mean / (2.0 * pass) : 0.0,
            .blocked = counted[c] > 0 ? (double)blocked[c] / (double)counted[c] : 0.0,
            .blocked_se = fraction_se(blocked[c], counted[c]),
            .saturated = (double)saturated[c] / samples,
            .saturated_se = fraction_se(saturated[c], samples),
        };
    }
    free(scratch);
    free(rscratch);
    free(rows);
    free(seeds);
    return 0;
}
