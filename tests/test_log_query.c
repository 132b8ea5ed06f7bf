/* test_log_query.c: the queries on one run's CSV logs in src/runlog/log_query.c: joining a folder
 * and a file name, the step of a row, the last and the nearest row where a column was measured (an
 * empty field was not; a logged nan was), the mean over heads of an attention.csv column, and
 * writing a value with nan / inf kept visible. Expected values are worked out by hand from the
 * small logs below. */
#include "runlog/log_query.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static void parse(Csv *t, const char *text) { ck_assert_int_eq(csv_parse(t, text, strlen(text)), 0); }

START_TEST(test_path_and_load) {
    static const struct {
        const char *dir, *file, *want;
    } cases[] = {
        {"runs/a", "loss.csv", "runs/a/loss.csv"},
        {"runs/a/", "loss.csv", "runs/a/loss.csv"}, /* no doubled '/' */
        {"/", "x", "/x"},
        {"runs//", "x", "runs//x"},                 /* only one '/' is left out */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char out[64];
        ck_assert_int_eq(log_path(out, sizeof out, cases[c].dir, cases[c].file), 0);
        ck_assert_msg(strcmp(out, cases[c].want) == 0, "case %zu: '%s', want '%s'", c, out,
                      cases[c].want);
    }
    /* "runs/a/loss.csv" is 15 bytes: 16 fit (with the NUL), 15 do not, and the cut path stays */
    char out[16];
    ck_assert_int_eq(log_path(out, 16, "runs/a", "loss.csv"), 0);
    errno = 0;
    ck_assert_int_eq(log_path(out, 15, "runs/a", "loss.csv"), -1);
    ck_assert_int_eq(errno, ENAMETOOLONG);
    ck_assert_str_eq(out, "runs/a/loss.cs");

    char dir[256], path[300];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_test_log_query_XXXXXX");
    Csv t;
    memset(&t, 0, sizeof t);
    errno = 0;
    ck_assert_int_eq(log_load(&t, dir, "loss.csv", path, sizeof path), -1);
    ck_assert_int_eq(errno, ENOENT);
    char want[300];
    snprintf(want, sizeof want, "%s/loss.csv", dir);
    ck_assert_str_eq(path, want); /* for the caller's message */
    tu_write_file(want, "step,train_loss\n0,2.5\n10,1.5\n");
    ck_assert_int_eq(log_load(&t, dir, "loss.csv", path, sizeof path), 0);
    ck_assert_int_eq(t.n_rows, 2);
    ck_assert_double_eq(csv_num(&t, 1, 1), 1.5);
    csv_free(&t);
    errno = 0;
    ck_assert_int_eq(log_load(&t, dir, "loss.csv", path, 10), -1);
    ck_assert_int_eq(errno, ENAMETOOLONG);
    tu_remove_tree(dir);
}
END_TEST

/* Steps 0, 10, 20, 30, 40 (and a row whose step is not a number); val_loss measured at 0, 20
 * (nan: measured, diverged) and 40 only. */
static const char LOSS[] = "step,train_loss,val_loss\n"
                           "0,3.0,3.1\n"
                           "10,2.0,\n"
                           "20,nan,nan\n"
                           "30,1.0,\n"
                           "40,0.5,0.7\n"
                           "x,0.4,\n";

START_TEST(test_rows) {
    Csv t;
    parse(&t, LOSS);
    static const int STEPS[] = {0, 10, 20, 30, 40, -1};
    for (int r = 0; r < 6; r++) ck_assert_int_eq(log_step(&t, r), STEPS[r]);
    int tr = csv_col(&t, "train_loss"), val = csv_col(&t, "val_loss");
    ck_assert_int_eq(log_last_row(&t, tr), 5);
    ck_assert_int_eq(log_last_row(&t, val), 4);
    ck_assert_int_eq(log_last_row(&t, -1), -1);
    /* target -> the nearest row where val_loss is not empty; a tie goes to the earlier row */
    static const struct {
        double target;
        int col_is_val, want;
    } cases[] = {
        {0, 1, 0},  {9, 1, 0},  {10, 1, 0}, /* 10 is as near 0 as 20: the earlier */
        {11, 1, 2}, {20, 1, 2}, {30, 1, 2}, {31, 1, 4}, {1000, 1, 4}, {-5, 1, 0},
        {30, 0, 3}, {14.9, 0, 1}, {15, 0, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int got = log_nearest_row(&t, cases[c].col_is_val ? val : tr, cases[c].target);
        ck_assert_msg(got == cases[c].want, "case %zu (target %g): row %d, want %d", c,
                      cases[c].target, got, cases[c].want);
    }
    ck_assert_int_eq(log_nearest_row(&t, -1, 10), -1);
    csv_free(&t);
    Csv e;
    parse(&e, "step,val_loss\n0,\n10,\n");
    ck_assert_int_eq(log_last_row(&e, 1), -1);
    ck_assert_int_eq(log_nearest_row(&e, 1, 5), -1);
    csv_free(&e);
}
END_TEST

START_TEST(test_head_mean) {
    Csv a;
    parse(&a, "step,layer,head,logit_std,extra\n"
              "0,0,0,1.0,\n"
              "0,0,1,3.0,5\n"
              "0,1,0,10.0,\n"
              "0,1,1,,\n"
              "50,0,0,2.0,\n"
              "50,0,1,nan,\n");
    static const struct {
        int step, layer;
        const char *name;
        double want; /* NAN: none */
        int n;
    } cases[] = {
        {0, 0, "logit_std", 2.0, 2},    /* (1 + 3) / 2 */
        {0, 1, "logit_std", 10.0, 1},   /* the empty head is left out */
        {50, 0, "logit_std", NAN, 2},   /* a logged nan stays */
        {0, 0, "extra", 5.0, 1},
        {0, 2, "logit_std", NAN, 0},    /* no such layer */
        {25, 0, "logit_std", NAN, 0},   /* no such step */
        {0, 0, "missing", NAN, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int n = -1;
        double got = log_head_mean(&a, cases[c].step, cases[c].layer, cases[c].name, &n);
        ck_assert_msg(n == cases[c].n, "case %zu: n %d, want %d", c, n, cases[c].n);
        if (isnan(cases[c].want))
            ck_assert_msg(isnan(got), "case %zu: %g, want nan", c, got);
        else
            ck_assert_msg(got == cases[c].want, "case %zu: %g, want %g", c, got, cases[c].want);
    }
    ck_assert_double_eq(log_head_mean(&a, 0, 0, "logit_std", NULL), 2.0); /* n may be NULL */
    csv_free(&a);
    Csv b;
    parse(&b, "step,head,logit_std\n0,0,1\n"); /* no layer column */
    ck_assert(isnan(log_head_mean(&b, 0, 0, "logit_std", NULL)));
    csv_free(&b);
}
END_TEST

START_TEST(test_format_value) {
    static const struct {
        double v;
        const char *fmt;
        double scale;
        const char *want;
    } cases[] = {
        {0.25, "%.1f%%", 100, "25.0%"},
        {1.23456, "%.4f", 1, "1.2346"},
        {0.000123, "%#.3g", 1, "0.000123"},
        {2.0, "%#.3g", 1, "2.00"},
        {NAN, "%.4f", 1, "nan"},
        {-NAN, "%.4f", 1, "nan"},
        {INFINITY, "%.4f", 1, "inf"},
        {-INFINITY, "%.1f%%", 100, "-inf"},
        {1e300, "%.3g", 1e10, "inf"}, /* finite, but times scale it overflows: printf's inf */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char out[32];
        log_format_value(out, sizeof out, cases[c].v, cases[c].fmt, cases[c].scale);
        ck_assert_msg(strcmp(out, cases[c].want) == 0, "case %zu: '%s', want '%s'", c, out,
                      cases[c].want);
    }
}
END_TEST

/* log_logit_growth on a hand-made attention.csv, 2 layers x 2 heads, steps 0-30. Head means by
 * hand: layer 0: step 0 (0.5 + 1.5)/2 = 1, step 10 (4 + 8)/2 = 6, step 20 (10 + 14)/2 = 12 (more
 * than 10 x 1: the first 10x step), step 30 (9 + 11)/2 = 10: peak 12 at step 20. Layer 1: step 0
 * 2, step 10 not measured (empty cells), step 20 (3 + 5)/2 = 4, step 30 4 again: peak 4, first
 * reached at step 20; never 10x (20). Layer 2 has no rows. A run without step 0: no std0 and no
 * 10x step, its peak still found; a nan head mean is no peak. */
START_TEST(test_logit_growth) {
    Csv t = {0};
    parse(&t, "step,layer,head,logit_std\n"
              "0,0,0,0.5\n0,0,1,1.5\n0,1,0,2\n0,1,1,2\n"
              "10,0,0,4\n10,0,1,8\n10,1,0,\n10,1,1,\n"
              "20,0,0,10\n20,0,1,14\n20,1,0,3\n20,1,1,5\n"
              "30,0,0,9\n30,0,1,11\n30,1,0,4\n30,1,1,4\n");
    LogitGrowth g;
    ck_assert_int_eq(log_logit_growth(&t, 0, &g), 0);
    ck_assert(g.std0 == 1 && g.peak == 12);
    ck_assert_int_eq(g.peak_step, 20);
    ck_assert_int_eq(g.first_10x, 20);
    ck_assert_int_eq(log_logit_growth(&t, 1, &g), 0);
    ck_assert(g.std0 == 2 && g.peak == 4);
    ck_assert_int_eq(g.peak_step, 20);
    ck_assert_int_eq(g.first_10x, -1);
    ck_assert_int_eq(log_logit_growth(&t, 2, &g), -1);
    csv_free(&t);

    parse(&t, "step,layer,head,logit_std\n10,0,0,3\n20,0,0,nan\n30,0,0,50\n");
    ck_assert_int_eq(log_logit_growth(&t, 0, &g), 0);
    ck_assert(isnan(g.std0) && g.peak == 50);
    ck_assert_int_eq(g.peak_step, 30);
    ck_assert_int_eq(g.first_10x, -1);
    csv_free(&t);

    parse(&t, "step,layer,head\n0,0,0\n"); /* no logit_std column */
    ck_assert_int_eq(log_logit_growth(&t, 0, &g), -1);
    csv_free(&t);
}
END_TEST

TU_MAIN("log_query", test_path_and_load, test_rows, test_head_mean, test_format_value,
        test_logit_growth);
