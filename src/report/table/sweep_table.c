/* sweep_table.c: reads sweep.csv into checked rows, finds the varied columns, groups rows and
 * computes medians and ranges over a group. Reading order: columns of the schema, reading and
 * checking rows, varied columns, groups, statistics. */
#include "report/table/table.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/read/read.h"
#include "util/error_list.h"

/* ------------------------------------------------------------------ the schema's columns */

/* The sweep_columns.c column of each metric; -1: the plan's steps column. */
static const int METRIC_COL[SW_N_METRIC] = {
    [SW_VAL_LOSS] = SC_VAL_LOSS, [SW_VAL_ACC] = SC_VAL_ACC, [SW_FIRST99] = SC_FIRST_99,
    [SW_LOSS0] = SC_LOSS0, [SW_STD0] = SC_STD0, [SW_SAT] = SC_SAT, [SW_PASS] = SC_PASS,
    [SW_EXIT] = SC_EXIT_CODE, [SW_FIRST50] = SC_FIRST_50, [SW_FIRST90] = SC_FIRST_90,
    [SW_LAST_EVAL] = SC_LAST_EVAL, [SW_STEPS_DONE] = SC_STEPS_DONE, [SW_PRED_STD] = SC_PRED_STD,
    [SW_STEPS] = -1,
};

const char *sweep_metric_name(SweepMetric m) {
    return METRIC_COL[m] >= 0 ? SWEEP_COLUMNS[METRIC_COL[m]].name
                              : SWEEP_PLAN_COLUMNS[PC_STEPS].name;
}

/* Columns that can be varied: the plan's before steps (the model shape, the scale and the
 * seed), and any section.key. */
static int can_vary(const char *name) {
    for (int f = 0; f < PC_STEPS; f++)
        if (strcmp(name, SWEEP_PLAN_COLUMNS[f].name) == 0) return 1;
    return strchr(name, '.') != NULL;
}

/* ------------------------------------------------------------------ rows */

/* Fills *row from data row r, which log_check_rows has checked (its numeric fields are numbers,
 * its status known). */
static void read_row(const SweepTable *t, int r, SweepRow *row) {
    const Csv *c = &t->csv;
    memset(row, 0, sizeof *row);
    row->line = c->line[r + 1];
    row->csv_row = r;
    row->run = csv_str(c, r, csv_col(c, SWEEP_RUN_COLUMN));
    row->status = csv_str(c, r, csv_col(c, "status"));
    int st = sweep_status_find(row->status);
    row->in_stats = st >= 0 && SWEEP_STATUSES[st].in_stats;
    row->stopped = st >= 0 && SWEEP_STATUSES[st].stopped;
    for (int m = 0; m < SW_N_METRIC; m++) {
        int col = t->col[m];
        row->has[m] = col >= 0 && !csv_empty(c, r, col);
        row->v[m] = row->has[m] ? csv_num(c, r, col) : NAN;
    }
}

static int read_rows(SweepTable *t) {
    const Csv *c = &t->csv;
    t->rows = calloc((size_t)(c->n_rows > 0 ? c->n_rows : 1), sizeof *t->rows);
    if (!t->rows) return -1;
    for (int r = 0; r < c->n_rows; r++) read_row(t, r, &t->rows[t->n_rows++]);
    return 0;
}

/* ------------------------------------------------------------------ what the accuracy is */

static const char *const ACC_NAME[] = {
    [SWEEP_ACC_ANSWER] = "answer accuracy",
    [SWEEP_ACC_NEXT_BYTE] = "next-byte accuracy",
    [SWEEP_ACC_MIXED] = "answer accuracy (next-byte accuracy on the text runs)",
};

const char *sweep_acc_name(const SweepTable *t) { return ACC_NAME[t->acc]; }

/* Rows with an empty task (no config.ini read: a missing run) say nothing either way. */
static SweepAcc find_acc(const SweepTable *t) {
    int col = csv_col(&t->csv, SWEEP_COLUMNS[SC_TASK].name), text = 0, other = 0;
    for (int i = 0; col >= 0 && i < t->n_rows; i++) {
        const char *task = csv_str(&t->csv, t->rows[i].csv_row, col);
        if (!*task) continue;
        if (task_name_is_text(task)) text = 1;
        else other = 1;
    }
    return !text ? SWEEP_ACC_ANSWER : other ? SWEEP_ACC_MIXED : SWEEP_ACC_NEXT_BYTE;
}

/* ------------------------------------------------------------------ varied columns */

static void find_keys(SweepTable *t) {
    for (int col = 0; col < t->csv.n_cols && t->n_keys < SW_MAX_KEYS; col++) {
        if (!can_vary(t->csv.cell[col])) continue;
        for (int i = 1; i < t->n_rows; i++)
            if (strcmp(csv_str(&t->csv, t->rows[i].csv_row, col),
                       csv_str(&t->csv, t->rows[0].csv_row, col)) != 0) {
                t->key_col[t->n_keys++] = col;
                break;
            }
    }
}

int sweep_table_parse(SweepTable *t, const char *path, const char *text, size_t len) {
    memset(t, 0, sizeof *t);
    t->path = path;
    int skipped = log_read_sweep(&t->csv, path, text, len); /* the checked reader */
    if (skipped < 0) {
        int oom = errno == ENOMEM;
        error_add(NULL, 0, NULL, "%s: %s", path,
                  oom                 ? "out of memory"
                  : t->csv.problem[0] ? t->csv.problem
                                    : "no header line (is it a sweep.csv?)");
        return oom ? -1 : -2;
    }
    t->n_malformed = skipped;
    for (int m = 0; m < SW_N_METRIC; m++) t->col[m] = csv_col(&t->csv, sweep_metric_name(m));
    if (t->col[SW_STD0] < 0) t->col[SW_STD0] = csv_col(&t->csv, "logit_std_step0"); /* older */
    if (read_rows(t) != 0) {
        error_add(NULL, 0, NULL, "%s: out of memory", path);
        sweep_table_free(t);
        return -1;
    }
    find_keys(t);
    t->acc = find_acc(t);
    return 0;
}

int sweep_table_load(SweepTable *t, const char *path) {
    memset(t, 0, sizeof *t);
    size_t len;
    char *text = log_sweep_text(path, &len); /* read/: the one door to sweep.csv */
    int rc = text ? sweep_table_parse(t, path, text, len) : -1;
    free(text);
    return rc;
}

void sweep_table_free(SweepTable *t) {
    csv_free(&t->csv);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

int sweep_key(const SweepTable *t, const char *name) {
    for (int k = 0; k < t->n_keys; k++)
        if (strcmp(t->csv.cell[t->key_col[k]], name) == 0) return k;
    return -1;
}

const char *sweep_key_name(const SweepTable *t, int k) { return t->csv.cell[t->key_col[k]]; }

const char *sweep_key_value(const SweepTable *t, const SweepRow *r, int k) {
    return csv_str(&t->csv, r->csv_row, t->key_col[k]);
}

/* ------------------------------------------------------------------ groups */

static int same_group(const SweepTable *t, const SweepRow *a, const SweepRow *b, unsigned ignore) {
    for (int k = 0; k < t->n_keys; k++)
        if (!(ignore >> k & 1u) && strcmp(sweep_key_value(t, a, k), sweep_key_value(t, b, k)) != 0)
            return 0;
    return 1;
}

/* "name=value ..." of r's columns not in ignore, each escaped as error lines are
 * (util/error_list.h): the label is shown (the report, the figures' legends), and a name or value
 * of sweep.csv or --grid may hold a control byte; escaped here, the tables' widths count it as
 * shown. */
static void group_label(const SweepTable *t, const SweepRow *r, unsigned ignore, char *out,
                        size_t n) {
    size_t len = 0;
    out[0] = '\0';
    for (int k = 0; k < t->n_keys && len < n; k++) {
        if (ignore >> k & 1u) continue;
        int w = snprintf(out + len, n - len, "%s%s=%s", len ? " " : "",
                         SHOWN(sweep_key_name(t, k)), SHOWN(sweep_key_value(t, r, k)));
        if (w > 0) len += (size_t)w;
    }
    if (!out[0]) snprintf(out, n, "all runs");
}

int sweep_groups(const SweepTable *t, unsigned ignore, SweepGroup **out) {
    SweepGroup *g = calloc((size_t)(t->n_rows > 0 ? t->n_rows : 1), sizeof *g);
    int *idx = malloc(sizeof *idx * (size_t)(t->n_rows > 0 ? t->n_rows : 1));
    int n = 0;
    if (!g || !idx) goto oom;
    /* Each group's rows are filled in one pass; idx gives every row its group first. */
    for (int i = 0; i < t->n_rows; i++) {
        idx[i] = -1;
        if (!t->rows[i].in_stats) continue;
        for (int k = 0; k < n && idx[i] < 0; k++)
            if (same_group(t, &t->rows[g[k].first], &t->rows[i], ignore)) idx[i] = k;
        if (idx[i] < 0) {
            g[n].first = i;
            group_label(t, &t->rows[i], ignore, g[n].label, sizeof g[n].label);
            idx[i] = n++;
        }
        g[idx[i]].n++;
    }
    for (int k = 0; k < n; k++) {
        if (!(g[k].rows = malloc(sizeof *g[k].rows * (size_t)g[k].n))) goto oom;
        g[k].n = 0;
    }
    for (int i = 0; i < t->n_rows; i++)
        if (idx[i] >= 0) g[idx[i]].rows[g[idx[i]].n++] = i;
    free(idx);
    *out = g;
    return n;
oom:
    free(idx);
    sweep_groups_free(g, n);
    return -1;
}

void sweep_groups_free(SweepGroup *g, int n) {
    for (int k = 0; g && k < n; k++) free(g[k].rows);
    free(g);
}

/* ------------------------------------------------------------------ statistics */

double sweep_median(double *v, int n) {
    if (n <= 0) return NAN;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

SweepStat sweep_stat(const SweepTable *t, const SweepGroup *g, SweepMetric m, double scale) {
    SweepStat s = {NAN, NAN, NAN, 0};
    double *v = malloc(sizeof *v * (size_t)(g->n > 0 ? g->n : 1));
    if (!v) return s;
    for (int i = 0; i < g->n; i++) {
        const SweepRow *r = &t->rows[g->rows[i]];
        if (r->has[m] && !isnan(r->v[m])) v[s.n++] = scale * r->v[m];
    }
    if (s.n > 0) {
        s.median = sweep_median(v, s.n);
        s.lo = v[0];
        s.hi = v[s.n - 1];
    }
    free(v);
    return s;
}
