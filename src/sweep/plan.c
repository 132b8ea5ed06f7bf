/* plan.c: the sweep's grid expanded into runs: each run's config (base + one value per axis),
 * its name, its sweep.csv cells; every run checked before the first one trains (plan_build);
 * the plan written as the text of OUT/plan.txt (plan_text, with the task files' hashes). That
 * text read back is plan_text.c's job; the files a sweep writes from the plan (OUT/configs/,
 * OUT/jobs.txt) plan_files.c's. */
#include "sweep/plan.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/read/read.h"
#include "tasks/tasks.h"
#include "train/resolved.h"
#include "train/task_source.h"
#include "train/train.h"
#include "util/error_list.h"

int plan_axis_set(Config *c, const Axis *ax, const char *key, const char *value,
                  ErrorList *errs) {
    char buf[2 * PLAN_CELL];
    snprintf(buf, sizeof buf, "%s=%s", key, value);
    return config_set_as(c, buf, ax->flag, ax->argn, errs);
}

int plan_dk_width(const SweepArgs *a, int dk) {
    int dm = a->one_head ? dk : a->d_model;
    return dk >= 1 && dk <= dm && dm % dk == 0 ? dm : -1;
}

int plan_base_config(const SweepArgs *a, Config *c, ErrorList *errs) {
    config_defaults(c);
    int bad = a->config_path && config_load_file_to(c, a->config_path, errs) != 0;
    for (int i = 0; i < a->n_sets; i++)
        bad |= config_set_as(c, a->sets[i], "--set", a->set_argn[i], errs) != 0;
    if (a->steps >= 0) {
        char buf[64];
        snprintf(buf, sizeof buf, "train.steps=%d", a->steps);
        bad |= config_set_as(c, buf, "--steps", a->steps_argn, errs) != 0;
    }
    return bad ? -1 : 0;
}

/* The d_k axis: fixed width (n_heads = d_model / d_k) or one head (d_model = d_k). */
static int set_dk(Config *c, const SweepArgs *a, const Axis *ax, const char *value) {
    int dk = atoi(value), dm = plan_dk_width(a, dk);
    if (dm < 0) { /* refused with the arguments (sweep_args_parse); a guard for other callers */
        error_add(NULL, 0, NULL, "--dk: d_k = %d does not divide d_model = %d", dk, a->d_model);
        return -1;
    }
    char v[32];
    snprintf(v, sizeof v, "%d", dm);
    if (plan_axis_set(c, ax, "model.d_model", v, NULL) != 0) return -1;
    snprintf(v, sizeof v, "%d", dm / dk);
    return plan_axis_set(c, ax, "model.n_heads", v, NULL);
}

/* A name part: only what run.name accepts, [A-Za-z0-9._-], survives; a '+' is dropped (1e+3
 * becomes 1e3, not 1e-3, which would read as another number) and anything else becomes '-'
 * (attention.scale 8/d_k: 8-d_k). */
static void name_part(char *dst, size_t n, const char *label, const char *value) {
    size_t len = strlen(dst);
    int k = snprintf(dst + len, n - len, "%s%s%s", len ? "_" : "", label, value);
    if (k < 0) return;
    char *out = dst + len;
    for (const char *p = dst + len; *p; p++) {
        if (*p == '+') continue;
        int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                 *p == '.' || *p == '-' || *p == '_';
        *out++ = ok ? *p : '-';
    }
    *out = '\0';
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
        error_add(NULL, 0, NULL, "cannot read the current folder: %s", strerror(errno));
        return -1;
    }
    int n = snprintf(abs, sizeof abs, "%s/%s", cwd, c->task_file);
    if (n < 0 || n >= CONFIG_STR) {
        error_add(NULL, 0, NULL, "task.file '%s' (%s): its absolute path '%s' is too long (at most "
                                 "%d characters)", c->task_file, config_origin(c, "task.file"), abs,
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
        if (ax->kind == AXIS_DK ? set_dk(out, a, ax, v) : plan_axis_set(out, ax, ax->key, v, NULL))
            return -1;
        name_part(name, sizeof name, ax->label, v);
    }
    if (!*name) snprintf(name, sizeof name, "run");
    if (plan_absolute_task_file(out) != 0) return -1; /* a --grid task.file value */
    if (strlen(name) >= CONFIG_STR || strlen(runs_dir) >= CONFIG_STR) {
        error_add(NULL, 0, NULL, "run name '%s' or folder '%s' is too long (at most %d characters)",
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
    else
        snprintf(out, n, "%.15g%s", c->scale_value,
                 c->scale_mode == SCALE_OVER_DK ? CONFIG_SCALE_OVER_DK : "");
}

/* The cell of fixed plan column f (report/read/sweep_columns.c) for run config c, axis values d. */
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

/* The checks only a built task can do: the sequences must fit model.max_seq_len. *seq_len gets
 * the task's sequence length T. */
static int check_task(const Config *c, int *seq_len) {
    if ((c->task == TASK_FILE || c->task == TASK_TEXT) && access(c->task_file, R_OK) != 0) {
        task_say_unreadable(c, errno); /* as the train command says it */
        return -1;
    }
    Task t;
    int rc = task_init(&t, c);
    if (rc == 0) {
        *seq_len = t.seq_len;
        ModelConfig mc = train_model_config(c, &t);
        if (mc.max_seq_len < t.seq_len) {
            error_add(NULL, 0, NULL, "model.max_seq_len = %d (%s) is shorter than the task's "
                                     "sequences (T = %d)",
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
            error_add(NULL, 0, NULL, "two runs of the plan get the same name '%s' (values that "
                                     "differ only in characters a folder name cannot hold, which "
                                     "become '-'); rename a value", s[i]);
            rc = -1;
        }
    free(s);
    return rc;
}

int plan_alloc(Plan *p, int n_cols, long n_runs) {
    p->n_cols = n_cols;
    p->n_runs = (int)n_runs;
    p->col_names = calloc((size_t)n_cols, sizeof *p->col_names);
    p->names = calloc((size_t)n_runs, sizeof *p->names);
    p->cells = calloc((size_t)n_runs * (size_t)n_cols, sizeof *p->cells);
    if (p->col_names && p->names && p->cells) return 0;
    fprintf(stderr, "error: out of memory for a plan of %ld runs\n", n_runs);
    return -1;
}

/* What run config c trains on sequences of T tokens, as text: its run.name cleared, the attention
 * scale resolved to its number, and what c leaves to a rule resolved as the run uses it
 * (train/resolved.h: d_ff 0, max_seq_len 0, a window of T keys or more, separator auto), so that
 * two spellings of one value (1e-3 and 0.001, seed 01 and 1, scale none and 1, window 0 and 100
 * at T = 7, d_ff 0 and 4 d_model) give the same text (a learned scale stays learned: it starts
 * at its number, then moves). malloc'd; NULL when out of memory. */
static char *effective_config(const Config *c, int T) {
    Config *k = malloc(sizeof *k);
    if (!k) return NULL;
    *k = *c;
    k->run_name[0] = '\0';
    train_resolve_config(k, T);
    if (c->scale_mode != SCALE_LEARNED) { /* a learned scale is not the number it starts at */
        k->scale_value = config_attention_scale(c, c->d_model / c->n_heads);
        k->scale_mode = SCALE_VALUE;
    }
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

/* Why two values of config key `key` train the same run, for the message: the rule that
 * resolves one to the other for run config c on sequences of T tokens (train/resolved.h), or
 * "equal once read" (two spellings of one number). c is changed. */
static void same_why(const char *key, Config *c, int T, char *why, size_t n) {
    train_resolve_config(c, T);
    if (strcmp(key, "attention.window") == 0)
        snprintf(why, n, "a window of the task's T = %d keys or more is every earlier key, as 0", T);
    else if (strcmp(key, "model.d_ff") == 0)
        snprintf(why, n, "0 is the block's default width, %d", c->d_ff);
    else if (strcmp(key, "model.max_seq_len") == 0)
        snprintf(why, n, "0 is the task's sequence length T = %d", T);
    else if (strcmp(key, "task.separator") == 0)
        snprintf(why, n, "auto is %s for this task",
                 c->task_separator == SEPARATOR_TRUE ? "true" : "false");
    else
        snprintf(why, n, "equal once read");
}

/* Two runs that would train the same configuration (values equal once parsed: --grid
 * optim.lr=1e-3,0.001, --seeds 1,01, --dk 8,08, --scales none,1) are refused, naming both. */
static int check_same_configs(const SweepArgs *a, const Config *base, const char *runs_dir,
                              const Plan *p, const int *seq_len) {
    RunHash *h = malloc(sizeof *h * (size_t)p->n_runs);
    Config *c = malloc(sizeof *c);
    int rc = h && c ? 0 : -1;
    for (long r = 0; r < p->n_runs && !rc; r++) {
        char *text = plan_run_config(a, base, runs_dir, r, c) == 0 ? effective_config(c, seq_len[r])
                                                                    : NULL;
        if (!text) rc = -1;
        else h[r] = (RunHash){text_hash(text), r};
        free(text);
    }
    if (!rc) qsort(h, (size_t)p->n_runs, sizeof *h, cmp_hash);
    for (long i = 1; i < p->n_runs && !rc; i++) {
        if (h[i].hash != h[i - 1].hash) continue;
        char *x = NULL, *y = NULL;
        if (plan_run_config(a, base, runs_dir, h[i - 1].run, c) == 0)
            x = effective_config(c, seq_len[h[i - 1].run]);
        if (plan_run_config(a, base, runs_dir, h[i].run, c) == 0)
            y = effective_config(c, seq_len[h[i].run]);
        if (x && y && strcmp(x, y) == 0) {
            /* the axis whose values differ between the two runs, named with both values */
            int dx[SWEEP_MAX_AXES], dy[SWEEP_MAX_AXES], k = 0;
            digits(a, h[i - 1].run, dx);
            digits(a, h[i].run, dy);
            while (k < a->n_axes - 1 && dx[k] == dy[k]) k++;
            const Axis *ax = &a->axes[k];
            char why[128];
            same_why(ax->key, c, seq_len[h[i].run], why, sizeof why);
            char where[48];
            error_place(where, sizeof where, ax->flag, ax->argn);
            error_add(NULL, 0, where, "the values '%s' and '%s' of %s train the same "
                                      "configuration (runs '%s' and '%s'; %s); list each value "
                                      "once",
                      ax->values[dx[k]], ax->values[dy[k]], ax->key, p->names[h[i - 1].run],
                      p->names[h[i].run], why);
            rc = -1;
        }
        free(x);
        free(y);
    }
    free(h);
    free(c);
    return rc;
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
    int *seq_len = calloc((size_t)n_runs, sizeof *seq_len);
    int rc = c && files && seq_len ? 0 : -1;
    for (long r = 0; r < n_runs && !rc; r++) {
        rc = plan_run_config(a, base, runs_dir, r, c) || config_validate(c) ||
             check_task(c, &seq_len[r]) ||
             plan_add_task_file(&files, c);
        if (rc) {
            fprintf(stderr, "error: run %ld of %ld of the plan cannot be built; nothing was run\n",
                    r + 1, n_runs);
            break;
        }
        if ((int)strlen(c->run_name) > PLAN_NAME_MAX) {
            error_add(NULL, 0, NULL, "run %ld of the plan is named '%s', %zu characters; at most "
                                     "%d, so that the files named after it (configs/<name>.ini and "
                                     "others) fit a file name of 255 characters. Use shorter "
                                     "values; nothing was run or written",
                      r + 1, c->run_name, strlen(c->run_name), PLAN_NAME_MAX);
            rc = -1;
            break;
        }
        memcpy(p->names[r], c->run_name, sizeof p->names[r]);
        run_cells(a, c, r, &p->cells[r * n_cols]);
    }
    free(c);
    if (!rc) rc = check_unique(p);
    if (!rc) rc = check_same_configs(a, base, runs_dir, p, seq_len);
    free(seq_len);
    if (!rc && !(p->text = plan_text(a, base, p, files))) {
        fprintf(stderr, "error: out of memory\n");
        rc = -1;
    }
    free(files);
    return rc ? -1 : 0;
}

void plan_write_base(FILE *f, const Config *base) {
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

char *plan_text(const SweepArgs *a, const Config *base, const Plan *p, const char *files) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fprintf(f, PLAN_FIRST_LINE "\n");
    for (int i = 0; i < a->n_axes; i++) {
        const Axis *ax = &a->axes[i];
        fprintf(f, "axis %s ", ax->key);
        for (int k = 0; k < ax->n; k++) fprintf(f, "%s%s", k ? "," : "", ax->values[k]);
        if (ax->kind == AXIS_DK && a->one_head) fprintf(f, " (one head, d_model = d_k)");
        else if (ax->kind == AXIS_DK) fprintf(f, " (d_model %d, n_heads = d_model / d_k)", a->d_model);
        fputc('\n', f);
    }
    plan_write_base(f, base);
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

int plan_reads_task_file(const Config *c) { return c->task == TASK_FILE || c->task == TASK_TEXT; }

/* Adds c's task file (when its task reads one) to the "task-file" lines in *lines (malloc'd
 * text, grown), once per path: its hash goes into plan.txt, so that a sweep started again after
 * the file changed is another plan, and --sweep-run of a run not yet started refuses the file. */
int plan_add_task_file(char **lines, const Config *c) {
    if (!plan_reads_task_file(c)) return 0;
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
        error_add(NULL, 0, NULL, "task.file '%s': %s", c->task_file, strerror(errno));
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

void plan_free(Plan *p) {
    free(p->col_names);
    free(p->names);
    free(p->cells);
    free(p->text);
    memset(p, 0, sizeof *p);
}

const Axis *sweep_axis_for(const SweepArgs *a, const char *key) {
    int dk = strcmp(key, "model.d_model") == 0 || strcmp(key, "model.n_heads") == 0;
    for (int i = 0; i < a->n_axes; i++)
        if ((dk && a->axes[i].kind == AXIS_DK) || strcmp(a->axes[i].key, key) == 0)
            return &a->axes[i];
    return NULL;
}
