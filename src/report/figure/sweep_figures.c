/* sweep_figures.c: the figures of a sweep report (see figure.h). Reading order: one figure
 * onto disk, the lines against d_k, the three d_k figures, the lr figure, the figure of any other
 * varied column, sweep_figures_write. */
#include "report/figure/figure.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/plot/plot.h"
#include "report/read/read.h"
#include "util/error_list.h"

#define FIG_W 760.0
#define CHART_H 440.0
#define MARGIN 16.0
#define MAX_LINES 64
/* The log x axis reaches this factor beyond the first and last point, so none sits on the frame
 * (a d_k axis of powers of two keeps it, ticked at them; plot_log_ticks widens any other to 1-2-5
 * values, or to whole decades past 1.5 decades). */
#define X_PAD 1.25

/* Legend, a note line and the chart; saved as dir/file. Returns 0, or -1 after a message naming
 * the file that failed, with the caption saying so written to cap (figure.h). */
static int save_chart(const char *dir, const char *file, const PlotAxes *ax,
                      const PlotSeries *s, const PlotBars *bars, int ns,
                      const char *const *labels, const char *note, FILE *cap) {
    PlotLegendItem items[MAX_LINES + 1];
    for (int i = 0; i < ns; i++) items[i] = (PlotLegendItem){labels[i], s[i].style};
    double legend_h = plot_legend(NULL, MARGIN, 0, FIG_W - 2 * MARGIN, items, ns);
    double top = MARGIN + legend_h + 22;
    Svg svg;
    svg_begin(&svg, FIG_W, top + CHART_H, ax->title);
    plot_legend(&svg, MARGIN, MARGIN, FIG_W - 2 * MARGIN, items, ns);
    svg_text(&svg, MARGIN, MARGIN + legend_h + 10, "font-size=\"11\" fill=\"#555555\"", note);
    plot_lines_bars(&svg, 0, top, FIG_W, CHART_H, ax, s, bars, ns);
    char path[SWEEP_DIR_MAX + 160], failed[SWEEP_DIR_MAX + 168]; /* dir: sweep_report_check_folder */
    snprintf(path, sizeof path, "%s/%s", dir, file);
    snprintf(failed, sizeof failed, "%s", path);
    int rc = svg_end(&svg) == 0 && svg_save_why(&svg, path, failed, sizeof failed) == 0 ? 0 : -1;
    if (rc) {
        int err = errno;
        /* the file that failed: the figure, or its temporary file */
        error_add(NULL, 0, NULL, "cannot write '%s': %s", failed, strerror(err));
        fprintf(cap, "%s: " SWEEP_FIGURE_NOT_WRITTEN "%s)\n", file, strerror(err));
        /* an earlier report's copy of it must not stand in for this one: sweep_report removes
         * it with every figure of the manifest's this report did not write (owned_dir.h) */
    }
    svg_free(&svg);
    return rc;
}

/* ------------------------------------------------------------ lines against d_k */

typedef struct {
    double x[MAX_LINES], y[MAX_LINES], lo[MAX_LINES], hi[MAX_LINES];
    int n;
} Points;

/* True when rows that agree on the varied columns in mask also agree on column k: k then moves
 * with them (d_model = d_k in a one-head d_k sweep) instead of making lines of its own. */
static int follows(const SweepTable *t, int k, unsigned mask) {
    for (int i = 0; i < t->n_rows; i++)
        for (int j = 0; j < i; j++) {
            int same = 1;
            for (int c = 0; c < t->n_keys && same; c++)
                same = !(mask >> c & 1u) || strcmp(sweep_key_value(t, &t->rows[i], c),
                                                   sweep_key_value(t, &t->rows[j], c)) == 0;
            if (same && strcmp(sweep_key_value(t, &t->rows[i], k),
                               sweep_key_value(t, &t->rows[j], k)) != 0)
                return 0;
        }
    return 1;
}

/* Metric m (times scale) of line g: its median, min and max over the rows at each d_k, ascending
 * d_k; at most MAX_LINES d_k values. */
static void dk_points(const SweepTable *t, const SweepGroup *g, int dk, SweepMetric m,
                      double scale, Points *p) {
    p->n = 0;
    for (int i = 0; i < g->n; i++) {
        double x = strtod(sweep_key_value(t, &t->rows[g->rows[i]], dk), NULL);
        int j = 0;
        while (j < p->n && p->x[j] < x) j++;
        if ((j < p->n && p->x[j] == x) || p->n == MAX_LINES) continue;
        memmove(p->x + j + 1, p->x + j, sizeof *p->x * (size_t)(p->n - j));
        p->x[j] = x;
        p->n++;
    }
    int *rows = malloc(sizeof *rows * (size_t)(g->n > 0 ? g->n : 1));
    for (int j = 0; j < p->n; j++) {
        SweepGroup at = {.rows = rows, .n = 0};
        for (int i = 0; rows && i < g->n; i++)
            if (strtod(sweep_key_value(t, &t->rows[g->rows[i]], dk), NULL) == p->x[j])
                rows[at.n++] = g->rows[i];
        SweepStat s = sweep_stat(t, &at, m, scale);
        p->y[j] = s.median, p->lo[j] = s.lo, p->hi[j] = s.hi;
    }
    free(rows);
}

/* The words of a figure of the final accuracy against column `against`: its title, y label and
 * what its caption says is drawn, each n bytes, naming what the accuracy is (sweep_acc_name). */
static void acc_words(const SweepTable *t, const char *against, char *title, char *y_label,
                      char *what, size_t n) {
    const char *acc = sweep_acc_name(t);
    snprintf(title, n, "Final validation %s against %s", acc, against);
    snprintf(y_label, n, "%s (%%)", acc);
    snprintf(what, n, "the final validation %s (%%)", acc);
}

/* A chart's title, y label and caption words; NULL title: the accuracy's (acc_words), NULL
 * y_label: the loss's unit, per answer token or per byte (on text). */
typedef struct {
    const char *file, *title, *y_label, *what;
    SweepMetric m;
    double scale;
    int log_y;
} DkChart;

static const DkChart DK_CHARTS[] = {
    {"sweep_accuracy.svg", NULL, NULL, NULL, SW_VAL_ACC, 100, 0},
    {"sweep_loss.svg", "Final validation loss against d_k", NULL, "the final validation loss",
     SW_VAL_LOSS, 1, 0},
    {"sweep_logit_std.svg", "Attention-logit std at step 0 against d_k",
     "logit std at step 0, layer 0 (log scale)",
     "the attention-logit std at step 0 (layer 0, mean over heads)", SW_STD0, 1, 1},
};
#define N_DK_CHARTS ((int)(sizeof DK_CHARTS / sizeof *DK_CHARTS))

/* True when every x of the lines is a power of two (d_k = 8, 16, ..., 128): the d_k axis is then
 * ticked at them, else at 1-2-5 values. */
static int powers_of_two(const Points *pts, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < pts[i].n; j++) {
            double d = pts[i].x[j];
            if (!(d > 0) || exp2(round(log2(d))) != d) return 0;
        }
    return 1;
}

/* One d_k chart (ch) of the lines of groups g[0..ng), each point from the group's rows at a
 * d_k (pts: ng lines' room). Returns 0 when written, its caption on cap, or -1. */
static int dk_chart(const SweepTable *t, const DkChart *ch, const SweepGroup *g, int ng, int dk,
                    Points *pts, const char *dir, FILE *cap) {
    PlotSeries s[MAX_LINES];
    PlotBars bars[MAX_LINES];
    const char *labels[MAX_LINES];
    for (int i = 0; i < ng; i++) {
        dk_points(t, &g[i], dk, ch->m, ch->scale, &pts[i]);
        s[i] = (PlotSeries){g[i].label, "median over seeds", pts[i].x, pts[i].y, pts[i].n, i};
        bars[i] = (PlotBars){pts[i].lo, pts[i].hi};
        labels[i] = g[i].label;
    }
    static const char *const LOSS_UNIT[] = {
        [SWEEP_ACC_ANSWER] = "validation loss (nats/answer token)",
        [SWEEP_ACC_NEXT_BYTE] = "validation loss (nats/byte)",
        [SWEEP_ACC_MIXED] = "validation loss (nats/answer token; nats/byte on text)",
    };
    char title[160], y_label[160], what[160];
    if (ch->title) {
        snprintf(title, sizeof title, "%s", ch->title);
        snprintf(y_label, sizeof y_label, "%s", ch->y_label ? ch->y_label : LOSS_UNIT[t->acc]);
        snprintf(what, sizeof what, "%s", ch->what);
    } else {
        acc_words(t, "d_k", title, y_label, what, sizeof title);
    }
    PlotAxes ax = {.title = title, .x_label = "d_k (log scale)", .y_label = y_label,
                   .log_y = ch->log_y, .log_x = PLOT_LOG2, .x_lo = NAN, .x_hi = NAN,
                   .y_lo = NAN, .y_hi = NAN, .y_from_zero = !ch->log_y};
    if (ch->m == SW_VAL_ACC) ax.y_lo = 0, ax.y_hi = 100;
    double lo = NAN, hi = NAN;
    for (int i = 0; i < ng; i++)
        for (int j = 0; j < pts[i].n; j++) {
            if (!(pts[i].x[j] >= lo)) lo = pts[i].x[j];
            if (!(pts[i].x[j] <= hi)) hi = pts[i].x[j];
        }
    if (lo > 0) ax.x_lo = lo / X_PAD, ax.x_hi = hi * X_PAD;
    if (!powers_of_two(pts, ng)) ax.log_x = 1;
    const char *note = "lines: median over seeds; bars: min to max over seeds; "
                       "one line per setting of the other varied columns";
    if (save_chart(dir, ch->file, &ax, s, bars, ng, labels, note, cap) != 0) return -1;
    fprintf(cap, "%s: %s against d_k (log x axis), one line per setting of the varied "
                 "columns other than d_k and seed; each point is the median over the "
                 "seeds that measured it, the bar spans their minimum to maximum.\n",
            ch->file, what);
    return 0;
}

/* The varied columns the d_k figures draw no line of their own for: d_k (their x), the seed
 * (the bars), and d_model = d_k · n_heads when it moves with d_k, and n_heads when d_k and the
 * width fix it. */
static unsigned dk_ignored(const SweepTable *t, int dk) {
    int seed = sweep_key(t, "seed");
    unsigned ignore = 1u << dk | (seed >= 0 ? 1u << seed : 0u);
    /* d_k = d_model / n_heads: a width that moves with d_k is no line of its own, and neither are
     * heads that d_k and the width fix (lines then compare widths). */
    int width = sweep_key(t, "d_model"), heads = sweep_key(t, "n_heads");
    unsigned shape = 1u << dk;
    if (width >= 0 && follows(t, width, shape)) ignore |= 1u << width;
    if (width >= 0) shape |= 1u << width;
    if (heads >= 0 && follows(t, heads, shape)) ignore |= 1u << heads;
    return ignore;
}

/* The three d_k figures. Returns the number written, or -1. */
static int dk_figures(const SweepTable *t, const char *dir, FILE *cap) {
    int dk = sweep_key(t, "d_k");
    SweepGroup *g;
    int n_groups = sweep_groups(t, dk_ignored(t, dk), &g);
    Points *pts = n_groups >= 0 ? calloc((size_t)(n_groups > 0 ? n_groups : 1), sizeof *pts) : NULL;
    if (!pts) {
        fprintf(stderr, "error: out of memory drawing the d_k figures\n");
        if (n_groups >= 0) sweep_groups_free(g, n_groups);
        return -1;
    }
    int ng = n_groups < MAX_LINES ? n_groups : MAX_LINES; /* lines drawn */
    int rc = 0, written = 0;
    for (int c = 0; c < N_DK_CHARTS; c++) { /* one that fails leaves the others to be written */
        if (dk_chart(t, &DK_CHARTS[c], g, ng, dk, pts, dir, cap) != 0) rc = -1;
        else written++;
    }
    free(pts);
    sweep_groups_free(g, n_groups);
    return rc ? -1 : written;
}

/* ------------------------------------------------------------ loss against lr */

static int lr_figure(const LrGroup *lr, int n, const char *dir, FILE *cap) {
    if (n > MAX_LINES) n = MAX_LINES;
    PlotSeries s[MAX_LINES + 1];
    PlotBars bars[MAX_LINES + 1];
    const char *labels[MAX_LINES + 1];
    memset(s, 0, sizeof s);
    memset(bars, 0, sizeof bars);
    memset(labels, 0, sizeof labels);
    double x[MAX_LINES][LR_MAX_GRID], y[MAX_LINES][LR_MAX_GRID];
    double lo[MAX_LINES][LR_MAX_GRID], hi[MAX_LINES][LR_MAX_GRID];
    double l0 = 0, x_min = NAN, x_max = NAN;
    int n0 = 0;
    for (int k = 0; k < n; k++) {
        for (int p = 0; p < lr[k].n; p++) {
            x[k][p] = lr[k].pt[p].lr;
            y[k][p] = lr[k].pt[p].loss_median;
            lo[k][p] = lr[k].pt[p].loss_lo;
            hi[k][p] = lr[k].pt[p].loss_hi;
            if (!(x[k][p] >= x_min)) x_min = x[k][p];
            if (!(x[k][p] <= x_max)) x_max = x[k][p];
        }
        s[k] = (PlotSeries){lr[k].label, "final val_loss, median over seeds", x[k], y[k], lr[k].n,
                            k};
        bars[k] = (PlotBars){lo[k], hi[k]};
        labels[k] = lr[k].label;
        if (isfinite(lr[k].l0)) l0 += lr[k].l0, n0++;
    }
    int ns = n;
    /* The axis as the chart draws it (padded, then widened to its ticks: plot_log_ticks leaves
     * such a range as it is), so the l0 line spans it from edge to edge. */
    double lx[2] = {x_min / X_PAD, x_max * X_PAD}, ly[2];
    PlotTick ticks[PLOT_MAX_TICKS];
    if (isfinite(x_min)) plot_log_ticks(&lx[0], &lx[1], ticks, PLOT_MAX_TICKS);
    if (n0) {
        ly[0] = ly[1] = l0 / n0;
        s[ns] = (PlotSeries){"l0", "loss at initialisation", lx, ly, 2, n < 6 ? 6 : n};
        labels[ns++] = "\xE2\x84\x93\xE2\x82\x80: loss at initialisation (mean loss0)";
    }
    PlotAxes ax = {.title = "Final validation loss against the learning rate", .x_label =
                   "optim.lr (log scale)", .y_label = "final validation loss (log scale)",
                   .log_y = 1, .log_x = 1, .x_lo = NAN, .x_hi = NAN, .y_lo = NAN, .y_hi = NAN};
    if (isfinite(x_min)) ax.x_lo = lx[0], ax.x_hi = lx[1];
    const char *note = "lines: median over seeds (a diverged seed counts as \xE2\x84\x93\xE2\x82\x80, "
                       "as in the LR sensitivity); bars: min to max over seeds";
    if (save_chart(dir, "sweep_lr.svg", &ax, s, bars, ns, labels, note, cap) != 0) return -1;
    fprintf(cap, "sweep_lr.svg: the final validation loss (val_loss) against optim.lr, both axes "
                 "log scale, one line per LR-sensitivity group; each point is the median over the "
                 "seeds, a seed that diverged counted as l0 (as in the LR sensitivity), and the bar "
                 "spans their minimum to maximum%s.\n",
            n0 ? "; the dash-dot line labelled l0 is the loss at initialisation (mean loss0 over "
                 "all groups)" : "");
    return 1;
}

/* ------------------------------------------------------------ any other varied key */

/* At most this many key figures (one per varied column). */
#define MAX_KEY_FIGURES 8

static int cmp_num(const void *a, const void *b) {
    double x = strtod(*(const char *const *)a, NULL), y = strtod(*(const char *const *)b, NULL);
    return (x > y) - (x < y);
}

/* The distinct values of varied column k over the rows that trained, at most cap: ascending when
 * every one is a number, else in order of first appearance. Returns their number. */
static int key_values(const SweepTable *t, int k, const char **vals, int cap) {
    int n = 0, numeric = 1;
    for (int i = 0; i < t->n_rows && n < cap; i++) {
        if (!t->rows[i].in_stats) continue;
        const char *v = sweep_key_value(t, &t->rows[i], k);
        int seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = strcmp(vals[j], v) == 0;
        if (seen) continue;
        char *end;
        strtod(v, &end);
        numeric &= *v && !*end;
        vals[n++] = v;
    }
    if (numeric) qsort(vals, (size_t)n, sizeof *vals, cmp_num);
    return n;
}

/* Group g's line: at each of the n_vals values of column k, the median (min, max) over the
 * group's rows there, x = the value's index; rows: room for t->n_rows row indices. */
static void key_medians(const SweepTable *t, int k, const char *const *vals, int n_vals,
                        const SweepGroup *g, int *rows, Points *p) {
    for (int j = 0; j < n_vals; j++) {
        SweepGroup at = {.rows = rows, .n = 0};
        for (int r = 0; r < g->n; r++)
            if (strcmp(sweep_key_value(t, &t->rows[g->rows[r]], k), vals[j]) == 0)
                rows[at.n++] = g->rows[r];
        SweepStat st = sweep_stat(t, &at, SW_VAL_ACC, 100);
        if (st.n == 0) continue;
        p->x[p->n] = j, p->y[p->n] = st.median, p->lo[p->n] = st.lo, p->hi[p->n] = st.hi;
        p->n++;
    }
}

/* One seed's own line in group g: its accuracy at each value of column k (seed: the seed's
 * column, value: the seed). */
static void seed_line(const SweepTable *t, int k, int seed, const char *value,
                      const char *const *vals, int n_vals, const SweepGroup *g, Points *p) {
    for (int j = 0; j < n_vals; j++)
        for (int r = 0; r < g->n; r++) {
            const SweepRow *row = &t->rows[g->rows[r]];
            if (strcmp(sweep_key_value(t, row, seed), value) != 0 ||
                strcmp(sweep_key_value(t, row, k), vals[j]) != 0 || !row->has[SW_VAL_ACC] ||
                isnan(row->v[SW_VAL_ACC]))
                continue;
            p->x[p->n] = j, p->y[p->n++] = 100 * row->v[SW_VAL_ACC];
            break;
        }
}

/* "sweep_by_NAME.svg" into file (n bytes), each byte of NAME but letters, digits and '-' as '_'. */
static void key_file_name(const char *name, char *file, size_t n) {
    int len = snprintf(file, n, "sweep_by_");
    for (const char *c = name; *c && len < (int)n - 5; c++)
        file[len++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                              (*c >= '0' && *c <= '9') || *c == '-' ? *c : '_';
    snprintf(file + len, n - (size_t)len, ".svg");
}

/* Final validation accuracy (acc_words) against the values of varied column k, one tick per value,
 * one line per group of the other varied columns (seed aside): median over the rows at a value,
 * min-max bars. Returns 1 when written, 0 when k has fewer than two trained values, -1. */
static int key_figure(const SweepTable *t, int k, const char *dir, FILE *cap) {
    const char *vals[MAX_LINES];
    int n_vals = key_values(t, k, vals, MAX_LINES), seed = sweep_key(t, "seed");
    if (n_vals < 2) return 0;
    SweepGroup *g;
    int n_groups = sweep_groups(t, 1u << k | (seed >= 0 ? 1u << seed : 0u), &g);
    Points *pts = n_groups >= 0 ? calloc((size_t)n_groups + MAX_LINES, sizeof *pts) : NULL;
    int *rows = malloc(sizeof *rows * (size_t)(t->n_rows > 0 ? t->n_rows : 1));
    if (!pts || !rows) {
        error_add(NULL, 0, NULL, "out of memory drawing the figure of %s", sweep_key_name(t, k));
        if (n_groups >= 0) sweep_groups_free(g, n_groups);
        free(pts);
        free(rows);
        return -1;
    }
    int ng = n_groups < MAX_LINES ? n_groups : MAX_LINES;
    PlotSeries s[MAX_LINES];
    PlotBars bars[MAX_LINES];
    const char *labels[MAX_LINES];
    for (int i = 0; i < ng; i++) {
        key_medians(t, k, vals, n_vals, &g[i], rows, &pts[i]);
        s[i] = (PlotSeries){g[i].label, "median over seeds", pts[i].x, pts[i].y, pts[i].n, i};
        bars[i] = (PlotBars){pts[i].lo, pts[i].hi};
        labels[i] = g[i].label;
    }
    /* One line in all (only k and the seed varied, the scale alone above all): each seed's own
     * line beside the median, so the seeds' spread reads as lines. */
    const char *seeds[MAX_LINES];
    char seed_label[MAX_LINES][48];
    int n_seeds = ng == 1 && seed >= 0 ? key_values(t, seed, seeds, MAX_LINES - 1) : 0, ns = ng;
    for (int q = 0; q < n_seeds; q++, ns++) {
        Points *p = &pts[ns];
        seed_line(t, k, seed, seeds[q], vals, n_vals, &g[0], p);
        snprintf(seed_label[q], sizeof seed_label[q], "seed=%s", seeds[q]);
        s[ns] = (PlotSeries){seed_label[q], "one seed", p->x, p->y, p->n, ns};
        bars[ns] = (PlotBars){NULL, NULL};
        labels[ns] = seed_label[q];
    }
    const char *name = sweep_key_name(t, k);
    char title[256], y_label[256], what[256], file[128];
    acc_words(t, name, title, y_label, what, sizeof title);
    key_file_name(name, file, sizeof file);
    PlotAxes ax = {.title = title, .x_label = name, .y_label = y_label,
                   .x_lo = NAN, .x_hi = NAN, .y_lo = 0, .y_hi = 100, .x_names = vals,
                   .n_x_names = n_vals};
    int rc = save_chart(dir, file, &ax, s, bars, ns, labels,
                        n_seeds ? "the first line: median over seeds, bars: min to max; then "
                                  "one line per seed"
                                : "lines: median over seeds; bars: min to max over seeds; one "
                                  "line per setting of the other varied columns",
                        cap);
    if (!rc)
        fprintf(cap, "%s: %s against %s, one tick per value, one line per setting of the varied "
                     "columns other than %s and seed; each point is the median over the seeds "
                     "that measured it, the bar spans their minimum to maximum%s.\n", file, what,
                name, name,
                n_seeds ? "; with one such setting, each seed's own line beside it" : "");
    free(pts);
    free(rows);
    sweep_groups_free(g, n_groups);
    return rc ? -1 : 1;
}

int sweep_figures_write(const SweepTable *t, const LrGroup *lr, int n_lr, const char *dir,
                        FILE *captions) {
    int written = 0, failed = 0, w;
    if (sweep_key(t, "d_k") >= 0) {
        if ((w = dk_figures(t, dir, captions)) < 0) failed = 1;
        else written += w;
    }
    if (n_lr > 0) {
        if ((w = lr_figure(lr, n_lr, dir, captions)) < 0) failed = 1;
        else written += w;
    }
    /* neither d_k nor lr varied: a figure per other varied column (the scale above all) */
    int seed = sweep_key(t, "seed"), by_key = written == 0 && !failed;
    for (int k = 0; by_key && k < t->n_keys && written < MAX_KEY_FIGURES; k++) {
        if (k == seed) continue;
        if ((w = key_figure(t, k, dir, captions)) < 0) failed = 1;
        else written += w;
    }
    return failed ? -1 : written;
}
