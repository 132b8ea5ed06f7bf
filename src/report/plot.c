#include "report/plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Okabe-Ito colours (distinguishable with the common colour-vision deficiencies) plus a wine red;
 * the dash patterns keep runs apart in greyscale print too. */
static const char *const COLORS[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                     "#e69f00", "#56b4e9", "#000000", "#882255"};
static const char *const DASHES[] = {"",    "8 4", "2 3",      "10 3 2 3",
                                     "5 2", "1 2", "12 3 3 3", "6 2 1 2"};
#define N_STYLES 8

const char *plot_color(int style) { return COLORS[(style < 0 ? 0 : style) % N_STYLES]; }

const char *plot_dash(int style) {
    if (style < 0) style = 0;
    /* Shifted by the cycle number so style 8 is not a copy of style 0. */
    return DASHES[(style + style / N_STYLES) % N_STYLES];
}

double plot_text_width(const char *text, double px) {
    size_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)text; p && *p; p++)
        if ((*p & 0xC0) != 0x80) chars++;
    return 0.6 * px * (double)chars;
}

/* ------------------------------------------------------------------ ticks */

/* Fixed notation with the given decimals, no "-0". */
static void format_fixed(char *out, size_t n, double v, int decimals) {
    if (fabs(v) < 0.5 * pow(10, -decimals)) v = 0;
    snprintf(out, n, "%.*f", decimals, v);
}

int plot_nice_ticks(double *lo, double *hi, int max_ticks, PlotTick *ticks, int cap) {
    double a = *lo, b = *hi;
    if (!isfinite(a) || !isfinite(b)) a = 0, b = 1;
    if (b < a) {
        double t = a;
        a = b;
        b = t;
    }
    if (b == a) {
        double d = a != 0 ? fabs(a) * 0.1 : 1;
        a -= d;
        b += d;
    }
    if (max_ticks < 2) max_ticks = 2;
    double raw = (b - a) / (max_ticks - 1);
    double mag = pow(10, floor(log10(raw)));
    static const double MULT[] = {1, 2, 5, 10, 20, 50, 100};
    double step = 0, first = 0, last = 0;
    int count = 0;
    /* The smallest nice step whose widened range still fits in max_ticks ticks. */
    for (size_t m = 0; m < sizeof MULT / sizeof *MULT; m++) {
        step = MULT[m] * mag;
        if (step < raw * (1 - 1e-9)) continue;
        first = floor(a / step + 1e-9) * step;
        last = ceil(b / step - 1e-9) * step;
        count = (int)llround((last - first) / step) + 1;
        if (count <= max_ticks) break;
    }
    int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    int big = fmax(fabs(first), fabs(last)) >= 1e6;
    int n = 0;
    for (int i = 0; i < count && n < cap; i++) {
        PlotTick *t = &ticks[n++];
        t->value = first + i * step;
        if (fabs(t->value) < step * 1e-9) t->value = 0;
        t->major = 1;
        if (big)
            snprintf(t->label, sizeof t->label, "%g", t->value);
        else
            format_fixed(t->label, sizeof t->label, t->value, decimals);
    }
    *lo = first;
    *hi = last;
    return n;
}

static void format_log_label(char *out, size_t n, int m, int k) {
    if (k >= -4 && k <= 4)
        format_fixed(out, n, m * pow(10, k), k < 0 ? -k : 0);
    else
        snprintf(out, n, "%de%s%02d", m, k < 0 ? "-" : "+", k < 0 ? -k : k);
}

int plot_log_ticks(double *lo, double *hi, PlotTick *ticks, int cap) {
    double a = *lo, b = *hi;
    if (!(b > 0) || !isfinite(b)) b = 10;
    if (!(a > 0) || !isfinite(a)) a = b / 100;
    if (b < a) {
        double t = a;
        a = b;
        b = t;
    }
    if (a == b) {
        a /= 2;
        b *= 2;
    }
    static const int M[] = {1, 2, 5};
    int k0 = (int)floor(log10(a) + 1e-9), k1 = (int)ceil(log10(b) - 1e-9);
    if (log10(b / a) > 1.5) {
        a = pow(10, k0);
        b = pow(10, k1);
    } else {
        /* Widen to the neighbouring 1-2-5 values instead of whole decades. */
        double na = pow(10, k0), nb = pow(10, k1);
        for (int k = k0; k <= k1; k++)
            for (int i = 0; i < 3; i++) {
                double v = M[i] * pow(10, k);
                if (v <= a * (1 + 1e-9) && v > na) na = v;
                if (v >= b * (1 - 1e-9) && v < nb) nb = v;
            }
        a = na;
        b = nb;
    }
    double decades = log10(b / a);
    int label_minor = decades <= 2.5 + 1e-9;
    int stride = decades > 8 ? (int)ceil(decades / 8) : 1;
    int n = 0;
    for (int k = k0; k <= k1 && n < cap; k++)
        for (int i = 0; i < 3 && n < cap; i++) {
            double v = M[i] * pow(10, k);
            if (v < a * (1 - 1e-9) || v > b * (1 + 1e-9)) continue;
            PlotTick *t = &ticks[n++];
            t->value = v;
            t->major = M[i] == 1;
            int labelled = M[i] == 1 ? ((k % stride) + stride) % stride == 0 : label_minor;
            if (labelled)
                format_log_label(t->label, sizeof t->label, M[i], k);
            else
                t->label[0] = '\0';
        }
    *lo = a;
    *hi = b;
    return n;
}

/* ------------------------------------------------------------ line charts */

int plot_drawn(double x, double y, int log_y) {
    return isfinite(x) && isfinite(y) && (!log_y || y > 0);
}

/* plot_y_range, including the error bars when bars is not NULL. */
static int y_range(const PlotSeries *series, const PlotBars *bars, int n_series, int log_y,
                   double *lo, double *hi) {
    int any = 0;
    for (int s = 0; s < n_series; s++)
        for (int i = 0; i < series[s].n; i++)
            for (int k = 0; k < 3; k++) {
                const double *v = k == 0 ? series[s].y : !bars || !bars[s].lo ? NULL
                                  : k == 1 ? bars[s].lo : bars[s].hi;
                if (!v || !plot_drawn(series[s].x[i], v[i], log_y)) continue;
                if (!any || v[i] < *lo) *lo = v[i];
                if (!any || v[i] > *hi) *hi = v[i];
                any = 1;
            }
    return any;
}

int plot_y_range(const PlotSeries *series, int n_series, int log_y, double *lo, double *hi) {
    return y_range(series, NULL, n_series, log_y, lo, hi);
}

/* plot_x_range, counting only x > 0 when log_x. */
static int x_range(const PlotSeries *series, int n_series, int log_x, double *lo, double *hi) {
    int any = 0;
    for (int s = 0; s < n_series; s++)
        for (int i = 0; i < series[s].n; i++) {
            double x = series[s].x[i];
            if (!isfinite(x) || (log_x && !(x > 0))) continue;
            if (!any || x < *lo) *lo = x;
            if (!any || x > *hi) *hi = x;
            any = 1;
        }
    return any;
}

int plot_x_range(const PlotSeries *series, int n_series, double *lo, double *hi) {
    return x_range(series, n_series, 0, lo, hi);
}

typedef struct {
    double left, top, width, height;  /* plot area */
    double x_lo, x_hi, y_lo, y_hi;
    int log_y, log_x;
} Frame;

/* plot_drawn, and x > 0 on a log x axis. */
static int frame_drawn(const Frame *f, double x, double y) {
    return plot_drawn(x, y, f->log_y) && (!f->log_x || x > 0);
}

static double frame_x(const Frame *f, double v) {
    double t = f->log_x ? (log10(v) - log10(f->x_lo)) / (log10(f->x_hi) - log10(f->x_lo))
                        : (v - f->x_lo) / (f->x_hi - f->x_lo);
    return f->left + t * f->width;
}

static double frame_y(const Frame *f, double v) {
    double t = f->log_y ? (log10(v) - log10(f->y_lo)) / (log10(f->y_hi) - log10(f->y_lo))
                        : (v - f->y_lo) / (f->y_hi - f->y_lo);
    return f->top + (1 - t) * f->height;
}

/* Series attributes shared by the path and its markers: data-run, data-series. */
static void series_data_attrs(Svg *s, const PlotSeries *p) {
    svg_raw(s, " data-run=\"");
    svg_escaped(s, p->run ? p->run : "");
    svg_raw(s, "\" data-series=\"");
    svg_escaped(s, p->name ? p->name : "");
    svg_raw(s, "\"");
}

/* One series as a path broken at unusable values; isolated points get a dot, a series that ends in
 * NaN/inf a cross at its last drawn point. Returns the number of points drawn. */
static int draw_series(Svg *s, const Frame *f, const PlotSeries *p, const PlotBars *b) {
    const char *color = plot_color(p->style), *dash = plot_dash(p->style);
    int drawn = 0;
    for (int i = 0; i < p->n; i++) drawn += frame_drawn(f, p->x[i], p->y[i]);
    svg_raw(s, "<path class=\"series\"");
    series_data_attrs(s, p);
    svg_raw(s, " data-points=\"%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
               "stroke-linejoin=\"round\" stroke-linecap=\"round\"", drawn, color);
    if (*dash) svg_raw(s, " stroke-dasharray=\"%s\"", dash);
    svg_raw(s, " d=\"");
    int pen_down = 0;
    for (int i = 0; i < p->n; i++) {
        if (!frame_drawn(f, p->x[i], p->y[i])) {
            pen_down = 0;
            continue;
        }
        svg_raw(s, "%s%.2f %.2f ", pen_down ? "L" : "M", frame_x(f, p->x[i]), frame_y(f, p->y[i]));
        pen_down = 1;
    }
    svg_raw(s, "\"><title>");
    svg_escaped(s, p->run);
    svg_raw(s, ": ");
    svg_escaped(s, p->name);
    svg_raw(s, "</title></path>\n");
    /* A point with no usable neighbour would be invisible as a path. */
    int last_usable = -1, bad_after = 0;
    for (int i = 0; i < p->n; i++) {
        if (!frame_drawn(f, p->x[i], p->y[i])) {
            if (last_usable >= 0 && isfinite(p->x[i]) && !isfinite(p->y[i])) bad_after = 1;
            continue;
        }
        last_usable = i;
        bad_after = 0;
        int prev = i > 0 && frame_drawn(f, p->x[i - 1], p->y[i - 1]);
        int next = i + 1 < p->n && frame_drawn(f, p->x[i + 1], p->y[i + 1]);
        if (!prev && !next)
            svg_raw(s, "<circle class=\"marker\" cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"%s\"/>\n",
                    frame_x(f, p->x[i]), frame_y(f, p->y[i]), color);
    }
    if (last_usable >= 0 && bad_after) {
        double cx = frame_x(f, p->x[last_usable]), cy = frame_y(f, p->y[last_usable]);
        svg_raw(s, "<path class=\"diverged\"");
        series_data_attrs(s, p);
        svg_raw(s, " d=\"M%.2f %.2f L%.2f %.2f M%.2f %.2f L%.2f %.2f\" stroke=\"%s\" "
                   "stroke-width=\"2.5\" fill=\"none\"><title>",
                cx - 5, cy - 5, cx + 5, cy + 5, cx - 5, cy + 5, cx + 5, cy - 5, color);
        svg_escaped(s, p->run);
        svg_raw(s, ": last finite value; the next is NaN or infinite</title></path>\n");
    }
    for (int i = 0; b && b->lo && i < p->n; i++) {
        if (!frame_drawn(f, p->x[i], p->y[i]) || !frame_drawn(f, p->x[i], b->lo[i]) ||
            !frame_drawn(f, p->x[i], b->hi[i]))
            continue;
        double cx = frame_x(f, p->x[i]), lo = frame_y(f, b->lo[i]), hi = frame_y(f, b->hi[i]);
        svg_raw(s, "<path class=\"errorbar\"");
        series_data_attrs(s, p);
        svg_raw(s, " d=\"M%.2f %.2f L%.2f %.2f M%.2f %.2f L%.2f %.2f M%.2f %.2f L%.2f %.2f\" "
                   "stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\"/>\n",
                cx, lo, cx, hi, cx - 4, lo, cx + 4, lo, cx - 4, hi, cx + 4, hi, color);
    }
    return drawn;
}

int plot_lines(Svg *s, double x, double y, double w, double h, const PlotAxes *ax,
               const PlotSeries *series, int n_series) {
    return plot_lines_bars(s, x, y, w, h, ax, series, NULL, n_series);
}

int plot_lines_bars(Svg *s, double x, double y, double w, double h, const PlotAxes *ax,
                    const PlotSeries *series, const PlotBars *bars, int n_series) {
    Frame f = {.log_y = ax->log_y, .log_x = ax->log_x};
    double lo = 0, hi = 1;
    if (!x_range(series, n_series, ax->log_x, &lo, &hi))
        lo = ax->log_x ? 0.1 : 0, hi = ax->log_x ? 10 : 1;
    f.x_lo = isnan(ax->x_lo) ? lo : ax->x_lo;
    f.x_hi = isnan(ax->x_hi) ? hi : ax->x_hi;
    int any = y_range(series, bars, n_series, ax->log_y, &lo, &hi);
    if (!any) lo = ax->log_y ? 0.1 : 0, hi = ax->log_y ? 10 : 1;
    if (!ax->log_y && ax->y_from_zero) {
        if (lo > 0) lo = 0;
        if (hi < 0) hi = 0;
    }
    f.y_lo = isnan(ax->y_lo) ? lo : ax->y_lo;
    f.y_hi = isnan(ax->y_hi) ? hi : ax->y_hi;

    const double title_h = 26, bottom_h = 42, right_pad = 16;
    f.top = y + title_h;
    f.height = h - title_h - bottom_h;
    PlotTick yt[PLOT_MAX_TICKS], xt[PLOT_MAX_TICKS];
    int nyt = ax->log_y ? plot_log_ticks(&f.y_lo, &f.y_hi, yt, PLOT_MAX_TICKS)
                        : plot_nice_ticks(&f.y_lo, &f.y_hi, (int)(f.height / 36) + 1, yt,
                                          PLOT_MAX_TICKS);
    double label_w = 0;
    for (int i = 0; i < nyt; i++) label_w = fmax(label_w, plot_text_width(yt[i].label, 11));
    f.left = x + 22 + label_w + 8;
    f.width = x + w - right_pad - f.left;
    int nxt = ax->log_x ? plot_log_ticks(&f.x_lo, &f.x_hi, xt, PLOT_MAX_TICKS)
                        : plot_nice_ticks(&f.x_lo, &f.x_hi, (int)(f.width / 80) + 1, xt,
                                          PLOT_MAX_TICKS);
    double right = f.left + f.width, bottom = f.top + f.height;

    svg_raw(s, "<g class=\"chart\">\n");
    svg_text(s, f.left + f.width / 2, y + 17,
             "text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\"", ax->title);
    svg_rect(s, f.left, f.top, f.width, f.height, "fill=\"#ffffff\" stroke=\"none\"");
    for (int i = 0; i < nyt; i++) {
        double py = frame_y(&f, yt[i].value);
        svg_line(s, f.left, py, right, py,
                 yt[i].major ? "stroke=\"#d9d9d9\" stroke-width=\"1\""
                             : "stroke=\"#efefef\" stroke-width=\"1\"");
        svg_line(s, f.left - 4, py, f.left, py, "stroke=\"#555555\"");
        if (yt[i].label[0])
            svg_text(s, f.left - 6, py + 4, "text-anchor=\"end\" font-size=\"11\" fill=\"#333333\"",
                     yt[i].label);
    }
    for (int i = 0; i < nxt; i++) {
        double px = frame_x(&f, xt[i].value);
        svg_line(s, px, f.top, px, bottom,
                 xt[i].major ? "stroke=\"#e6e6e6\" stroke-width=\"1\""
                             : "stroke=\"#f3f3f3\" stroke-width=\"1\"");
        svg_line(s, px, bottom, px, bottom + 4, "stroke=\"#555555\"");
        if (xt[i].label[0])
            svg_text(s, px, bottom + 16,
                     "text-anchor=\"middle\" font-size=\"11\" fill=\"#333333\"", xt[i].label);
    }
    svg_rect(s, f.left, f.top, f.width, f.height, "fill=\"none\" stroke=\"#888888\"");
    svg_text(s, f.left + f.width / 2, bottom + 34, "text-anchor=\"middle\" font-size=\"12\"",
             ax->x_label);
    double ly = f.top + f.height / 2;
    svg_raw(s, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" "
               "text-anchor=\"middle\" font-size=\"12\">", x + 14, ly, x + 14, ly);
    svg_escaped(s, ax->y_label);
    svg_raw(s, "</text>\n");

    /* Clip to the plot area, widened by half a stroke so a line along an edge (100%) shows. */
    int id = svg_new_id(s);
    svg_raw(s, "<defs><clipPath id=\"clip%d\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
               "height=\"%.2f\"/></clipPath></defs>\n<g clip-path=\"url(#clip%d)\">\n",
            id, f.left - 3, f.top - 3, f.width + 6, f.height + 6, id);
    int points = 0;
    for (int i = 0; i < n_series; i++)
        points += draw_series(s, &f, &series[i], bars ? &bars[i] : NULL);
    svg_raw(s, "</g>\n</g>\n");
    return points;
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

/* --------------------------------------------------------------- heatmaps */

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
