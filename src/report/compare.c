/* compare.c: ./train --compare RUN_DIR ... [--out DIR] [--log-scale]
 *
 * Reads the logs of several run folders and shows, side by side, what the attention scale does:
 * a summary table on stdout, SVG figures and an index.html that ties them together.
 * Reading order: the run folders (config.ini and the CSV logs), the summary table (one table of
 * strings, printed for the terminal and written as HTML), the figures (built as panels of
 * plot.h line charts, plus the attention heatmaps), the HTML page, and report_compare. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "report/report.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/csv.h"
#include "report/plot.h"
#include "report/svg.h"
#include "train/runlog.h"

enum { RC_OK = 0, RC_IO = 1, RC_USAGE = 2 };

#define NAME_LEN 256

/* ------------------------------------------------------------- config.ini */

typedef struct {
    char *key;    /* "section.key" */
    char *value;  /* unquoted */
} IniEntry;

typedef struct {
    IniEntry *e;
    int n, cap;
} Ini;

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

static const char *ini_get(const Ini *ini, const char *key) {
    for (int i = 0; i < ini->n; i++)
        if (strcmp(ini->e[i].key, key) == 0) return ini->e[i].value;
    return NULL;
}

/* Sets section.key to value (a later line wins). Returns -1 when out of memory. */
static int ini_set(Ini *ini, const char *section, const char *key, const char *value) {
    size_t klen = strlen(section) + strlen(key) + 2;
    char *k = malloc(klen), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    snprintf(k, klen, "%s.%s", section, key);
    for (int i = 0; i < ini->n; i++)
        if (strcmp(ini->e[i].key, k) == 0) {
            free(ini->e[i].value);
            ini->e[i].value = v;
            free(k);
            return 0;
        }
    if (ini->n == ini->cap) {
        int cap = ini->cap ? 2 * ini->cap : 64;
        IniEntry *e = realloc(ini->e, (size_t)cap * sizeof *e);
        if (!e) {
            free(k);
            free(v);
            return -1;
        }
        ini->e = e;
        ini->cap = cap;
    }
    ini->e[ini->n++] = (IniEntry){k, v};
    return 0;
}

static void ini_free(Ini *ini) {
    for (int i = 0; i < ini->n; i++) {
        free(ini->e[i].key);
        free(ini->e[i].value);
    }
    free(ini->e);
    memset(ini, 0, sizeof *ini);
}

/* Reads the key = value lines of an INI file. The trainer wrote it and the config module checks
 * it, so this reader only has to be tolerant: lines it does not understand are skipped. Returns 0,
 * or -1 with errno set when the file cannot be read or memory runs out. */
static int ini_load(Ini *ini, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[4096], section[256] = "";
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        char *s = line;
        if (memcmp(s, "\xEF\xBB\xBF", 3) == 0) s += 3;
        s = trim(s);
        if (!*s || *s == ';' || *s == '#') continue;
        if (*s == '[') {
            char *end = strchr(s, ']');
            if (end) {
                *end = '\0';
                snprintf(section, sizeof section, "%s", trim(s + 1));
            }
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) continue;
        *eq = '\0';
        char *k = trim(s), *v = trim(eq + 1);
        if (*v == '"') {
            char *q = strchr(v + 1, '"');
            if (q) *q = '\0';
            v++;
        } else {
            for (char *c = v; *c; c++)
                if ((*c == ';' || *c == '#') && (c == v || isspace((unsigned char)c[-1]))) {
                    *c = '\0';
                    break;
                }
            v = trim(v);
        }
        if (ini_set(ini, section, k, v) != 0) {
            rc = -1;
            errno = ENOMEM;
            break;
        }
    }
    fclose(f);
    return rc;
}

/* ------------------------------------------------------------- run folders */

typedef struct {
    const char *path;      /* as given on the command line */
    char name[NAME_LEN];   /* the folder's name, made unique among the runs */
    Ini config;
    Csv loss, grads, attn, map, tokens;
    int has_config, has_grads, has_attn, has_map, has_tokens;
} Run;

/* dir/file into out; returns -1 (errno ENAMETOOLONG) when it does not fit. */
static int join_path(char *out, size_t n, const char *dir, const char *file) {
    size_t len = strlen(dir);
    int w = snprintf(out, n, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", file);
    if (w < 0 || (size_t)w >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* The last component of path ("runs/scaled/" -> "scaled"), resolving "." and "..". */
static void run_name(char *out, size_t n, const char *path) {
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    size_t len = strlen(buf);
    while (len > 1 && buf[len - 1] == '/') buf[--len] = '\0';
    const char *base = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        char real[PATH_MAX];
        if (realpath(path, real)) {
            const char *b = strrchr(real, '/');
            b = b && b[1] ? b + 1 : real;
            if (snprintf(out, n, "%s", b) >= (int)n) out[n - 1] = '\0';
            return;
        }
    }
    if (snprintf(out, n, "%s", base) >= (int)n) out[n - 1] = '\0'; /* a long name is cut */
}

/* Loads an optional CSV; a missing file is silent, any other failure is reported. */
static int load_optional(Csv *t, const char *dir, const char *file, int note_missing) {
    char p[PATH_MAX];
    if (join_path(p, sizeof p, dir, file) == 0 && csv_load(t, p) == 0) return 1;
    if (errno != ENOENT || note_missing)
        fprintf(stderr, "note: %s: %s; left out of the report\n", p, strerror(errno));
    return 0;
}

/* Reads a run folder. Only loss.csv is required: without it there is nothing to compare, so the
 * caller exits with 2. Returns 0, or -1 after printing which path is missing and why. */
static int load_run(Run *r, const char *path) {
    r->path = path;
    run_name(r->name, sizeof r->name, path);
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "error: run folder '%s': %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "error: '%s' is not a folder; expected a run folder holding loss.csv\n",
                path);
        return -1;
    }
    char p[PATH_MAX];
    if (join_path(p, sizeof p, path, "loss.csv") != 0 || csv_load(&r->loss, p) != 0) {
        fprintf(stderr, "error: cannot read '%s': %s\n", p, strerror(errno));
        return -1;
    }
    if (csv_col(&r->loss, "step") < 0) {
        fprintf(stderr, "error: '%s' has no 'step' column; is this a scaledot run folder?\n", p);
        return -1;
    }
    r->has_config = join_path(p, sizeof p, path, "config.ini") == 0 && ini_load(&r->config, p) == 0;
    if (!r->has_config)
        fprintf(stderr, "note: %s: %s; its settings show as '?'\n", p, strerror(errno));
    r->has_grads = load_optional(&r->grads, path, "grad_norms.csv", 1);
    r->has_attn = load_optional(&r->attn, path, "attention.csv", 0);
    r->has_map = load_optional(&r->map, path, "attn_map.csv", 0);
    r->has_tokens = load_optional(&r->tokens, path, "attn_map_tokens.csv", 0);
    return 0;
}

static void free_run(Run *r) {
    ini_free(&r->config);
    csv_free(&r->loss);
    csv_free(&r->grads);
    csv_free(&r->attn);
    csv_free(&r->map);
    csv_free(&r->tokens);
}

static int name_taken(const Run *runs, int before, const char *name) {
    for (int j = 0; j < before; j++)
        if (strcmp(runs[j].name, name) == 0) return 1;
    return 0;
}

/* Two folders with the same name (runs/a/x, runs/b/x) would be indistinguishable in the legend:
 * the later ones become "x (2)", "x (3)", ... */
static void make_names_unique(Run *runs, int n) {
    for (int i = 1; i < n; i++) {
        char base[NAME_LEN];
        snprintf(base, sizeof base, "%s", runs[i].name);
        for (int k = 2; name_taken(runs, i, runs[i].name); k++)
            snprintf(runs[i].name, NAME_LEN, "%.*s (%d)", NAME_LEN - 16, base, k);
    }
}

/* ------------------------------------------------------------ log queries */

/* The step of a row; -1 when the field is not a number. */
static int step_at(const Csv *t, int row) { return csv_int(t, row, csv_col(t, "step"), -1); }

/* The last row where col is not empty, or -1. */
static int last_row(const Csv *t, int col) {
    if (col < 0) return -1;
    for (int r = t->n_rows - 1; r >= 0; r--)
        if (!csv_empty(t, r, col)) return r;
    return -1;
}

/* The row where col is not empty whose step is nearest to target (the earlier one on a tie). */
static int nearest_row(const Csv *t, int col, double target) {
    int best = -1;
    double best_d = INFINITY;
    if (col < 0) return -1;
    for (int r = 0; r < t->n_rows; r++) {
        if (csv_empty(t, r, col)) continue;
        double d = fabs(step_at(t, r) - target);
        if (d < best_d) best_d = d, best = r;
    }
    return best;
}

/* The last step at which column `name` of each run's loss.csv was logged, maximised over runs. */
static int max_last_step(const Run *runs, int n, const char *name) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        int r = last_row(&runs[i].loss, csv_col(&runs[i].loss, name));
        if (r >= 0 && step_at(&runs[i].loss, r) > s) s = step_at(&runs[i].loss, r);
    }
    return s;
}

/* Layers that have q/k gradient columns in grad_norms.csv. */
static int grad_layers(const Run *r) {
    if (!r->has_grads) return 0;
    int l = 0;
    char col[96];
    for (;; l++) {
        snprintf(col, sizeof col, "blocks.%d.attn.qkv.weight.q", l);
        if (csv_col(&r->grads, col) < 0) return l;
    }
}

static int attn_layers(const Run *r) {
    int c = csv_col(&r->attn, "layer"), n = 0;
    if (!r->has_attn || c < 0) return 0;
    for (int i = 0; i < r->attn.n_rows; i++) {
        double l = csv_num(&r->attn, i, c);
        if (isfinite(l) && l + 1 > n && l < 4096) n = (int)l + 1;
    }
    return n;
}

/* Mean over heads of column `name` of attention.csv at one step and layer; NAN when absent. */
static double attn_mean(const Run *r, int step, int layer, const char *name) {
    const Csv *t = &r->attn;
    int cs = csv_col(t, "step"), cl = csv_col(t, "layer"), cv = csv_col(t, name);
    double sum = 0;
    int n = 0;
    if (cs < 0 || cl < 0 || cv < 0) return NAN;
    for (int i = 0; i < t->n_rows; i++)
        if (csv_num(t, i, cs) == step && csv_num(t, i, cl) == layer && !csv_empty(t, i, cv)) {
            sum += csv_num(t, i, cv);
            n++;
        }
    return n ? sum / n : NAN;
}

/* First or last step of attention.csv; -1 when there is none. */
static int attn_step(const Run *r, int last) {
    int cs = csv_col(&r->attn, "step");
    if (!r->has_attn || cs < 0 || r->attn.n_rows == 0) return -1;
    return csv_int(&r->attn, last ? r->attn.n_rows - 1 : 0, cs, -1);
}

/* True when row has a logged NaN/inf loss or gradient norm (an empty field is not one). */
static int row_non_finite(const Csv *t, int row) {
    static const char *const COLS[] = {"train_loss", "val_loss", "grad_norm"};
    for (int k = 0; k < 3; k++) {
        int c = csv_col(t, COLS[k]);
        if (c >= 0 && !csv_empty(t, row, c) && !isfinite(csv_num(t, row, c))) return 1;
    }
    return 0;
}

/* "diverged @N" when the run ended on NaN/inf (N: the first bad step after its last good one),
 * else "finished @N" or "stopped @N" (fewer steps than its config asked for), plus ", K skipped"
 * when it skipped non-finite updates and went on (train.on_divergence = skip). */
static void run_status(const Run *r, char *out, size_t n) {
    const Csv *t = &r->loss;
    int first_bad = -1, bad_rows = 0;
    int c_train = csv_col(t, "train_loss"), c_norm = csv_col(t, "grad_norm");
    for (int row = 0; row < t->n_rows; row++) {
        if (row_non_finite(t, row)) {
            bad_rows++;
            if (first_bad < 0) first_bad = row;
        } else if (!csv_empty(t, row, c_train) || !csv_empty(t, row, c_norm)) {
            first_bad = -1; /* a finite training step after it: the run went on */
        }
    }
    int last = t->n_rows ? step_at(t, t->n_rows - 1) : 0;
    if (first_bad >= 0) {
        snprintf(out, n, "diverged @%d", step_at(t, first_bad));
        return;
    }
    int c_skip = csv_col(t, "skipped_steps");
    long skipped = c_skip >= 0 ? csv_int(t, t->n_rows - 1, c_skip, 0) : 0;
    if (skipped <= 0) skipped = bad_rows;
    const char *steps = ini_get(&r->config, "train.steps");
    const char *what = steps && atoi(steps) > last ? "stopped" : "finished";
    if (skipped > 0)
        snprintf(out, n, "%s @%d, %ld skipped", what, last, skipped);
    else
        snprintf(out, n, "%s @%d", what, last);
}

/* ----------------------------------------------------------- summary table */

#define CELL_LEN 48

typedef struct {
    char label[96];
    int section;                /* a heading row: label only */
    char (*cell)[CELL_LEN];     /* one per run */
} Row;

typedef struct {
    Row *row;
    int n, cap, n_runs;
    int failed;                 /* out of memory: the table is incomplete */
} Table;

/* Appends a row and returns its index, or -1 when out of memory (then cell() ignores it). */
static int table_add(Table *t, int section, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int table_add(Table *t, int section, const char *fmt, ...) {
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        Row *r = realloc(t->row, (size_t)cap * sizeof *r);
        if (!r) {
            t->failed = 1;
            return -1;
        }
        t->row = r;
        t->cap = cap;
    }
    Row *r = &t->row[t->n];
    r->cell = calloc((size_t)t->n_runs, sizeof *r->cell);
    if (!r->cell) {
        t->failed = 1;
        return -1;
    }
    r->section = section;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->label, sizeof r->label, fmt, ap);
    va_end(ap);
    return t->n++;
}

static void cell(Table *t, int row, int run, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cell(Table *t, int row, int run, const char *fmt, ...) {
    if (row < 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->row[row].cell[run], CELL_LEN, fmt, ap);
    va_end(ap);
}

static void table_free(Table *t) {
    for (int i = 0; i < t->n; i++) free(t->row[i].cell);
    free(t->row);
    memset(t, 0, sizeof *t);
}

/* v in printf format, or "nan" / "inf" / "-inf", times scale. */
static void format_value(char *out, size_t n, double v, const char *fmt, double scale) {
    if (isnan(v))
        snprintf(out, n, "nan");
    else if (isinf(v))
        snprintf(out, n, "%s", v > 0 ? "inf" : "-inf");
    else
        snprintf(out, n, fmt, v * scale);
}

/* A loss.csv column at (about) target. A value logged at a different step carries "(@step)";
 * none within tol steps of the target gives "-", so a run that stopped early shows no number
 * for the steps it never reached. final: the last logged value, wherever it is. */
static void value_cell(Table *t, int row, int run, const Run *r, const char *col, double target,
                       double tol, int final, const char *fmt, double scale) {
    const Csv *l = &r->loss;
    int c = csv_col(l, col);
    int i = final ? last_row(l, c) : nearest_row(l, c, target);
    if (i < 0 || (!final && fabs(step_at(l, i) - target) > tol)) {
        cell(t, row, run, "-");
        return;
    }
    char v[32];
    format_value(v, sizeof v, csv_num(l, i, c), fmt, scale);
    if (step_at(l, i) != (int)target)
        cell(t, row, run, "%s (@%d)", v, step_at(l, i));
    else
        cell(t, row, run, "%s", v);
}

/* Rows of one loss.csv metric at 0, ~10%, ~25%, 50% of the longest run and at the end. The steps
 * are the logged steps (of the run that logged this metric longest) nearest to those fractions,
 * so runs that share a logging schedule get exact values. */
static void metric_rows(Table *t, const Run *runs, int n, const char *col, const char *what,
                        const char *fmt, double scale) {
    static const double FRACS[] = {0, 0.1, 0.25, 0.5};
    int longest = max_last_step(runs, n, "step"), total = max_last_step(runs, n, col);
    const Run *ref = NULL;
    for (int i = 0; i < n; i++) {
        int r = last_row(&runs[i].loss, csv_col(&runs[i].loss, col));
        if (r >= 0 && step_at(&runs[i].loss, r) == total && !ref) ref = &runs[i];
    }
    double tol = fmax(1, 0.05 * total);
    int prev = -1;
    for (size_t k = 0; k < sizeof FRACS / sizeof *FRACS; k++) {
        int target = (int)lround(FRACS[k] * longest);
        if (ref) {
            int r = nearest_row(&ref->loss, csv_col(&ref->loss, col), target);
            if (r >= 0) target = step_at(&ref->loss, r);
        }
        if (target == prev || target >= total) continue;
        prev = target;
        int row = table_add(t, 0, "%s @ step %d", what, target);
        for (int i = 0; i < n; i++)
            value_cell(t, row, i, &runs[i], col, target, tol, 0, fmt, scale);
    }
    int row = table_add(t, 0, "%s, final (step %d)", what, total);
    for (int i = 0; i < n; i++) value_cell(t, row, i, &runs[i], col, total, tol, 1, fmt, scale);
}

static void summary_config_rows(Table *t, const Run *runs, int n) {
    static const char *const KEYS[] = {"attention.scale", "init.scheme", "task.name"};
    int row = table_add(t, 0, "status");
    for (int i = 0; i < n; i++) {
        char s[CELL_LEN];
        run_status(&runs[i], s, sizeof s);
        cell(t, row, i, "%s", s);
    }
    for (size_t k = 0; k < sizeof KEYS / sizeof *KEYS; k++) {
        row = table_add(t, 0, "%s", KEYS[k]);
        for (int i = 0; i < n; i++) {
            const char *v = ini_get(&runs[i].config, KEYS[k]);
            cell(t, row, i, "%s", v ? v : "?");
        }
    }
    /* d_k tells how much larger unscaled logits are: their std grows like sqrt(d_k). */
    row = table_add(t, 0, "d_k = d_model / n_heads");
    for (int i = 0; i < n; i++) {
        const char *dm = ini_get(&runs[i].config, "model.d_model");
        const char *nh = ini_get(&runs[i].config, "model.n_heads");
        if (dm && nh && atoi(nh) > 0)
            cell(t, row, i, "%d", atoi(dm) / atoi(nh));
        else
            cell(t, row, i, "?");
    }
}

static void summary_accuracy_rows(Table *t, const Run *runs, int n) {
    table_add(t, 1, "validation accuracy (%%)");
    metric_rows(t, runs, n, "val_answer_acc", "answer acc", "%.1f%%", 100);
    metric_rows(t, runs, n, "val_token_acc", "token acc", "%.1f%%", 100);
    int row = table_add(t, 0, "answer acc >= 99%% first at step");
    for (int i = 0; i < n; i++) {
        const Csv *l = &runs[i].loss;
        int c = csv_col(l, "val_answer_acc");
        cell(t, row, i, c < 0 ? "n/a" : "never");
        for (int r = 0; c >= 0 && r < l->n_rows; r++)
            if (!csv_empty(l, r, c) && csv_num(l, r, c) >= 0.99) {
                cell(t, row, i, "%d", step_at(l, r));
                break;
            }
    }
}

static void summary_gradient_rows(Table *t, const Run *runs, int n) {
    int layers = 0, total = 0;
    for (int i = 0; i < n; i++) {
        if (grad_layers(&runs[i]) > layers) layers = grad_layers(&runs[i]);
        if (runs[i].has_grads && runs[i].grads.n_rows > 0 &&
            step_at(&runs[i].grads, runs[i].grads.n_rows - 1) > total)
            total = step_at(&runs[i].grads, runs[i].grads.n_rows - 1);
    }
    table_add(t, 1, "gradient L2 norm at the last logged step (before clipping)");
    for (int l = -1; l < layers; l++)
        for (int part = 0; part < (l < 0 ? 1 : 2); part++) {
            char col[96];
            int row;
            if (l < 0) {
                snprintf(col, sizeof col, "global");
                row = table_add(t, 0, "global");
            } else {
                snprintf(col, sizeof col, "blocks.%d.attn.qkv.weight.%c", l, "qk"[part]);
                row = table_add(t, 0, "layer %d W_%c", l, "qk"[part]);
            }
            for (int i = 0; i < n; i++) {
                const Csv *g = &runs[i].grads;
                int c = runs[i].has_grads ? csv_col(g, col) : -1;
                int r = last_row(g, c);
                if (r < 0) {
                    cell(t, row, i, "n/a");
                    continue;
                }
                char v[32];
                format_value(v, sizeof v, csv_num(g, r, c), "%#.3g", 1);
                if (step_at(g, r) != total)
                    cell(t, row, i, "%s (@%d)", v, step_at(g, r));
                else
                    cell(t, row, i, "%s", v);
            }
        }
}

static void summary_attention_rows(Table *t, const Run *runs, int n) {
    int layers = 0, total = 0;
    for (int i = 0; i < n; i++) {
        if (attn_layers(&runs[i]) > layers) layers = attn_layers(&runs[i]);
        if (attn_step(&runs[i], 1) > total) total = attn_step(&runs[i], 1);
    }
    if (layers == 0) return;
    table_add(t, 1, "attention logits (mean over heads)");
    static const char *const COLS[] = {"logit_std", "saturated_frac"};
    static const char *const WHAT[] = {"logit std", "saturated fraction"};
    for (int l = 0; l < layers; l++)
        for (int k = 0; k < 2; k++)
            for (int last = 0; last < 2; last++) {
                int row = last ? table_add(t, 0, "layer %d %s, final", l, WHAT[k])
                               : table_add(t, 0, "layer %d %s @ step 0", l, WHAT[k]);
                for (int i = 0; i < n; i++) {
                    int step = attn_step(&runs[i], last);
                    if (step < 0 || l >= attn_layers(&runs[i])) {
                        cell(t, row, i, "n/a");
                        continue;
                    }
                    char v[32];
                    format_value(v, sizeof v, attn_mean(&runs[i], step, l, COLS[k]),
                                 k ? "%.1f%%" : "%#.3g", k ? 100 : 1);
                    if (step != (last ? total : 0))
                        cell(t, row, i, "%s (@%d)", v, step);
                    else
                        cell(t, row, i, "%s", v);
                }
            }
}

/* Builds the whole summary table; returns -1 when out of memory. */
static int build_summary(Table *t, const Run *runs, int n) {
    memset(t, 0, sizeof *t);
    t->n_runs = n;
    table_add(t, 1, "setup");
    summary_config_rows(t, runs, n);
    table_add(t, 1, "loss (nats/token)");
    metric_rows(t, runs, n, "train_loss", "train loss", "%.4f", 1);
    metric_rows(t, runs, n, "val_loss", "val loss", "%.4f", 1);
    summary_accuracy_rows(t, runs, n);
    summary_gradient_rows(t, runs, n);
    summary_attention_rows(t, runs, n);
    return t->failed ? -1 : 0;
}

static void print_repeat(FILE *f, char c, int n) {
    for (int i = 0; i < n; i++) fputc(c, f);
}

/* The table with aligned columns: labels left, one right-aligned column per run. */
static void summary_print(const Table *t, const Run *runs, FILE *f) {
    int label_w = 3, total;
    int *w = calloc((size_t)t->n_runs, sizeof *w);
    if (!w) return;
    /* Headings stand on their own lines, so only row labels set the width. */
    for (int r = 0; r < t->n; r++)
        if (!t->row[r].section && (int)strlen(t->row[r].label) + 2 > label_w)
            label_w = (int)strlen(t->row[r].label) + 2;
    total = label_w;
    for (int i = 0; i < t->n_runs; i++) {
        w[i] = (int)strlen(runs[i].name);
        for (int r = 0; r < t->n; r++)
            if ((int)strlen(t->row[r].cell[i]) > w[i]) w[i] = (int)strlen(t->row[r].cell[i]);
        total += 3 + w[i];
    }
    fprintf(f, "%-*s", label_w, "run");
    for (int i = 0; i < t->n_runs; i++) fprintf(f, "   %*s", w[i], runs[i].name);
    fputc('\n', f);
    print_repeat(f, '=', total);
    fputc('\n', f);
    for (int r = 0; r < t->n; r++) {
        const Row *row = &t->row[r];
        if (row->section) {
            if (r > 0) fputc('\n', f);
            fprintf(f, "%s\n", row->label);
            continue;
        }
        fprintf(f, "  %-*s", label_w - 2, row->label);
        for (int i = 0; i < t->n_runs; i++) fprintf(f, "   %*s", w[i], row->cell[i]);
        fputc('\n', f);
    }
    print_repeat(f, '=', total);
    fprintf(f, "\n(@N): logged at step N, the nearest to the row's step; -: not logged near that "
               "step; n/a: not in this run's logs\n");
    free(w);
}

/* ---------------------------------------------------------------- figures */

#define PANEL_W 520.0
#define PANEL_H 320.0
#define MARGIN 20.0

/* Points of one line: steps and values. */
typedef struct {
    double *x, *y;
    int n;
    int present;   /* the run has the file this series comes from */
} XY;

typedef struct {
    PlotAxes ax;
    const char *series;  /* what each line measures, for data-series */
    XY *xy;              /* one per run */
    int span;            /* grid columns the panel takes */
} Panel;

typedef struct {
    Panel *p;
    int n, cap, n_runs;
    double x_max;  /* every panel spans steps 0..x_max, so figures line up */
    int failed;
} Figure;

static Figure figure_init(const Run *runs, int n) {
    return (Figure){.n_runs = n, .x_max = max_last_step(runs, n, "step")};
}

static Panel *figure_panel(Figure *f, const char *title, const char *series, const char *y_label,
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
    return p;
}

static void figure_free(Figure *f) {
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

/* Steps and values (times scale) of the rows where column `name` is not empty: a value that was
 * not measured at a step is left out, while a logged NaN/inf is kept so the line breaks there. */
static int xy_column(XY *xy, const Csv *t, const char *name, double scale) {
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

/* Mean over heads of an attention.csv column for one layer, one point per step. */
static int xy_attention(XY *xy, const Csv *t, int layer, const char *name) {
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
            xy->y[xy->n++] = sum / count;
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

/* Gives every panel in [first, last) the union of their y ranges, so magnitudes compare. */
static void share_y_range(Figure *f, int first, int last, const Run *runs) {
    double lo = INFINITY, hi = -INFINITY;
    for (int i = first; i < last; i++)
        for (int r = 0; r < f->n_runs; r++) {
            PlotSeries s = {runs[r].name, "", f->p[i].xy[r].x, f->p[i].xy[r].y, f->p[i].xy[r].n, r};
            double a, b;
            if (plot_y_range(&s, 1, f->p[i].ax.log_y, &a, &b)) lo = fmin(lo, a), hi = fmax(hi, b);
        }
    if (lo > hi) return;
    for (int i = first; i < last; i++) f->p[i].ax.y_lo = lo, f->p[i].ax.y_hi = hi;
}

/* Writes file: the title, a legend of the runs that appear, and the panels in a grid of two
 * columns (a panel with span 2 takes a whole row). Returns 0, or -1 after printing the error. */
static int figure_write(const Figure *f, const Run *runs, const char *title, const char *dir,
                        const char *file) {
    const int cols = 2;
    double width = cols * PANEL_W + 2 * MARGIN;
    PlotLegendItem *items = calloc((size_t)f->n_runs, sizeof *items);
    PlotSeries *series = calloc((size_t)f->n_runs, sizeof *series);
    int n_items = 0, rows = 0, col = cols;
    if (!items || !series) goto oom;
    for (int r = 0; r < f->n_runs; r++) {
        int present = 0;
        for (int i = 0; i < f->n; i++) present |= f->p[i].xy[r].present;
        if (present) items[n_items++] = (PlotLegendItem){runs[r].name, r};
    }
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
        plot_lines(&s, MARGIN + col * PANEL_W, y, p->span * PANEL_W, PANEL_H - 8, &p->ax, series,
                   n);
        col += p->span;
    }
    free(items);
    free(series);
    char path[PATH_MAX];
    int rc = 0;
    if (join_path(path, sizeof path, dir, file) != 0 || svg_end(&s) != 0 ||
        svg_save(&s, path) != 0) {
        fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
        rc = -1;
    }
    svg_free(&s);
    return rc;
oom:
    free(items);
    free(series);
    fprintf(stderr, "error: out of memory drawing %s\n", file);
    return -1;
}

/* One figure the page shows: its file and what to look for. */
typedef struct {
    const char *file, *title, *caption;
} FigureInfo;

/* Returns 1 when written, 0 when there was nothing to draw, -1 on error. */
static int figure_loss(const Run *runs, int n, const char *dir, int log_scale) {
    Figure f = figure_init(runs, n);
    const char *y = log_scale ? "loss (nats/token, log scale)" : "loss (nats/token)";
    Panel *train = figure_panel(&f, "training loss (one batch per step)", "train loss", y,
                                log_scale, 1);
    Panel *val = figure_panel(&f, "validation loss", "val loss", y, log_scale, 1);
    int rc = f.failed ? -1 : 0;
    for (int r = 0; r < n && rc == 0; r++)
        rc = xy_column(&train->xy[r], &runs[r].loss, "train_loss", 1) |
             xy_column(&val->xy[r], &runs[r].loss, "val_loss", 1);
    if (rc == 0) share_y_range(&f, 0, 2, runs);
    if (rc == 0) rc = figure_write(&f, runs, "Loss against step", dir, "loss.svg");
    else fprintf(stderr, "error: out of memory drawing loss.svg\n");
    figure_free(&f);
    return rc ? -1 : 1;
}

static int figure_accuracy(const Run *runs, int n, const char *dir) {
    Figure f = figure_init(runs, n);
    Panel *ans = figure_panel(&f, "validation answer accuracy (whole answer right)",
                              "val answer acc", "accuracy (%)", 0, 1);
    Panel *tok = figure_panel(&f, "validation token accuracy (answer tokens)", "val token acc",
                              "accuracy (%)", 0, 1);
    int rc = f.failed ? -1 : 0;
    for (int r = 0; r < n && rc == 0; r++)
        rc = xy_column(&ans->xy[r], &runs[r].loss, "val_answer_acc", 100) |
             xy_column(&tok->xy[r], &runs[r].loss, "val_token_acc", 100);
    for (int i = 0; i < f.n; i++) f.p[i].ax.y_lo = 0, f.p[i].ax.y_hi = 100;
    if (rc == 0)
        rc = figure_write(&f, runs, "Validation accuracy against step", dir, "accuracy.svg");
    else fprintf(stderr, "error: out of memory drawing accuracy.svg\n");
    figure_free(&f);
    return rc ? -1 : 1;
}

static int figure_gradients(const Run *runs, int n, const char *dir) {
    int layers = 0, any = 0;
    for (int r = 0; r < n; r++) {
        any |= runs[r].has_grads;
        if (grad_layers(&runs[r]) > layers) layers = grad_layers(&runs[r]);
    }
    if (!any) return 0;
    Figure f = figure_init(runs, n);
    /* Titles and column names live in these arrays until the figure is written. */
    char titles[2 * 64][64], cols[2 * 64][64];
    if (layers > 64) layers = 64;
    int rc = 0;
    Panel *g = figure_panel(&f, "global gradient norm (all parameters)", "global",
                            "gradient L2 norm", 1, 2);
    for (int r = 0; r < n && g && rc == 0; r++)
        if (runs[r].has_grads) rc = xy_column(&g->xy[r], &runs[r].grads, "global", 1);
    for (int l = 0; l < layers && rc == 0 && !f.failed; l++)
        for (int part = 0; part < 2 && rc == 0; part++) {
            int k = 2 * l + part;
            snprintf(titles[k], sizeof titles[k], "layer %d: gradient of W_%c (%s weights)", l,
                     "qk"[part], part ? "key" : "query");
            snprintf(cols[k], sizeof cols[k], "blocks.%d.attn.qkv.weight.%c", l, "qk"[part]);
            Panel *p = figure_panel(&f, titles[k], cols[k], "gradient L2 norm", 1, 1);
            for (int r = 0; r < n && p && rc == 0; r++)
                if (runs[r].has_grads) rc = xy_column(&p->xy[r], &runs[r].grads, cols[k], 1);
        }
    if (f.failed) rc = -1;
    if (rc == 0) share_y_range(&f, 1, f.n, runs);
    if (rc == 0)
        rc = figure_write(&f, runs, "Gradient norms against step (log scale)", dir,
                          "grad_norms.svg");
    else
        fprintf(stderr, "error: out of memory drawing grad_norms.svg\n");
    figure_free(&f);
    return rc ? -1 : 1;
}

static int figure_attention(const Run *runs, int n, const char *dir) {
    int layers = 0;
    for (int r = 0; r < n; r++)
        if (attn_layers(&runs[r]) > layers) layers = attn_layers(&runs[r]);
    if (layers == 0) return 0;
    if (layers > 64) layers = 64;
    Figure f = figure_init(runs, n);
    char titles[2 * 64][64];
    int rc = 0;
    for (int l = 0; l < layers && rc == 0; l++)
        for (int k = 0; k < 2 && rc == 0; k++) {
            snprintf(titles[2 * l + k], sizeof titles[0], "layer %d: %s", l,
                     k ? "logit standard deviation" : "normalized attention entropy");
            Panel *p = figure_panel(&f, titles[2 * l + k], k ? "logit std" : "entropy norm",
                                    k ? "std of logits (scale \u00d7 q\u00b7k)"
                                      : "entropy / log(keys) (1 = uniform)", 0, 1);
            if (!p) {
                rc = -1;
                break;
            }
            if (!k) p->ax.y_lo = 0, p->ax.y_hi = 1;
            for (int r = 0; r < n && rc == 0; r++)
                if (runs[r].has_attn)
                    rc = xy_attention(&p->xy[r], &runs[r].attn, l,
                                      k ? "logit_std" : "entropy_norm");
        }
    if (rc == 0) {
        /* Shared logit-std axis across layers (the odd panels). */
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 1; i < f.n; i += 2)
            for (int r = 0; r < n; r++) {
                PlotSeries s = {"", "", f.p[i].xy[r].x, f.p[i].xy[r].y, f.p[i].xy[r].n, r};
                double a, b;
                if (plot_y_range(&s, 1, 0, &a, &b)) lo = fmin(lo, a), hi = fmax(hi, b);
            }
        for (int i = 1; i < f.n && lo <= hi; i += 2) {
            f.p[i].ax.y_lo = fmin(0, lo);
            f.p[i].ax.y_hi = hi;
        }
        rc = figure_write(&f, runs, "Attention logits against step (mean over heads)", dir,
                          "attention.svg");
    } else {
        fprintf(stderr, "error: out of memory drawing attention.svg\n");
    }
    figure_free(&f);
    return rc ? -1 : 1;
}

/* One heatmap of the attention-map figure. */
typedef struct {
    int run, first_row, rows, layer, head;
    char title[NAME_LEN + 48];
    double x, y, w, h;
} MapSlot;

/* Labels for positions 0..T-1: the token text from attn_map_tokens.csv, else the position. */
static void token_labels(const Run *r, int T, const char **labels, char (*num)[12]) {
    for (int p = 0; p < T; p++) {
        snprintf(num[p], 12, "%d", p);
        labels[p] = num[p];
    }
    if (!r->has_tokens) return;
    int cp = csv_col(&r->tokens, "position"), ct = csv_col(&r->tokens, "token");
    if (cp < 0 || ct < 0) return;
    for (int i = 0; i < r->tokens.n_rows; i++) {
        double p = csv_num(&r->tokens, i, cp);
        if (p >= 0 && p < T) labels[(int)p] = csv_str(&r->tokens, i, ct);
    }
}

/* Splits attn_map.csv into its (layer, head) blocks of query rows, appending them to slots. */
static int map_slots(const Run *runs, int n, MapSlot **slots, int *n_slots) {
    int cap = 0;
    *slots = NULL;
    *n_slots = 0;
    for (int r = 0; r < n; r++) {
        const Csv *m = &runs[r].map;
        if (!runs[r].has_map) continue;
        int cl = csv_col(m, "layer"), ch = csv_col(m, "head");
        if (cl < 0 || ch < 0 || csv_col(m, "k0") < 0) continue;
        for (int i = 0; i < m->n_rows; i++) {
            int layer = csv_int(m, i, cl, -1), head = csv_int(m, i, ch, -1);
            MapSlot *last = *n_slots ? &(*slots)[*n_slots - 1] : NULL;
            if (last && last->run == r && last->layer == layer && last->head == head) {
                last->rows++;
                continue;
            }
            if (*n_slots == cap) {
                cap = cap ? 2 * cap : 16;
                MapSlot *s = realloc(*slots, (size_t)cap * sizeof *s);
                if (!s) return -1;
                *slots = s;
            }
            MapSlot *s = &(*slots)[(*n_slots)++];
            *s = (MapSlot){.run = r, .first_row = i, .rows = 1, .layer = layer, .head = head};
            snprintf(s->title, sizeof s->title, "%s: layer %d, head %d", runs[r].name, layer, head);
        }
    }
    return 0;
}

/* Fills the heatmap description of a slot; v, labels and row labels are caller-provided buffers
 * of T*rows, T and rows entries. */
static PlotHeatmap slot_heatmap(const Run *runs, const MapSlot *s, int T, double *v,
                                const char **labels, const char **row_labels, char (*num)[12]) {
    const Run *r = &runs[s->run];
    const Csv *m = &r->map;
    int k0 = csv_col(m, "k0"), cq = csv_col(m, "query");
    token_labels(r, T, labels, num);
    for (int i = 0; i < s->rows; i++) {
        int q = cq >= 0 ? csv_int(m, s->first_row + i, cq, -1) : i;
        row_labels[i] = q >= 0 && q < T ? labels[q] : "?";
        for (int j = 0; j < T; j++) v[(size_t)i * T + j] = csv_num(m, s->first_row + i, k0 + j);
    }
    return (PlotHeatmap){.title = s->title, .v = v, .rows = s->rows, .cols = T,
                         .row_labels = row_labels, .col_labels = labels, .row_axis = "query",
                         .col_axis = "key", .vmin = 0, .vmax = 1};
}

static int figure_maps(const Run *runs, int n, const char *dir) {
    MapSlot *slots = NULL;
    int n_slots = 0, T = 0, max_rows = 0, rc = -1;
    if (map_slots(runs, n, &slots, &n_slots) != 0) {
        free(slots);
        fprintf(stderr, "error: out of memory drawing attn_maps.svg\n");
        return -1;
    }
    if (n_slots == 0) {
        free(slots);
        return 0;
    }
    for (int i = 0; i < n_slots; i++) {
        const Csv *m = &runs[slots[i].run].map;
        if (m->n_cols - csv_col(m, "k0") > T) T = m->n_cols - csv_col(m, "k0");
        if (slots[i].rows > max_rows) max_rows = slots[i].rows;
    }
    double *v = malloc((size_t)T * (size_t)max_rows * sizeof *v);
    const char **labels = malloc((size_t)T * sizeof *labels);
    const char **row_labels = malloc((size_t)max_rows * sizeof *row_labels);
    char(*num)[12] = malloc((size_t)T * sizeof *num);
    if (!v || !labels || !row_labels || !num) {
        fprintf(stderr, "error: out of memory drawing attn_maps.svg\n");
        goto done;
    }
    /* Cells big enough to read the tokens up to ~30 positions, never smaller than 6 px. */
    double cell = fmax(6, fmin(16, floor(240.0 / T)));
    const double max_w = 2 * PANEL_W - 90, gap = 26;
    double x = MARGIN, y = 48, row_h = 0, used_w = 0;
    for (int i = 0; i < n_slots; i++) {
        const Csv *m = &runs[slots[i].run].map;
        PlotHeatmap hm = slot_heatmap(runs, &slots[i], m->n_cols - csv_col(m, "k0"), v, labels,
                                      row_labels, num);
        plot_heatmap_size(&hm, cell, &slots[i].w, &slots[i].h);
        int new_run = i > 0 && slots[i].run != slots[i - 1].run;
        if (i > 0 && (new_run || x + slots[i].w > MARGIN + max_w)) {
            x = MARGIN;
            y += row_h + gap;
            row_h = 0;
        }
        slots[i].x = x;
        slots[i].y = y;
        x += slots[i].w + gap;
        row_h = fmax(row_h, slots[i].h);
        used_w = fmax(used_w, x - gap);
    }
    Svg s;
    svg_begin(&s, used_w + 110, fmax(y + row_h + MARGIN, 320), "Attention maps");
    svg_text(&s, MARGIN, 28, "font-size=\"17\" font-weight=\"bold\"",
             "Attention weights of one validation example at the end of training");
    for (int i = 0; i < n_slots; i++) {
        const Csv *m = &runs[slots[i].run].map;
        PlotHeatmap hm = slot_heatmap(runs, &slots[i], m->n_cols - csv_col(m, "k0"), v, labels,
                                      row_labels, num);
        plot_heatmap(&s, slots[i].x, slots[i].y, cell, &hm);
    }
    plot_colorbar(&s, used_w + 30, 80, 16, 200, 0, 1, "weight");
    char path[PATH_MAX];
    rc = 1;
    if (join_path(path, sizeof path, dir, "attn_maps.svg") != 0 || svg_end(&s) != 0 ||
        svg_save(&s, path) != 0) {
        fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
        rc = -1;
    }
    svg_free(&s);
done:
    free(v);
    free(labels);
    free(row_labels);
    free(num);
    free(slots);
    return rc;
}

/* ------------------------------------------------------------------- HTML */

static const char CSS[] =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;color:#222;margin:24px auto;"
    "max-width:1120px;padding:0 16px;line-height:1.45}\n"
    "h1{font-size:24px;margin-bottom:4px}h2{font-size:19px;margin-top:32px;"
    "border-bottom:1px solid #ddd;padding-bottom:4px}\n"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0 12px}\n"
    "th,td{border:1px solid #ddd;padding:3px 10px;text-align:right;white-space:nowrap}\n"
    "th{background:#f4f6f8}th:first-child,td:first-child{text-align:left}\n"
    "td.text{text-align:left}\n"
    "tr.section td{background:#eef2f6;font-weight:bold;text-align:left}\n"
    "tr.diff td{background:#fff3c4}\n"
    "figure{margin:20px 0 32px}figure img{max-width:100%;border:1px solid #e4e4e4}\n"
    "figcaption{font-size:14px;color:#444;margin-top:6px;max-width:960px}\n"
    "code{background:#f4f4f4;padding:0 3px}.swatch{vertical-align:middle;margin-right:6px}\n"
    ".note{color:#666;font-size:13px}td.bad{color:#b00020;font-weight:bold}\n";

static void html_runs_header(FILE *f, const Run *runs, int n) {
    fprintf(f, "<tr><th>run</th>");
    for (int i = 0; i < n; i++) {
        /* The run's line sample, drawn exactly as in the figures. */
        fprintf(f, "<th><svg class=\"swatch\" width=\"30\" height=\"8\"><line x1=\"0\" y1=\"4\" "
                   "x2=\"30\" y2=\"4\" stroke=\"%s\" stroke-width=\"2.5\" stroke-dasharray=\"%s\"/>"
                   "</svg>", plot_color(i), *plot_dash(i) ? plot_dash(i) : "none");
        xml_escape_file(f, runs[i].name);
        fprintf(f, "</th>");
    }
    fprintf(f, "</tr>\n");
}

static void html_summary(FILE *f, const Table *t, const Run *runs) {
    fprintf(f, "<table class=\"summary\">\n");
    html_runs_header(f, runs, t->n_runs);
    for (int r = 0; r < t->n; r++) {
        const Row *row = &t->row[r];
        if (row->section) {
            fprintf(f, "<tr class=\"section\"><td colspan=\"%d\">", t->n_runs + 1);
            xml_escape_file(f, row->label);
            fprintf(f, "</td></tr>\n");
            continue;
        }
        fprintf(f, "<tr><td>");
        xml_escape_file(f, row->label);
        fprintf(f, "</td>");
        for (int i = 0; i < t->n_runs; i++) {
            const char *c = row->cell[i];
            int bad = strncmp(c, "diverged", 8) == 0 || strncmp(c, "nan", 3) == 0 ||
                      strncmp(c, "inf", 3) == 0 || strncmp(c, "-inf", 4) == 0;
            fprintf(f, bad ? "<td class=\"bad\">" : "<td>");
            xml_escape_file(f, c);
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n<p class=\"note\">(@N): logged at step N, the nearest to the row's step; "
               "-: not logged near that step; n/a: not in this run's logs.</p>\n");
}

/* Every key of any run's config.ini, in order of first appearance. */
static const char **config_keys(const Run *runs, int n, int *n_keys) {
    int cap = 0;
    for (int i = 0; i < n; i++) cap += runs[i].config.n;
    const char **keys = malloc((size_t)(cap ? cap : 1) * sizeof *keys);
    *n_keys = 0;
    if (!keys) return NULL;
    for (int i = 0; i < n; i++)
        for (int e = 0; e < runs[i].config.n; e++) {
            const char *k = runs[i].config.e[e].key;
            int seen = 0;
            for (int j = 0; j < *n_keys && !seen; j++) seen = strcmp(keys[j], k) == 0;
            if (!seen) keys[(*n_keys)++] = k;
        }
    return keys;
}

static int key_differs(const Run *runs, int n, const char *key) {
    const char *first = ini_get(&runs[0].config, key);
    for (int i = 1; i < n; i++) {
        const char *v = ini_get(&runs[i].config, key);
        if (!first != !v || (v && strcmp(first, v) != 0)) return 1;
    }
    return 0;
}

/* run.name and run.dir always differ and say nothing about the experiment. */
static int is_bookkeeping(const char *key) {
    return strcmp(key, "run.name") == 0 || strcmp(key, "run.dir") == 0;
}

static void html_config_table(FILE *f, const Run *runs, int n, const char **keys, int n_keys,
                              int only_diff) {
    fprintf(f, "<table class=\"config\">\n");
    html_runs_header(f, runs, n);
    for (int k = 0; k < n_keys; k++) {
        int diff = key_differs(runs, n, keys[k]);
        if (only_diff && (!diff || is_bookkeeping(keys[k]))) continue;
        fprintf(f, "<tr%s><td><code>", diff ? " class=\"diff\"" : "");
        xml_escape_file(f, keys[k]);
        fprintf(f, "</code></td>");
        for (int i = 0; i < n; i++) {
            const char *v = ini_get(&runs[i].config, keys[k]);
            fprintf(f, "<td class=\"text\">");
            xml_escape_file(f, v ? v : "(not set)");
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* Writes index.html: runs and the settings that differ, the summary table, the figures with
 * what to look for, and every setting. It is well-formed XML too (void elements closed, CSS free
 * of < and >), so the tests can check it with the same parser as the SVGs. */
static int write_html(const char *path, const Run *runs, int n, const Table *summary,
                      const FigureInfo *figs, int n_figs) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    int n_keys = 0, n_diff = 0;
    const char **keys = config_keys(runs, n, &n_keys);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>");
    for (int i = 0; i < n; i++) {
        fputs(i ? " vs " : "scaledot: ", f);
        xml_escape_file(f, runs[i].name);
    }
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", CSS);
    for (int i = 0; i < n; i++) {
        if (i) fputs(" <span class=\"note\">vs</span> ", f);
        xml_escape_file(f, runs[i].name);
    }
    fprintf(f, "</h1>\n<p class=\"note\">Report of <code>./train --compare</code>: why attention "
               "divides q&#183;k by &#8730;d<sub>k</sub>, measured. Run folders: ");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s<code>", i ? ", " : "");
        xml_escape_file(f, runs[i].path);
        fprintf(f, "</code>");
    }
    fprintf(f, ".</p>\n<h2>Settings that differ</h2>\n");
    for (int k = 0; keys && k < n_keys; k++)
        n_diff += key_differs(runs, n, keys[k]) && !is_bookkeeping(keys[k]);
    if (!keys || n_diff == 0)
        fprintf(f, "<p>No setting differs between the runs (apart from run.name and "
                   "run.dir).</p>\n");
    else
        html_config_table(f, runs, n, keys, n_keys, 1);
    fprintf(f, "<h2>Summary</h2>\n");
    html_summary(f, summary, runs);
    fprintf(f, "<h2>Figures</h2>\n");
    for (int i = 0; i < n_figs; i++) {
        fprintf(f, "<figure id=\"%.*s\">\n<img src=\"%s\" alt=\"", (int)strcspn(figs[i].file, "."),
                figs[i].file, figs[i].file);
        xml_escape_file(f, figs[i].title);
        fprintf(f, "\"/>\n<figcaption>%s</figcaption>\n</figure>\n", figs[i].caption);
    }
    fprintf(f, "<h2>All settings</h2>\n<p class=\"note\">Highlighted: the value differs between "
               "runs.</p>\n");
    if (keys) html_config_table(f, runs, n, keys, n_keys, 0);
    fprintf(f, "</body>\n</html>\n");
    free(keys);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ----------------------------------------------------------------- command */

static void usage(FILE *f) {
    fprintf(f,
            "usage: ./train --compare RUN_DIR [RUN_DIR ...] [--out DIR] [--log-scale]\n"
            "Prints a summary table of the runs and writes SVG figures and index.html into DIR\n"
            "(default reports/<run1>_vs_<run2>...).\n"
            "--log-scale puts the loss axis on a log scale.\n"
            "Exit codes: 0 done, 1 cannot write the report, 2 bad arguments or unreadable run.\n");
}

/* The report folder: --out, else reports/<name1>_vs_<name2>..., else reports/compare when that
 * name would be unwieldy. */
static void default_out(char *out, size_t n, const Run *runs, int n_runs) {
    char buf[PATH_MAX] = "reports/";
    size_t len = strlen(buf);
    for (int i = 0; i < n_runs && len < sizeof buf; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? "_vs_" : "", runs[i].name);
    int bad = len > 96;
    for (const char *p = buf + 8; *p; p++) bad |= *p == '/' || (unsigned char)*p < 0x20;
    snprintf(out, n, "%s", bad ? "reports/compare" : buf);
}

int report_compare(int argc, char **argv) {
    const char *out = NULL;
    int log_scale = 0, n_dirs = 0;
    char **dirs = calloc((size_t)(argc > 0 ? argc : 1), sizeof *dirs);
    if (!dirs) return RC_IO;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            free(dirs);
            return RC_OK;
        } else if (strcmp(argv[i], "--log-scale") == 0) {
            log_scale = 1;
        } else if (strcmp(argv[i], "--out") == 0 || strncmp(argv[i], "--out=", 6) == 0) {
            out = argv[i][5] == '=' ? argv[i] + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!out || !*out) {
                fprintf(stderr, "error: --out needs a folder\n");
                free(dirs);
                return RC_USAGE;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "error: unknown option '%s' for --compare\n", argv[i]);
            usage(stderr);
            free(dirs);
            return RC_USAGE;
        } else {
            dirs[n_dirs++] = argv[i];
        }
    }
    if (n_dirs == 0) {
        fprintf(stderr, "error: --compare needs at least one run folder\n");
        usage(stderr);
        free(dirs);
        return RC_USAGE;
    }
    Run *runs = calloc((size_t)n_dirs, sizeof *runs);
    if (!runs) {
        free(dirs);
        return RC_IO;
    }
    int rc = RC_OK;
    for (int i = 0; i < n_dirs; i++)
        if (load_run(&runs[i], dirs[i]) != 0) rc = RC_USAGE; /* report every bad folder */
    Table summary = {0};
    char dir[PATH_MAX], index[PATH_MAX];
    if (rc != RC_OK) goto done;
    make_names_unique(runs, n_dirs);
    if (build_summary(&summary, runs, n_dirs) != 0) {
        fprintf(stderr, "error: out of memory\n");
        rc = RC_IO;
        goto done;
    }
    summary_print(&summary, runs, stdout);
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else
        default_out(dir, sizeof dir, runs, n_dirs);
    if (make_dirs(dir) != 0) {
        fprintf(stderr, "error: cannot create report folder '%s': %s\n", dir, strerror(errno));
        rc = RC_IO;
        goto done;
    }
    FigureInfo figs[5];
    int n_figs = 0, w;
    if ((w = figure_loss(runs, n_dirs, dir, log_scale)) > 0)
        figs[n_figs++] = (FigureInfo){
            "loss.svg", "Loss against step",
            "Training loss (one batch per step) and validation loss per answer token. Look for "
            "how long each run sits on the initial plateau before its loss drops; a run that "
            "diverged ends with a cross at its last finite value (use --log-scale when one run "
            "dwarfs the others)."};
    if (w < 0) rc = RC_IO;
    if ((w = figure_accuracy(runs, n_dirs, dir)) > 0)
        figs[n_figs++] = (FigureInfo){
            "accuracy.svg", "Validation accuracy against step",
            "Exact-match answer accuracy and per-token accuracy on the held-out examples: compare "
            "when each run climbs off chance level and whether it reaches 99% (the summary table "
            "gives the step)."};
    if (w < 0) rc = RC_IO;
    if ((w = figure_gradients(runs, n_dirs, dir)) > 0)
        figs[n_figs++] = (FigureInfo){
            "grad_norms.svg", "Gradient norms against step",
            "Gradient L2 norms before clipping, log scale: without the 1/&#8730;d<sub>k</sub> "
            "scale the softmax saturates and the gradients reaching W_q and W_k collapse by "
            "orders of magnitude, while the global norm barely shows it."};
    if (w < 0) rc = RC_IO;
    if ((w = figure_attention(runs, n_dirs, dir)) > 0)
        figs[n_figs++] = (FigureInfo){
            "attention.svg", "Attention entropy and logit spread against step",
            "With the scale removed, the logit std at step 0 is about &#8730;d<sub>k</sub> times "
            "larger, the softmax saturates (normalized entropy falls towards 0) and the q/k "
            "gradients collapse."};
    if (w < 0) rc = RC_IO;
    if ((w = figure_maps(runs, n_dirs, dir)) > 0)
        figs[n_figs++] = (FigureInfo){
            "attn_maps.svg", "Attention maps at the end of training",
            "Attention weights of one validation example after training (row = query position, "
            "column = key; white = 0, dark blue = 1; above the diagonal is masked): a saturated "
            "head puts almost all its weight on a single key in every row."};
    if (w < 0) rc = RC_IO;
    if (join_path(index, sizeof index, dir, "index.html") != 0) {
        fprintf(stderr, "error: report folder name '%s' is too long\n", dir);
        rc = RC_IO;
    } else if (write_html(index, runs, n_dirs, &summary, figs, n_figs) != 0) {
        rc = RC_IO;
    }
    if (rc == RC_OK) printf("\nreport: %s\n", index);
done:
    fflush(stdout);
    table_free(&summary);
    for (int i = 0; i < n_dirs; i++) free_run(&runs[i]);
    free(runs);
    free(dirs);
    return rc;
}
