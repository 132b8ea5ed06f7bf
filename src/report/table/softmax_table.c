/* softmax_table.c: ./train --softmax-table, the worked numbers behind the 1/√d_k scale (its
 * arguments are read by cli/cmd_softmax_table.c).
 *
 * Part 1 shows two hand-sized rows: a wider spread of logits makes the softmax peakier and its
 * Jacobian smaller. Part 2 measures, for growing d_k, the variance of q·k with and without the
 * scale and what it does to the softmax over a row of keys (Vaswani et al. 2017, sec. 3.2.1 and
 * footnote 4). Part 3 gives the pass-through of random rows against the logits' std: a uniform
 * row passes little too, so a low softmax_pass can mean "too soft" as well as "saturated", and
 * blocked_rows tells them apart. Nothing is trained; every number is computed here (see report/table/softmax_stats.c). */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/attention.h"
#include "report/table/table_internal.h"
#include "util/clock.h"
#include "util/rng.h"

/* Exit codes, as in main: 0 done, 1 out of memory. */
enum { TABLE_OK = 0, TABLE_NO_MEMORY = 1 };

static const int DKS[] = {16, 32, 64, 128, 256, 512, 1024};
#define N_DK ((int)(sizeof DKS / sizeof DKS[0]))

/* The table takes seconds (about 12 at the defaults on a shared 2-core machine), so, as the
 * training loop's heartbeat does, a line on stderr before each measurement says what it measures
 * and how far the table is; stdout keeps the table alone. */
static void progress(double t0, const char *what, int k, int n) {
    fprintf(stderr, "softmax-table: %s (%d of %d), %.1f s\n", what, k, n, now_s() - t0);
}

/* ------------------------------------------------------------------ part 1: two example rows */

static void print_examples(void) {
    enum { N = 3 };
    static const double rows[2][N] = {{1.0, 0.5, 0.8}, {14.0, 10.0, 12.0}};
    double pmax[2], frob[2];
    printf("1. Softmax of two rows of 3 logits (stable form: p_i = exp(x_i - max x) / sum_j "
           "exp(x_j - max x))\n"
           "   range = max x - min x; H = -sum p ln p in nats (uniform row: ln 3 = %.4f);\n"
           "   ||J||_F = Frobenius norm of the Jacobian dp/dx = diag(p) - p p^T (uniform row: "
           "sqrt(2)/3 = %.4f);\n"
           "   max p(1-p) = its largest diagonal entry, the largest dp_i/dx_i (at most 0.25)\n\n",
           log(3.0), sqrt(2.0) / 3.0);
    printf("   %-20s %6s  %-26s %6s %7s %7s %8s %11s\n", "logits x", "range", "softmax p", "max p",
           "H nats", "H/ln 3", "||J||_F", "max p(1-p)");
    for (int r = 0; r < 2; r++) {
        const double *x = rows[r];
        double p[N], lo = x[0], hi = x[0];
        for (int i = 1; i < N; i++) {
            if (x[i] < lo) lo = x[i];
            if (x[i] > hi) hi = x[i];
        }
        int imax = softmax_row_double(p, x, N);
        double h = softmax_entropy(p, N);
        pmax[r] = p[imax];
        frob[r] = softmax_jacobian_frobenius(p, N);
        char xs[64], ps[64];
        snprintf(xs, sizeof xs, "[%4.1f, %4.1f, %4.1f]", x[0], x[1], x[2]);
        snprintf(ps, sizeof ps, "[%.4f, %.4f, %.4f]", p[0], p[1], p[2]);
        printf("   %-20s %6.2f  %-26s %6.4f %7.4f %7.4f %8.4f %11.4f\n", xs, hi - lo, ps, p[imax],
               h, h / log(3.0), frob[r], softmax_jacobian_max_diag(p, N));
    }
    printf("\n   The wider row moves the largest weight from %.2f to %.2f and shrinks ||J||_F "
           "from %.3f to %.3f (x%.2f).\n\n",
           pmax[0], pmax[1], frob[0], frob[1], frob[1] / frob[0]);
}

/* ------------------------------------------------------------- part 2: the d_k sweep */

static void print_row(int d_k, const char *label, double pred, const SoftmaxStats *s, int n) {
    printf("   %5d  %-8s %9.3f %6.0f %7.4f %7.3f %7.3f %8.4f %6.1f\n", d_k, label, s->logit_var,
           pred, s->max_weight, s->entropy, s->entropy / log((double)n), s->jacobian_frob,
           100.0 * s->saturated);
}

/* The closing lines: only ratios, ranges and end points read off the measured table. */
static void print_softmax_summary(const SoftmaxStats (*st)[2], int n) {
    double ratio_lo = INFINITY, ratio_hi = -INFINITY, svar_lo = INFINITY, svar_hi = -INFINITY;
    double smax_lo = INFINITY, smax_hi = -INFINITY, ssat_hi = 0.0;
    int first_half = -1; /* first d_k where more than half the unscaled rows are saturated */
    for (int d = 0; d < N_DK; d++) {
        double r = st[d][0].logit_var / DKS[d];
        ratio_lo = fmin(ratio_lo, r);
        ratio_hi = fmax(ratio_hi, r);
        svar_lo = fmin(svar_lo, st[d][1].logit_var);
        svar_hi = fmax(svar_hi, st[d][1].logit_var);
        smax_lo = fmin(smax_lo, st[d][1].max_weight);
        smax_hi = fmax(smax_hi, st[d][1].max_weight);
        ssat_hi = fmax(ssat_hi, st[d][1].saturated);
        if (first_half < 0 && st[d][0].saturated > 0.5) first_half = d;
    }
    const SoftmaxStats *u0 = &st[0][0], *uN = &st[N_DK - 1][0], *sN = &st[N_DK - 1][1];
    int dN = DKS[N_DK - 1];
    printf("\n   Summary (n = %d keys):\n", n);
    printf("   - Unscaled, var(q.k) follows d_k: measured/predicted lies in [%.3f, %.3f] for "
           "d_k = %d..%d. Scaled by 1/sqrt(d_k) (same draws), var lies in [%.3f, %.3f] "
           "(predicted 1).\n",
           ratio_lo, ratio_hi, DKS[0], dN, svar_lo, svar_hi);
    printf("   - At d_k = %d unscaled, %.0f%% of rows are saturated (max p > %.2f) and the mean "
           "||J||_F is %.3f of its scaled value (%.4f vs %.4f); ",
           dN, 100.0 * uN->saturated, SOFTMAX_SATURATED, uN->jacobian_frob / sN->jacobian_frob,
           uN->jacobian_frob, sN->jacobian_frob);
    if (ssat_hi == 0.0)
        printf("scaled, no row is saturated at any d_k.\n");
    else
        printf("scaled, at most %.1f%% of rows are saturated at any d_k.\n", 100.0 * ssat_hi);
    printf("   - The mean largest weight goes from %.3f (d_k = %d) to %.3f (d_k = %d) unscaled and "
           "stays in [%.3f, %.3f] scaled",
           u0->max_weight, DKS[0], uN->max_weight, dN, smax_lo, smax_hi);
    if (first_half >= 0)
        printf("; more than half the unscaled rows are saturated from d_k = %d on.\n",
               DKS[first_half]);
    else
        printf("; at no d_k are more than half the unscaled rows saturated.\n");
}

static int print_sweep(const SoftmaxTableArgs *a, double t0) {
    int n = a->keys;
    printf(
        "2. softmax(scale * q.k) over rows of n = %d keys; q, k with i.i.d. N(0,1) entries; "
        "%d rows per d_k; seed %" PRIu64 ".\n"
        "   The unscaled (scale 1) and scaled (scale 1/sqrt(d_k)) lines use the same draws.\n"
        "   var     sample variance of the %ld logits scale*q.k per d_k (Welford, double); pred = "
        "predicted: d_k unscaled, 1 scaled\n"
        "   max p   mean over rows of the largest softmax weight (uniform row: 1/n = %.4f)\n"
        "   H       mean entropy of a row, nats (uniform row: ln n = %.3f); H/ln n = that as a "
        "fraction of its maximum\n"
        "   ||J||_F mean Frobenius norm of the softmax Jacobian diag(p) - p p^T (uniform row: "
        "sqrt(n-1)/n = %.4f;\n"
        "           not its maximum: two weights of 1/2 give 0.5); near 0 = saturated: little "
        "gradient passes back to the logits\n"
        "   sat %%   percent of rows whose largest weight exceeds %.2f\n\n",
        n, a->samples, a->seed, (long)a->samples * n, 1.0 / n, log((double)n), sqrt(n - 1.0) / n,
        SOFTMAX_SATURATED);
    printf("   %5s  %-8s %9s %6s %7s %7s %7s %8s %6s\n", "d_k", "scale", "var", "pred", "max p",
           "H nats", "H/ln n", "||J||_F", "sat %");
    SoftmaxStats st[N_DK][2];
    Rng rng;
    rng_seed(&rng, a->seed);
    for (int d = 0; d < N_DK; d++) {
        char what[96];
        snprintf(what, sizeof what, "part 2, q.k over %d rows of %d keys at d_k = %d", a->samples,
                 n, DKS[d]);
        progress(t0, what, d + 1, N_DK);
        double scales[2] = {1.0, 1.0 / sqrt((double)DKS[d])};
        if (softmax_measure(st[d], scales, 2, DKS[d], n, a->samples, &rng) != 0) {
            fprintf(stderr, "error: --softmax-table: out of memory\n");
            return TABLE_NO_MEMORY;
        }
        print_row(DKS[d], "1", (double)DKS[d], &st[d][0], n);
        print_row(DKS[d], "1/sqrt", 1.0, &st[d][1], n);
    }
    print_softmax_summary((const SoftmaxStats(*)[2])st, n);
    return TABLE_OK;
}

/* ---------------------------------------------- part 3: the pass-through of random rows */

static const int PASS_NS[] = {4, 16, 64, 256};
#define N_PASS_N ((int)(sizeof PASS_NS / sizeof PASS_NS[0]))
static const double PASS_STDS[] = {0, 0.5, 1, 2, 4, 8, 16};
#define N_PASS_STD ((int)(sizeof PASS_STDS / sizeof PASS_STDS[0]))

/* One closing line per n, read off its column: the uniform row, the peak, and the std past the
 * peak whose pass is nearest the uniform row's, with its blocked and saturated rows. */
static void print_pass_summary(const RandomRowPass *r, int n) {
    int peak = 0;
    for (int c = 1; c < N_PASS_STD; c++)
        if (r[c].pass > r[peak].pass) peak = c;
    int back = -1;
    for (int c = peak + 1; c < N_PASS_STD; c++)
        if (back < 0 || fabs(r[c].pass - r[0].pass) < fabs(r[back].pass - r[0].pass)) back = c;
    printf("   - n = %d: %.4f at std 0 (uniform row; closed form sqrt((n-1)/n^3) = %.4f, blocked "
           "%.1f%%)",
           n, r[0].pass, sqrt((n - 1.0) / ((double)n * n * n)), 100.0 * r[0].blocked);
    if (peak == 0 || back < 0) {
        printf(", largest at std 0.\n");
        return;
    }
    printf(", peak %.4f at std %g, %.4f at std %g (blocked %.1f%%, saturated %.1f%%).\n",
           r[peak].pass, r[peak].logit_std, r[back].pass, r[back].logit_std,
           100.0 * r[back].blocked, 100.0 * r[back].saturated);
}

static int print_random_rows(const SoftmaxTableArgs *a, double t0) {
    printf("\n3. The pass-through of random rows: n keys with i.i.d. N(0, std^2) logits, %d rows "
           "per n (the same draws for every std); seed %" PRIu64 ".\n"
           "   The columns are the training logs' own (attention.csv), by the same functions:\n"
           "   pass    softmax_pass = |dL/dZ| / |dL/dP| over all rows, for an upstream gradient "
           "dL/dp with i.i.d. entries\n"
           "           (averaged over it exactly: dL/dp = each unit vector in turn; uniform row: "
           "sqrt((n-1)/n^3))\n"
           "   blk %%   percent of rows passing less than %.2f of their gradient (blocked_rows), "
           "one dL/dp ~ N(0, I) per row\n"
           "   sat %%   percent of rows whose largest weight exceeds %.2f (saturated_frac)\n"
           "   A low pass means \"too soft\" (near-uniform rows, blk low) or \"saturated\" (blk "
           "high): blocked_rows tells them apart.\n\n",
           a->samples, a->seed, ATTN_BLOCKED_PASS, SOFTMAX_SATURATED);
    printf("   %5s", "std");
    for (int k = 0; k < N_PASS_N; k++) printf(" | %-5s %-7s %5s %5s", "n", "pass", "blk %", "sat %");
    printf("\n");
    RandomRowPass r[N_PASS_N][N_PASS_STD];
    Rng rng;
    rng_seed(&rng, a->seed);
    double se_pass = 0, se_blk = 0, se_sat = 0;
    for (int k = 0; k < N_PASS_N; k++) {
        char what[96];
        snprintf(what, sizeof what, "part 3, pass-through of %d random rows of n = %d keys",
                 a->samples, PASS_NS[k]);
        progress(t0, what, k + 1, N_PASS_N);
        if (softmax_random_row_pass(r[k], PASS_STDS, N_PASS_STD, PASS_NS[k], a->samples, &rng) !=
            0) {
            fprintf(stderr, "error: --softmax-table: out of memory\n");
            return TABLE_NO_MEMORY;
        }
        for (int c = 0; c < N_PASS_STD; c++) {
            se_pass = fmax(se_pass, r[k][c].pass_se);
            se_blk = fmax(se_blk, r[k][c].blocked_se);
            se_sat = fmax(se_sat, r[k][c].saturated_se);
        }
    }
    for (int c = 0; c < N_PASS_STD; c++) {
        printf("   %5g", PASS_STDS[c]);
        for (int k = 0; k < N_PASS_N; k++)
            printf(" | %-5d %7.4f %5.1f %5.1f", PASS_NS[k], r[k][c].pass, 100.0 * r[k][c].blocked,
                   100.0 * r[k][c].saturated);
        printf("\n");
    }
    printf("\n   Largest Monte Carlo standard error: pass %.4f, blk %.1f, sat %.1f percentage "
           "points.\n   Summary:\n", se_pass, 100.0 * se_blk, 100.0 * se_sat);
    for (int k = 0; k < N_PASS_N; k++) print_pass_summary(r[k], PASS_NS[k]);
    return TABLE_OK;
}

int report_softmax_table(const SoftmaxTableArgs *a) {
    double t0 = now_s();
    print_examples();
    /* the table so far reaches a pipe or file before the progress lines, not after them */
    fflush(stdout);
    int rc = print_sweep(a, t0);
    if (rc == TABLE_OK) rc = print_random_rows(a, t0);
    fflush(stdout);
    if (rc == TABLE_OK) fprintf(stderr, "softmax-table: done in %.1f s\n", now_s() - t0);
    return rc;
}
