/* test_panels.c: the panel grid of the --compare figures (src/report/figure/panels.c): a figure spans
 * the steps of the longest run, panels get their axes, lines read a log column (empty fields left
 * out, a logged nan kept) or the mean over heads of an attention column, panels share a y range,
 * and the SVG has one row per two half-width panels or one full-width one, a legend of the runs
 * that appear, and one line per run present. Expected values are worked out by hand. */
#include "report/figure/figure_internal.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void parse(Csv *t, const char *text) { ck_assert_int_eq(csv_parse(t, text, strlen(text)), 0); }

/* Runs named a, b, c whose loss.csv end at steps 30, 70 and (no rows) 0. */
static void make_runs(Run runs[3]) {
    static const char *const LOSS[] = {"step,train_loss\n0,2\n30,1\n", "step,train_loss\n0,2\n70,1\n",
                                       "step,train_loss\n"};
    memset(runs, 0, 3 * sizeof *runs);
    for (int i = 0; i < 3; i++) {
        snprintf(runs[i].name, RUN_NAME_LEN, "%c", 'a' + i);
        parse(&runs[i].loss, LOSS[i]);
    }
}

static void free_runs(Run runs[3]) {
    for (int i = 0; i < 3; i++) csv_free(&runs[i].loss);
}

START_TEST(test_figure_and_panels) {
    Run runs[3];
    make_runs(runs);
    Figure f = figure_init(runs, 3);
    ck_assert_int_eq(f.n_runs, 3);
    ck_assert_double_eq(f.x_max, 70);
    /* more panels than the first allocation (8) holds */
    for (int i = 0; i < 20; i++) {
        Panel *p = figure_panel(&f, "title", "series", "y", i % 2, 1 + i % 2);
        ck_assert_ptr_nonnull(p);
        ck_assert_str_eq(p->ax.title, "title");
        ck_assert_str_eq(p->ax.x_label, "step");
        ck_assert_str_eq(p->ax.y_label, "y");
        ck_assert_int_eq(p->ax.log_y, i % 2);
        ck_assert_int_eq(p->span, 1 + i % 2);
        ck_assert(p->ax.x_lo == 0 && p->ax.x_hi == 70 && isnan(p->ax.y_lo) && isnan(p->ax.y_hi));
        ck_assert(p->ax.y_from_zero);
        for (int r = 0; r < 3; r++) ck_assert(!p->xy[r].present && p->xy[r].n == 0);
    }
    ck_assert_int_eq(f.n, 20);
    ck_assert(!f.failed);
    figure_free(&f);
    ck_assert_int_eq(f.n, 0);
    free_runs(runs);
}
END_TEST

START_TEST(test_xy_column) {
    Csv t;
    parse(&t, "step,loss,acc\n0,2.0,0.1\n10,,0.2\n20,nan,\n30,0.5,0.4\n");
    static const struct {
        const char *name;
        double scale;
        int n;
        double x[4], y[4]; /* y NAN: a logged nan */
    } cases[] = {
        {"loss", 1, 3, {0, 20, 30}, {2.0, NAN, 0.5}},
        {"acc", 100, 3, {0, 10, 30}, {10, 20, 40}},
        {"missing", 1, 0, {0}, {0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        XY xy = {0};
        ck_assert_int_eq(xy_column(&xy, &t, cases[c].name, cases[c].scale), 0);
        ck_assert_msg(xy.present && xy.n == cases[c].n, "case %zu: n %d", c, xy.n);
        for (int i = 0; i < xy.n; i++) {
            ck_assert_msg(xy.x[i] == cases[c].x[i], "case %zu point %d: x %g", c, i, xy.x[i]);
            double w = cases[c].y[i];
            ck_assert_msg(isnan(w) ? isnan(xy.y[i]) : fabs(xy.y[i] - w) < 1e-12,
                          "case %zu point %d: y %g, want %g", c, i, xy.y[i], w);
        }
        free(xy.x);
        free(xy.y);
    }
    csv_free(&t);
}
END_TEST

START_TEST(test_xy_attention) {
    Csv t;
    parse(&t, "step,layer,head,logit_std\n"
              "0,0,0,1\n0,0,1,3\n0,1,0,10\n0,1,1,20\n"
              "10,0,0,\n10,0,1,5\n10,1,0,30\n10,1,1,40\n"
              "20,0,0,\n20,0,1,\n20,1,0,50\n20,1,1,50\n"
              "30,0,0,2\n30,0,1,nan\n");
    static const struct {
        int layer;
        double scale;
        int n;
        double x[4], y[4];
    } cases[] = {
        {0, 1, 3, {0, 10, 30}, {2, 5, NAN}}, /* step 20 has no value for layer 0 */
        {1, 0.5, 3, {0, 10, 20}, {7.5, 17.5, 25}},
        {2, 1, 0, {0}, {0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        XY xy = {0};
        ck_assert_int_eq(xy_attention(&xy, &t, cases[c].layer, "logit_std", cases[c].scale), 0);
        ck_assert_msg(xy.present && xy.n == cases[c].n, "case %zu: n %d", c, xy.n);
        for (int i = 0; i < xy.n; i++) {
            double w = cases[c].y[i];
            ck_assert_msg(xy.x[i] == cases[c].x[i] && (isnan(w) ? isnan(xy.y[i]) : xy.y[i] == w),
                          "case %zu point %d: (%g, %g), want (%g, %g)", c, i, xy.x[i], xy.y[i],
                          cases[c].x[i], w);
        }
        free(xy.x);
        free(xy.y);
    }
    XY xy = {0};
    ck_assert_int_eq(xy_attention(&xy, &t, 0, "missing", 1), 0);
    ck_assert(xy.present && xy.n == 0);
    free(xy.x);
    free(xy.y);
    csv_free(&t);
}
END_TEST

/* Sets panel p's line of run r to the points (x, y). */
static void set_line(Figure *f, int p, int r, int n, const double *x, const double *y) {
    XY *xy = &f->p[p].xy[r];
    xy->present = 1;
    xy->n = n;
    xy->x = malloc(sizeof(double) * (size_t)(n ? n : 1));
    xy->y = malloc(sizeof(double) * (size_t)(n ? n : 1));
    ck_assert(xy->x && xy->y);
    memcpy(xy->x, x, sizeof(double) * (size_t)n);
    memcpy(xy->y, y, sizeof(double) * (size_t)n);
}

START_TEST(test_share_y_range) {
    Run runs[3];
    make_runs(runs);
    Figure f = figure_init(runs, 3);
    for (int i = 0; i < 4; i++) ck_assert_ptr_nonnull(figure_panel(&f, "t", "s", "y", i == 3, 1));
    const double x[3] = {0, 10, 20};
    const double y0[3] = {1, 5, NAN}, y1[3] = {-3, 100, 2}, y2[3] = {0.5, 7, INFINITY};
    const double y3[3] = {-1, 0, 0.01};
    set_line(&f, 0, 0, 3, x, y0);
    set_line(&f, 1, 1, 3, x, y1);
    set_line(&f, 2, 2, 3, x, y2);
    set_line(&f, 3, 0, 3, x, y3);
    /* panels 0 and 2: the finite values of both, 0.5 .. 7; panels 1 and 3 keep theirs */
    ck_assert_int_eq(share_y_range(&f, 0, 4, 2, runs), 1);
    ck_assert(f.p[0].ax.y_lo == 0.5 && f.p[0].ax.y_hi == 7);
    ck_assert(f.p[2].ax.y_lo == 0.5 && f.p[2].ax.y_hi == 7);
    ck_assert(isnan(f.p[1].ax.y_lo) && isnan(f.p[3].ax.y_lo));
    /* panel 3 alone, a log axis: only y > 0 counts, 0.01 .. 0.01 */
    ck_assert_int_eq(share_y_range(&f, 3, 4, 1, runs), 1);
    ck_assert(f.p[3].ax.y_lo == 0.01 && f.p[3].ax.y_hi == 0.01);
    /* panels with nothing to draw: ranges left as they were */
    Figure g = figure_init(runs, 3);
    ck_assert_ptr_nonnull(figure_panel(&g, "t", "s", "y", 0, 1));
    const double nan1[1] = {NAN};
    set_line(&g, 0, 1, 1, x, nan1);
    ck_assert_int_eq(share_y_range(&g, 0, 1, 1, runs), 0);
    ck_assert(isnan(g.p[0].ax.y_lo) && isnan(g.p[0].ax.y_hi));
    figure_free(&g);
    figure_free(&f);
    free_runs(runs);
}
END_TEST

/* Spans 1, 1, 2, 1: rows [1 1], [2], [1]: three rows of PANEL_H under the title and legend.
 * Run c has a line in no panel: not in the legend, no series. */
START_TEST(test_figure_write) {
    char dir[256], path[300];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_test_panels_XXXXXX");
    Run runs[3];
    make_runs(runs);
    Figure f = figure_init(runs, 3);
    static const char *const SERIES[] = {"p0", "p1", "p2", "p3"};
    static const int SPAN[] = {1, 1, 2, 1};
    const double x[2] = {0, 10}, y[2] = {1, 2};
    for (int i = 0; i < 4; i++) {
        ck_assert_ptr_nonnull(figure_panel(&f, SERIES[i], SERIES[i], "y", 0, SPAN[i]));
        set_line(&f, i, 0, 2, x, y);
        if (i != 1) set_line(&f, i, 1, i == 3 ? 0 : 2, x, y);
    }
    ck_assert_int_eq(figure_write(&f, runs, "My figure", dir, "fig.svg"), 0);
    snprintf(path, sizeof path, "%s/fig.svg", dir);
    char *doc = tu_read_xml(path);
    PlotLegendItem items[2] = {{"a", 0}, {"b", 1}};
    double width = 2 * PANEL_W + 2 * MARGIN;
    double height = 44 + plot_legend(NULL, MARGIN, 0, width - 2 * MARGIN, items, 2) + 8 +
                    3 * PANEL_H + MARGIN;
    char want[128];
    snprintf(want, sizeof want, "width=\"%.0f\" height=\"%.0f\"", width, height);
    ck_assert_msg(strstr(doc, want), "no '%s' in\n%.600s", want, doc);
    ck_assert(strstr(doc, "<title>My figure</title>"));
    static const struct {
        const char *run, *series;
        int points; /* -1: no line */
    } lines[] = {
        {"a", "p0", 2}, {"b", "p0", 2}, {"a", "p1", 2}, {"b", "p1", -1},
        {"a", "p2", 2}, {"b", "p2", 2}, {"a", "p3", 2}, {"b", "p3", 0}, {"c", "p0", -1},
    };
    for (size_t c = 0; c < sizeof lines / sizeof lines[0]; c++)
        ck_assert_msg(tu_series_points(doc, lines[c].run, lines[c].series) == lines[c].points,
                      "run %s, panel %s: %d points, want %d", lines[c].run, lines[c].series,
                      tu_series_points(doc, lines[c].run, lines[c].series), lines[c].points);
    ck_assert(strstr(doc, ">a<") && strstr(doc, ">b<")); /* the legend */
    ck_assert_msg(!strstr(doc, ">c<"), "run c, in no panel, is in the legend");
    free(doc);
    /* a folder that is not there: an error naming the file */
    snprintf(path, sizeof path, "%s/missing", dir);
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = figure_write(&f, runs, "t", path, "fig.svg");
    char *err = tu_capture_end(&cap);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, "cannot write") && strstr(err, "missing/fig.svg"), "%s", err);
    free(err);
    figure_free(&f);
    free_runs(runs);
    tu_remove_tree(dir);
}
END_TEST

TU_MAIN("panels", test_figure_and_panels, test_xy_column, test_xy_attention, test_share_y_range,
        test_figure_write);
