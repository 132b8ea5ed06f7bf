/* test_softmax_table.c: ./train --softmax-table (src/report/softmax_table.c): bad arguments exit
 * with code 2 naming the flag (moved here from test_softmax_stats.c); part 1's two example rows
 * with their softmax, entropy and Jacobian norms computed here in double; part 2's rows, one pair
 * per d_k = 16 .. 1024 from one generator seeded with --seed, and its first summary line read off
 * those rows. (The statistics themselves are checked in test_softmax_stats.c.) */
#include "report/report.h"
#include "report/softmax_stats.h"

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* report_softmax_table on the arguments (up to a NULL), stdout and stderr captured. */
static TuResult table(const char *first, ...) {
    va_list ap;
    va_start(ap, first);
    TuResult r = tu_vcall(report_softmax_table, first, ap);
    va_end(ap);
    return r;
}

START_TEST(test_bad_arguments_exit_2) {
    static const struct {
        const char *args[3];
        const char *names; /* the flag or value the message must mention */
    } cases[] = {
        {{"--bogus"}, "--bogus"},
        {{"--samples", "0"}, "--samples"},
        {{"--samples", "-5"}, "--samples"},
        {{"--samples", "abc"}, "--samples"},
        {{"--samples", "12x"}, "--samples"},
        {{"--samples", ""}, "--samples"},
        {{"--samples", "99999999999999999999"}, "--samples"},
        {{"--keys", "1"}, "--keys"},
        {{"--keys", "100000"}, "--keys"},
        {{"--keys", "2.5"}, "--keys"},
        {{"--seed", "-1"}, "--seed"},
        {{"--seed", "18446744073709551616"}, "--seed"}, /* 2^64 */
        {{"--seed", " 7"}, "--seed"},
        {{"--seed"}, "--seed"},
        {{"--keys", "8", "--samples"}, "--samples"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *const *a = cases[c].args;
        TuResult r = table(a[0], a[1], a[2], NULL);
        ck_assert_msg(r.rc == 2, "case %zu (%s): exit %d, want 2", c, a[0], r.rc);
        ck_assert_msg(strstr(r.err, cases[c].names) != NULL, "case %zu: message '%s' lacks '%s'",
                      c, r.err, cases[c].names);
        ck_assert_msg(r.out[0] == 0, "case %zu: printed a table", c);
        tu_result_free(&r);
    }
    TuResult r = table("--help", NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert(strstr(r.out, "usage: ./train --softmax-table [--seed N] [--samples N] [--keys N]"));
    tu_result_free(&r);
}
END_TEST

/* Part 1: the line of logits x as it must be printed, every number computed here: p by the
 * definition exp(x_i) / sum exp(x_j) (no overflow at these sizes), H = -sum p ln p, ||J||_F from
 * the entries of diag(p) - p p^T, max p(1-p). */
static void example_line(char *out, size_t n, const double x[3]) {
    double p[3], z = 0, h = 0, f2 = 0, pmax = 0, dmax = 0;
    for (int i = 0; i < 3; i++) z += exp(x[i]);
    for (int i = 0; i < 3; i++) p[i] = exp(x[i]) / z;
    for (int i = 0; i < 3; i++) {
        h -= p[i] * log(p[i]);
        pmax = fmax(pmax, p[i]);
        dmax = fmax(dmax, p[i] * (1 - p[i]));
        for (int j = 0; j < 3; j++) {
            double jij = (i == j ? p[i] : 0) - p[i] * p[j];
            f2 += jij * jij;
        }
    }
    double lo = fmin(x[0], fmin(x[1], x[2])), hi = fmax(x[0], fmax(x[1], x[2]));
    char xs[64], ps[64];
    snprintf(xs, sizeof xs, "[%4.1f, %4.1f, %4.1f]", x[0], x[1], x[2]);
    snprintf(ps, sizeof ps, "[%.4f, %.4f, %.4f]", p[0], p[1], p[2]);
    snprintf(out, n, "   %-20s %6.2f  %-26s %6.4f %7.4f %7.4f %8.4f %11.4f\n", xs, hi - lo, ps, pmax,
             h, h / log(3.0), sqrt(f2), dmax);
}

START_TEST(test_example_rows) {
    TuResult r = table("--samples", "2", "--keys", "2", NULL);
    ck_assert_int_eq(r.rc, 0);
    static const double ROWS[2][3] = {{1.0, 0.5, 0.8}, {14.0, 10.0, 12.0}};
    for (int k = 0; k < 2; k++) {
        char want[256];
        example_line(want, sizeof want, ROWS[k]);
        ck_assert_msg(strstr(r.out, want), "row %d: no\n%s in\n%s", k, want, r.out);
    }
    tu_result_free(&r);
}
END_TEST

/* Part 2 for --seed S --samples N --keys K: the rows are softmax_measure of d_k = 16, 32, ...,
 * 1024 in that order on one generator seeded with S, scales 1 and 1/sqrt(d_k). */
START_TEST(test_sweep_rows) {
    static const struct {
        const char *seed, *samples, *keys;
        unsigned long long seed_value;
        int n_samples, n_keys;
    } cases[] = {
        {"5", "3", "2", 5, 3, 2},
        {"18446744073709551615", "20", "16", 18446744073709551615ull, 20, 16},
    };
    static const int DKS[] = {16, 32, 64, 128, 256, 512, 1024};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        TuResult r = table("--seed", cases[c].seed, "--samples", cases[c].samples, "--keys",
                           cases[c].keys, NULL);
        ck_assert_int_eq(r.rc, 0);
        char want[512];
        snprintf(want, sizeof want, "over rows of n = %d keys; q, k with i.i.d. N(0,1) entries; "
                 "%d rows per d_k; seed %s.\n", cases[c].n_keys, cases[c].n_samples, cases[c].seed);
        ck_assert_msg(strstr(r.out, want), "case %zu: no '%s'", c, want);
        Rng rng;
        rng_seed(&rng, cases[c].seed_value);
        const char *p = r.out;
        double ratio_lo = INFINITY, ratio_hi = -INFINITY;
        for (int d = 0; d < 7; d++) {
            SoftmaxStats st[2];
            double scales[2] = {1.0, 1.0 / sqrt((double)DKS[d])};
            ck_assert_int_eq(softmax_measure(st, scales, 2, DKS[d], cases[c].n_keys,
                                             cases[c].n_samples, &rng), 0);
            ratio_lo = fmin(ratio_lo, st[0].logit_var / DKS[d]);
            ratio_hi = fmax(ratio_hi, st[0].logit_var / DKS[d]);
            for (int k = 0; k < 2; k++) {
                const SoftmaxStats *s = &st[k];
                snprintf(want, sizeof want, "   %5d  %-8s %9.3f %6.0f %7.4f %7.3f %7.3f %8.4f %6.1f\n",
                         DKS[d], k ? "1/sqrt" : "1", s->logit_var, k ? 1.0 : (double)DKS[d],
                         s->max_weight, s->entropy, s->entropy / log(cases[c].n_keys),
                         s->jacobian_frob, 100.0 * s->saturated);
                const char *q = strstr(p, want);
                ck_assert_msg(q, "case %zu, d_k %d, scale %d: no (or out of order)\n%s in\n%s", c,
                              DKS[d], k, want, r.out);
                p = q + strlen(want);
            }
        }
        snprintf(want, sizeof want, "measured/predicted lies in [%.3f, %.3f] for d_k = 16..1024",
                 ratio_lo, ratio_hi);
        ck_assert_msg(strstr(p, want), "case %zu: no '%s' in\n%s", c, want, p);
        tu_result_free(&r);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("softmax_table");
    TCase *tc = tcase_create("softmax_table");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_bad_arguments_exit_2);
    tcase_add_test(tc, test_example_rows);
    tcase_add_test(tc, test_sweep_rows);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
