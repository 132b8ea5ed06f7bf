/* plot_lines.c: line charts -- the data's ranges, the frame with its grid, ticks and axis labels,
 * and one path per series (broken at values it cannot draw, with markers and error bars). Ticks
 * come from plot_ticks.c, styles from plot_style.c. Report stage (... -> logs -> report): the
 * figures' panels (panels.c) and the sweep figures (sweep_figures.c) are drawn with it. */
#include <math.h>
#include <stdio.h>

#include "report/plot/plot.h"

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

/* The series' <path>: its data attributes (the drawn points' values too, in the order of the
 * path's vertices, for the page's tooltip), broken at unusable values, and its <title>. */
static void series_path(Svg *s, const Frame *f, const PlotSeries *p, int drawn) {
    const char *color = plot_color(p->style), *dash = plot_dash(p->style);
    svg_raw(s, "<path class=\"series\"");
    series_data_attrs(s, p);
    svg_raw(s, " data-points=\"%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
               "stroke-linejoin=\"round\" stroke-linecap=\"round\"", drawn, color);
    if (*dash) svg_raw(s, " stroke-dasharray=\"%s\"", dash);
    /* The drawn points' data values, in the order of the path's vertices (the page's tooltip). */
    for (int k = 0; k < 2; k++) {
        svg_raw(s, k ? "\" data-y=\"" : " data-x=\"");
        for (int i = 0, first = 1; i < p->n; i++)
            if (frame_drawn(f, p->x[i], p->y[i])) {
                if (k) svg_raw(s, first ? "%.6g" : " %.6g", p->y[i]);
                else svg_raw(s, first ? "%.9g" : " %.9g", p->x[i]);
                first = 0;
            }
    }
    svg_raw(s, "\" d=\"");
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
}

/* A dot at each point with no usable neighbour (invisible as a path), and a cross at the last
 * drawn point when the series goes on in NaN/inf after it. */
static void series_markers(Svg *s, const Frame *f, const PlotSeries *p) {
    const char *color = plot_color(p->style);
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
        if (!prev && !next) {
            svg_raw(s, "<circle class=\"marker\"");
            series_data_attrs(s, p); /* hidden with its run on the page */
            svg_raw(s, " cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"%s\"/>\n", frame_x(f, p->x[i]),
                    frame_y(f, p->y[i]), color);
        }
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
}

/* A capped error bar at each drawn point whose bar ends are drawable too (b may be NULL). */
static void series_bars(Svg *s, const Frame *f, const PlotSeries *p, const PlotBars *b) {
    const char *color = plot_color(p->style);
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
}

/* One series as a path broken at unusable values; isolated points get a dot, a series that ends in
 * NaN/inf a cross at its last drawn point. Returns the number of points drawn. */
static int draw_series(Svg *s, const Frame *f, const PlotSeries *p, const PlotBars *b) {
    int drawn = 0;
    for (int i = 0; i < p->n; i++) drawn += frame_drawn(f, p->x[i], p->y[i]);
    series_path(s, f, p, drawn);
    series_markers(s, f, p);
    series_bars(s, f, p, b);
    return drawn;
}

static void frame_draw(Svg *s, double x, double y, double w, double h, const PlotAxes *ax,
                       Frame *fp);

int plot_lines(Svg *s, double x, double y, double w, double h, const PlotAxes *ax,
               const PlotSeries *series, int n_series) {
    return plot_lines_bars(s, x, y, w, h, ax, series, NULL, n_series);
}

int plot_lines_bars(Svg *s, double x, double y, double w, double h, const PlotAxes *ax,
                    const PlotSeries *series, const PlotBars *bars, int n_series) {
    Frame f = {.log_y = ax->log_y, .log_x = ax->n_x_names > 0 ? 0 : ax->log_x};
    double lo = 0, hi = 1;
    if (ax->n_x_names > 0) lo = -0.5, hi = ax->n_x_names - 0.5;
    else if (!x_range(series, n_series, ax->log_x, &lo, &hi))
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
    frame_draw(s, x, y, w, h, ax, &f);
    int points = 0;
    for (int i = 0; i < n_series; i++)
        points += draw_series(s, &f, &series[i], bars ? &bars[i] : NULL);
    svg_raw(s, "</g>\n</g>\n");
    return points;
}

/* The ticks of a categorical x axis: one at each i < n_x_names, labelled with its name. */
static int name_ticks(const PlotAxes *ax, PlotTick *t, int cap) {
    int n = ax->n_x_names < cap ? ax->n_x_names : cap;
    for (int i = 0; i < n; i++) {
        t[i] = (PlotTick){.value = i, .major = 1};
        snprintf(t[i].label, sizeof t[i].label, "%s", ax->x_names[i] ? ax->x_names[i] : "");
    }
    return n;
}

/* The chart's title, frame, grid, ticks and axis labels in (x, y, w, h) for the data range in f
 * (widened to whole ticks and written back, with the plot area), then an open clip group for the
 * data: the caller draws into it and closes both groups with "</g>\n</g>\n". */
static void frame_draw(Svg *s, double x, double y, double w, double h, const PlotAxes *ax,
                       Frame *fp) {
    Frame f = *fp;
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
    int nxt = ax->n_x_names > 0 ? name_ticks(ax, xt, PLOT_MAX_TICKS)
              : ax->log_x == PLOT_LOG2 ? plot_log2_ticks(&f.x_lo, &f.x_hi, xt, PLOT_MAX_TICKS)
              : ax->log_x ? plot_log_ticks(&f.x_lo, &f.x_hi, xt, PLOT_MAX_TICKS)
                        : plot_nice_ticks(&f.x_lo, &f.x_hi, (int)(f.width / 80) + 1, xt,
                                          PLOT_MAX_TICKS);
    double right = f.left + f.width, bottom = f.top + f.height;

    svg_raw(s, "<g class=\"chart\" data-x-label=\"");
    svg_escaped(s, ax->x_label ? ax->x_label : "");
    svg_raw(s, "\" data-y-label=\"");
    svg_escaped(s, ax->y_label ? ax->y_label : "");
    svg_raw(s, "\">\n");
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
    *fp = f;
}

/* ------------------------------------------------------------------ scatter charts */

/* A marker's outline path centred on (px, py), radius r: circle, square, triangle, diamond. */
static void marker_path(Svg *s, int shape, double px, double py, double r) {
    switch (shape % 4) {
    case 0:
        svg_raw(s, "M%.2f %.2f a%.2f %.2f 0 1 0 %.2f 0 a%.2f %.2f 0 1 0 %.2f 0 Z", px - r, py, r, r,
                2 * r, r, r, -2 * r);
        break;
    case 1:
        svg_raw(s, "M%.2f %.2f h%.2f v%.2f h%.2f Z", px - 0.85 * r, py - 0.85 * r, 1.7 * r, 1.7 * r,
                -1.7 * r);
        break;
    case 2:
        svg_raw(s, "M%.2f %.2f L%.2f %.2f L%.2f %.2f Z", px, py - 1.1 * r, px + r, py + 0.75 * r,
                px - r, py + 0.75 * r);
        break;
    default:
        svg_raw(s, "M%.2f %.2f L%.2f %.2f L%.2f %.2f L%.2f %.2f Z", px, py - 1.2 * r, px + r, py,
                px, py + 1.2 * r, px - r, py);
    }
}

int plot_scatter(Svg *s, double x, double y, double w, double h, const PlotAxes *ax,
                 const PlotPoint *pts, int n) {
    Frame f = {.log_y = ax->log_y, .log_x = ax->log_x};
    int any_x = 0, any_y = 0;
    double xl = 0, xh = 1, yl = 0, yh = 1;
    for (int i = 0; i < n; i++) {
        if (!isfinite(pts[i].x) || (ax->log_x && !(pts[i].x > 0))) continue;
        if (!any_x || pts[i].x < xl) xl = pts[i].x;
        if (!any_x || pts[i].x > xh) xh = pts[i].x;
        any_x = 1;
        if (!plot_drawn(pts[i].x, pts[i].y, ax->log_y)) continue;
        if (!any_y || pts[i].y < yl) yl = pts[i].y;
        if (!any_y || pts[i].y > yh) yh = pts[i].y;
        any_y = 1;
    }
    if (!any_x) xl = ax->log_x ? 0.1 : 0, xh = ax->log_x ? 10 : 1;
    if (!any_y) yl = ax->log_y ? 0.1 : 0, yh = ax->log_y ? 10 : 1;
    if (!ax->log_y && ax->y_from_zero && yl > 0) yl = 0;
    f.x_lo = isnan(ax->x_lo) ? xl : ax->x_lo;
    f.x_hi = isnan(ax->x_hi) ? xh : ax->x_hi;
    f.y_lo = isnan(ax->y_lo) ? yl : ax->y_lo;
    f.y_hi = isnan(ax->y_hi) ? yh : ax->y_hi;
    frame_draw(s, x, y, w, h, ax, &f);
    int drawn = 0;
    for (int i = 0; i < n; i++) {
        const PlotPoint *p = &pts[i];
        if (!frame_drawn(&f, p->x, p->y)) continue;
        double px = frame_x(&f, p->x), py = frame_y(&f, p->y);
        const char *color = plot_color(p->style);
        svg_raw(s, "<path class=\"point\" data-run=\"");
        svg_escaped(s, p->run ? p->run : "");
        svg_raw(s, "\" data-x=\"%.6g\" data-y=\"%.6g\" data-censored=\"%d\" d=\"", p->x, p->y,
                p->censored);
        marker_path(s, p->marker, px, py, 4.5);
        if (p->censored)
            svg_raw(s, "\" fill=\"#ffffff\" stroke=\"%s\" stroke-width=\"1.6\">", color);
        else
            svg_raw(s, "\" fill=\"%s\" fill-opacity=\"0.8\" stroke=\"%s\">", color, color);
        svg_raw(s, "<title>");
        svg_escaped(s, p->run ? p->run : "");
        svg_raw(s, "</title></path>\n");
        /* a censored value is a bound: an arrow from the marker towards where the value lies */
        if (p->censored)
            svg_raw(s, "<path class=\"censor-arrow\" d=\"M%.2f %.2f v%.2f m-3 %.2f l3 %.2f l3 %.2f\" "
                       "fill=\"none\" stroke=\"%s\" stroke-width=\"1.4\"/>\n",
                    px, py - 5.5 * p->censored, -9.0 * p->censored, 3.0 * p->censored,
                    -3.0 * p->censored, 3.0 * p->censored, color);
        drawn++;
    }
    svg_raw(s, "</g>\n</g>\n");
    return drawn;
}
