/* test_plot_lines.c: line charts (src/report/plot/plot_lines.c): one series element per series,
 * non-finite values skipped with the line broken, a log y axis, escaping, fixed ranges and
 * clipping, a log x axis, error bars, and linear charts byte-identical to a stored reference.
 * Every document drawn is run through the XML well-formedness checker. */
#include "report/plot/plot.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "xmlcheck.h"

static void assert_well_formed(const char *doc) { tu_assert_well_formed(doc, "the chart"); }

static const PlotAxes AXES = {.title = "loss", .x_label = "step", .y_label = "loss (nats/token)",
                              .x_lo = NAN, .x_hi = NAN, .y_lo = NAN, .y_hi = NAN};

/* The d attribute of the first series element of run. */
static const char *series_path(const char *doc, const char *run) {
    char key[128];
    snprintf(key, sizeof key, "data-run=\"%s\"", run);
    const char *p = strstr(doc, key);
    return p ? strstr(p, " d=\"") : NULL;
}

static int moves_in(const char *d) {
    int n = 0;
    for (const char *p = d + 4; *p && *p != '"'; p++) n += *p == 'M';
    return n;
}

START_TEST(test_one_element_per_series) {
    double x[] = {0, 10, 20, 30}, a[] = {3, 2, 1.5, 1.2}, b[] = {3.1, 2.5, 2.2, 2.0};
    PlotSeries s[] = {{"scaled", "train loss", x, a, 4, 0}, {"unscaled", "train loss", x, b, 4, 1}};
    Svg svg;
    svg_begin(&svg, 600, 400, "t");
    ck_assert_int_eq(plot_lines(&svg, 0, 0, 600, 400, &AXES, s, 2), 8);
    svg_end(&svg);
    assert_well_formed(svg.buf);
    ck_assert_int_eq(xmlcheck_count(svg.buf, "class=\"series\""), 2);
    ck_assert_int_eq(tu_series_points(svg.buf, "scaled", "train loss"), 4);
    ck_assert_int_eq(tu_series_points(svg.buf, "unscaled", "train loss"), 4);
    ck_assert_ptr_nonnull(strstr(svg.buf, plot_color(1)));
    ck_assert_ptr_nonnull(strstr(svg.buf, plot_dash(1)));
    ck_assert_ptr_nonnull(strstr(svg.buf, ">loss (nats/token)</text>"));
    ck_assert_ptr_nonnull(strstr(svg.buf, ">step</text>"));
    ck_assert_int_eq(xmlcheck_count(svg.buf, "class=\"diverged\""), 0);
    svg_free(&svg);
}
END_TEST

/* The page's tooltip reads each series' drawn values: data-x / data-y list exactly the points
 * drawn (NaN, inf and y <= 0 on a log axis left out), in the path's order; the chart carries its
 * axis labels; a lone point's marker carries its run so a toggle hides it too. */
START_TEST(test_data_values_for_the_page) {
    double x[] = {0, 100, 200, 300, 400, 1234567}, y[] = {2.5, NAN, 0.125, -1, 1e-3, 0.3333333};
    PlotSeries s = {"r<1>", "val loss", x, y, 6, 0};
    PlotAxes ax = AXES;
    ax.log_y = 1;
    ax.x_label = "step & more";
    Svg svg;
    svg_begin(&svg, 600, 400, NULL);
    ck_assert_int_eq(plot_lines(&svg, 0, 0, 600, 400, &ax, &s, 1), 4);
    svg_end(&svg);
    assert_well_formed(svg.buf);
    ck_assert_msg(strstr(svg.buf, "<path class=\"series\" data-run=\"r&lt;1&gt;\" data-series=\"val "
                                  "loss\" data-points=\"4\""), "%s", svg.buf);
    ck_assert_msg(strstr(svg.buf, " data-x=\"0 200 400 1234567\" data-y=\"2.5 0.125 0.001 "
                                  "0.333333\" d=\"M"), "%s", svg.buf);
    ck_assert_msg(strstr(svg.buf, "<g class=\"chart\" data-x-label=\"step &amp; more\" "
                                  "data-y-label=\"loss (nats/token)\">"), "%s", svg.buf);
    /* 2.5 and 0.125 are lone points (neighbours not drawn): markers of run r<1> */
    ck_assert_int_eq(xmlcheck_count(svg.buf, "<circle class=\"marker\" data-run=\"r&lt;1&gt;\""), 2);
    svg_free(&svg);
}
END_TEST

/* NaN and inf are skipped and break the line; a series that ends non-finite gets a cross. */
START_TEST(test_non_finite_values_skipped) {
    double x[] = {0, 1, 2, 3, 4, 5, 6, 7};
    double y[] = {1, 2, NAN, 3, 4, INFINITY, 5, NAN};
    PlotSeries s = {"diverged", "train loss", x, y, 8, 2};
    Svg svg;
    svg_begin(&svg, 600, 400, NULL);
    ck_assert_int_eq(plot_lines(&svg, 0, 0, 600, 400, &AXES, &s, 1), 5);
    svg_end(&svg);
    assert_well_formed(svg.buf);
    ck_assert_int_eq(tu_series_points(svg.buf, "diverged", "train loss"), 5);
    const char *d = series_path(svg.buf, "diverged");
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(moves_in(d), 3);        /* three pieces: {1,2}, {3,4}, {5} */
    char path[512];
    snprintf(path, sizeof path, "%.*s", (int)strcspn(d + 4, "\""), d + 4);
    ck_assert_ptr_null(strstr(path, "nan"));
    ck_assert_ptr_null(strstr(path, "inf"));
    ck_assert_int_eq(xmlcheck_count(svg.buf, "class=\"marker\""), 1); /* the lone point 5 */
    ck_assert_int_eq(xmlcheck_count(svg.buf, "class=\"diverged\""), 1);
    svg_free(&svg);
}
END_TEST

START_TEST(test_log_axis_skips_non_positive) {
    double x[] = {0, 1, 2, 3}, y[] = {1e-3, 0, -1, 10};
    PlotSeries s = {"r", "global", x, y, 4, 0};
    PlotAxes ax = AXES;
    ax.log_y = 1;
    Svg svg;
    svg_begin(&svg, 600, 400, NULL);
    ck_assert_int_eq(plot_lines(&svg, 0, 0, 600, 400, &ax, &s, 1), 2);
    svg_end(&svg);
    assert_well_formed(svg.buf);
    ck_assert_int_eq(tu_series_points(svg.buf, "r", "global"), 2);
    ck_assert_int_eq(xmlcheck_count(svg.buf, "class=\"diverged\""), 0); /* 0 is finite */
    ck_assert_ptr_nonnull(strstr(svg.buf, ">0.001</text>"));
    ck_assert_ptr_nonnull(strstr(svg.buf, ">10</text>"));
    svg_free(&svg);
}
END_TEST

START_TEST(test_empty_and_all_nan_series) {
    double x[] = {0, 1}, y[] = {NAN, NAN};
    PlotSeries s[] = {{"a", "v", x, y, 2, 0}, {"b", "v", NULL, NULL, 0, 1}};
    Svg svg;
    svg_begin(&svg, 300, 200, NULL);
    ck_assert_int_eq(plot_lines(&svg, 0, 0, 300, 200, &AXES, s, 2), 0);
    svg_end(&svg);
    assert_well_formed(svg.buf);
    ck_assert_int_eq(xmlcheck_count(svg.buf, "class=\"series\""), 2);
    ck_assert_int_eq(tu_series_points(svg.buf, "b", "v"), 0);
    svg_free(&svg);
}
END_TEST

START_TEST(test_names_escaped) {
    double x[] = {0, 1}, y[] = {1, 2};
    PlotSeries s = {"a<&>b", "val \"loss\"", x, y, 2, 0};
    PlotAxes ax = AXES;
    ax.title = "<title & more>";
    PlotLegendItem item = {"a<&>b", 0};
    Svg svg;
    svg_begin(&svg, 600, 400, "a<&>b");
    plot_legend(&svg, 0, 0, 600, &item, 1);
    plot_lines(&svg, 0, 30, 600, 370, &ax, &s, 1);
    svg_end(&svg);
    assert_well_formed(svg.buf);
    ck_assert_ptr_null(strstr(svg.buf, "a<&>b"));
    ck_assert_int_ge(xmlcheck_count(svg.buf, "a&lt;&amp;&gt;b"), 3);
    ck_assert_int_eq(tu_series_points(svg.buf, "a&lt;&amp;&gt;b", "val &quot;loss&quot;"), 2);
    svg_free(&svg);
}
END_TEST

/* Fixed ranges win over the data; data outside is clipped, not dropped from the count. */
START_TEST(test_fixed_range_and_clip) {
    double x[] = {0, 50, 100}, y[] = {10, 150, 90};
    PlotSeries s = {"r", "acc", x, y, 3, 0};
    PlotAxes ax = AXES;
    ax.y_lo = 0, ax.y_hi = 100;
    Svg svg;
    svg_begin(&svg, 600, 400, NULL);
    plot_lines(&svg, 0, 0, 600, 400, &ax, &s, 1);
    svg_end(&svg);
    assert_well_formed(svg.buf);
    ck_assert_ptr_nonnull(strstr(svg.buf, ">100</text>"));
    ck_assert_ptr_null(strstr(svg.buf, ">150</text>"));
    ck_assert_ptr_nonnull(strstr(svg.buf, "clip-path=\"url(#clip1)\""));
    svg_free(&svg);
}
END_TEST
/* ------------------------------------------------------------ log x axis, error bars */

/* The chart of tests/fixtures/plot_reference.svg, which the plot code wrote before it had a log x
 * axis and error bars (linear and log-y panels, a NaN gap, a series that ends in inf). */
static void reference_chart(Svg *svg) {
    double x[] = {0, 10, 20, 30, 40}, a[] = {3, 2, NAN, 1.2, 1.1}, b[] = {3.1, 2.5, 2.2, 2.0, INFINITY};
    PlotSeries s[] = {{"scaled", "val loss", x, a, 5, 0}, {"unscaled", "val loss", x, b, 5, 1}};
    PlotAxes lin = {.title = "linear", .x_label = "step", .y_label = "loss", .x_lo = NAN,
                    .x_hi = NAN, .y_lo = NAN, .y_hi = NAN, .y_from_zero = 1};
    PlotAxes logy = lin;
    logy.title = "log y";
    logy.log_y = 1;
    logy.y_from_zero = 0;
    svg_begin(svg, 600, 700, "reference");
    plot_lines(svg, 0, 0, 600, 350, &lin, s, 2);
    plot_lines(svg, 0, 350, 600, 350, &logy, s, 2);
    svg_end(svg);
}

/* Charts without log x or bars are byte for byte what they were: figures of earlier reports do
 * not change when they are drawn again. (The reference gained the data-x / data-y, data-x-label /
 * data-y-label and marker data-run attributes the HTML page reads; nothing else changed.) */
START_TEST(test_linear_charts_unchanged) {
    char *want = tu_read_file(SCALEDOT_SOURCE_DIR "/tests/fixtures/plot_reference.svg", NULL);
    ck_assert_ptr_nonnull(want);
    Svg svg;
    reference_chart(&svg);
    size_t i = 0;
    while (want[i] && want[i] == svg.buf[i]) i++;
    ck_assert_msg(want[i] == svg.buf[i], "differs from the reference at byte %zu: '%.60s' instead of "
                  "'%.60s'", i, svg.buf + i, want + i);
    svg_free(&svg);
    free(want);
}
END_TEST

/* The x coordinates of the first n points of the path d (after ' d="'). */
static void path_xs(const char *d, double *x, int n) {
    const char *p = d + 4;
    for (int i = 0; i < n; i++) {
        while (*p == 'M' || *p == 'L' || *p == ' ') p++;
        char *end;
        x[i] = strtod(p, &end);
        ck_assert_ptr_ne(end, p);
        p = end;
        strtod(p, &end); /* y */
        p = end;
    }
}

/* On a log x axis equal ratios are equal distances, and x <= 0 is not drawn. */
START_TEST(test_log_x_axis) {
    double x[] = {1e-4, 1e-3, 1e-2, 0, -1}, y[] = {1, 2, 3, 4, 5};
    PlotSeries s = {"lr", "loss", x, y, 5, 0};
    PlotAxes ax = AXES;
    ax.log_x = 1;
    Svg svg;
    svg_begin(&svg, 600, 400, NULL);
    ck_assert_int_eq(plot_lines(&svg, 0, 0, 600, 400, &ax, &s, 1), 3);
    svg_end(&svg);
    assert_well_formed(svg.buf);
    ck_assert_int_eq(tu_series_points(svg.buf, "lr", "loss"), 3);
    double px[3];
    path_xs(series_path(svg.buf, "lr"), px, 3);
    ck_assert(px[1] > px[0] && px[2] > px[1]);
    ck_assert_double_eq_tol(px[1] - px[0], px[2] - px[1], 0.02);
    ck_assert_ptr_nonnull(strstr(svg.buf, ">0.0001</text>"));
    ck_assert_ptr_nonnull(strstr(svg.buf, ">0.01</text>"));
    svg_free(&svg);
}
END_TEST

/* plot_scatter: a marker per drawable point (log x: x <= 0 and NaN left out; a NaN y too), with
 * its values and censoring as attributes, an arrow only for a censored point, escaped names. */
START_TEST(test_scatter) {
    PlotPoint p[] = {
        {"a<1", 1, 50, 0, 0, 0}, {"b", 10, 90, 1, 1, 1}, {"c", 0, 40, 0, 2, 0},
        {"d", NAN, 40, 0, 3, 0}, {"e", 100, NAN, 1, 0, 0}, {"f", 100, 20, 2, 3, -1},
    };
    PlotAxes ax = AXES;
    ax.log_x = 1;
    Svg svg;
    svg_begin(&svg, 600, 400, NULL);
    ck_assert_int_eq(plot_scatter(&svg, 0, 0, 600, 400, &ax, p, 6), 3);
    svg_end(&svg);
    assert_well_formed(svg.buf);
    int points = 0, arrows = 0;
    for (const char *q = svg.buf; (q = strstr(q, "class=\"point\"")); q++) points++;
    for (const char *q = svg.buf; (q = strstr(q, "class=\"censor-arrow\"")); q++) arrows++;
    ck_assert_int_eq(points, 3);
    ck_assert_int_eq(arrows, 2);
    ck_assert_ptr_nonnull(strstr(svg.buf, "data-run=\"a&lt;1\" data-x=\"1\" data-y=\"50\" "
                                          "data-censored=\"0\""));
    ck_assert_ptr_nonnull(strstr(svg.buf, "data-run=\"b\" data-x=\"10\" data-y=\"90\" "
                                          "data-censored=\"1\""));
    ck_assert_ptr_nonnull(strstr(svg.buf, "data-censored=\"-1\""));
    ck_assert_ptr_null(strstr(svg.buf, "data-run=\"c\""));
    ck_assert_ptr_null(strstr(svg.buf, "data-run=\"e\""));
    svg_free(&svg);
}
END_TEST

/* A bar per point with drawable ends; the y range grows to hold them; none without bars. */
START_TEST(test_error_bars) {
    double x[] = {1, 2, 3, 4}, y[] = {1, 2, 3, NAN};
    double lo[] = {0.5, NAN, 2, 3}, hi[] = {1.5, 2.5, 9, 5};
    PlotSeries s = {"r", "acc", x, y, 4, 1};
    PlotBars b = {lo, hi};
    Svg svg;
    svg_begin(&svg, 600, 400, NULL);
    ck_assert_int_eq(plot_lines_bars(&svg, 0, 0, 600, 400, &AXES, &s, &b, 1), 3);
    svg_end(&svg);
    assert_well_formed(svg.buf);
    /* points 1 and 3: point 2 has no lower end, point 4 no value */
    ck_assert_int_eq(xmlcheck_count(svg.buf, "class=\"errorbar\""), 2);
    ck_assert_ptr_nonnull(strstr(svg.buf, ">9</text>") ? strstr(svg.buf, ">9</text>")
                                                        : strstr(svg.buf, ">10</text>"));
    ck_assert_ptr_nonnull(strstr(svg.buf, plot_color(1)));
    svg_free(&svg);
    PlotBars none = {NULL, NULL};
    svg_begin(&svg, 600, 400, NULL);
    plot_lines_bars(&svg, 0, 0, 600, 400, &AXES, &s, &none, 1);
    svg_end(&svg);
    ck_assert_int_eq(xmlcheck_count(svg.buf, "class=\"errorbar\""), 0);
    svg_free(&svg);
}
END_TEST

TU_MAIN("plot_lines", test_one_element_per_series, test_non_finite_values_skipped,
        test_data_values_for_the_page, test_log_axis_skips_non_positive,
        test_empty_and_all_nan_series, test_names_escaped, test_fixed_range_and_clip,
        test_linear_charts_unchanged, test_log_x_axis, test_error_bars, test_scatter);
