/* plot_heatmap.c: heatmaps (the attention weights of a head: query rows, key columns), their
 * colour ramp and the colour bar that reads it. Report stage (... -> logs -> report): the
 * attention figures (figures.c) are drawn with it. */
#include <math.h>
#include <stdio.h>

#include "report/plot/plot.h"

/* ColorBrewer "Blues", from white: 0 reads as "no attention", dark as "all of it". */
static const unsigned char RAMP[][3] = {
    {255, 255, 255}, {222, 235, 247}, {198, 219, 239}, {158, 202, 225}, {107, 174, 214},
    {66, 146, 198},  {33, 113, 181},  {8, 81, 156},    {8, 48, 107},
};
#define RAMP_N ((int)(sizeof RAMP / sizeof *RAMP))

void plot_ramp(double t, char out[8]) {
    if (isnan(t)) {
        snprintf(out, 8, "#c8c8c8");
        return;
    }
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double pos = t * (RAMP_N - 1);
    int i = (int)floor(pos);
    if (i >= RAMP_N - 1) i = RAMP_N - 2;
    double u = pos - i;
    int c[3];
    for (int k = 0; k < 3; k++) c[k] = (int)lround(RAMP[i][k] + u * (RAMP[i + 1][k] - RAMP[i][k]));
    snprintf(out, 8, "#%02x%02x%02x", c[0] & 255, c[1] & 255, c[2] & 255);
}

typedef struct {
    double font;               /* label font size */
    double axis_w, label_w;    /* left of the grid: row axis name, row labels */
    double title_h;            /* above the grid */
    double label_h, axis_h;    /* below the grid: column labels, column axis name */
} HeatLayout;

static HeatLayout heat_layout(const PlotHeatmap *hm, double cell) {
    HeatLayout L = {.font = fmin(11, cell * 0.8), .title_h = 22};
    int show = cell >= 7;
    if (show && hm->row_labels)
        for (int i = 0; i < hm->rows; i++)
            L.label_w = fmax(L.label_w, plot_text_width(hm->row_labels[i], L.font) + 5);
    if (show && hm->col_labels)
        for (int j = 0; j < hm->cols; j++)
            L.label_h = fmax(L.label_h, plot_text_width(hm->col_labels[j], L.font) + 5);
    L.axis_w = hm->row_axis ? 16 : 0;
    L.axis_h = hm->col_axis ? 18 : 0;
    return L;
}

void plot_heatmap_size(const PlotHeatmap *hm, double cell, double *w, double *h) {
    HeatLayout L = heat_layout(hm, cell);
    double grid_w = hm->cols * cell, title_w = plot_text_width(hm->title, 12);
    *w = fmax(L.axis_w + L.label_w + grid_w, title_w) + 4;
    *h = L.title_h + hm->rows * cell + L.label_h + L.axis_h + 4;
}

void plot_heatmap(Svg *s, double x, double y, double cell, const PlotHeatmap *hm) {
    HeatLayout L = heat_layout(hm, cell);
    double gx = x + L.axis_w + L.label_w, gy = y + L.title_h;
    double gw = hm->cols * cell, gh = hm->rows * cell;
    svg_raw(s, "<g class=\"heatmap\" data-rows=\"%d\" data-cols=\"%d\">\n", hm->rows, hm->cols);
    svg_text(s, x, y + 14, "font-size=\"12\" font-weight=\"bold\"", hm->title);
    svg_rect(s, gx, gy, gw, gh, "fill=\"#ffffff\"");
    svg_raw(s, "<g shape-rendering=\"crispEdges\">\n");
    double span = hm->vmax - hm->vmin;
    if (!(span > 0)) span = 1;
    for (int i = 0; i < hm->rows; i++)
        for (int j = 0; j < hm->cols; j++) {
            double v = hm->v[(size_t)i * (size_t)hm->cols + (size_t)j];
            double t = (v - hm->vmin) / span;
            if (!isnan(t) && t < 0.004) continue; /* white: already the background */
            if (isnan(t)) { /* hatched, so a masked cell never reads as a weight near 0 */
                svg_raw(s, "<rect class=\"masked\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                           "height=\"%.2f\" fill=\"#ececec\"/><path d=\"M%.2f %.2fL%.2f %.2f\" "
                           "stroke=\"#b4b4b4\" stroke-width=\"0.8\"/>\n",
                        gx + j * cell, gy + i * cell, cell, cell, gx + j * cell, gy + (i + 1) * cell,
                        gx + (j + 1) * cell, gy + i * cell);
                continue;
            }
            char col[8];
            plot_ramp(t, col);
            svg_raw(s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
                    gx + j * cell, gy + i * cell, cell, cell, col);
        }
    svg_raw(s, "</g>\n");
    if (hm->boundary > 0 && hm->boundary < hm->cols && hm->boundary < hm->rows) {
        double bx = gx + hm->boundary * cell, by = gy + hm->boundary * cell;
        svg_raw(s, "<path class=\"boundary\" d=\"M%.2f %.2fV%.2fM%.2f %.2fH%.2f\" stroke=\"#d62728\" "
                   "stroke-width=\"1.5\" stroke-dasharray=\"4 2\" fill=\"none\"/>\n",
                bx, gy, gy + gh, gx, by, gx + gw);
    }
    svg_rect(s, gx, gy, gw, gh, "fill=\"none\" stroke=\"#888888\"");
    char attrs[96];
    if (L.label_w > 0) {
        snprintf(attrs, sizeof attrs, "text-anchor=\"end\" font-size=\"%.1f\" fill=\"#333333\"",
                 L.font);
        for (int i = 0; i < hm->rows; i++)
            svg_text(s, gx - 3, gy + (i + 0.5) * cell + 0.35 * L.font, attrs, hm->row_labels[i]);
    }
    if (L.label_h > 0)
        for (int j = 0; j < hm->cols; j++) {
            double tx = gx + (j + 0.5) * cell + 0.35 * L.font, ty = gy + gh + 3;
            svg_raw(s, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" "
                       "text-anchor=\"end\" font-size=\"%.1f\" fill=\"#333333\">",
                    tx, ty, tx, ty, L.font);
            svg_escaped(s, hm->col_labels[j]);
            svg_raw(s, "</text>\n");
        }
    if (hm->row_axis) {
        double tx = x + 11, ty = gy + gh / 2;
        svg_raw(s, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" "
                   "text-anchor=\"middle\" font-size=\"11\">", tx, ty, tx, ty);
        svg_escaped(s, hm->row_axis);
        svg_raw(s, "</text>\n");
    }
    if (hm->col_axis)
        svg_text(s, gx + gw / 2, gy + gh + L.label_h + 14,
                 "text-anchor=\"middle\" font-size=\"11\"", hm->col_axis);
    svg_raw(s, "</g>\n");
}

void plot_colorbar(Svg *s, double x, double y, double w, double h, double vmin, double vmax,
                   const char *label) {
    int id = svg_new_id(s);
    svg_raw(s, "<g class=\"colorbar\">\n<defs><linearGradient id=\"ramp%d\" x1=\"0\" y1=\"1\" "
               "x2=\"0\" y2=\"0\">", id);
    for (int i = 0; i < RAMP_N; i++) {
        char col[8];
        plot_ramp((double)i / (RAMP_N - 1), col);
        svg_raw(s, "<stop offset=\"%.3f\" stop-color=\"%s\"/>", (double)i / (RAMP_N - 1), col);
    }
    svg_raw(s, "</linearGradient></defs>\n");
    svg_text(s, x, y - 14, "font-size=\"12\"", label);
    svg_raw(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"url(#ramp%d)\" "
               "stroke=\"#888888\"/>\n", x, y, w, h, id);
    PlotTick t[PLOT_MAX_TICKS];
    double lo = vmin, hi = vmax;
    int n = plot_nice_ticks(&lo, &hi, 6, t, PLOT_MAX_TICKS);
    for (int i = 0; i < n; i++) {
        if (t[i].value < vmin - 1e-12 || t[i].value > vmax + 1e-12) continue;
        double py = y + h - (t[i].value - vmin) / (vmax - vmin) * h;
        svg_line(s, x + w, py, x + w + 4, py, "stroke=\"#555555\"");
        svg_text(s, x + w + 7, py + 4, "font-size=\"11\" fill=\"#333333\"", t[i].label);
    }
    svg_raw(s, "</g>\n");
}
