/* panels.c: the grid of line-chart panels of the --compare figures (see figure_internal.h): building a
 * figure's panels, reading their lines from the logs, shared y ranges, and writing the SVG. */
#include "report/figure/figure_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runlog/log_query.h"
#include "util/error_list.h"

Figure figure_init(const Run *runs, int n) {
    return (Figure){.n_runs = n, .x_max = max_last_step(runs, n, "step")};
}

Panel *figure_panel(Figure *f, const char *title, const char *series, const char *y_label,
                    int log_y, int span) {
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 8;
        Panel *p = realloc(f->p, (size_t)cap * sizeof *p);
        if (!p) {
            f->failed = 1;
            return NULL;
        }
        f->p = p;
        f->cap = cap;
    }
    Panel *p = &f->p[f->n];
    p->xy = calloc((size_t)f->n_runs, sizeof *p->xy);
    if (!p->xy) {
        f->failed = 1;
        return NULL;
    }
    f->n++;
    p->ax = (PlotAxes){.title = title, .x_label = "step", .y_label = y_label, .log_y = log_y,
                       .x_lo = 0, .x_hi = f->x_max, .y_lo = NAN, .y_hi = NAN, .y_from_zero = 1};
    p->series = series;
    p->span = span;
    p->ref_label = NULL;
    p->ref_y = NAN;
    return p;
}

void figure_free(Figure *f) {
    for (int i = 0; i < f->n; i++) {
        for (int r = 0; r < f->n_runs; r++) {
            free(f->p[i].xy[r].x);
            free(f->p[i].xy[r].y);
        }
        free(f->p[i].xy);
    }
    free(f->p);
    memset(f, 0, sizeof *f);
}

static int xy_alloc(XY *xy, int n) {
    xy->present = 1;
    xy->n = 0;
    if (n == 0) return 0;
    xy->x = malloc((size_t)n * sizeof *xy->x);
    xy->y = malloc((size_t)n * sizeof *xy->y);
    return xy->x && xy->y ? 0 : -1;
}

int xy_column(XY *xy, const Csv *t, const char *name, double scale) {
    if (xy_alloc(xy, t->n_rows)) return -1;
    int cs = csv_col(t, "step"), c = csv_col(t, name);
    if (c < 0) return 0;
    for (int r = 0; r < t->n_rows; r++) {
        if (csv_empty(t, r, c)) continue;
        xy->x[xy->n] = csv_num(t, r, cs);
        xy->y[xy->n++] = csv_num(t, r, c) * scale;
    }
    return 0;
}

int xy_attention(XY *xy, const Csv *t, int layer, const char *name, double scale) {
    if (xy_alloc(xy, t->n_rows)) return -1;
    int cs = csv_col(t, "step"), cl = csv_col(t, "layer"), c = csv_col(t, name);
    if (cs < 0 || cl < 0 || c < 0) return 0;
    double sum = 0;
    int count = 0;
    /* Rows come grouped by step (the trainer writes all layers and heads of a step together). */
    for (int r = 0; r <= t->n_rows; r++) {
        int boundary = r == t->n_rows || (r > 0 && csv_num(t, r, cs) != csv_num(t, r - 1, cs));
        if (boundary && count > 0) {
            xy->x[xy->n] = csv_num(t, r - 1, cs);
            xy->y[xy->n++] = sum / count * scale;
            sum = 0;
            count = 0;
        }
        if (r == t->n_rows) break;
        if (csv_num(t, r, cl) != layer || csv_empty(t, r, c)) continue;
        sum += csv_num(t, r, c);
        count++;
    }
    return 0;
}

int share_y_range(Figure *f, int first, int last, int stride, const Run *runs) {
    double lo = INFINITY, hi = -INFINITY;
    for (int i = first; i < last; i += stride)
        for (int r = 0; r < f->n_runs; r++) {
            PlotSeries s = {runs[r].name, "", f->p[i].xy[r].x, f->p[i].xy[r].y, f->p[i].xy[r].n, r};
            double a, b;
            if (plot_y_range(&s, 1, f->p[i].ax.log_y, &a, &b)) lo = fmin(lo, a), hi = fmax(hi, b);
        }
    if (lo > hi) return 0;
    for (int i = first; i < last; i += stride) f->p[i].ax.y_lo = lo, f->p[i].ax.y_hi = hi;
    return 1;
}

int save_figure(Svg *s, const char *dir, const char *file) {
    char path[PATH_MAX], failed[PATH_MAX + 8];
    int rc = 0, err = 0;
    snprintf(failed, sizeof failed, "%s/%s", dir, file);
    if (log_path(path, sizeof path, dir, file) != 0 || svg_end(s) != 0 ||
        svg_save_why(s, path, failed, sizeof failed) != 0) {
        err = errno;
        /* the file that failed: the figure's temporary file (say a folder of that name) is not
         * the figure, and the error must send the user to the one to look at */
        error_add(NULL, 0, NULL, "cannot write '%s': %s", failed, strerror(err));
        rc = -1;
    }
    svg_free(s);
    errno = err; /* for the page's note of the missing figure (figures_write) */
    return rc;
}

int figure_write(const Figure *f, const Run *runs, const char *title, const char *dir,
                 const char *file) {
    const int cols = 2;
    double width = cols * PANEL_W + 2 * MARGIN;
    PlotLegendItem *items = calloc((size_t)f->n_runs + 1, sizeof *items);
    PlotSeries *series = calloc((size_t)f->n_runs + 1, sizeof *series);
    int n_items = 0, rows = 0, col = cols;
    if (!items || !series) goto oom;
    for (int r = 0; r < f->n_runs; r++) {
        int present = 0;
        for (int i = 0; i < f->n; i++) present |= f->p[i].xy[r].present;
        if (present) items[n_items++] = (PlotLegendItem){runs[r].name, r};
    }
    for (int i = 0; i < f->n; i++)
        if (f->p[i].ref_label) {
            items[n_items++] = (PlotLegendItem){f->p[i].ref_label, PLOT_STYLE_REFERENCE};
            break;
        }
    /* A reference line runs from step 0 to far past the last step: the chart widens its x axis
     * to whole ticks and clips the line at the frame, so it spans the plot whatever the ticks. */
    double ref_x[2] = {0, 100 * (f->x_max > 0 ? f->x_max : 1)}, ref_y[2];
    for (int i = 0; i < f->n; i++) {
        if (col + f->p[i].span > cols) rows++, col = 0;
        col += f->p[i].span;
    }
    double legend_h = plot_legend(NULL, MARGIN, 0, width - 2 * MARGIN, items, n_items);
    double top = 44 + legend_h + 8;
    Svg s;
    svg_begin(&s, width, top + rows * PANEL_H + MARGIN, title);
    svg_text(&s, MARGIN, 28, "font-size=\"17\" font-weight=\"bold\"", title);
    plot_legend(&s, MARGIN, 40, width - 2 * MARGIN, items, n_items);
    double y = top - PANEL_H;
    col = cols;
    for (int i = 0; i < f->n; i++) {
        const Panel *p = &f->p[i];
        if (col + p->span > cols) y += PANEL_H, col = 0;
        int n = 0;
        for (int r = 0; r < f->n_runs; r++)
            if (p->xy[r].present)
                series[n++] = (PlotSeries){runs[r].name, p->series, p->xy[r].x, p->xy[r].y,
                                           p->xy[r].n, r};
        if (p->ref_label) {
            ref_y[0] = ref_y[1] = p->ref_y;
            /* its run name is the Show bar's label for it (html.c): it is the chance level, not
             * a run someone trained as a reference */
            series[n++] = (PlotSeries){"chance", p->ref_label, ref_x, ref_y, 2,
                                       PLOT_STYLE_REFERENCE};
        }
        plot_lines(&s, MARGIN + col * PANEL_W, y, p->span * PANEL_W, PANEL_H - 8, &p->ax, series,
                   n);
        col += p->span;
    }
    free(items);
    free(series);
    return save_figure(&s, dir, file);
oom:
    free(items);
    free(series);
    error_add(NULL, 0, NULL, "out of memory drawing %s", file);
    return -1;
}
