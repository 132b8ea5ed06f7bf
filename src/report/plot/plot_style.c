/* plot_style.c: how runs look in every chart -- one colour and dash pattern per run, the same in
 * every panel and figure -- the legend that names them, and the text-width estimate the plot
 * layouts use. Report stage (... -> logs -> report): drawn into the SVG writer (svg.c). */
#include <stdio.h>

#include "report/plot/plot.h"

/* Okabe-Ito colours (distinguishable with the common colour-vision deficiencies) plus a wine red;
 * the dash patterns keep runs apart in greyscale print too. */
static const char *const COLORS[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                     "#e69f00", "#56b4e9", "#000000", "#882255"};
static const char *const DASHES[] = {"",    "8 4", "2 3",      "10 3 2 3",
                                     "5 2", "1 2", "12 3 3 3", "6 2 1 2"};
#define N_STYLES 8

const char *plot_color(int style) { return style < 0 ? "#7f7f7f" : COLORS[style % N_STYLES]; }

const char *plot_dash(int style) {
    if (style < 0) return "6 4"; /* PLOT_STYLE_REFERENCE */
    /* Shifted by the cycle number so style 8 is not a copy of style 0. */
    return DASHES[(style + style / N_STYLES) % N_STYLES];
}

double plot_text_width(const char *text, double px) {
    size_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)text; p && *p; p++)
        if ((*p & 0xC0) != 0x80) chars++;
    return 0.6 * px * (double)chars;
}

double plot_legend(Svg *s, double x, double y, double w, const PlotLegendItem *items, int n) {
    const double row_h = 20, sample = 34;
    double cx = x, cy = y;
    if (s) svg_raw(s, "<g class=\"legend\">\n");
    for (int i = 0; i < n; i++) {
        double iw = sample + 6 + plot_text_width(items[i].label, 12) + 22;
        if (cx > x && cx + iw > x + w) {
            cx = x;
            cy += row_h;
        }
        if (s) {
            const char *dash = plot_dash(items[i].style);
            svg_raw(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                       "stroke-width=\"2.5\"%s%s%s/>\n",
                    cx, cy + 10, cx + sample, cy + 10, plot_color(items[i].style),
                    *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
            svg_text(s, cx + sample + 6, cy + 14, "font-size=\"12\"", items[i].label);
        }
        cx += iw;
    }
    if (s) svg_raw(s, "</g>\n");
    return cy + row_h - y;
}
