/* regime_map_lr_draw.c: the lr map's figure (map_internal.h): the grid of every lr and
 * width trained, two panels of cells on it, the legend and a caption computed from the runs. */
#include "report/map/map_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plot/plot.h"

const char *const LR_PANEL_SCALE[LR_N_PANELS] = {"sqrt_dk", "none"};
static const char *const PANEL_TITLE[LR_N_PANELS] = {
    "attention.scale = 1/\xe2\x88\x9a" "d_k (sqrt_dk)", "attention.scale = none"};

#define FIG_W 1200.0
#define PANEL_W 585.0
#define PLOT_LEFT 78.0  /* from the panel's left: room for the d_model labels and axis name */
#define PLOT_RIGHT 12.0
#define PLOT_TOP 40.0
#define ROW_PX 62.0

/* ------------------------------------------------------------------ the grid */

typedef struct {
    double *lr;          /* distinct lrs of every cell, ascending */
    const char **lr_text;
    int n_lr;
    int *d_model;        /* distinct widths, ascending */
    int n_d;
    double x_lo, x_hi;   /* log2 lr at the plot's edges */
    double y_lo, y_hi;   /* log2 d_model at the plot's edges */
    double cw, rh;       /* a cell's width (log2 lr) and height (log2 d_model): the smallest gaps */
} Grid;

/* The smallest gap between neighbours of the ascending v[0..n), 1 for fewer than two. */
static double min_gap(const double *v, int n) {
    double g = INFINITY;
    for (int i = 1; i < n; i++) g = fmin(g, v[i] - v[i - 1]);
    return isfinite(g) && g > 0 ? g : 1;
}

static int cmp_grid_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The grid of f's cells. Returns 0 or -1 (memory). */
static int make_grid(const LrFigure *f, Grid *g) {
    size_t n = (size_t)(f->n_cells > 0 ? f->n_cells : 1);
    double *lx = malloc(sizeof *lx * n), *dx = malloc(sizeof *dx * n);
    g->lr = malloc(sizeof *g->lr * n);
    g->lr_text = malloc(sizeof *g->lr_text * n);
    g->d_model = malloc(sizeof *g->d_model * n);
    if (!lx || !dx || !g->lr || !g->lr_text || !g->d_model) {
        free(lx);
        free(dx);
        return -1;
    }
    for (int i = 0; i < f->n_cells; i++) {
        int k = 0;
        while (k < g->n_lr && g->lr[k] != f->cells[i].lr) k++;
        if (k == g->n_lr) g->lr[g->n_lr++] = f->cells[i].lr;
        for (k = 0; k < g->n_d && g->d_model[k] != f->cells[i].d_model; k++) {}
        if (k == g->n_d) g->d_model[g->n_d++] = f->cells[i].d_model;
    }
    qsort(g->lr, (size_t)g->n_lr, sizeof *g->lr, cmp_grid_value);
    for (int i = 0; i < g->n_d; i++) dx[i] = g->d_model[i];
    qsort(dx, (size_t)g->n_d, sizeof *dx, cmp_grid_value);
    for (int i = 0; i < g->n_lr; i++) {
        for (int k = 0; k < f->n_cells; k++)
            if (f->cells[k].lr == g->lr[i]) {
                g->lr_text[i] = f->cells[k].lr_text;
                break;
            }
        lx[i] = log2(g->lr[i]);
    }
    for (int i = 0; i < g->n_d; i++) {
        g->d_model[i] = (int)dx[i];
        dx[i] = log2(dx[i]);
    }
    g->cw = min_gap(lx, g->n_lr);
    g->rh = min_gap(dx, g->n_d);
    g->x_lo = (g->n_lr ? lx[0] : 0) - g->cw / 2;
    g->x_hi = (g->n_lr ? lx[g->n_lr - 1] : 0) + g->cw / 2;
    g->y_lo = (g->n_d ? dx[0] : 0) - g->rh / 2;
    g->y_hi = (g->n_d ? dx[g->n_d - 1] : 0) + g->rh / 2;
    free(lx);
    free(dx);
    return 0;
}

static void grid_free(Grid *g) {
    free(g->lr);
    free(g->lr_text);
    free(g->d_model);
}

/* ------------------------------------------------------------------ colours and text */

/* ColorBrewer RdYlBu: 0 % red, 50 % pale yellow, 100 % blue; no stop is white, so an empty cell
 * (white, dashed) never reads as an accuracy. */
static const unsigned char RAMP[][3] = {
    {215, 48, 39}, {252, 141, 89}, {254, 224, 144}, {145, 191, 219}, {69, 117, 180}};
#define RAMP_N ((int)(sizeof RAMP / sizeof *RAMP))

static void acc_color(double t, char out[8]) {
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double pos = t * (RAMP_N - 1);
    int i = pos >= RAMP_N - 1 ? RAMP_N - 2 : (int)pos;
    double u = pos - i;
    int c[3];
    for (int k = 0; k < 3; k++) c[k] = (int)lround(RAMP[i][k] + u * (RAMP[i + 1][k] - RAMP[i][k]));
    snprintf(out, 8, "#%02x%02x%02x", c[0] & 255, c[1] & 255, c[2] & 255);
}

/* A peak std short enough for a cell, in one format: two significant digits at least, a suffix
 * k or M from a thousand on: 3.1, 160, 8.7k, 76k, 1.2M; "?" when not measured. */
static void short_std(char *out, size_t n, double v) {
    static const char *const SUFFIX[] = {"", "k", "M", "G"};
    int k = 0;
    if (!isfinite(v)) {
        snprintf(out, n, "%s", isnan(v) ? "?" : "inf");
        return;
    }
    while (k < 3 && v >= 999.5) {
        v /= 1e3;
        k++;
    }
    if (v < 9.95) snprintf(out, n, "%.1f%s", v, SUFFIX[k]);
    else snprintf(out, n, "%.0f%s", v, SUFFIX[k]);
}

#define PI 3.14159265358979323846

/* A five-pointed star centred on (x, y), outer radius r. */
static void star(Svg *s, const char *cls, double x, double y, double r) {
    svg_raw(s, "<path class=\"%s\" d=\"", cls);
    for (int i = 0; i < 10; i++) {
        double a = PI * (i / 5.0 - 0.5), q = i % 2 ? r * 0.45 : r;
        svg_raw(s, "%s%.2f %.2f", i ? " L" : "M", x + q * cos(a), y + q * sin(a));
    }
    svg_raw(s, " Z\" fill=\"#ffffff\" stroke=\"#000000\" stroke-width=\"1.2\"/>\n");
}

/* ------------------------------------------------------------------ the panels */

typedef struct {
    double left, top, width, height;
} Area;

static double area_x(const Area *a, const Grid *g, double lr) {
    return a->left + (log2(lr) - g->x_lo) / (g->x_hi - g->x_lo) * a->width;
}

static double area_y(const Area *a, const Grid *g, int d_model) {
    return a->top + (1 - (log2(d_model) - g->y_lo) / (g->y_hi - g->y_lo)) * a->height;
}

static const LrCell *lr_cell_at(const LrFigure *f, int panel, int d_model, double lr) {
    for (int i = 0; i < f->n_cells; i++)
        if (f->cells[i].panel == panel && f->cells[i].d_model == d_model && f->cells[i].lr == lr)
            return &f->cells[i];
    return NULL;
}

static void cell_attrs(Svg *s, const char *cls, int panel, int d_model, const char *lr_text) {
    svg_raw(s, "<rect class=\"%s\" data-scale=\"%s\" data-d-model=\"%d\" data-lr=\"", cls,
            LR_PANEL_SCALE[panel], d_model);
    svg_escaped(s, lr_text);
    svg_raw(s, "\"");
}

/* One trained cell in the rectangle (x, y, w, h). */
static void draw_cell(Svg *s, const LrCell *c, double x, double y, double w, double h) {
    char fill[8], text[32], peak[16];
    acc_color(c->acc_med, fill);
    if (isnan(c->acc_med)) snprintf(fill, sizeof fill, "#c8c8c8");
    cell_attrs(s, "cell", c->panel, c->d_model, c->lr_text);
    svg_raw(s, " data-n=\"%d\" data-acc=\"%.6g\" data-ran-away=\"%d\" data-largest-learnt=\"%d\" "
               "x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
               "stroke=\"#ffffff\"/>\n",
            c->n, c->acc_med, c->ran_away, c->largest, x, y, w, h, fill);
    if (c->ran_away > 0)
        svg_raw(s, "<rect class=\"ran-away\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                   "fill=\"none\" stroke=\"#000000\" stroke-width=\"3\"/>\n",
                x + 2.5, y + 2.5, w - 5, h - 5);
    if (c->largest) star(s, "largest-learnt", x + 9, y + 9, 6);
    double t = isnan(c->acc_med) ? 0.5 : c->acc_med;
    const char *ink = t > 0.15 && t < 0.85 ? "#222222" : "#ffffff";
    char attrs[96];
    snprintf(attrs, sizeof attrs, "text-anchor=\"middle\" font-size=\"11\" font-weight=\"bold\" "
                                  "fill=\"%s\"", ink);
    if (isnan(c->acc_med)) snprintf(text, sizeof text, "no acc");
    else snprintf(text, sizeof text, "%.1f %%", 100 * c->acc_med);
    svg_text(s, x + w / 2, y + h / 2 + (h >= 34 ? -1 : 4), attrs, text);
    if (h >= 34) {
        short_std(peak, sizeof peak, c->peak_med);
        snprintf(text, sizeof text, "peak %s", peak);
        snprintf(attrs, sizeof attrs, "text-anchor=\"middle\" font-size=\"9\" fill=\"%s\"", ink);
        svg_text(s, x + w / 2, y + h / 2 + 12, attrs, text);
    }
}

/* Panel p at horizontal offset x0. Returns the number of grid places drawn empty. */
static int draw_panel(Svg *s, const LrFigure *f, const Grid *g, int p, double x0, double h) {
    Area a = {x0 + PLOT_LEFT, PLOT_TOP, PANEL_W - PLOT_LEFT - PLOT_RIGHT, h};
    double w = g->cw * a.width / (g->x_hi - g->x_lo), ht = g->rh * a.height / (g->y_hi - g->y_lo);
    int empty = 0;
    svg_raw(s, "<g class=\"lr-panel\" data-scale=\"%s\">\n", LR_PANEL_SCALE[p]);
    svg_text(s, a.left + a.width / 2, 24, "text-anchor=\"middle\" font-size=\"13\" "
                                          "font-weight=\"bold\"", PANEL_TITLE[p]);
    for (int j = 0; j < g->n_d; j++)
        for (int i = 0; i < g->n_lr; i++) {
            double x = area_x(&a, g, g->lr[i]) - w / 2, y = area_y(&a, g, g->d_model[j]) - ht / 2;
            const LrCell *c = lr_cell_at(f, p, g->d_model[j], g->lr[i]);
            if (c) {
                draw_cell(s, c, x, y, w, ht);
                continue;
            }
            empty++;
            cell_attrs(s, "cell-empty", p, g->d_model[j], g->lr_text[i]);
            svg_raw(s, " data-n=\"0\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                       "fill=\"#ffffff\" stroke=\"#aaaaaa\" stroke-dasharray=\"4 3\"/>\n",
                    x + 1.5, y + 1.5, w - 3, ht - 3);
            svg_text(s, x + w / 2, y + ht / 2 + 3,
                     "text-anchor=\"middle\" font-size=\"9\" fill=\"#999999\"", "not run");
        }
    svg_rect(s, a.left, a.top, a.width, a.height, "fill=\"none\" stroke=\"#888888\"");
    char label[24];
    for (int j = 0; j < g->n_d; j++) {
        snprintf(label, sizeof label, "%d", g->d_model[j]);
        svg_text(s, a.left - 6, area_y(&a, g, g->d_model[j]) + 4,
                 "text-anchor=\"end\" font-size=\"11\" fill=\"#333333\"", label);
    }
    for (int i = 0; i < g->n_lr; i++)
        svg_text(s, area_x(&a, g, g->lr[i]), a.top + a.height + 15,
                 "text-anchor=\"middle\" font-size=\"10\" fill=\"#333333\"", g->lr_text[i]);
    svg_text(s, a.left + a.width / 2, a.top + a.height + 33,
             "text-anchor=\"middle\" font-size=\"12\"", "optim.lr (log axis)");
    double ly = a.top + a.height / 2, lx = x0 + 18;
    svg_raw(s, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" "
               "text-anchor=\"middle\" font-size=\"12\">d_model (log2 axis)</text>\n",
            lx, ly, lx, ly);
    svg_raw(s, "</g>\n");
    return empty;
}

/* ------------------------------------------------------------------ legend and caption */

/* Appends ", v" (or "v" first) to out[0..n), and "..." when it no longer fits. */
static void list_int(char *out, size_t n, int v) {
    size_t len = strlen(out);
    if (len + 16 >= n) return;
    snprintf(out + len, n - len, "%s%d", len ? ", " : "", v);
}

static int cmp_seed(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* The caption's facts: widths, seeds, runs per cell, step-0 std range. */
static void caption(Svg *s, const LrFigure *f, const Grid *g, double y) {
    char widths[160] = "", seeds[160] = "", line[600];
    for (int i = 0; i < g->n_d; i++) list_int(widths, sizeof widths, g->d_model[i]);
    int *sd = malloc(sizeof *sd * (size_t)(f->n_runs > 0 ? f->n_runs : 1)), ns = 0;
    double s0_lo = INFINITY, s0_hi = -INFINITY;
    int n_lo = f->n_runs, n_hi = 0;
    for (int i = 0; i < f->n_runs; i++) {
        if (sd && f->runs[i].seed >= 0) sd[ns++] = f->runs[i].seed;
        if (!isnan(f->runs[i].std0)) {
            s0_lo = fmin(s0_lo, f->runs[i].std0);
            s0_hi = fmax(s0_hi, f->runs[i].std0);
        }
    }
    if (sd) qsort(sd, (size_t)ns, sizeof *sd, cmp_seed);
    for (int i = 0; i < ns; i++)
        if (i == 0 || sd[i] != sd[i - 1]) list_int(seeds, sizeof seeds, sd[i]);
    free(sd);
    for (int i = 0; i < f->n_cells; i++) {
        n_lo = f->cells[i].n < n_lo ? f->cells[i].n : n_lo;
        n_hi = f->cells[i].n > n_hi ? f->cells[i].n : n_hi;
    }
    char per[32];
    if (n_lo == n_hi) snprintf(per, sizeof per, "%d", n_hi);
    else snprintf(per, sizeof per, "%d-%d", n_lo, n_hi);
    snprintf(line, sizeof line, "%d trained runs from %d sweep%s in %d cells: widths %s; seeds %s "
                                "(%s run%s per cell); step-0 logit std %.3g-%.3g",
             f->n_runs, f->n_sweeps, f->n_sweeps == 1 ? "" : "s", f->n_cells, widths,
             seeds[0] ? seeds : "not known", per, n_hi == 1 ? "" : "s", s0_lo, s0_hi);
    const char *attrs = "font-size=\"12\" fill=\"#222222\"";
    svg_text(s, 20, y, attrs, line);
    svg_text(s, 20, y + 18, attrs,
             "cell colour and number: the median over the cell's seeds of the final validation "
             "answer accuracy; peak: their median peak head-mean attention-logit std (any layer)");
    int n_peak = 0;
    for (int i = 0; i < f->n_cells; i++) n_peak += !isnan(f->cells[i].peak_med);
    snprintf(line, sizeof line, "black frame: the logits ran away, median peak std \xe2\x89\xa5 %g (with "
                                "GPT-2 init every run passes 10x its step-0 std by learning; "
                                "docs/attention_fixes.md)", REGIME_MAP_LR_RUNAWAY);
    /* without a peak no cell can be framed: an unframed cell then says nothing */
    if (n_peak == 0)
        snprintf(line, sizeof line, "no black frames: these sweeps did not record logit_std_peak, "
                                    "so whether the logits ran away (median peak std \xe2\x89\xa5 "
                                    "%g) is not known for any cell (peak ?)", REGIME_MAP_LR_RUNAWAY);
    else if (n_peak < f->n_cells)
        snprintf(line + strlen(line), sizeof line - strlen(line),
                 "; peak ?: not recorded for the runs of that cell, not framed");
    svg_text(s, 20, y + 36, attrs, line);
}

static void legend(Svg *s, double y) {
    char fill[8];
    svg_text(s, 20, y + 12, "font-size=\"12\"", "median final answer accuracy");
    for (int i = 0; i < 50; i++) {
        acc_color(i / 49.0, fill);
        svg_raw(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"4.2\" height=\"12\" fill=\"%s\"/>\n",
                230 + i * 4.0, y + 2, fill);
    }
    static const char *const TICK[] = {"0 %", "50 %", "100 %"};
    for (int i = 0; i < 3; i++)
        svg_text(s, 230 + i * 98.0, y + 28, "text-anchor=\"middle\" font-size=\"10\"", TICK[i]);
    /* as a cell's frame (draw_cell): black, 3 wide, around no fill of its own */
    svg_rect(s, 470, y, 26, 16, "fill=\"none\" stroke=\"#000000\" stroke-width=\"3\"");
    svg_text(s, 504, y + 12, "font-size=\"12\"", "the logits ran away");
    star(s, "legend", 664, y + 8, 7);
    svg_text(s, 676, y + 12, "font-size=\"12\"",
             "largest lr of its width where every seed reached \xe2\x89\xa5 99 %");
    svg_rect(s, 1080, y, 26, 16, "fill=\"#ffffff\" stroke=\"#aaaaaa\" stroke-dasharray=\"4 3\"");
    svg_text(s, 1114, y + 12, "font-size=\"12\"", "not run");
}

int lr_figure_draw(const LrFigure *f, char **svg, size_t *len) {
    Grid g = {0};
    Svg s = {0};
    *svg = NULL;
    *len = 0;
    if (make_grid(f, &g) != 0) {
        grid_free(&g);
        return -1;
    }
    double h = fmin(6, fmax(2, g.n_d)) * ROW_PX, bottom = PLOT_TOP + h + 48;
    svg_begin(&s, FIG_W, bottom + 94, "the regime map over learning rate and width: final answer "
                                       "accuracy, runaway logits, the largest lr that learnt");
    int empty = 0;
    for (int p = 0; p < LR_N_PANELS; p++) empty += draw_panel(&s, f, &g, p, 10 + p * (PANEL_W + 5), h);
    legend(&s, bottom);
    caption(&s, f, &g, bottom + 48);
    grid_free(&g);
    if (svg_end(&s) != 0) {
        svg_free(&s);
        return -1;
    }
    *svg = s.buf;
    *len = s.len;
    return empty;
}
