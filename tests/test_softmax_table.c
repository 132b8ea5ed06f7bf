/* test_softmax_table.c: the table of ./train --softmax-table (src/report/table/softmax_table.c): part
 * 1's two example rows with their softmax, entropy and Jacobian norms computed here in double;
 * part 2's rows, one pair per d_k = 16 .. 1024 from one generator seeded with the seed, and its
 * first summary line read off those rows; part 3's rows, softmax_random_row_pass of n = 4 .. 256
 * from a generator seeded afresh with the seed; the progress lines on stderr. (Its command line is
 * test_cmd_softmax_table's, the statistics themselves test_softmax_stats'.) */
#include "report/table/table_internal.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* What report_softmax_table prints on stdout for these arguments (malloc'd; the caller frees);
 * its progress lines on stderr are test_progress_on_stderr's, dropped here. */
static char *table(uint64_t seed, int samples, int keys) {
    SoftmaxTableArgs a = {.seed = seed, .samples = samples, .keys = keys};
    TuCapture c, e;
    tu_capture_begin(&c, 1);
    tu_capture_begin(&e, 2);
    int rc = report_softmax_table(&a);
    char *out = tu_capture_end(&c);
    free(tu_capture_end(&e));
    ck_assert_int_eq(rc, 0);
    return out;
}

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
    char *out = table(1, 2, 2);
    static const double ROWS[2][3] = {{1.0, 0.5, 0.8}, {14.0, 10.0, 12.0}};
    for (int k = 0; k < 2; k++) {
        char want[256];
        example_line(want, sizeof want, ROWS[k]);
        ck_assert_msg(strstr(out, want), "row %d: no\n%s in\n%s", k, want, out);
    }
    free(out);
}
END_TEST

/* Part 2 for --seed S --samples N --keys K: the rows are softmax_measure of d_k = 16, 32, ...,
 * 1024 in that order on one generator seeded with S, scales 1 and 1/sqrt(d_k). */
START_TEST(test_sweep_rows) {
    static const struct {
        const char *seed;
        unsigned long long seed_value;
        int n_samples, n_keys;
    } cases[] = {
        {"5", 5, 3, 2},
        {"18446744073709551615", 18446744073709551615ull, 20, 16},
    };
    static const int DKS[] = {16, 32, 64, 128, 256, 512, 1024};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *out = table(cases[c].seed_value, cases[c].n_samples, cases[c].n_keys);
        char want[512];
        snprintf(want, sizeof want, "over rows of n = %d keys; q, k with i.i.d. N(0,1) entries; "
                 "%d rows per d_k; seed %s.\n", cases[c].n_keys, cases[c].n_samples, cases[c].seed);
        ck_assert_msg(strstr(out, want), "case %zu: no '%s'", c, want);
        Rng rng;
        rng_seed(&rng, cases[c].seed_value);
        const char *p = out;
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
                              DKS[d], k, want, out);
                p = q + strlen(want);
            }
        }
        snprintf(want, sizeof want, "measured/predicted lies in [%.3f, %.3f] for d_k = 16..1024",
                 ratio_lo, ratio_hi);
        ck_assert_msg(strstr(p, want), "case %zu: no '%s' in\n%s", c, want, p);
        free(out);
    }
}
END_TEST


/* Part 3 for --seed S --samples N: one line per logit std 0, 0.5, 1, 2, 4, 8, 16, each with the
 * columns of n = 4, 16, 64, 256 from softmax_random_row_pass on one generator seeded afresh with
 * S (n in that order); the closing line of n = 16 gives the hand closed form of the uniform row,
 * sqrt(15/16^3) = 0.0605. (The values themselves are test_softmax_stats'.) */
START_TEST(test_random_row_pass_rows) {
    static const int NS[] = {4, 16, 64, 256};
    static const double STDS[] = {0, 0.5, 1, 2, 4, 8, 16};
    char *out = table(9, 40, 16);
    const char *p3 = strstr(out, "\n3. The pass-through of random rows");
    ck_assert_msg(p3, "no part 3 in\n%s", out);
    ck_assert(strstr(p3, "40 rows per n (the same draws for every std); seed 9."));
    RandomRowPass r[4][7];
    Rng rng;
    rng_seed(&rng, 9);
    for (int k = 0; k < 4; k++)
        ck_assert_int_eq(softmax_random_row_pass(r[k], STDS, 7, NS[k], 40, &rng), 0);
    const char *p = p3;
    for (int c = 0; c < 7; c++) {
        char want[512];
        int len = snprintf(want, sizeof want, "   %5g", STDS[c]);
        for (int k = 0; k < 4; k++)
            len += snprintf(want + len, sizeof want - (size_t)len, " | %-5d %7.4f %5.1f %5.1f",
                            NS[k], r[k][c].pass, 100.0 * r[k][c].blocked,
                            100.0 * r[k][c].saturated);
        snprintf(want + len, sizeof want - (size_t)len, "\n");
        const char *q = strstr(p, want);
        ck_assert_msg(q, "std %g: no (or out of order)\n%s in\n%s", STDS[c], want, p3);
        p = q + strlen(want);
    }
    ck_assert_msg(strstr(p, "- n = 16: 0.0605 at std 0 (uniform row; closed form sqrt((n-1)/n^3) "
                            "= 0.0605"), "no n = 16 summary in\n%s", p);
    free(out);
}
END_TEST

/* The progress: on stderr only, a line before each of part 2's seven d_k and part 3's four n,
 * in that order, saying what it measures, "(k of N)" and the seconds so far (never decreasing),
 * then "done in"; stdout holds the table and none of these lines. The expected words are
 * written here by hand. */
START_TEST(test_progress_on_stderr) {
    SoftmaxTableArgs a = {.seed = 3, .samples = 5, .keys = 4};
    TuCapture co, ce;
    tu_capture_begin(&co, 1);
    tu_capture_begin(&ce, 2);
    int rc = report_softmax_table(&a);
    char *out = tu_capture_end(&co);
    char *err = tu_capture_end(&ce);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(out, "3. The pass-through of random rows"), "no table on stdout");
    const char *stray = strstr(out, "softmax-table:");
    ck_assert_msg(!stray, "a progress line on stdout: '%.100s'", stray);
    static const char *const WANT[] = {
        "part 2, q.k over 5 rows of 4 keys at d_k = 16 (1 of 7), ",
        "part 2, q.k over 5 rows of 4 keys at d_k = 32 (2 of 7), ",
        "part 2, q.k over 5 rows of 4 keys at d_k = 64 (3 of 7), ",
        "part 2, q.k over 5 rows of 4 keys at d_k = 128 (4 of 7), ",
        "part 2, q.k over 5 rows of 4 keys at d_k = 256 (5 of 7), ",
        "part 2, q.k over 5 rows of 4 keys at d_k = 512 (6 of 7), ",
        "part 2, q.k over 5 rows of 4 keys at d_k = 1024 (7 of 7), ",
        "part 3, pass-through of 5 random rows of n = 4 keys (1 of 4), ",
        "part 3, pass-through of 5 random rows of n = 16 keys (2 of 4), ",
        "part 3, pass-through of 5 random rows of n = 64 keys (3 of 4), ",
        "part 3, pass-through of 5 random rows of n = 256 keys (4 of 4), ",
        "done in ",
    };
    const char *line = err;
    double last = 0;
    for (size_t i = 0; i < sizeof WANT / sizeof WANT[0]; i++) {
        char prefix[160];
        int len = snprintf(prefix, sizeof prefix, "softmax-table: %s", WANT[i]);
        ck_assert_msg(strncmp(line, prefix, (size_t)len) == 0, "line %zu: want '%s...', stderr:\n%s",
                      i + 1, prefix, err);
        char *end;
        double s = strtod(line + len, &end);
        ck_assert_msg(end != line + len && strncmp(end, " s\n", 3) == 0 && s >= last,
                      "line %zu: no seconds (or fewer than before), stderr:\n%s", i + 1, err);
        last = s;
        line = end + 3;
    }
    ck_assert_msg(*line == '\0', "more on stderr than the progress:\n%s", line);
    free(out);
    free(err);
}
END_TEST

TU_MAIN_TIMEOUT("softmax_table", 60, test_example_rows, test_sweep_rows, test_random_row_pass_rows,
                test_progress_on_stderr);
