/* regime_map_lr.c: the regime map over learning rate x width (map.h). Reading order:
 * the runs from the sweeps, the cells, the CSV; the figure is regime_map_lr_draw.c. */

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/map/map_internal.h"
#include "runlog/csv_write.h"
#include "runlog/log_query.h"
#include "util/error_list.h"

/* ------------------------------------------------------------------ the runs */

/* The text of column name in row r, or NULL when the file has no such column. */
static const char *cell_text(const SweepTable *t, const SweepRow *r, const char *name) {
    int c = csv_col(&t->csv, name);
    return c >= 0 ? csv_str(&t->csv, r->csv_row, c) : NULL;
}

/* text as a number into *v: 1 when it is one (nan and inf included), 0 when empty, -1 when it is
 * not a number. */
static int parse_number(const char *text, double *v) {
    if (!text || !*text) return 0;
    char *end;
    *v = strtod(text, &end);
    return *end == '\0' && end != text ? 1 : -1;
}

static int bad_value(const SweepTable *t, const SweepRow *r, const char *col, const char *text,
                     const char *want) {
    error_add(NULL, 0, NULL, "%s:%d: column %s: '%s' is not %s; nothing was written",
              t->path, r->line, col, text, want);
    return -1;
}

/* 0 sqrt_dk, 1 none, -1 another scale (not on this map). */
static int scale_panel(const char *scale) {
    return !scale ? -1 : strcmp(scale, "sqrt_dk") == 0 ? 0 : strcmp(scale, "none") == 0 ? 1 : -1;
}

/* Row r as a run of the map into *u: 1 when placed, 0 when left out (no optim.lr or d_model
 * there, or another scale), -1 after a message (an lr that is not a positive number, a d_model
 * that is not a positive whole one; sweep_table_load has skipped rows whose numeric columns,
 * d_model and logit_std_peak among them, are not numbers). */
static int read_run(const SweepTable *t, const SweepRow *r, LrRun *u) {
    const char *lr = cell_text(t, r, "optim.lr"), *dm = cell_text(t, r, "d_model");
    const char *peak = cell_text(t, r, "logit_std_peak");
    double v;
    int k;
    *u = (LrRun){.panel = scale_panel(cell_text(t, r, "scale")), .lr_text = lr, .peak = NAN};
    if ((k = parse_number(lr, &u->lr)) < 0 || (k > 0 && !(isfinite(u->lr) && u->lr > 0)))
        return bad_value(t, r, "optim.lr", lr, "a positive learning rate");
    if (k == 0) return 0;
    if ((k = parse_number(dm, &v)) < 0 || (k > 0 && !(v >= 1 && v <= 1 << 24 && v == floor(v))))
        return bad_value(t, r, "d_model", dm, "a positive whole number");
    if (k == 0 || u->panel < 0) return 0;
    u->d_model = (int)v;
    /* a std is >= 0: finite, or "inf" as the program writes one that overflowed (log_logit_growth
     * keeps it: a run whose logits ran away, often diverged). Another value (nan, which the
     * program never writes as a peak, a negative one, or a number too large for a double that
     * strtod makes inf, as 1e400) is none a run measured: like an unreadable cell of sweep.csv it
     * is skipped with a warning; the run keeps its accuracy in the cell, its peak is left out of
     * the cell's median */
    if ((k = parse_number(peak, &v)) > 0 && v >= 0 && (isfinite(v) || strcmp(peak, "inf") == 0))
        u->peak = v;
    else if (k != 0)
        fprintf(stderr, "warning: %s:%d: column logit_std_peak: '%s' is not a std >= 0 (finite, "
                        "or inf when it overflowed); that run's peak is left out of the lr map\n",
                SHOWN(t->path), r->line, SHOWN(peak));
    u->acc = r->has[SW_VAL_ACC] ? r->v[SW_VAL_ACC] : NAN;
    u->std0 = r->has[SW_STD0] ? r->v[SW_STD0] : NAN;
    const char *seed = cell_text(t, r, "seed");
    u->seed = seed && parse_number(seed, &v) > 0 && v >= 0 && v < 1e9 ? (int)v : -1;
    /* learnt as the lr map says (train/lr_map.h): finished ok at >= 99 % */
    u->learnt = strcmp(r->status, "ok") == 0 && u->acc >= 0.99;
    return 1;
}

int regime_map_lr_varies(const SweepTable *tables, int n) {
    double first = NAN;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < tables[i].n_rows; j++) {
            const SweepRow *r = &tables[i].rows[j];
            double v;
            int k = r->in_stats ? parse_number(cell_text(&tables[i], r, "optim.lr"), &v) : 0;
            if (k < 0) return 1; /* for regime_map_lr_build to name */
            if (k == 0) continue;
            if (isnan(first)) first = v;
            else if (v != first) return 1;
        }
    return 0;
}

/* ------------------------------------------------------------------ the cells */

static int cmp_run(const void *a, const void *b) {
    const LrRun *x = a, *y = b;
    if (x->panel != y->panel) return x->panel - y->panel;
    if (x->d_model != y->d_model) return x->d_model < y->d_model ? -1 : 1;
    return x->lr < y->lr ? -1 : x->lr > y->lr;
}

/* Median, min and max of the values of runs[0..n) at offset off that are not NaN. */
static void stats(const LrRun *runs, int n, size_t off, double *scratch, double *med, double *lo,
                  double *hi) {
    int m = 0;
    for (int i = 0; i < n; i++) {
        double v = *(const double *)((const char *)&runs[i] + off);
        if (!isnan(v)) scratch[m++] = v;
    }
    *med = sweep_median(scratch, m); /* sorts scratch */
    *lo = m ? scratch[0] : NAN;
    *hi = m ? scratch[m - 1] : NAN;
}

/* The cells of runs[0..n) (sorted by cmp_run) into cells (room for n). Returns their number. */
static int make_cells(const LrRun *runs, int n, LrCell *cells, double *scratch) {
    int nc = 0;
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && cmp_run(&runs[i], &runs[j]) == 0; j++) {}
        LrCell *c = &cells[nc++];
        double lo, hi;
        *c = (LrCell){.panel = runs[i].panel, .d_model = runs[i].d_model, .lr = runs[i].lr,
                      .lr_text = runs[i].lr_text, .n = j - i, .all_learnt = 1};
        stats(&runs[i], j - i, offsetof(LrRun, acc), scratch, &c->acc_med, &c->acc_lo, &c->acc_hi);
        stats(&runs[i], j - i, offsetof(LrRun, peak), scratch, &c->peak_med, &lo, &hi);
        stats(&runs[i], j - i, offsetof(LrRun, std0), scratch, &c->std0_med, &lo, &hi);
        for (int k = i; k < j; k++) c->all_learnt &= runs[k].learnt;
        c->ran_away = isnan(c->peak_med) ? -1 : c->peak_med >= REGIME_MAP_LR_RUNAWAY;
    }
    /* one spelling per lr ("1e-3" in one sweep, "0.001" in another): the first */
    for (int i = 0; i < nc; i++)
        for (int k = 0; k < i; k++)
            if (cells[k].lr == cells[i].lr) {
                cells[i].lr_text = cells[k].lr_text;
                break;
            }
    /* per width and scale, the largest lr at which every run learnt */
    for (int i = 0; i < nc; i++) {
        if (!cells[i].all_learnt) continue;
        int largest = 1;
        for (int k = 0; k < nc; k++)
            if (cells[k].all_learnt && cells[k].panel == cells[i].panel &&
                cells[k].d_model == cells[i].d_model && cells[k].lr > cells[i].lr)
                largest = 0;
        cells[i].largest = largest;
    }
    return nc;
}

/* ------------------------------------------------------------------ the CSV */

void regime_map_csv_value(FILE *f, double v) {
    char text[32] = "";
    if (!isnan(v)) log_format_value(text, sizeof text, v, "%.6g", 1);
    fprintf(f, ",%s", text);
}

static void write_csv(FILE *f, const LrCell *c, int n) {
    fputs(REGIME_MAP_LR_CSV_HEADER, f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%d,%s", c[i].d_model, LR_PANEL_SCALE[c[i].panel]);
        csv_write_text(f, c[i].lr_text, 0);
        fprintf(f, ",%d", c[i].n);
        regime_map_csv_value(f, c[i].acc_med);
        regime_map_csv_value(f, c[i].acc_lo);
        regime_map_csv_value(f, c[i].acc_hi);
        regime_map_csv_value(f, c[i].peak_med);
        regime_map_csv_value(f, c[i].std0_med);
        fprintf(f, ",%s,%d\n", c[i].ran_away < 0 ? "" : c[i].ran_away ? "1" : "0", c[i].largest);
    }
}

/* ------------------------------------------------------------------ building both */

int regime_map_lr_build(const SweepTable *tables, int n, RegimeLr *m) {
    *m = (RegimeLr){0};
    int cap = 1, nr = 0, rc = -1;
    for (int i = 0; i < n; i++) cap += tables[i].n_rows;
    LrRun *runs = malloc(sizeof *runs * (size_t)cap);
    LrCell *cells = malloc(sizeof *cells * (size_t)cap);
    double *scratch = malloc(sizeof *scratch * (size_t)cap);
    FILE *mem = NULL;
    if (!runs || !cells || !scratch) goto oom;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < tables[i].n_rows; j++) {
            const SweepRow *r = &tables[i].rows[j];
            if (!r->in_stats) continue;
            int k = read_run(&tables[i], r, &runs[nr]);
            if (k < 0) goto done;
            if (k == 0) m->n_left_out++;
            else nr++;
        }
    qsort(runs, (size_t)nr, sizeof *runs, cmp_run);
    int nc = make_cells(runs, nr, cells, scratch);
    m->n_runs = nr;
    m->n_cells = nc;
    if (!(mem = open_memstream(&m->csv, &m->csv_len))) goto oom;
    write_csv(mem, cells, nc);
    int bad = fclose(mem) != 0;
    if (bad) goto oom;
    LrFigure fig = {runs, nr, cells, nc, n};
    int empty = lr_figure_draw(&fig, &m->svg, &m->svg_len);
    if (empty < 0) goto oom;
    m->n_empty = empty;
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "error: out of memory drawing the learning-rate map\n");
done:
    free(runs);
    free(cells);
    free(scratch);
    return rc;
}

void regime_map_lr_free(RegimeLr *m) {
    free(m->svg);
    free(m->csv);
    *m = (RegimeLr){0};
}
