/* table_internal.h: what report/table/ shares inside itself and with its tests: the exact
 * softmax statistics behind --softmax-table (softmax_stats.c). */
#ifndef SCALEDOT_REPORT_TABLE_INTERNAL_H
#define SCALEDOT_REPORT_TABLE_INTERNAL_H

#include "report/table/table.h"
#include "util/rng.h"

/* ==== softmax_stats.c: the measurements behind the 1/√d_k scale of attention (Vaswani et al. 2017,
 * sec. 3.2.1 and footnote 4). For q, k with independent zero-mean unit-variance entries, q·k has
 * mean 0 and variance d_k; large logits push the softmax towards a one-hot row, where its
 * Jacobian, and so the gradient reaching the logits, is close to zero.
 *
 * Everything here is double precision, independent of the model's `real`: these are reference
 * numbers for a table and its tests, not a kernel of the trainer. */

/* A row is "saturated" when its largest softmax weight exceeds this. */
#define SOFTMAX_SATURATED 0.99

/* p (n) = softmax(x (n)): p_i = exp(x_i − m) / Σ_j exp(x_j − m) with m the true row maximum, so
 * no exp overflows and the largest term is exactly 1 (n ≥ 1; p may alias x). Returns the index
 * of the maximum (the first one on ties). In double throughout, unlike model/attention.c's
 * softmax_row (the model's real): a name of its own, so no two functions share one. */
int softmax_row_double(double *p, const double *x, int n);

/* Shannon entropy of a probability row p (n), in nats: H = −Σ_i p_i·ln p_i, with 0·ln 0 = 0.
 * 0 for a one-hot row, ln n for the uniform row. */
double softmax_entropy(const double *p, int n);

/* Frobenius norm of the softmax Jacobian J = ∂p/∂x = diag(p) − p·pᵀ (n×n) at the row p (n):
 * ‖J‖_F² = Σ_i p_i²(1 − p_i)² + Σ_i p_i²·Σ_{j≠i} p_j². O(n), no matrix is formed.
 * 0 for a one-hot row, √(n−1)/n for the uniform row. J is symmetric positive semi-definite, so
 * for any upstream gradient g, ‖J·g‖ ≤ ‖J‖_F·‖g‖: near 0 means little gradient reaches x.
 * The sums 1 − p_i and Σ_{j≠i} p_j² of the largest p_i are summed from the other entries rather
 * than subtracted, so a nearly one-hot row (p_max = 1 − 1e-12) keeps full relative accuracy. */
double softmax_jacobian_frobenius(const double *p, int n);

/* Largest diagonal entry of that Jacobian, max_i p_i(1 − p_i) (≤ 1/4): the largest
 * ∂p_i/∂x_i, with 1 − p_max summed from the other entries as above. */
double softmax_jacobian_max_diag(const double *p, int n);

/* Running mean and variance by Welford's update (Welford 1962; Knuth TAOCP vol. 2, 4.2.2), in
 * double, without the cancellation of Σx² − (Σx)²/N. */
typedef struct {
    long n;
    double mean;
    double m2; /* Σ (x − mean)² */
} Welford;

void welford_add(Welford *w, double x);
/* Folds the accumulator b into a (Chan, Golub and LeVeque 1979, the pairwise update):
 * the same mean and m2 as adding b's values one by one, up to rounding. */
void welford_merge(Welford *a, const Welford *b);
/* Unbiased sample variance m2 / (n − 1); 0 when n < 2. */
double welford_variance(const Welford *w);

/* The statistics of softmax(scale · q·K) for one scale, over `samples` rows. */
typedef struct {
    double scale;
    double logit_mean;    /* mean of the logits scale·q·k_j over all samples·n_keys of them */
    double logit_var;     /* their sample variance (predicted scale²·d_k) */
    double max_weight;    /* mean over rows of max_j p_j */
    double entropy;       /* mean over rows of the entropy, nats */
    double jacobian_frob; /* mean over rows of ‖diag(p) − p·pᵀ‖_F */
    double saturated;     /* fraction of rows with max_j p_j > SOFTMAX_SATURATED */
} SoftmaxStats;

/* Draws `samples` rows, each one query q (d_k) and n_keys keys k_j (d_k), every entry i.i.d.
 * N(0,1); logits x_j = scale·q·k_j (n_keys); p = softmax(x). Fills out[s] for each of the
 * n_scales scales from the SAME draws, so the scaled and unscaled rows differ only by the scale.
 * Row r takes the r-th 64-bit output of rng as the seed of its own generator (q's entries first,
 * then each key's in turn), so rows run in parallel (OpenMP) and the result is the same for any
 * thread count. The logit variance merges per-row Welford accumulators in row order.
 * d_k ≥ 1, n_keys ≥ 1, samples ≥ 1, 1 ≤ n_scales ≤ SOFTMAX_MAX_SCALES. Cost: samples·(n_keys +
 * 1)·d_k normal draws. Returns 0, or −1 if the arguments are out of range or memory runs out
 * (out is then untouched). */
#define SOFTMAX_MAX_SCALES 8
int softmax_measure(SoftmaxStats *out, const double *scales, int n_scales, int d_k, int n_keys,
                    int samples, Rng *rng);

/* The pass-through of random rows: what attention.csv's softmax_pass, blocked_rows and
 * saturated_frac (train/diagnostics.h, model/attention.h) read on rows of n keys whose logits
 * are i.i.d. N(0, std²), for an upstream gradient dL/dp with i.i.d. entries. Every definition is
 * the log's own function, called here, not a copy:
 *   pass       softmax_pass = diag_softmax_pass(|dL/dZ|, |dL/dP|), the norms over all rows, with
 *              each row's sums from softmax_row_pass. Averaged over dL/dp exactly: for any dL/dp
 *              with E[dp·dpᵀ] ∝ I, E|J·dp|² / E|dp|² = Σ_k |J·e_k|² / n, so each row calls
 *              softmax_row_pass with dp = e_1 … e_n and sums; over the logits, Monte Carlo. A
 *              uniform row (std 0) gives exactly √((n − 1)/n³) whatever the number of rows.
 *   blocked    the fraction of rows softmax_row_pass counts and calls blocked (pass <
 *              ATTN_BLOCKED_PASS) for one dL/dp ~ N(0, I) drawn per row.
 *   saturated  the fraction of rows whose largest weight exceeds SOFTMAX_SATURATED (the 0.99 of
 *              diag_head_stats).
 * Each row's p is computed in double (softmax_row_double) and rounded, with dL/dp, to the model's real
 * at the call (softmax_row_pass takes rows as the model holds them and sums in double).
 * The *_se fields are Monte Carlo standard errors: of the fraction, √(f(1 − f)/rows); of pass,
 * by the delta method from the sample variance of the rows' Σ_k|J·e_k|²/n. */
typedef struct {
    int n;              /* keys per row */
    double logit_std;   /* std of the logits */
    double pass, pass_se;
    double blocked, blocked_se;
    double saturated, saturated_se;
} RandomRowPass;

/* Fills out[c] for the n_stds logit stds, from the SAME draws: row r takes the r-th 64-bit
 * output of rng as the seed of its own generator and draws z (n) then dL/dp (n), all N(0,1);
 * its logits are stds[c]·z. Parallel over rows (OpenMP), reduced in row order: the result does
 * not depend on the thread count. n ≥ 2, samples ≥ 1, 1 ≤ n_stds ≤ SOFTMAX_MAX_STDS, stds ≥ 0.
 * Cost: samples·n_stds·n² (the n probes e_k). Returns 0, or −1 if the arguments are out of
 * range or memory runs out (out is then untouched). */
#define SOFTMAX_MAX_STDS 16
int softmax_random_row_pass(RandomRowPass *out, const double *stds, int n_stds, int n, int samples,
                            Rng *rng);

#endif
