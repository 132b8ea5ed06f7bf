/* test_softmax_stats.c: src/report/table/softmax_stats.c (softmax, entropy, Jacobian norm, Welford,
 * the q·k measurement). The command line of ./train --softmax-table is test_cmd_softmax_table's,
 * the table it prints test_softmax_table's.
 *
 * Expected values are derived in the comments, not copied from a run. The statistical tests use a
 * fixed seed, so they are deterministic; their tolerances are several standard errors derived
 * from the distribution of q·k, so they would also pass for almost every other seed. */
#include "report/table/table_internal.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ---------------------------------------------------------------- helpers */

static double sum_of(const double *p, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += p[i];
    return s;
}

/* ‖diag(p) − p·pᵀ‖_F by forming every entry: the O(n²) definition the O(n) code must match. */
static double jacobian_frobenius_brute(const double *p, int n) {
    double f2 = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double jij = (i == j ? p[i] : 0.0) - p[i] * p[j];
            f2 += jij * jij;
        }
    return sqrt(f2);
}

/* ---------------------------------------------------------------- softmax */

/* e^1 = 2.718282, e^0.5 = 1.648721, e^0.8 = 2.225541, sum 6.592544:
 * p = (0.412327, 0.250089, 0.337585). */
START_TEST(test_softmax_example) {
    const double x[3] = {1.0, 0.5, 0.8};
    double p[3];
    ck_assert_int_eq(softmax_row_double(p, x, 3), 0);
    double z = exp(1.0) + exp(0.5) + exp(0.8);
    ck_assert_double_eq_tol(p[0], 0.412327, 1e-6);
    ck_assert_double_eq_tol(p[1], 0.250089, 1e-6);
    ck_assert_double_eq_tol(p[2], 0.337585, 1e-6);
    ck_assert_double_eq_tol(p[0], exp(1.0) / z, 1e-15);
    ck_assert_double_eq_tol(sum_of(p, 3), 1.0, 1e-15);
}
END_TEST

/* Relative to the maximum 14: e^0 = 1, e^-4 = 0.018316, e^-2 = 0.135335, sum 1.153651:
 * p = (0.866813, 0.015876, 0.117310). The wider row is peakier. */
START_TEST(test_softmax_wide_example) {
    const double x[3] = {14.0, 10.0, 12.0};
    double p[3];
    ck_assert_int_eq(softmax_row_double(p, x, 3), 0);
    ck_assert_double_eq_tol(p[0], 0.866813, 1e-6);
    ck_assert_double_eq_tol(p[1], 0.015876, 1e-6);
    ck_assert_double_eq_tol(p[2], 0.117310, 1e-6);
}
END_TEST

/* exp(1000) overflows a double; with the row maximum subtracted the largest term is e^0 = 1:
 * p = (1, e^-1, e^-2000 → 0) / (1 + e^-1). */
START_TEST(test_softmax_stable) {
    const double x[3] = {1000.0, 999.0, -1000.0};
    double p[3];
    ck_assert_int_eq(softmax_row_double(p, x, 3), 0);
    for (int i = 0; i < 3; i++) ck_assert(isfinite(p[i]) && p[i] >= 0.0);
    ck_assert_double_eq_tol(sum_of(p, 3), 1.0, 1e-15);
    ck_assert_double_eq_tol(p[0], 1.0 / (1.0 + exp(-1.0)), 1e-15);
    ck_assert_double_eq_tol(p[1], exp(-1.0) / (1.0 + exp(-1.0)), 1e-15);
    ck_assert(p[2] < 1e-300);
    /* All very negative: exp(x_i) alone would underflow every term to 0 and divide 0/0. */
    const double y[2] = {-2000.0, -2001.0};
    double q[2];
    ck_assert_int_eq(softmax_row_double(q, y, 2), 0);
    ck_assert_double_eq_tol(q[0], 1.0 / (1.0 + exp(-1.0)), 1e-15);
}
END_TEST

START_TEST(test_softmax_in_place_and_argmax) {
    double x[4] = {0.0, 3.0, 3.0, -1.0};
    ck_assert_int_eq(softmax_row_double(x, x, 4), 1); /* first maximum on ties */
    ck_assert_double_eq(x[1], x[2]);
    ck_assert_double_eq_tol(sum_of(x, 4), 1.0, 1e-15);
}
END_TEST

/* ---------------------------------------------------------------- entropy */

START_TEST(test_entropy_uniform_and_one_hot) {
    static const int ns[] = {2, 3, 16, 1000};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        int n = ns[k];
        double *p = malloc((size_t)n * sizeof *p);
        ck_assert_ptr_nonnull(p);
        for (int i = 0; i < n; i++) p[i] = 1.0 / n;
        ck_assert_double_eq_tol(softmax_entropy(p, n), log((double)n), 1e-12);
        for (int i = 0; i < n; i++) p[i] = 0.0;
        p[n / 2] = 1.0;
        ck_assert_double_eq(softmax_entropy(p, n), 0.0); /* 0·ln 0 taken as 0, no NaN */
        free(p);
    }
    /* Two classes: H = −(0.25 ln 0.25 + 0.75 ln 0.75) = 0.562335 nats. */
    const double p2[2] = {0.25, 0.75};
    ck_assert_double_eq_tol(softmax_entropy(p2, 2), 0.562335, 1e-6);
}
END_TEST

/* ---------------------------------------------------------------- Jacobian */

/* Uniform p_i = 1/n: J = I/n − 11ᵀ/n², diagonal (n−1)/n², off-diagonal −1/n², so
 * ‖J‖_F² = n(n−1)²/n⁴ + n(n−1)/n⁴ = (n−1)/n², ‖J‖_F = √(n−1)/n (n = 16: 0.242061).
 * One-hot: p_i(1 − p_i) = 0 and p_i p_j = 0, so J = 0. */
START_TEST(test_jacobian_uniform_and_one_hot) {
    static const int ns[] = {2, 3, 16, 1000};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        int n = ns[k];
        double *p = malloc((size_t)n * sizeof *p);
        ck_assert_ptr_nonnull(p);
        for (int i = 0; i < n; i++) p[i] = 1.0 / n;
        ck_assert_double_eq_tol(softmax_jacobian_frobenius(p, n), sqrt(n - 1.0) / n, 1e-14);
        ck_assert_double_eq_tol(softmax_jacobian_max_diag(p, n), (1.0 / n) * (1.0 - 1.0 / n),
                                1e-15);
        for (int i = 0; i < n; i++) p[i] = 0.0;
        p[0] = 1.0;
        ck_assert_double_eq(softmax_jacobian_frobenius(p, n), 0.0);
        ck_assert_double_eq(softmax_jacobian_max_diag(p, n), 0.0);
        free(p);
    }
    const double single[1] = {1.0};
    ck_assert_double_eq(softmax_jacobian_frobenius(single, 1), 0.0);
    double u[16];
    for (int i = 0; i < 16; i++) u[i] = 1.0 / 16;
    ck_assert_double_eq_tol(softmax_jacobian_frobenius(u, 16), 0.242061, 1e-6);
}
END_TEST

START_TEST(test_jacobian_matches_definition) {
    Rng r;
    rng_seed(&r, 7);
    double x[12], p[12];
    for (int trial = 0; trial < 50; trial++) {
        int n = 2 + trial % 11;
        double spread = 0.1 * (trial + 1); /* from nearly uniform to strongly peaked */
        for (int i = 0; i < n; i++) x[i] = spread * rng_normal(&r);
        softmax_row_double(p, x, n);
        double want = jacobian_frobenius_brute(p, n);
        ck_assert_double_eq_tol(softmax_jacobian_frobenius(p, n), want, 1e-14 * (1.0 + want));
    }
}
END_TEST

/* Two classes, p = (1 − ε, ε): J = ε(1 − ε)·[[1, −1], [−1, 1]], ‖J‖_F = 2ε(1 − ε). Computing
 * 1 − p_max by subtraction would leave ε with ~4 significant digits at ε = 1e-12; the summed
 * form keeps it to full precision. */
START_TEST(test_jacobian_nearly_one_hot) {
    const double eps = 1e-12;
    const double p[2] = {1.0 - eps, eps};
    /* 1 − p[0] here is the double nearest 1 − 1e-12, so compare with p[1] as the true ε. */
    double want = 2.0 * p[1] * (1.0 - p[1]);
    double got = softmax_jacobian_frobenius(p, 2);
    ck_assert_double_eq_tol(got / want, 1.0, 1e-12);
    ck_assert_double_eq_tol(softmax_jacobian_max_diag(p, 2) / (p[1] * (1.0 - p[1])), 1.0, 1e-12);
}
END_TEST

/* ---------------------------------------------------------------- Welford */

/* Values 1e9 + {1, 2, 3, 4}: variance 5/3. The textbook Σx² − (Σx)²/N in double loses it (Σx² is
 * 4e18, where one ulp is 512); Welford keeps it to ~1e-7 relative. */
START_TEST(test_welford_offset_and_merge) {
    Welford w = {0}, a = {0}, b = {0};
    for (int i = 1; i <= 4; i++) {
        double v = 1e9 + i;
        welford_add(&w, v);
        welford_add(i <= 1 ? &a : &b, v);
    }
    ck_assert_double_eq_tol(w.mean, 1e9 + 2.5, 1e-6);
    ck_assert_double_eq_tol(welford_variance(&w), 5.0 / 3.0, 1e-6);
    welford_merge(&a, &b);
    ck_assert_int_eq(a.n, 4);
    ck_assert_double_eq_tol(a.mean, w.mean, 1e-6);
    ck_assert_double_eq_tol(welford_variance(&a), 5.0 / 3.0, 1e-6);
    Welford empty = {0}, one = {0};
    ck_assert_double_eq(welford_variance(&empty), 0.0);
    welford_add(&one, 3.0);
    ck_assert_double_eq(welford_variance(&one), 0.0);
    welford_merge(&empty, &one); /* merging into an empty accumulator copies */
    ck_assert_int_eq(empty.n, 1);
    ck_assert_double_eq(empty.mean, 3.0);
}
END_TEST

/* ---------------------------------------------------------------- the q·k measurement */

enum { N_KEYS = 16 };

/* Standard error of the sample variance of N = n·S logits x_j = q·k_j (n keys per row sharing
 * one q, S rows), q and k with i.i.d. N(0,1) entries of dimension d.
 * x = Σ_i z_i with z_i = q_i k_i: E z² = 1, E z⁴ = E q⁴·E k⁴ = 9, so E x² = d and
 * E x⁴ = Σ E z_i⁴ + 3 Σ_{i≠l} E z_i² E z_l² = 9d + 3d(d−1) = 3d² + 6d: Var(x²) = 2d² + 6d.
 * Two keys of one row are uncorrelated but not independent (both see |q|²):
 * Cov(x_1², x_2²) = E|q|⁴ − d² = (d² + 2d) − d² = 2d.
 * So Var(mean of x² over the row) = [(2d² + 6d) + (n−1)·2d]/n, and over S independent rows
 * Var(sample variance) ≈ [(2d² + 6d) + (n−1)·2d]/(n·S) (the mean is 0 and its estimate changes
 * the variance by O(d/N), far below this). Relative SE at d = 1024, n = 16, S = 2000: 0.8%. */
static double variance_se(int d, int n, int samples) {
    double dd = d;
    return sqrt((2.0 * dd * dd + 6.0 * dd + (n - 1.0) * 2.0 * dd) / ((double)n * samples));
}

START_TEST(test_variance_is_d_k_unscaled_and_1_scaled) {
    static const int dks[] = {16, 64, 256, 1024};
    const int samples = 2000;
    Rng rng;
    rng_seed(&rng, 20170612);
    for (size_t k = 0; k < sizeof dks / sizeof dks[0]; k++) {
        int d = dks[k];
        double scales[2] = {1.0, 1.0 / sqrt((double)d)};
        SoftmaxStats st[2];
        ck_assert_int_eq(softmax_measure(st, scales, 2, d, N_KEYS, samples, &rng), 0);
        double se = variance_se(d, N_KEYS, samples);
        /* 5 standard errors: a false failure has probability ~6e-7 per check. */
        ck_assert_msg(fabs(st[0].logit_var - d) < 5.0 * se,
                      "d_k = %d: unscaled var %.3f, want %d ± %.3f", d, st[0].logit_var, d,
                      5.0 * se);
        ck_assert_msg(fabs(st[1].logit_var - 1.0) < 5.0 * se / d,
                      "d_k = %d: scaled var %.5f, want 1 ± %.5f", d, st[1].logit_var, 5.0 * se / d);
        /* Same draws for both scales: the scaled variance is exactly var/d_k up to rounding. */
        ck_assert_double_eq_tol(st[1].logit_var, st[0].logit_var / d, 1e-12 * st[0].logit_var);
        /* Mean of q·k is 0 with standard error √(d/N) (the n keys of a row are uncorrelated). */
        ck_assert(fabs(st[0].logit_mean) < 5.0 * sqrt(d / (double)(N_KEYS * samples)));
    }
}
END_TEST

/* Measured first with ./train --softmax-table --samples 1000 --seed 1..8 (n = 16):
 * unscaled mean max weight ≈ 0.68, 0.84, 0.92, 0.96 at d_k = 16, 64, 256, 1024, each step ≥ 0.03
 * while its standard error is ≤ 0.3/√1000 ≈ 0.01; scaled 0.239 .. 0.252 over all d_k and seeds.
 * Saturated fraction at d_k = 1024: unscaled 0.76 .. 0.79 (binomial SE 0.013), scaled 0. */
START_TEST(test_saturation_grows_unscaled_not_scaled) {
    static const int dks[] = {16, 64, 256, 1024};
    enum { ND = sizeof dks / sizeof dks[0] };
    SoftmaxStats st[ND][2];
    Rng rng;
    rng_seed(&rng, 1);
    for (int k = 0; k < ND; k++) {
        double scales[2] = {1.0, 1.0 / sqrt((double)dks[k])};
        ck_assert_int_eq(softmax_measure(st[k], scales, 2, dks[k], N_KEYS, 1000, &rng), 0);
    }
    double smin = 1.0, smax = 0.0;
    for (int k = 0; k < ND; k++) {
        if (k > 0)
            ck_assert_msg(st[k][0].max_weight > st[k - 1][0].max_weight,
                          "unscaled max weight not increasing: %.4f at d_k = %d, %.4f at %d",
                          st[k - 1][0].max_weight, dks[k - 1], st[k][0].max_weight, dks[k]);
        smin = fmin(smin, st[k][1].max_weight);
        smax = fmax(smax, st[k][1].max_weight);
        /* Scaled rows keep the softmax away from one-hot: entropy well above 0, Jacobian large. */
        ck_assert(st[k][1].entropy > 0.7 * log((double)N_KEYS));
        ck_assert(st[k][1].jacobian_frob > st[k][0].jacobian_frob);
    }
    ck_assert_msg(smax - smin < 0.03, "scaled max weight spans %.4f .. %.4f", smin, smax);
    ck_assert_msg(st[ND - 1][0].saturated > 0.5, "unscaled saturated at 1024: %.3f",
                  st[ND - 1][0].saturated);
    ck_assert_msg(st[ND - 1][1].saturated < 0.05, "scaled saturated at 1024: %.3f",
                  st[ND - 1][1].saturated);
    ck_assert(st[ND - 1][0].jacobian_frob < 0.5 * st[ND - 1][1].jacobian_frob);
}
END_TEST

START_TEST(test_measure_deterministic_and_checked) {
    double scales[1] = {0.25};
    SoftmaxStats a, b;
    Rng r1, r2;
    rng_seed(&r1, 99);
    rng_seed(&r2, 99);
    ck_assert_int_eq(softmax_measure(&a, scales, 1, 16, 8, 300, &r1), 0);
    ck_assert_int_eq(softmax_measure(&b, scales, 1, 16, 8, 300, &r2), 0);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    ck_assert_double_eq(a.scale, 0.25);
    ck_assert_int_eq(softmax_measure(&a, scales, 1, 0, 8, 300, &r1), -1);
    ck_assert_int_eq(softmax_measure(&a, scales, 1, 16, 0, 300, &r1), -1);
    ck_assert_int_eq(softmax_measure(&a, scales, 1, 16, 8, 0, &r1), -1);
    ck_assert_int_eq(softmax_measure(&a, scales, 0, 16, 8, 300, &r1), -1);
    ck_assert_int_eq(softmax_measure(&a, scales, SOFTMAX_MAX_SCALES + 1, 16, 8, 300, &r1), -1);
}
END_TEST


/* ---------------------------------------------------------------- random rows' pass-through */

/* A uniform row (std 0), derived by hand for the log's pass = |dz| / |dp| with dz = p ⊙ (dp −
 * Σ p_j dp_j): p_j = 1/n, and the probe dp = e_k gives Σ p_j dp_j = 1/n, dz_j = (δ_jk − 1/n)/n,
 * |dz|² = [(1 − 1/n)² + (n − 1)/n²]/n² = (n − 1)/n³. Summed over the n probes and divided by
 * Σ_k |e_k|² = n: pass² = (n − 1)/n³, the same for every row, so exact for any number of rows
 * (1/n is exact in float for these n). Blocked: a row's pass for any dp is |dp − mean dp|/(n·|dp|)
 * ≤ 1/n, so for n = 256 (1/n < 0.01) every row is blocked. Nothing is saturated. */
START_TEST(test_random_rows_uniform_closed_form) {
    static const int ns[] = {2, 4, 16, 64, 256};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        int n = ns[k];
        double stds[1] = {0.0};
        RandomRowPass r;
        Rng rng;
        rng_seed(&rng, 5);
        ck_assert_int_eq(softmax_random_row_pass(&r, stds, 1, n, 300, &rng), 0);
        double want = sqrt((n - 1.0) / ((double)n * n * n));
        ck_assert_msg(fabs(r.pass - want) <= 1e-13 * want, "n = %d: pass %.17g, want %.17g", n,
                      r.pass, want);
        ck_assert_double_eq(r.pass_se, 0.0);
        ck_assert_double_eq(r.saturated, 0.0);
        ck_assert_int_eq(r.n, n);
        if (n == 256) ck_assert_double_eq(r.blocked, 1.0);
    }
}
END_TEST

/* Two keys, derived by hand: with d = x_1 − x_2 ~ N(0, 2·std²) and p = σ(d) the first weight,
 * J = p(1 − p)·[[1, −1], [−1, 1]], so Σ_k |J e_k|² = ‖J‖_F² = 4p²(1 − p)² and the per-row value
 * is v = 2p²(1 − p)²; pass = √E[v]. For dp = r(cos θ, sin θ), |J dp| = 2p(1 − p)·r·|cos(θ + π/4)|:
 * the row is blocked when |cos φ| < 0.005/(p(1 − p)), φ uniform: probability
 * (2/π)·asin(min(1, 0.005/(p(1 − p)))). Saturated: max(p, 1 − p) > 0.99, |d| > ln 99, probability
 * erfc(ln 99 / (2·std)). The expectations over d are integrated here in double (Simpson, 400000
 * intervals over ±12 standard deviations of d), and so is Var(v), which gives the Monte Carlo
 * standard error the tolerance is set from (5 SE: a false failure has probability ~6e-7). */
#define PI_ acos(-1.0)

typedef struct {
    double pass, pass_se, blocked, blocked_se, saturated, saturated_se;
} TwoKeyExact;

static TwoKeyExact two_key_exact(double std, int samples) {
    const int m = 400000; /* even */
    double sd = sqrt(2.0) * std, lo = -12.0 * sd, h = 24.0 * sd / m;
    double ev = 0, ev2 = 0, eb = 0;
    for (int i = 0; i <= m; i++) {
        double d = lo + i * h, w = (i == 0 || i == m) ? 1 : (i % 2 ? 4 : 2);
        double g = exp(-0.5 * (d / sd) * (d / sd)) / (sd * sqrt(2.0 * PI_));
        double p = 1.0 / (1.0 + exp(-d)), q = p * (1.0 - p);
        double v = 2.0 * q * q, c = 0.005 / q;
        ev += w * g * v;
        ev2 += w * g * v * v;
        eb += w * g * (2.0 / PI_) * asin(c < 1 ? c : 1.0);
    }
    ev *= h / 3;
    ev2 *= h / 3;
    eb *= h / 3;
    double sat = erfc(log(99.0) / (2.0 * std));
    TwoKeyExact e = {.pass = sqrt(ev), .blocked = eb, .saturated = sat};
    e.pass_se = sqrt((ev2 - ev * ev) / samples) / (2.0 * e.pass);
    e.blocked_se = sqrt(eb * (1 - eb) / samples);
    e.saturated_se = sqrt(sat * (1 - sat) / samples);
    return e;
}

START_TEST(test_random_rows_two_keys_match_integral) {
    static const double stds[] = {0.5, 2.0, 8.0};
    enum { NS = sizeof stds / sizeof stds[0], SAMPLES = 200000 };
    RandomRowPass r[NS];
    Rng rng;
    rng_seed(&rng, 31);
    ck_assert_int_eq(softmax_random_row_pass(r, stds, NS, 2, SAMPLES, &rng), 0);
    for (int c = 0; c < NS; c++) {
        TwoKeyExact e = two_key_exact(stds[c], SAMPLES);
        /* the standard errors are small against the values they check */
        ck_assert_msg(5 * e.pass_se < 0.02 * e.pass, "std %g: pass se %g", stds[c], e.pass_se);
        ck_assert(5 * e.blocked_se < 0.01 && 5 * e.saturated_se < 0.01);
        ck_assert_msg(fabs(r[c].pass - e.pass) < 5 * e.pass_se, "std %g: pass %.5f, want %.5f ± %.5f",
                      stds[c], r[c].pass, e.pass, 5 * e.pass_se);
        ck_assert_msg(fabs(r[c].blocked - e.blocked) < 5 * e.blocked_se,
                      "std %g: blocked %.5f, want %.5f ± %.5f", stds[c], r[c].blocked, e.blocked,
                      5 * e.blocked_se);
        ck_assert_msg(fabs(r[c].saturated - e.saturated) < 5 * e.saturated_se + 1e-12,
                      "std %g: saturated %.5f, want %.5f ± %.5f", stds[c], r[c].saturated,
                      e.saturated, 5 * e.saturated_se);
        /* the standard errors reported are those of the distribution (within 10 %) */
        ck_assert_msg(fabs(r[c].pass_se - e.pass_se) < 0.1 * e.pass_se, "std %g: pass se %g, want %g",
                      stds[c], r[c].pass_se, e.pass_se);
        ck_assert(fabs(r[c].blocked_se - e.blocked_se) < 0.1 * e.blocked_se + 1e-9);
        ck_assert(fabs(r[c].saturated_se - e.saturated_se) < 0.1 * e.saturated_se + 1e-6);
    }
}
END_TEST

/* Field by field (the struct has padding, which memcmp would read). */
static int same_rrp(const RandomRowPass *a, const RandomRowPass *b) {
    return a->n == b->n && a->logit_std == b->logit_std && a->pass == b->pass &&
           a->pass_se == b->pass_se && a->blocked == b->blocked && a->blocked_se == b->blocked_se &&
           a->saturated == b->saturated && a->saturated_se == b->saturated_se;
}

/* The same draws for every std, the same result for the same seed, bad arguments refused. */
START_TEST(test_random_rows_deterministic_and_checked) {
    double stds[2] = {1.0, 4.0};
    RandomRowPass a[2], b[2], one;
    Rng r1, r2;
    rng_seed(&r1, 7);
    rng_seed(&r2, 7);
    ck_assert_int_eq(softmax_random_row_pass(a, stds, 2, 16, 300, &r1), 0);
    ck_assert_int_eq(softmax_random_row_pass(b, stds, 2, 16, 300, &r2), 0);
    ck_assert(same_rrp(&a[0], &b[0]) && same_rrp(&a[1], &b[1]));
    /* std 4 alone, from the same seed: the same rows as its column above */
    rng_seed(&r2, 7);
    ck_assert_int_eq(softmax_random_row_pass(&one, &stds[1], 1, 16, 300, &r2), 0);
    ck_assert(same_rrp(&one, &a[1]));
    ck_assert_double_eq(a[1].logit_std, 4.0);
    double bad[2] = {-1.0, INFINITY};
    ck_assert_int_eq(softmax_random_row_pass(a, stds, 2, 1, 300, &r1), -1);
    ck_assert_int_eq(softmax_random_row_pass(a, stds, 2, 16, 0, &r1), -1);
    ck_assert_int_eq(softmax_random_row_pass(a, stds, 0, 16, 300, &r1), -1);
    ck_assert_int_eq(softmax_random_row_pass(a, stds, SOFTMAX_MAX_STDS + 1, 16, 300, &r1), -1);
    ck_assert_int_eq(softmax_random_row_pass(a, bad, 1, 16, 300, &r1), -1);
    ck_assert_int_eq(softmax_random_row_pass(a, bad + 1, 1, 16, 300, &r1), -1);
}
END_TEST

static Suite *softmax_stats_suite(void) {
    Suite *s = suite_create("softmax_stats");
    TCase *row = tcase_create("one row");
    tcase_add_test(row, test_softmax_example);
    tcase_add_test(row, test_softmax_wide_example);
    tcase_add_test(row, test_softmax_stable);
    tcase_add_test(row, test_softmax_in_place_and_argmax);
    tcase_add_test(row, test_entropy_uniform_and_one_hot);
    tcase_add_test(row, test_jacobian_uniform_and_one_hot);
    tcase_add_test(row, test_jacobian_matches_definition);
    tcase_add_test(row, test_jacobian_nearly_one_hot);
    tcase_add_test(row, test_welford_offset_and_merge);
    suite_add_tcase(s, row);

    TCase *stats = tcase_create("q.k statistics");
    tcase_set_timeout(stats, 120); /* ~50M normal draws; Check's default is 4 s */
    tcase_add_test(stats, test_variance_is_d_k_unscaled_and_1_scaled);
    tcase_add_test(stats, test_saturation_grows_unscaled_not_scaled);
    tcase_add_test(stats, test_measure_deterministic_and_checked);
    suite_add_tcase(s, stats);

    TCase *pass = tcase_create("random rows' pass-through");
    tcase_set_timeout(pass, 120);
    tcase_add_test(pass, test_random_rows_uniform_closed_form);
    tcase_add_test(pass, test_random_rows_two_keys_match_integral);
    tcase_add_test(pass, test_random_rows_deterministic_and_checked);
    suite_add_tcase(s, pass);
    return s;
}

int main(void) { return tu_run(softmax_stats_suite()); }
