/* test_plot_heatmap.c: heatmaps (src/report/plot/plot_heatmap.c): cells, escaped labels, the hatched
 * NaN cell, the prompt/answer boundary at its cells, the colour bar, and the colour ramp's ends,
 * clamping and NaN grey. */
#include "report/plot/plot.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "xmlcheck.h"

static void assert_well_formed(const char *doc) { tu_assert_well_formed(doc, "the chart"); }

START_TEST(test_heatmap) {
    double v[] = {1, 0, 0, 0.4, 0.6, 0, NAN, 0.5, 0.5};
    const char *tokens[] = {"<sep>", "a&b", "2"};
    PlotHeatmap hm = {.title = "run <1>: layer 0, head 0", .v = v, .rows = 3, .cols = 3,
                      .row_labels = tokens, .col_labels = tokens, .row_axis = "query",
                      .col_axis = "key", .vmin = 0, .vmax = 1};
    double w, h;
    plot_heatmap_size(&hm, 16, &w, &h);
    ck_assert(w > 3 * 16 && h > 3 * 16);
    Svg svg;
    svg_begin(&svg, w + 100, h, NULL);
    plot_heatmap(&svg, 0, 0, 16, &hm);
    plot_colorbar(&svg, w + 20, 20, 14, 100, 0, 1, "weight");
    svg_end(&svg);
    assert_well_formed(svg.buf);
    ck_assert_int_eq(xmlcheck_count(svg.buf, "<g class=\"heatmap\" data-rows=\"3\" data-cols=\"3\">"), 1);
    ck_assert_int_eq(xmlcheck_count(svg.buf, "&lt;sep&gt;"), 2);   /* row and column label */
    ck_assert_int_eq(xmlcheck_count(svg.buf, "a&amp;b"), 2);
    ck_assert_int_eq(xmlcheck_count(svg.buf, "class=\"masked\""), 1); /* the NaN cell, hatched */
    ck_assert_int_eq(xmlcheck_count(svg.buf, "fill=\"#08306b\""), 1); /* the 1 */
    ck_assert_int_eq(xmlcheck_count(svg.buf, "class=\"boundary\""), 0); /* none asked for */
    svg_free(&svg);
    /* the prompt/answer boundary before position 2: one line on each axis, at 2 cells */
    hm.boundary = 2;
    svg_begin(&svg, w + 100, h, NULL);
    plot_heatmap(&svg, 0, 0, 16, &hm);
    svg_end(&svg);
    assert_well_formed(svg.buf);
    const char *b = strstr(svg.buf, "class=\"boundary\" d=\"M");
    ck_assert_ptr_nonnull(b);
    double bx, by0, by1, bx0, byy, bx1;
    ck_assert_int_eq(sscanf(b, "class=\"boundary\" d=\"M%lf %lfV%lfM%lf %lfH%lf", &bx, &by0, &by1,
                            &bx0, &byy, &bx1), 6);
    ck_assert_double_eq_tol(bx - bx0, 2 * 16, 1e-6); /* 2 cells right of the grid's left edge */
    ck_assert_double_eq_tol(byy - by0, 2 * 16, 1e-6); /* 2 cells below its top */
    ck_assert_double_eq_tol(by1 - by0, 3 * 16, 1e-6);
    svg_free(&svg);
}
END_TEST

START_TEST(test_ramp) {
    char c[8];
    plot_ramp(0, c);
    ck_assert_str_eq(c, "#ffffff");
    plot_ramp(1, c);
    ck_assert_str_eq(c, "#08306b");
    plot_ramp(7, c);
    ck_assert_str_eq(c, "#08306b");
    plot_ramp(-1, c);
    ck_assert_str_eq(c, "#ffffff");
    plot_ramp(NAN, c);
    ck_assert_str_eq(c, "#c8c8c8");
}
END_TEST

TU_MAIN("plot_heatmap", test_heatmap, test_ramp);
