/* test_plot_style.c: run styles and legends (src/report/plot/plot_style.c): the first 8 styles differ
 * in colour and dash, the next cycle shifts the dashes, the reference style differs from all of
 * them, and a legend measures the height it draws (wrapping). */
#include "report/plot/plot.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "xmlcheck.h"

static void assert_well_formed(const char *doc) { tu_assert_well_formed(doc, "the chart"); }

START_TEST(test_legend_measure_matches_draw) {
    PlotLegendItem items[12];
    char names[12][40];
    for (int i = 0; i < 12; i++) {
        snprintf(names[i], sizeof names[i], "a_rather_long_run_name_%d", i);
        items[i] = (PlotLegendItem){names[i], i};
    }
    Svg svg;
    svg_begin(&svg, 600, 400, NULL);
    double h = plot_legend(NULL, 10, 10, 500, items, 12);
    ck_assert_double_eq(plot_legend(&svg, 10, 10, 500, items, 12), h);
    ck_assert(h >= 3 * 20); /* it wrapped */
    svg_end(&svg);
    assert_well_formed(svg.buf);
    ck_assert_int_eq(xmlcheck_count(svg.buf, "<line "), 12);
    svg_free(&svg);
}
END_TEST

START_TEST(test_styles_distinct) {
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < i; j++) {
            ck_assert_str_ne(plot_color(i), plot_color(j));
            ck_assert_str_ne(plot_dash(i), plot_dash(j));
        }
    ck_assert_str_ne(plot_dash(8), plot_dash(0)); /* the next cycle shifts the dashes */
    /* a reference line (chance level) looks like no run */
    for (int i = 0; i < 8; i++) {
        ck_assert_str_ne(plot_color(PLOT_STYLE_REFERENCE), plot_color(i));
        ck_assert_str_ne(plot_dash(PLOT_STYLE_REFERENCE), plot_dash(i));
    }
}
END_TEST

TU_MAIN("plot_style", test_legend_measure_matches_draw, test_styles_distinct);
