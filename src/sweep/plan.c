/* plan.c: the sweep's grid expanded into runs: each run's config (base + one value per axis),
 * its name, its sweep.csv cells; every run checked before the first one trains; the plan stored
 * in OUT/plan.txt (and compared with the one already there), OUT/configs/ and OUT/jobs.txt.
 *
 * plan.txt is line-based text: "axis KEY VALUES [shape]", "base section.key = value" for every
 * key of the base config but run.name / run.dir, "task-file fnv1a64 HASH PATH" for every task
 * file the runs read (task.name = file or text: FNV-1a of its bytes, as the "; task file:" line of
 * a run's config.ini), "columns ...", and "run NAME CELLS..." per run in plan order; --collect
 * reads the columns and runs back. */
#include "sweep/plan.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "report/sweep_columns.h"
#include "tasks/tasks.h"
#include "util/file_check.h"
#include "util/whole_write.h"
#include "train/runlog.h"
#include "train/task_source.h"
#include "train/train.h"

/* config_set on "key=value"; on error names the sweep option behind the value too. */
static int set_value(Config *c, const Axis *ax, const char *key, const char *value) {
    char buf[2 * PLAN_CELL];
    snprintf(buf, sizeof buf, "%s=%s", key, value);
    if (config_set_as(c, buf, ax->flag, ax->argn) == 0) return 0;
    if (ax->argn > 0)
        fprintf(stderr, "error: %s (argument %d): value '%s' of '%s' is refused (see above)\n",
                ax->flag, ax->argn, value, key);
    else
        fprintf(stderr, "error: %s (default): value '%s' of '%s' is refused (see above)\n",
                ax->flag, value, key);
    return -1;
}

/* The d_k axis: fixed width (n_heads = d_model / d_k) or one head (d_model = d_k). */
static int set_dk(Config *c, const SweepArgs *a, const Axis *ax, const char *value) {
    int dk = atoi(value), dm = a->one_head ? dk : a->d_model;
    if (dk > dm || dm % dk != 0) {
        fprintf(stderr, "error: --dk%s: d_k = %d does not divide d_model = %d (%s): n_heads = "
                        "d_model / d_k must be a whole number; nothing was run\n",
                ax->argn ? "" : " (default)", dk, dm,
                a->d_model_argn ? "--d-model" : "the default of --d-model");
        return -1;
    }
    char v[32];
    snprintf(v, sizeof v, "%d", dm);
    if (set_value(c, ax, "model.d_model", v) != 0) return -1;
    snprintf(v, sizeof v, "%d", dm / dk);
    return set_value(c, ax, "model.n_heads", v);
}

/* A name part: only [A-Za-z0-9._+-] survive, anything else becomes '-'. */
static void name_part(char *dst, size_t n, const char *label, const char *value) {
    size_t len = strlen(dst);
    int k = snprintf(dst + len, n - len, "%s%s%s", len ? "_" : "", label, value);
    if (k < 0) return;
    for (char *p = dst + len; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '+' || *p == '-' || *p == '_'))
            *p = '-';
}

/* Value index of each axis for run `index`, the last axis fastest. */
static void digits(const SweepArgs *a, long index, int *d) {
    for (int i = a->n_axes - 1; i >= 0; i--) {
        d[i] = (int)(index % a->axes[i].n);
        index /= a->axes[i].n;
    }
}

int plan_absolute_task_file(Config *c) {
    if (!c->task_file[0] || c->task_file[0] == '/') return 0;
    char cwd[SWEEP_PATH], abs[2 * SWEEP_PATH];
    if (!getcwd(cwd, sizeof cwd)) {
        fprintf(stderr, "error: cannot read the current folder: %s\n", strerror(errno));
        return -1;
    }
    int n = snprintf(abs, sizeof abs, "%s/%s", cwd, c->task_file);
    if (n < 0 || n >= CONFIG_STR) {
        fprintf(stderr, "error: task.file '%s' (%s): its absolute path '%s' is too long (at most "
                        "%d characters)\n", c->task_file, config_origin(c, "task.file"), abs,
                CONFIG_STR - 1);
        return -1;
    }
    memcpy(c->task_file, abs, (size_t)n + 1);
    return 0;
}

int plan_run_config(const SweepArgs *a, const Config *base, const char *runs_dir, long index,
                    Config *out) {
    int d[SWEEP_MAX_AXES];
    digits(a, index, d);
    *out = *base;
    char name[4 * PLAN_CELL] = "";
    for (int i = 0; i < a->n_axes; i++) {
        const Axis *ax = &a->axes[i];
        const char *v = ax->values[d[i]];
        if (ax->kind == AXIS_DK ? set_dk(out, a, ax, v) : set_value(out, ax, ax->key, v)) return -1;
        name_part(name, sizeof name, ax->label, v);
    }
    if (!*name) snprintf(name, sizeof name, "run");
    if (plan_absolute_task_file(out) != 0) return -1; /* a --grid task.file value */
    if (strlen(name) >= CONFIG_STR || strlen(runs_dir) >= CONFIG_STR) {
        fprintf(stderr, "error: run name '%s' or folder '%s' is too long (at most %d characters)\n",
                name, runs_dir, CONFIG_STR - 1);
        return -1;
    }
    memcpy(out->run_name, name, strlen(name) + 1);
    memcpy(out->run_dir, runs_dir, strlen(runs_dir) + 1);
    /* one thread per run: at these sizes runs side by side beat threads within a run */
    if (strcmp(config_origin(base, "run.threads"), "default") == 0) out->threads = 1;
    return 0;
}

/* The text of attention.scale in this config: the axis value as given, else the mode's name. */
static void scale_text(const SweepArgs *a, const Config *c, const int *d, char *out, size_t n) {
    const Axis *ax = sweep_axis_for(a, "attention.scale");
    const char *name = config_scale_name(c->scale_mode);
    if (ax) snprintf(out, n, "%s", ax->values[d[ax - a->axes]]);
    else if (name) snprintf(out, n, "%s", name);
    else snprintf(out, n, "%.15g", c->scale_value);
}

/* The cell of fixed plan column f (report/sweep_columns.h) for run config c, axis values d. */
static void fixed_cell(PlanColumn f, const SweepArgs *a, const Config *c, const int *d,
                       char *out) {
    switch (f) {
    case PC_D_K: snprintf(out, PLAN_CELL, "%d", c->d_model / c->n_heads); break;
    case PC_D_MODEL: snprintf(out, PLAN_CELL, "%d", c->d_model); break;
    case PC_N_HEADS: snprintf(out, PLAN_CELL, "%d", c->n_heads); break;
    case PC_SCALE: scale_text(a, c, d, out, PLAN_CELL); break;
    case PC_SEED: snprintf(out, PLAN_CELL, "%ld", c->seed); break;
    case PC_STEPS: snprintf(out, PLAN_CELL, "%d", c->steps); break;
    case PC_N: break;
    }
}

/* The plan's sweep.csv cells of one run: the fixed columns in table order, the --grid columns
 * before steps. */
static void run_cells(const SweepArgs *a, const Config *c, long index, char (*cell)[PLAN_CELL]) {
    int d[SWEEP_MAX_AXES], k = 0;
    digits(a, index, d);
    for (int f = 0; f < PC_N; f++) {
        if (f == PC_STEPS)
            for (int i = 0; i < a->n_axes; i++)
                if (a->axes[i].column) snprintf(cell[k++], PLAN_CELL, "%s", a->axes[i].values[d[i]]);
        fixed_cell((PlanColumn)f, a, c, d, cell[k++]);
    }
}

/* The checks only a built task can do: the sequences must fit model.max_seq_len. */
static int check_task(const Config *c) {
    Task t;
    int rc = task_init(&t, c);
    if (rc == 0) {
        ModelConfig mc = train_model_config(c, &t);
        if (mc.max_seq_len < t.seq_len) {
            fprintf(stderr, "error: model.max_seq_len = %d (%s) is shorter than the task's "
                            "sequences (T = %d)\n",
                    mc.max_seq_len, config_origin(c, "model.max_seq_len"), t.seq_len);
            rc = -1;
        }
    }
    task_free(&t);
    return rc;
}

static int cmp_names(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Two runs with one name would share a folder: refused, naming both values' run. */
static int check_unique(const Plan *p) {
    char **s = malloc(sizeof *s * (size_t)p->n_runs);
    if (!s) return -1;
    for (int i = 0; i < p->n_runs; i++) s[i] = p->names[i];
    qsort(s, (size_t)p->n_runs, sizeof *s, cmp_names);
    int rc = 0;
    for (int i = 1; i < p->n_runs && !rc; i++)
        if (strcmp(s[i - 1], s[i]) == 0) {
            fprintf(stderr, "error: two runs of the plan get the same name '%s' (values that "
                            "differ only in characters a folder name cannot hold, which become "
                            "'-'); rename a value\n", s[i]);
            rc = -1;
        }
    free(s);
    return rc;
}

/* "base section.key = value" lines from config_write (comments dropped). */
static void write_base(FILE *f, const Config *base) {
    char *buf = NULL, section[64] = "";
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return;
    config_write(base, m);
    fclose(m);
    for (char *line = buf ? strtok(buf, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        if (line[0] == '[') {
            snprintf(section, sizeof section, "%.*s", (int)strcspn(line + 1, "]"), line + 1);
        } else if (line[0] != ';' && line[0] != '#' && line[0] != '\0') {
            int klen = (int)strcspn(line, " =");
            char key[128];
            snprintf(key, sizeof key, "%s.%.*s", section, klen, line);
            if (strcmp(key, "run.name") != 0 && strcmp(key, "run.dir") != 0)
                fprintf(f, "base %s%s\n", key, line + klen);
        }
    }
    free(buf);
}

static char *plan_text(const SweepArgs *a, const Config *base, const Plan *p, const char *files) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fprintf(f, "# sweep plan (./train --sweep); a sweep into this folder must have this plan\n");
    for (int i = 0; i < a->n_axes; i++) {
        const Axis *ax = &a->axes[i];
        fprintf(f, "axis %s ", ax->key);
        for (int k = 0; k < ax->n; k++) fprintf(f, "%s%s", k ? "," : "", ax->values[k]);
        if (ax->kind == AXIS_DK && a->one_head) fprintf(f, " (one head, d_model = d_k)");
        else if (ax->kind == AXIS_DK) fprintf(f, " (d_model %d, n_heads = d_model / d_k)", a->d_model);
        fputc('\n', f);
    }
    write_base(f, base);
    fputs(files, f);
    fprintf(f, "columns");
    for (int c = 0; c < p->n_cols; c++) fprintf(f, " %s", p->col_names[c]);
    fputc('\n', f);
    for (int r = 0; r < p->n_runs; r++) {
        fprintf(f, "run %s", p->names[r]);
        for (int c = 0; c < p->n_cols; c++) fprintf(f, " %s", p->cells[r * p->n_cols + c]);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int plan_alloc(Plan *p, int n_cols, long n_runs) {
    p->n_cols = n_cols;
    p->n_runs = (int)n_runs;
    p->col_names = calloc((size_t)n_cols, sizeof *p->col_names);
    p->names = calloc((size_t)n_runs, sizeof *p->names);
    p->cells = calloc((size_t)n_runs * (size_t)n_cols, sizeof *p->cells);
    if (p->col_names && p->names && p->cells) return 0;
    fprintf(stderr, "error: out of memory for a plan of %ld runs\n", n_runs);
    return -1;
}

/* The longest run name: OUT/configs/<name>.ini.tmp must fit one file name (NAME_MAX). */
#define PLAN_NAME_MAX (255 - (int)sizeof ".ini.tmp" + 1)

/* What run config c trains, as text: its run.name cleared and the attention scale resolved to
 * its number, so that two spellings of one value (1e-3 and 0.001, seed 01 and 1, scale none and
 * 1) give the same text. malloc'd; NULL when out of memory. */
static char *effective_config(const Config *c) {
    Config *k = malloc(sizeof *k);
    if (!k) return NULL;
    *k = *c;
    k->run_name[0] = '\0';
    k->scale_value = config_attention_scale(c, c->d_model / c->n_heads);
    k->scale_mode = SCALE_VALUE;
    char *text = config_text(k);
    free(k);
    return text;
}

static uint64_t text_hash(const char *s) {
    uint64_t h = 14695981039346656037ull; /* FNV-1a, 64 bits */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

typedef struct {
    uint64_t hash;
    long run;
} RunHash;

static int cmp_hash(const void *x, const void *y) {
    const RunHash *a = x, *b = y;
    if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
    return a->run < b->run ? -1 : a->run > b->run;
}

/* Two runs that would train the same configuration (values equal once parsed: --grid
 * optim.lr=1e-3,0.001, --seeds 1,01, --dk 8,08, --scales none,1) are refused, naming both. */
static int check_same_configs(const SweepArgs *a, const Config *base, const char *runs_dir,
                              const Plan *p) {
    RunHash *h = malloc(sizeof *h * (size_t)p->n_runs);
    Config *c = malloc(sizeof *c);
    int rc = h && c ? 0 : -1;
    for (long r = 0; r < p->n_runs && !rc; r++) {
        char *text = plan_run_config(a, base, runs_dir, r, c) == 0 ? effective_config(c) : NULL;
        if (!text) rc = -1;
        else h[r] = (RunHash){text_hash(text), r};
        free(text);
    }
    if (!rc) qsort(h, (size_t)p->n_runs, sizeof *h, cmp_hash);
    for (long i = 1; i < p->n_runs && !rc; i++) {
        if (h[i].hash != h[i - 1].hash) continue;
        char *x = NULL, *y = NULL;
        if (plan_run_config(a, base, runs_dir, h[i - 1].run, c) == 0) x = effective_config(c);
        if (plan_run_config(a, base, runs_dir, h[i].run, c) == 0) y = effective_config(c);
        if (x && y && strcmp(x, y) == 0) {
            fprintf(stderr, "error: runs '%s' and '%s' of the plan train the same configuration "
                            "(two spellings of one value); list each value once\n",
                    p->names[h[i - 1].run], p->names[h[i].run]);
            rc = -1;
        }
        free(x);
        free(y);
    }
    free(h);
    free(c);
    return rc;
}

static int reads_task_file(const Config *c) { return c->task == TASK_FILE || c->task == TASK_TEXT; }

/* Adds c's task file (when its task reads one) to the "task-file" lines in *lines (malloc'd
 * text, grown), once per path: its hash goes into plan.txt, so that a sweep started again after
 * the file changed is another plan, and --sweep-run of a run not yet started refuses the file. */
static int add_task_file(char **lines, const Config *c) {
    if (!reads_task_file(c)) return 0;
    for (const char *q = *lines; q && *q;) { /* "task-file fnv1a64 <16 hex> PATH\n" */
        size_t len = strcspn(q, "\n");
        const char *path = q + strlen(PLAN_TASK_FILE) + 17;
        if ((size_t)(path - q) < len && strlen(c->task_file) == len - (size_t)(path - q) &&
            strncmp(path, c->task_file, len - (size_t)(path - q)) == 0)
            return 0;
        q += len + (q[len] != '\0');
    }
    uint64_t h;
    if (task_source_hash(c->task_file, &h) != 0) {
        fprintf(stderr, "error: task.file '%s': %s\n", c->task_file, strerror(errno));
        return -1;
    }
    size_t old = *lines ? strlen(*lines) : 0, add = strlen(PLAN_TASK_FILE) + 18 + strlen(c->task_file) + 2;
    char *grown = realloc(*lines, old + add);
    if (!grown) return -1;
    snprintf(grown + old, add, "%s%016llx ", PLAN_TASK_FILE, (unsigned long long)h);
    /* one line: a newline in the path would end it */
    size_t k = strlen(grown);
    for (const char *q = c->task_file; *q; q++) grown[k++] = *q == '\n' || *q == '\r' ? '?' : *q;
    grown[k++] = '\n';
    grown[k] = '\0';
    *lines = grown;
    return 0;
}

int plan_build(const SweepArgs *a, const Config *base, const char *runs_dir, Plan *p) {
    memset(p, 0, sizeof *p);
    long n_runs = 1;
    int n_cols = PC_N;
    for (int i = 0; i < a->n_axes; i++) {
        n_runs *= a->axes[i].n;
        n_cols += a->axes[i].column;
        if (n_runs > SWEEP_MAX_RUNS) {
            fprintf(stderr, "error: the plan has more than %d runs\n", SWEEP_MAX_RUNS);
            return -1;
        }
    }
    if (plan_alloc(p, n_cols, n_runs) != 0) return -1;
    for (int f = 0, k = 0; f < PC_N; f++) { /* the order of run_cells */
        if (f == PC_STEPS)
            for (int i = 0; i < a->n_axes; i++)
                if (a->axes[i].column) snprintf(p->col_names[k++], PLAN_CELL, "%s", a->axes[i].key);
        snprintf(p->col_names[k++], PLAN_CELL, "%s", SWEEP_PLAN_COLUMNS[f].name);
    }
    Config *c = malloc(sizeof *c);
    char *files = calloc(1, 1);
    int rc = c && files ? 0 : -1;
    for (long r = 0; r < n_runs && !rc; r++) {
        rc = plan_run_config(a, base, runs_dir, r, c) || config_validate(c) || check_task(c) ||
             add_task_file(&files, c);
        if (rc) {
            fprintf(stderr, "error: run %ld of %ld of the plan cannot be built; nothing was run\n",
                    r + 1, n_runs);
            break;
        }
        if ((int)strlen(c->run_name) > PLAN_NAME_MAX) {
            fprintf(stderr, "error: run %ld of the plan is named '%s', %zu characters; at most "
                            "%d fit a file name (configs/<name>.ini.tmp). Use shorter values; "
                            "nothing was run or written\n",
                    r + 1, c->run_name, strlen(c->run_name), PLAN_NAME_MAX);
            rc = -1;
            break;
        }
        memcpy(p->names[r], c->run_name, sizeof p->names[r]);
        run_cells(a, c, r, &p->cells[r * n_cols]);
    }
    free(c);
    if (!rc) rc = check_unique(p);
    if (!rc) rc = check_same_configs(a, base, runs_dir, p);
    if (!rc && !(p->text = plan_text(a, base, p, files))) {
        fprintf(stderr, "error: out of memory\n");
        rc = -1;
    }
    free(files);
    return rc ? -1 : 0;
}

void plan_free(Plan *p) {
    free(p->col_names);
    free(p->names);
    free(p->cells);
    free(p->text);
    memset(p, 0, sizeof *p);
}

/* Splits line at spaces into up to max words (NUL-terminating them in place). */
static int split_words(char *line, char **w, int max) {
    int n = 0;
    for (char *t = strtok(line, " "); t; t = strtok(NULL, " ")) {
        if (n == max) return -1;
        w[n++] = t;
    }
    return n;
}

int plan_parse(Plan *p, const char *text, const char *path) {
    memset(p, 0, sizeof *p);
    char *copy = strdup(text);
    if (!copy) return -1;
    long n_runs = 0;
    for (const char *q = text; (q = strstr(q, "\nrun ")); q++) n_runs++;
    char *w[SWEEP_MAX_AXES + 8], *save = NULL;
    int rc = -1, line_no = 0, n_cols = -1;
    int *run_line = calloc((size_t)n_runs + 1, sizeof *run_line);
    const char *why = "not a sweep plan written by ./train --sweep";
    char whybuf[640];
    if (!run_line) {
        free(copy);
        return -1;
    }
    /* strtok_r would skip empty lines and miscount: lines are cut by hand */
    for (char *line = copy, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        line_no++;
        (void)save;
        if (!*line || line[0] == '#' || strncmp(line, "axis ", 5) == 0 ||
            strncmp(line, PLAN_TASK_FILE, strlen(PLAN_TASK_FILE)) == 0)
            continue;
        if (strncmp(line, "base ", 5) == 0) {
            /* a hand-edited plan: only keys the program knows */
            char key[128];
            size_t kl = strcspn(line + 5, " =");
            snprintf(key, sizeof key, "%.*s", (int)(kl < 127 ? kl : 127), line + 5);
            if (config_key_index(key) < 0) {
                snprintf(whybuf, sizeof whybuf, "unknown config key '%s'", key);
                why = whybuf;
                rc = -1;
                break;
            }
            continue;
        }
        if (strncmp(line, "columns ", 8) == 0 && n_cols < 0) {
            n_cols = split_words(line + 8, w, SWEEP_MAX_AXES + 8);
            if (n_cols < 1 || plan_alloc(p, n_cols, n_runs) != 0) break;
            for (int c = 0; c < n_cols; c++) snprintf(p->col_names[c], PLAN_CELL, "%s", w[c]);
            p->n_runs = 0;
            rc = 0;
        } else if (strncmp(line, "run ", 4) == 0) {
            int r = p->n_runs;
            if (n_cols < 0 || r >= n_runs || split_words(line + 4, w, SWEEP_MAX_AXES + 8) != n_cols + 1) {
                rc = -1;
                break;
            }
            /* the name is a folder under OUT/runs/: nothing that leads outside it */
            if (!*w[0] || strchr(w[0], '/') || strcmp(w[0], ".") == 0 || strcmp(w[0], "..") == 0 ||
                (int)strlen(w[0]) > PLAN_NAME_MAX) {
                snprintf(whybuf, sizeof whybuf, "run name '%.200s' is not a folder name under "
                         "runs/ (no '/', '.' or '..', at most %d characters)", w[0], PLAN_NAME_MAX);
                why = whybuf;
                rc = -1;
                break;
            }
            for (int k = 0; k < r; k++)
                if (strcmp(p->names[k], w[0]) == 0) {
                    snprintf(whybuf, sizeof whybuf, "run '%.200s' is listed twice (line %d too)",
                             w[0], run_line[k]);
                    why = whybuf;
                    rc = -1;
                    break;
                }
            if (rc) break;
            snprintf(p->names[r], PLAN_CELL, "%s", w[0]);
            for (int c = 0; c < n_cols; c++) snprintf(p->cells[r * n_cols + c], PLAN_CELL, "%s", w[c + 1]);
            run_line[r] = line_no;
            p->n_runs++;
        } else {
            snprintf(whybuf, sizeof whybuf, "unknown line '%.40s' (a plan has # comments and "
                     "axis, base, task-file, columns and run lines)", line);
            why = whybuf;
            rc = -1;
            break;
        }
    }
    free(copy);
    free(run_line);
    if (rc == 0 && p->n_runs > 0 && (p->text = strdup(text))) return 0;
    fprintf(stderr, "error: %s:%d: %s\n", path, line_no, why);
    plan_free(p);
    return -1;
}

int plan_check_same(const char *path, const char *text) {
    char why[128];
    size_t len = 0;
    char *old = file_read_regular(path, FILE_MAX_TEXT_BYTES, &len, why, sizeof why);
    if (!old) return errno == ENOENT ? 0 : (fprintf(stderr, "error: cannot read '%s': %s\n", path,
                                                    why), -1);
    if (len == 0) {
        fprintf(stderr, "error: cannot read '%s': empty\n", path);
        free(old);
        return -1;
    }
    if (strcmp(old, text) == 0) {
        free(old);
        return 0;
    }
    const char *a = old, *b = text;
    int line = 1;
    for (;;) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || strncmp(a, b, la) != 0 || !a[la] || !b[lb]) {
            fprintf(stderr, "error: %s holds a different sweep plan; line %d was '%.*s', this "
                            "command's is '%.*s'. Use another --out, or remove that folder to "
                            "start over\n",
                    path, line, (int)la, *a ? a : "(end of file)", (int)lb, *b ? b : "(end of plan)");
            break;
        }
        a += la + 1, b += lb + 1, line++;
    }
    free(old);
    return -1;
}

/* 1 when the file at path is one a sweep into `out` wrote: a run config (config_write's first
 * line, its run.dir this folder's runs/) or a jobs.txt (every line a --sweep-run of a config
 * under this folder's configs/). Such a file is rewritten from the plan; anything else is the
 * user's. */
static int written_by_a_sweep(const char *path, const char *out, int is_jobs) {
    size_t len;
    char why[128], want[SWEEP_PATH + 64];
    char *text = file_read_regular(path, (size_t)1 << 24, &len, why, sizeof why);
    if (!text) return 0;
    int ours;
    if (is_jobs) {
        snprintf(want, sizeof want, " --sweep-run '%s/configs/", out);
        ours = len > 0;
        for (char *line = text; ours && *line;) {
            char *end = strchr(line, '\n');
            if (end) *end = '\0';
            ours = strstr(line, want) != NULL;
            line = end ? end + 1 : line + strlen(line);
        }
    } else {
        snprintf(want, sizeof want, "\ndir = \"%s/runs\"\n", out);
        ours = strncmp(text, CONFIG_FILE_FIRST_LINE, strlen(CONFIG_FILE_FIRST_LINE)) == 0 &&
               strstr(text, want) != NULL;
    }
    free(text);
    return ours;
}

int plan_check_fresh(const Plan *p, const char *out_abs) {
    char path[SWEEP_PATH + 64];
    for (int r = -1; r < p->n_runs; r++) {
        if (r < 0) snprintf(path, sizeof path, "%s/jobs.txt", out_abs);
        else plan_config_path(path, sizeof path, out_abs, p->names[r]);
        if (access(path, F_OK) == 0 && !written_by_a_sweep(path, out_abs, r < 0)) {
            fprintf(stderr, "error: '%s' is not a file a sweep into this folder wrote, and the "
                            "sweep would overwrite it. Use another --out, or move it away; "
                            "nothing was run\n", path);
            return -1;
        }
    }
    return 0;
}

int plan_check_task_file(const Config *c, const char *cfg_path) {
    if (!reads_task_file(c)) return 0;
    char path[2 * SWEEP_PATH], why[128];
    size_t n = strlen(c->run_dir);
    while (n > 1 && c->run_dir[n - 1] == '/') n--;
    if (n < 5 || strncmp(c->run_dir + n - 5, "/runs", 5) != 0) return 0; /* not a sweep's run */
    snprintf(path, sizeof path, "%.*s/plan.txt", (int)(n - 5), c->run_dir);
    size_t len;
    char *text = file_read_regular(path, FILE_MAX_TEXT_BYTES, &len, why, sizeof why);
    if (!text) return 0; /* no plan: a config of the user's; nothing to compare with */
    const char *hit = NULL;
    size_t plen = strlen(PLAN_TASK_FILE), flen = strlen(c->task_file);
    for (const char *q = text; *q && !hit;) {
        size_t l = strcspn(q, "\n");
        if (strncmp(q, PLAN_TASK_FILE, plen) == 0 && l == plen + 17 + flen &&
            strncmp(q + plen + 17, c->task_file, flen) == 0)
            hit = q + plen;
        q += l + (q[l] != '\0');
    }
    int rc = 0;
    uint64_t now;
    if (hit) { /* plans from before the line have none: not checked */
        unsigned long long then = strtoull(hit, NULL, 16);
        if (task_source_hash(c->task_file, &now) != 0) {
            fprintf(stderr, "error: %s: task.file '%s' cannot be read: %s; nothing was run\n",
                    cfg_path, c->task_file, strerror(errno));
            rc = -1;
        } else if (now != then) {
            fprintf(stderr, "error: %s: task.file '%s' changed since the sweep was planned (hash "
                            "%016llx in %s, %016llx now); this run would train on other data than "
                            "the sweep's others. Restore the file, or plan a new sweep into "
                            "another --out; nothing was run\n",
                    cfg_path, c->task_file, then, path, (unsigned long long)now);
            rc = -1;
        }
    }
    free(text);
    return rc;
}

int sweep_write_atomic(const char *path, const char *text, size_t len) {
    if (file_write_atomic(path, text, len) == 0) return 0;
    fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
    return -1;
}

void plan_config_path(char *buf, size_t n, const char *out, const char *name) {
    snprintf(buf, n, "%s/configs/%s.ini", out, name);
}

/* 'text' for the shell: single quotes, each ' as '\''. */
static void shell_quote(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

int plan_write_files(const SweepArgs *a, const Config *base, const Plan *p, const char *out_abs,
                     const char *exe_abs) {
    char path[SWEEP_PATH + 64], runs[SWEEP_PATH + 8];
    snprintf(path, sizeof path, "%s/configs", out_abs);
    snprintf(runs, sizeof runs, "%s/runs", out_abs);
    if (make_dirs(path) != 0) {
        fprintf(stderr, "error: cannot create '%s': %s\n", path, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/plan.txt", out_abs);
    if (sweep_write_atomic(path, p->text, strlen(p->text)) != 0) return -1;
    char *jobs = NULL, *cfg = NULL;
    size_t jobs_len = 0, cfg_len = 0;
    FILE *jf = open_memstream(&jobs, &jobs_len);
    Config *c = malloc(sizeof *c);
    int rc = jf && c ? 0 : -1;
    for (int r = 0; r < p->n_runs && !rc; r++) {
        FILE *cf = open_memstream(&cfg, &cfg_len);
        if (!cf || plan_run_config(a, base, runs, r, c) != 0) {
            if (cf) fclose(cf);
            rc = -1;
            break;
        }
        config_write(c, cf);
        fclose(cf);
        plan_config_path(path, sizeof path, out_abs, p->names[r]);
        rc = sweep_write_atomic(path, cfg, cfg_len);
        free(cfg);
        cfg = NULL;
        shell_quote(jf, exe_abs);
        fputs(" --sweep-run ", jf);
        shell_quote(jf, path);
        fputc('\n', jf);
    }
    if (jf && fclose(jf) != 0) rc = -1;
    snprintf(path, sizeof path, "%s/jobs.txt", out_abs);
    if (!rc) rc = sweep_write_atomic(path, jobs, jobs_len);
    free(jobs);
    free(c);
    return rc;
}

const Axis *sweep_axis_for(const SweepArgs *a, const char *key) {
    int dk = strcmp(key, "model.d_model") == 0 || strcmp(key, "model.n_heads") == 0;
    for (int i = 0; i < a->n_axes; i++)
        if ((dk && a->axes[i].kind == AXIS_DK) || strcmp(a->axes[i].key, key) == 0)
            return &a->axes[i];
    return NULL;
}
