/* test_sweep_figures.c: the sweep figures (src/report/figure/sweep_figures.c) from hand-made sweep.csv
 * files: which figures are drawn, one line per scale mode with d_model following d_k, the median
 * (not the mean) over seeds at each d_k on a log x axis ticked at the powers of two (1-2-5 when
 * the d_k are not), min-max bars, the lr figure with its l0 line from edge to edge, a figure of
 * any other varied column (the scale) on a categorical axis, the captions, and a folder that
 * cannot be written. */
#include "report/figure/figure.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweepcsv.h"
#include "testutil.h"
#include "xmlcheck.h"

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

static char g_tmp[256];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_sweep_figures.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* d_k 8, 16, 32 (d_model = d_k) x two scales x three seeds. sqrt_dk's accuracy: d_k 8: 90 80 20
 * (median 80, mean 63.3), d_k 16: 50 50 50, d_k 32: 100 90 0 (median 90, mean 63.3). */
static const char *const DK_ROWS[] = {
    "a1,8,8,1,sqrt_dk,1,,ok,0.1,0.9,,2,1.0,0.1,",   "a2,8,8,1,sqrt_dk,2,,ok,0.2,0.8,,2,1.0,0.1,",
    "a3,8,8,1,sqrt_dk,3,,ok,0.3,0.2,,2,1.0,0.1,",   "a4,16,16,1,sqrt_dk,1,,ok,0.1,0.5,,2,1.0,0.1,",
    "a5,16,16,1,sqrt_dk,2,,ok,0.1,0.5,,2,1.0,0.1,", "a6,16,16,1,sqrt_dk,3,,ok,0.1,0.5,,2,1.0,0.1,",
    "a7,32,32,1,sqrt_dk,1,,ok,0.1,1.0,,2,1.0,0.1,", "a8,32,32,1,sqrt_dk,2,,ok,0.1,0.9,,2,1.0,0.1,",
    "a9,32,32,1,sqrt_dk,3,,ok,0.1,0.0,,2,1.0,0.1,", "b1,8,8,1,none,1,,ok,0.5,0.5,,2,2.8,0.4,",
    "b2,8,8,1,none,2,,ok,0.5,0.5,,2,2.8,0.4,",      "b3,8,8,1,none,3,,ok,0.5,0.5,,2,2.8,0.4,",
    "b4,16,16,1,none,1,,ok,0.5,0.5,,2,4.0,0.4,",    "b5,16,16,1,none,2,,ok,0.5,0.5,,2,4.0,0.4,",
    "b6,16,16,1,none,3,,ok,0.5,0.5,,2,4.0,0.4,",    "b7,32,32,1,none,1,,ok,0.5,0.5,,2,5.6,0.4,",
    "b8,32,32,1,none,2,,ok,0.5,0.5,,2,5.6,0.4,",    "b9,32,32,1,none,3,,failed,,,,,,,",
};

/* Writes the figures of rows into g_tmp; captions into *cap (freed by the caller). */
static int draw(const char *const *rows, int n, int with_lr, char **cap) {
    char *text = sc_csv(with_lr, rows, n);
    SweepTable t;
    ck_assert_int_eq(sweep_table_parse(&t, "t/sweep.csv", text, strlen(text)), 0);
    free(text);
    LrGroup *lr;
    int n_lr = lr_analyse(&t, &lr);
    ck_assert_int_ge(n_lr, 0);
    size_t len;
    FILE *f = open_memstream(cap, &len);
    ck_assert_ptr_nonnull(f);
    int rc = sweep_figures_write(&t, lr, n_lr, g_tmp, f);
    fclose(f);
    free(lr);
    sweep_table_free(&t);
    return rc;
}

static char *figure(const char *file) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_tmp, file);
    return tu_read_xml(path);
}

/* The first three (x, y) points of the path of run's series. */
static void points(const char *doc, const char *run, double *x, double *y) {
    char key[128];
    snprintf(key, sizeof key, "class=\"series\" data-run=\"%s\"", run);
    const char *p = strstr(doc, key);
    ck_assert_ptr_nonnull(p);
    p = strstr(p, " d=\"") + 4;
    for (int i = 0; i < 3; i++) {
        char *end;
        while (*p == 'M' || *p == 'L' || *p == ' ') p++;
        x[i] = strtod(p, &end);
        y[i] = strtod(end, &end);
        p = end;
    }
}

/* The left and right edge of the first chart's plot area (its frame rectangle). */
static void frame_edges(const char *doc, double *left, double *right) {
    const char *end = strstr(doc, "fill=\"none\" stroke=\"#888888\"/>"), *p = end;
    ck_assert_ptr_nonnull(end);
    while (p > doc && strncmp(p, "<rect ", 6) != 0) p--;
    double y, w;
    ck_assert_int_eq(sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\"", left, &y, &w), 3);
    *right = *left + w;
}

/* True when the x axis has a tick labelled label (x tick labels are centred, y ones not). */
static int x_tick(const char *doc, const char *label) {
    char key[160];
    snprintf(key, sizeof key, "text-anchor=\"middle\" font-size=\"11\" fill=\"#333333\">%s</text>",
             label);
    return strstr(doc, key) != NULL;
}

START_TEST(test_dk_figures) {
    char *cap;
    ck_assert_int_eq(draw(DK_ROWS, N(DK_ROWS), 0, &cap), 3);
    static const char *const files[] = {"sweep_accuracy.svg", "sweep_loss.svg",
                                        "sweep_logit_std.svg"};
    for (int i = 0; i < 3; i++) {
        char *doc = figure(files[i]);
        /* one line per scale mode: d_model moves with d_k and makes no lines of its own */
        ck_assert_int_eq(xmlcheck_count(doc, "class=\"series\""), 2);
        ck_assert_int_eq(tu_series_points(doc, "scale=sqrt_dk", "median over seeds"), 3);
        ck_assert_int_eq(tu_series_points(doc, "scale=none", "median over seeds"), 3);
        ck_assert_int_eq(xmlcheck_count(doc, "class=\"errorbar\""), 6);
        ck_assert_ptr_nonnull(strstr(cap, files[i]));
        free(doc);
    }
    char *doc = figure("sweep_accuracy.svg");
    double x[3], y[3];
    points(doc, "scale=sqrt_dk", x, y);
    /* log x: 8, 16, 32 equally spaced */
    ck_assert_double_eq_tol(x[1] - x[0], x[2] - x[1], 0.02);
    /* medians 80, 50, 90 on a linear axis: (y8 - y16) / (y8 - y32) = (80 - 50) / (80 - 90) = -3
     * (the means, 63.3, 50, 63.3, would put d_k 8 and 32 at the same height) */
    ck_assert_double_eq_tol((y[0] - y[1]) / (y[0] - y[2]), -3, 0.01);
    /* ticks at the data's powers of two, not at 1-2-5 values */
    static const char *const TICKS[] = {"8", "16", "32"}, *const NOT[] = {"5", "10", "20", "50"};
    for (int i = 0; i < N(TICKS); i++) ck_assert_msg(x_tick(doc, TICKS[i]), "no tick %s", TICKS[i]);
    for (int i = 0; i < N(NOT); i++) ck_assert_msg(!x_tick(doc, NOT[i]), "a tick at %s", NOT[i]);
    free(doc);
    char path[512];
    snprintf(path, sizeof path, "%s/sweep_lr.svg", g_tmp);
    ck_assert_int_ne(access(path, F_OK), 0); /* optim.lr did not vary */
    free(cap);
}
END_TEST

/* A width (d_model) that does not move with d_k makes lines of its own; heads fixed by d_k and
 * the width do not; a heads sweep at one width is one line. */
START_TEST(test_dk_lines_per_width) {
    static const struct {
        const char *rows[4];
        int lines;
        const char *label;  /* of one line, with 2 points */
    } cases[] = {
        {{"a,32,32,1,none,1,,ok,0.1,0.9,,2,1,0.1,", "b,16,32,2,none,1,,ok,0.1,0.9,,2,1,0.1,",
          "c,64,64,1,none,1,,ok,0.1,0.9,,2,1,0.1,", "d,32,64,2,none,1,,ok,0.1,0.9,,2,1,0.1,"},
         2, "d_model=64"},
        {{"a,32,32,1,none,1,,ok,0.1,0.9,,2,1,0.1,", "b,16,32,2,none,1,,ok,0.1,0.9,,2,1,0.1,",
          "c,32,32,1,sqrt_dk,1,,ok,0.1,0.9,,2,1,0.1,", "d,16,32,2,sqrt_dk,1,,ok,0.1,0.9,,2,1,0.1,"},
         2, "scale=sqrt_dk"},
    };
    for (int i = 0; i < N(cases); i++) {
        char *cap;
        ck_assert_int_eq(draw(cases[i].rows, 4, 0, &cap), 3);
        char *doc = figure("sweep_loss.svg");
        ck_assert_msg(xmlcheck_count(doc, "class=\"series\"") == cases[i].lines, "case %d", i);
        ck_assert_msg(tu_series_points(doc, cases[i].label, "median over seeds") == 2, "case %d", i);
        free(doc);
        free(cap);
    }
}
END_TEST

START_TEST(test_lr_figure) {
    static const char *const rows[] = {
        "s1,16,16,1,sqrt_dk,1,0.001,ok,1.0,0.5,,2.0,1,0.1,",
        "s2,16,16,1,sqrt_dk,2,0.001,ok,1.2,0.6,,2.2,1,0.1,",
        "s3,16,16,1,sqrt_dk,1,0.1,diverged,nan,0.1,,2.0,1,0.1,",
        "s4,16,16,1,sqrt_dk,2,0.1,ok,1.8,0.2,,2.2,1,0.1,",
        "n1,16,16,1,none,1,0.001,ok,0.1,0.9,,2.3,3,0.5,",
        "n2,16,16,1,none,1,0.1,ok,3.1,0.1,,2.3,3,0.5,",
    };
    char *cap;
    ck_assert_int_eq(draw(rows, N(rows), 1, &cap), 1);
    char *doc = figure("sweep_lr.svg");
    ck_assert_int_eq(tu_series_points(doc, "scale=sqrt_dk", "final val_loss, median over seeds"), 2);
    ck_assert_int_eq(tu_series_points(doc, "scale=none", "final val_loss, median over seeds"), 2);
    ck_assert_int_eq(tu_series_points(doc, "l0", "loss at initialisation"), 2);
    ck_assert_ptr_nonnull(strstr(doc, ">0.001</text>"));
    ck_assert_int_eq(xmlcheck_count(doc, "class=\"errorbar\""), 4);
    /* the l0 line is horizontal, from edge to edge of the plot */
    double x[3], y[3], left, right;
    points(doc, "l0", x, y);
    ck_assert_double_eq(y[0], y[1]);
    frame_edges(doc, &left, &right);
    ck_assert_double_eq_tol(x[0], left, 0.01);
    ck_assert_double_eq_tol(x[1], right, 0.01);
    ck_assert_ptr_nonnull(strstr(cap, "sweep_lr.svg: the final validation loss"));
    free(doc);
    free(cap);
}
END_TEST

/* A d_k grid that is not of powers of two keeps the 1-2-5 ticks. */
START_TEST(test_dk_ticks_not_powers_of_two) {
    static const char *const rows[] = {
        "a,10,10,1,none,1,,ok,0.1,0.9,,2,1,0.1,", "b,20,20,1,none,1,,ok,0.1,0.9,,2,1,0.1,",
        "c,50,50,1,none,1,,ok,0.1,0.9,,2,1,0.1,",
    };
    char *cap;
    ck_assert_int_eq(draw(rows, N(rows), 0, &cap), 3);
    char *doc = figure("sweep_loss.svg");
    ck_assert(x_tick(doc, "10") && x_tick(doc, "20") && x_tick(doc, "50"));
    ck_assert(!x_tick(doc, "16") && !x_tick(doc, "32"));
    free(doc);
    free(cap);
}
END_TEST

START_TEST(test_unwritable_folder) {
    tu_remove_tree(g_tmp);
    char *cap;
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = draw(DK_ROWS, N(DK_ROWS), 0, &cap);
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot write"));
    ck_assert_ptr_nonnull(strstr(err, "sweep_accuracy.svg"));
    free(err);
    free(cap);
}
END_TEST

/* A sweep of the scale alone (neither d_k nor lr varied) still draws a figure: the final answer
 * accuracy against the scale's values, one tick each in order of first appearance, the median
 * over seeds with min-max bars. sqrt_dk: 90 80 100 (median 90); none: 20 10 60 (median 20). */
START_TEST(test_figure_of_any_key) {
    static const char *const rows[] = {
        "s1,16,16,1,sqrt_dk,1,,ok,0.1,0.9,,2,1,0.1,", "s2,16,16,1,sqrt_dk,2,,ok,0.1,0.8,,2,1,0.1,",
        "s3,16,16,1,sqrt_dk,3,,ok,0.1,1.0,,2,1,0.1,", "n1,16,16,1,none,1,,ok,0.5,0.2,,2,1,0.1,",
        "n2,16,16,1,none,2,,ok,0.5,0.1,,2,1,0.1,",    "n3,16,16,1,none,3,,ok,0.5,0.6,,2,1,0.1,",
    };
    char *cap;
    ck_assert_int_eq(draw(rows, N(rows), 0, &cap), 1);
    ck_assert_msg(strstr(cap, "sweep_by_scale.svg: the final validation answer accuracy (%) "
                              "against scale"), "%s", cap);
    char *doc = figure("sweep_by_scale.svg");
    ck_assert_int_eq(tu_series_points(doc, "all runs", "median over seeds"), 2);
    ck_assert_int_eq(xmlcheck_count(doc, "class=\"errorbar\""), 2);
    ck_assert(x_tick(doc, "sqrt_dk") && x_tick(doc, "none"));
    /* the frame: its plot area from left to right, top to bottom, 0..100 % */
    const char *end = strstr(doc, "fill=\"none\" stroke=\"#888888\"/>"), *p = end;
    while (p > doc && strncmp(p, "<rect ", 6) != 0) p--;
    double left, top, w, h, x[3], y[3];
    ck_assert_int_eq(sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &left,
                            &top, &w, &h), 4);
    points(doc, "all runs", x, y);
    /* two categories on -0.5..1.5: at a quarter and three quarters of the width */
    ck_assert_double_eq_tol(x[0], left + w / 4, 0.01);
    ck_assert_double_eq_tol(x[1], left + 3 * w / 4, 0.01);
    ck_assert_double_eq_tol(y[0], top + h * (1 - 0.90), 0.01);
    ck_assert_double_eq_tol(y[1], top + h * (1 - 0.20), 0.01);
    /* one line, so each seed has its own too: seed 3 at 100 % (sqrt_dk) and 60 % (none) */
    for (int i = 1; i <= 3; i++) {
        char run[24];
        snprintf(run, sizeof run, "seed=%d", i);
        ck_assert_int_eq(tu_series_points(doc, run, "one seed"), 2);
    }
    points(doc, "seed=3", x, y);
    ck_assert_double_eq_tol(y[0], top + h * (1 - 1.00), 0.01);
    ck_assert_double_eq_tol(y[1], top + h * (1 - 0.60), 0.01);
    free(doc);
    free(cap);
    /* nothing but the seed varied: no figure */
    static const char *const seeds[] = {"s1,16,16,1,sqrt_dk,1,,ok,0.1,0.9,,2,1,0.1,",
                                        "s2,16,16,1,sqrt_dk,2,,ok,0.1,0.8,,2,1,0.1,"};
    ck_assert_int_eq(draw(seeds, N(seeds), 0, &cap), 0);
    free(cap);
}
END_TEST

TU_MAIN_FIXTURE("sweep_figures", make_tmp, remove_tmp, test_dk_figures, test_dk_lines_per_width,
                test_lr_figure, test_dk_ticks_not_powers_of_two, test_unwritable_folder,
                test_figure_of_any_key);
