/* test_plot_ticks.c: axis ticks (src/report/plot/plot_ticks.c): linear ticks at 1-2-5 steps over a
 * table of ranges (values, labels and the widened range worked out by hand), the cap, and log
 * ticks (decades, 2 and 5 labelled on narrow ranges, sparse labels on wide ones, bad bounds), and
 * ticks at powers of two (a d_k axis). */
#include "report/plot/plot.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ------------------------------------------------------------------ linear ticks */

typedef struct {
    const char *name;
    double lo, hi;       /* the range given */
    int max_ticks;
    double want_lo, want_hi;  /* the range written back */
    const char *labels;  /* every tick's label, space-separated; the values are lo + i * step */
} NiceCase;

/* By hand: raw step = (hi - lo) / (max_ticks - 1), then the smallest of 1, 2, 5 x 10^k at least
 * that whose whole-step range has at most max_ticks ticks. */
static const NiceCase NICE[] = {
    /* raw 0.194: step 0.2, 0..1 */
    {"fraction", 0, 0.97, 6, 0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
    /* raw 20: step 20 */
    {"0..100", 0, 100, 6, 0, 100, "0 20 40 60 80 100"},
    /* steps of a 2000-step run; raw 398.8: 200 needs 11 ticks, 500 needs 5 */
    {"steps", 3, 1997, 6, 0, 2000, "0 500 1000 1500 2000"},
    /* crosses zero without "-0.0"; step 0.2 would need 7 ticks (-0.4..0.8), so 0.5 */
    {"crosses zero", -0.3, 0.7, 6, -0.5, 1, "-0.5 0.0 0.5 1.0"},
    /* raw 0.0016: step 0.002, 0.012..0.020, three decimals */
    {"small", 0.0123, 0.0187, 5, 0.012, 0.020, "0.012 0.014 0.016 0.018 0.020"},
    /* empty: widened by 10% to 4.5..5.5; step 0.2 would need 7 ticks (4.4..5.6), so 0.5,
     * and 4.5 and 5.5 are whole steps of it */
    {"empty range", 5, 5, 6, 4.5, 5.5, "4.5 5.0 5.5"},
    /* not finite: 0..1 */
    {"nan..inf", NAN, INFINITY, 6, 0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
    /* >= 1e6: %g labels; raw 4e6, step 5e6 */
    {"big", 1e7, 3e7, 6, 1e7, 3e7, "1e+07 1.5e+07 2e+07 2.5e+07 3e+07"},
};

START_TEST(test_nice_ticks) {
    const NiceCase *c = &NICE[_i];
    PlotTick t[PLOT_MAX_TICKS];
    double lo = c->lo, hi = c->hi;
    int n = plot_nice_ticks(&lo, &hi, c->max_ticks, t, PLOT_MAX_TICKS);
    double tol = 1e-9 * fmax(1, fabs(c->want_hi));
    ck_assert_msg(fabs(lo - c->want_lo) <= tol && fabs(hi - c->want_hi) <= tol,
                  "%s: range %g..%g, want %g..%g", c->name, lo, hi, c->want_lo, c->want_hi);
    char want[256];
    snprintf(want, sizeof want, "%s", c->labels);
    int k = 0;
    for (char *w = strtok(want, " "); w; w = strtok(NULL, " "), k++) {
        ck_assert_msg(k < n, "%s: %d ticks, want more", c->name, n);
        ck_assert_msg(strcmp(t[k].label, w) == 0, "%s: tick %d is '%s', want '%s'", c->name, k,
                      t[k].label, w);
        ck_assert_msg(t[k].major, "%s: tick %d not major", c->name, k);
    }
    ck_assert_msg(n == k, "%s: %d ticks, want %d", c->name, n, k);
    double step = n > 1 ? (c->want_hi - c->want_lo) / (n - 1) : 0;
    for (int i = 0; i < n; i++)
        ck_assert_msg(fabs(t[i].value - (c->want_lo + i * step)) <= tol,
                      "%s: tick %d at %g, want %g", c->name, i, t[i].value,
                      c->want_lo + i * step);
}
END_TEST

START_TEST(test_nice_ticks_cap) {
    PlotTick t[PLOT_MAX_TICKS];
    double lo = 0, hi = 1;
    ck_assert_int_eq(plot_nice_ticks(&lo, &hi, 6, t, 3), 3); /* never more than cap */
}
END_TEST

/* ------------------------------------------------------------------ log ticks */

/* Decades only are labelled over 0.003..40; 2 and 5 are minor ticks. */
START_TEST(test_log_ticks_decades) {
    PlotTick t[PLOT_MAX_TICKS];
    double lo = 0.003, hi = 40;
    int n = plot_log_ticks(&lo, &hi, t, PLOT_MAX_TICKS);
    ck_assert_double_eq_tol(lo, 0.001, 1e-15);
    ck_assert_double_eq_tol(hi, 100, 1e-9);
    static const char *const WANT[] = {"0.001", "0.01", "0.1", "1", "10", "100"};
    int labelled = 0, minor = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].label[0]) {
            ck_assert_int_lt(labelled, 6);
            ck_assert_str_eq(t[i].label, WANT[labelled]);
            ck_assert(t[i].major);
            labelled++;
        } else {
            double m = t[i].value / pow(10, floor(log10(t[i].value) + 1e-9));
            ck_assert_msg(fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9, "minor tick %g", t[i].value);
            minor++;
        }
    }
    ck_assert_int_eq(labelled, 6);
    ck_assert_int_eq(minor, 10); /* 2 and 5 in each of the 5 decades */
}
END_TEST

/* Within a couple of decades the 2 and 5 ticks carry labels too. */
START_TEST(test_log_ticks_narrow_range) {
    PlotTick t[PLOT_MAX_TICKS];
    double lo = 0.3, hi = 3;
    int n = plot_log_ticks(&lo, &hi, t, PLOT_MAX_TICKS);
    ck_assert_double_eq_tol(lo, 0.2, 1e-12);
    ck_assert_double_eq_tol(hi, 5, 1e-12);
    static const char *const WANT[] = {"0.2", "0.5", "1", "2", "5"};
    ck_assert_int_eq(n, 5);
    for (int i = 0; i < n; i++) ck_assert_str_eq(t[i].label, WANT[i]);
}
END_TEST

START_TEST(test_log_ticks_wide_and_degenerate) {
    PlotTick t[PLOT_MAX_TICKS];
    double lo = 2e-9, hi = 500;
    int n = plot_log_ticks(&lo, &hi, t, PLOT_MAX_TICKS);
    int labelled = 0;
    for (int i = 0; i < n; i++) labelled += t[i].label[0] != 0;
    ck_assert_int_le(labelled, 9); /* 12 decades: every other one labelled */
    ck_assert_int_ge(labelled, 5);
    for (int i = 0; i < n; i++)
        if (fabs(t[i].value - 1e-8) < 1e-20) ck_assert_str_eq(t[i].label, "1e-08");
    lo = -1, hi = 0;
    n = plot_log_ticks(&lo, &hi, t, PLOT_MAX_TICKS);
    ck_assert(lo > 0 && hi > lo && n > 0);
}
END_TEST

/* ------------------------------------------------------------------ powers of two */

/* By hand: the powers of two inside the range, the range kept; over 12 of them every other label
 * (from the largest); fewer than two inside: plot_log_ticks's 1-2-5 ticks and range. */
static const struct {
    const char *name;
    double lo, hi;
    const char *labels;      /* every tick's label, space-separated ("-" = unlabelled) */
    double want_lo, want_hi; /* the range written back */
} LOG2[] = {
    {"d_k 8..128 padded by 1.25", 6.4, 160, "8 16 32 64 128", 6.4, 160},
    {"exact ends", 8, 64, "8 16 32 64", 8, 64},
    {"below 1", 0.2, 3, "0.25 0.5 1 2", 0.2, 3},
    {"13 of them", 1, 4096, "1 - 4 - 16 - 64 - 256 - 1024 - 4096", 1, 4096},
    {"one power inside: 1-2-5", 5, 10, "5 10", 5, 10},
    {"none inside: 1-2-5", 5.1, 7, "5 10", 5, 10},
};

START_TEST(test_log2_ticks) {
    PlotTick t[PLOT_MAX_TICKS];
    double lo = LOG2[_i].lo, hi = LOG2[_i].hi;
    int n = plot_log2_ticks(&lo, &hi, t, PLOT_MAX_TICKS);
    const char *name = LOG2[_i].name;
    ck_assert_msg(fabs(lo - LOG2[_i].want_lo) < 1e-12 && fabs(hi - LOG2[_i].want_hi) < 1e-9,
                  "%s: range %g..%g", name, lo, hi);
    char want[256];
    snprintf(want, sizeof want, "%s", LOG2[_i].labels);
    int k = 0;
    for (char *w = strtok(want, " "); w; w = strtok(NULL, " "), k++) {
        ck_assert_msg(k < n, "%s: %d ticks, want more", name, n);
        ck_assert_msg(strcmp(t[k].label, strcmp(w, "-") ? w : "") == 0, "%s: tick %d is '%s'",
                      name, k, t[k].label);
        if (t[k].label[0])
            ck_assert_msg(t[k].value == strtod(w, NULL), "%s: tick %d at %g", name, k,
                          t[k].value);
    }
    ck_assert_msg(n == k, "%s: %d ticks, want %d", name, n, k);
}
END_TEST

TU_MAIN("plot_ticks", TU_LOOP(test_nice_ticks, 0, (int)(sizeof NICE / sizeof NICE[0])),
        test_nice_ticks_cap, test_log_ticks_decades, test_log_ticks_narrow_range,
        test_log_ticks_wide_and_degenerate,
        TU_LOOP(test_log2_ticks, 0, (int)(sizeof LOG2 / sizeof LOG2[0])));
