/* log_check.c: the one checked reader of the run logs and sweep.csv (read.h). Reading order:
 * the ranges of the columns, one field, one row of a log, one row of sweep.csv, the order of the
 * rows, the file, the entry points. */
#include "report/read/read.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runlog/log_query.h"
#include "util/error_list.h"
#include "util/file_check.h"

/* ------------------------------------------------------------------ the ranges */

typedef enum { R_ANY, R_FRACTION, R_LOSS, R_NONNEG, R_POSITIVE } Range;

/* The range of every column whose values have one, by name, in the run logs and in sweep.csv
 * alike (docs/manual.md "Logs read back" and docs/sweeps.md name the same). */
static const struct {
    const char *name;
    Range range;
} RANGES[] = {
    {"val_token_acc", R_FRACTION}, {"val_answer_acc", R_FRACTION},
    {"best_val_answer_acc", R_FRACTION},
    {"train_loss", R_LOSS}, {"val_loss", R_LOSS}, {"val_bpb", R_LOSS}, {"best_val_loss", R_LOSS},
    {"loss0", R_LOSS}, {"grad_norm", R_LOSS},
    {"lr", R_NONNEG}, {"optim.lr", R_POSITIVE},
    {"elapsed_s", R_NONNEG}, {"tokens_per_s", R_NONNEG}, {"skipped_steps", R_NONNEG},
    {"steps", R_NONNEG}, {"steps_done", R_NONNEG}, {"first_step_50", R_NONNEG},
    {"first_step_90", R_NONNEG}, {"first_step_99", R_NONNEG}, {"last_eval_step", R_NONNEG},
    {"logit_std_peak_step", R_NONNEG}, {"logit_std_10x_step", R_NONNEG},
};

static Range range_of(const char *name) {
    for (size_t i = 0; i < sizeof RANGES / sizeof *RANGES; i++)
        if (strcmp(RANGES[i].name, name) == 0) return RANGES[i].range;
    return R_ANY;
}

/* What v, a value of column name, must be when it is not; NULL when it is in range. */
static const char *out_of_range(const char *name, double v) {
    switch (range_of(name)) {
    case R_FRACTION: return v >= 0 && v <= 1 ? NULL : "a fraction in [0, 1]";
    case R_LOSS: return v >= 0 || !isfinite(v) ? NULL : "a loss or norm (>= 0, or nan / inf)";
    case R_NONNEG: return v >= 0 && isfinite(v) ? NULL : "a number >= 0";
    case R_POSITIVE: return v > 0 && isfinite(v) ? NULL : "a number > 0";
    case R_ANY: break;
    }
    return NULL;
}

/* ------------------------------------------------------------------ one field */

/* A field as runlog.c writes it: empty, "nan", "inf", "-inf" or a finite decimal number. */
static int number_ok(const char *s) {
    if (!*s || !strcmp(s, "nan") || !strcmp(s, "inf") || !strcmp(s, "-inf")) return 1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    return end != s && !*end && errno != ERANGE && isfinite(v) && !strpbrk(s, "xXnNiI");
}

static int index_ok(const char *s) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return end != s && !*end && errno != ERANGE && v >= 0 && v <= INT_MAX && *s != '+' && *s != ' ';
}

/* A sweep.csv field as a number (strtod: also nan, inf); blanks around it allowed. */
static int sweep_number(const char *s, double *v) {
    char *end;
    while (*s == ' ' || *s == '\t') s++;
    *v = strtod(s, &end);
    if (end == s) return -1;
    while (*end == ' ' || *end == '\t') end++;
    return *end ? -1 : 0;
}

/* ------------------------------------------------------------------ a row of a log */

/* The key of a log: its leading columns of these (loss.csv: step; attention.csv: step, layer,
 * head; attn_map.csv: layer, head, query). */
static const char *const KEY_NAMES[] = {"step", "layer", "head", "query"};
#define MAX_KEY 4

static int key_columns(const Csv *t) {
    int k = 0;
    for (; k < t->n_cols && k < MAX_KEY; k++) {
        int is_key = 0;
        for (int j = 0; j < MAX_KEY; j++) is_key |= strcmp(t->cell[k], KEY_NAMES[j]) == 0;
        if (!is_key) break;
    }
    return k;
}

/* Why row of a log is malformed or out of range, or NULL. */
static const char *log_row_problem(const Csv *t, int row, int n_key, char *buf, size_t n) {
    int width = t->width[row + 1];
    if (width != t->n_cols) {
        snprintf(buf, n, "%d fields, the header has %d", width, t->n_cols);
        return buf;
    }
    for (int c = 0; c < t->n_cols; c++) {
        const char *s = csv_str(t, row, c);
        int index = c == 0 || c < n_key;
        if (index ? !index_ok(s) : !number_ok(s)) {
            snprintf(buf, n, "'%s' = '%.40s' is not %s", t->cell[c], s,
                     index ? "a whole number" : "a number");
            return buf;
        }
        const char *want = *s ? out_of_range(t->cell[c], csv_num(t, row, c)) : NULL;
        if (want) {
            snprintf(buf, n, "'%s' = '%.40s' is not %s", t->cell[c], s, want);
            return buf;
        }
    }
    int map = csv_col(t, "query") >= 0; /* attn_map*.csv: columns k0, k1, ... are weights */
    for (int c = 1; map && c < t->n_cols; c++) {
        const char *name = t->cell[c];
        if (name[0] != 'k' || !name[1] || strspn(name + 1, "0123456789") != strlen(name + 1))
            continue;
        double w = csv_num(t, row, c);
        if (!(w >= 0 && w <= 1)) { /* NaN too: it would be drawn as a masked cell */
            snprintf(buf, n, "'%s' = '%.40s' is not an attention weight in [0, 1]", name,
                     csv_str(t, row, c));
            return buf;
        }
    }
    return NULL;
}

/* "step 10", "step 0, layer 1, head 0": the key of row. */
static void key_text(const Csv *t, int row, int n_key, char *out, size_t n) {
    size_t len = 0;
    out[0] = '\0';
    for (int c = 0; c < n_key && len < n; c++) {
        int w = snprintf(out + len, n - len, "%s%s %s", c ? ", " : "", t->cell[c],
                         csv_str(t, row, c));
        if (w > 0) len += (size_t)w;
    }
}

/* Compares the keys of rows a and b: <0, 0, >0. */
static int key_cmp(const Csv *t, int a, int b, int n_key) {
    for (int c = 0; c < n_key; c++) {
        long x = strtol(csv_str(t, a, c), NULL, 10), y = strtol(csv_str(t, b, c), NULL, 10);
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

/* Why row is out of order after row `last` (the last one kept; -1: none), or NULL. */
static const char *order_problem(const Csv *t, int row, int last, int n_key, char *buf,
                                 size_t n) {
    if (last < 0 || n_key == 0) return NULL;
    int cmp = key_cmp(t, row, last, n_key);
    if (cmp > 0) return NULL;
    char here[96], before[96];
    key_text(t, row, n_key, here, sizeof here);
    key_text(t, last, n_key, before, sizeof before);
    if (cmp == 0)
        snprintf(buf, n, "%s again (first on line %d)", here, t->line[last + 1]);
    else
        snprintf(buf, n, "%s after %s (line %d): the rows go back", here, before,
                 t->line[last + 1]);
    return buf;
}

/* ------------------------------------------------------------------ a row of sweep.csv */

/* Columns whose non-empty fields must be numbers (nan / inf included): the plan's numeric
 * columns, the names of older files, the numeric result columns. */
static const char *const OLDER_NUMERIC[] = {"logit_std_step0", "grad_q_final", "grad_k_final"};
#define N_OLDER ((int)(sizeof OLDER_NUMERIC / sizeof *OLDER_NUMERIC))
#define N_NUMERIC (PC_N + N_OLDER + SC_N)

/* Column i of N_NUMERIC when it is numeric; NULL for a column that is text. */
static const char *numeric_name(int i) {
    if (i < PC_N) return SWEEP_PLAN_COLUMNS[i].numeric ? SWEEP_PLAN_COLUMNS[i].name : NULL;
    if (i < PC_N + N_OLDER) return OLDER_NUMERIC[i - PC_N];
    const SweepColumnInfo *c = &SWEEP_COLUMNS[i - PC_N - N_OLDER];
    return c->numeric ? c->name : NULL;
}

/* Why row of sweep.csv is malformed or out of range, or NULL. run_first: the first row kept of
 * each earlier run name (rows before row; -1: none), for the one-row-per-run check. */
static const char *sweep_row_problem(const Csv *t, int row, const int *kept, int n_kept,
                                     char *buf, size_t n) {
    /* a row cut short (a copy interrupted, a hand edit) would read as a run with empty metrics */
    if (t->width[row + 1] != t->n_cols) {
        snprintf(buf, n, "%d fields, the header has %d", t->width[row + 1], t->n_cols);
        return buf;
    }
    for (int i = 0; i < N_NUMERIC; i++) {
        const char *name = numeric_name(i);
        int col = name ? csv_col(t, name) : -1;
        double v;
        if (col < 0 || csv_empty(t, row, col)) continue;
        int number = sweep_number(csv_str(t, row, col), &v) == 0;
        const char *want = number ? out_of_range(name, v) : "a number";
        if (!want) continue;
        snprintf(buf, n, "column %s: '%.40s' is not %s", name, csv_str(t, row, col), want);
        return buf;
    }
    for (int col = 0; col < t->n_cols; col++) { /* a --grid column with a range: optim.lr */
        double v;
        if (!strchr(t->cell[col], '.') || csv_empty(t, row, col) || range_of(t->cell[col]) == R_ANY)
            continue;
        const char *want = sweep_number(csv_str(t, row, col), &v) != 0 ? "a number > 0"
                                                                        : out_of_range(t->cell[col], v);
        if (!want) continue;
        snprintf(buf, n, "column %s: '%.40s' is not %s", t->cell[col], csv_str(t, row, col), want);
        return buf;
    }
    const char *status = csv_str(t, row, csv_col(t, "status"));
    if (sweep_status_find(status) < 0) {
        char names[256];
        sweep_status_list(names, sizeof names);
        snprintf(buf, n, "column status: unknown status '%.40s' (%s)", status, names);
        return buf;
    }
    int rc = csv_col(t, SWEEP_RUN_COLUMN);
    const char *run = csv_str(t, row, rc);
    for (int k = 0; rc >= 0 && *run && k < n_kept; k++)
        if (strcmp(csv_str(t, kept[k], rc), run) == 0) {
            snprintf(buf, n, "run '%.60s' again (first on line %d): counted once", run,
                     t->line[kept[k] + 1]);
            return buf;
        }
    return NULL;
}

/* ------------------------------------------------------------------ the file */

/* Checks every row of t, a run log or (sweep) a sweep.csv, as read.h says; quiet: without a
 * word. */
static int check_rows(Csv *t, const char *path, int sweep, int quiet) {
    const char *slash = strrchr(path, '/');
    if (!sweep && strcmp(slash ? slash + 1 : path, "attn_map_tokens.csv") == 0)
        return 0; /* symbol names: text */
    int n_key = sweep ? 0 : key_columns(t);
    /* the rows kept so far, for sweep.csv's run names (their indices before removals) */
    int *kept = sweep ? malloc(sizeof *kept * (size_t)(t->n_rows > 0 ? t->n_rows : 1)) : NULL;
    int removed = 0, n_kept = 0, last = -1, shown = 0, first_unshown = 0;
    char why[400];
    for (int row = 0; row < t->n_rows;) {
        const char *problem =
            sweep ? sweep_row_problem(t, row, kept, n_kept, why, sizeof why)
                  : log_row_problem(t, row, n_key, why, sizeof why);
        if (!problem && !sweep) problem = order_problem(t, row, last, n_key, why, sizeof why);
        if (!problem) {
            if (kept) kept[n_kept++] = row;
            last = row++;
            continue;
        }
        if (!quiet && shown < LOG_WARN_MAX) {
            warn_input("%s:%d: %s; row skipped", path, t->line[row + 1], problem);
            shown++;
        } else if (!quiet && !first_unshown) {
            first_unshown = t->line[row + 1];
        }
        csv_remove_row(t, row);
        removed++;
    }
    if (first_unshown)
        warn_input("%s: %d more rows skipped from line %d on (not what ./train writes)", path,
                   removed - shown, first_unshown);
    free(kept);
    return removed;
}

int log_check_rows(Csv *t, const char *path) { return check_rows(t, path, 0, 0); }

/* ------------------------------------------------------------------ the entry points */

int log_read(Csv *t, const char *dir, const char *file, char *path, size_t n, unsigned flags) {
    if (log_load(t, dir, file, path, n) != 0) return -1;
    check_rows(t, path, 0, (flags & LOG_QUIET) != 0);
    return 0;
}

/* The columns every reader of a sweep.csv needs. */
static const char *const SWEEP_REQUIRED[] = {"status", "val_loss", "val_answer_acc"};

int log_read_sweep(Csv *t, const char *path, const char *text, size_t len) {
    if (csv_parse(t, text, len) != 0) return -1;
    for (size_t i = 0; i < sizeof SWEEP_REQUIRED / sizeof *SWEEP_REQUIRED; i++)
        if (csv_col(t, SWEEP_REQUIRED[i]) < 0) {
            char problem[sizeof t->problem];
            snprintf(problem, sizeof problem, "line 1: no column '%s' (is it a sweep.csv?)",
                     SWEEP_REQUIRED[i]);
            csv_free(t);
            memcpy(t->problem, problem, sizeof problem);
            errno = EINVAL;
            return -1;
        }
    return check_rows(t, path, 1, 0);
}

char *log_sweep_text(const char *path, size_t *len) {
    char why[128];
    *len = 0;
    char *text = file_read_regular(path, FILE_MAX_LOG_BYTES, len, why, sizeof why);
    if (!text) error_add(NULL, 0, NULL, "cannot read '%s': %s", path, why);
    return text;
}
