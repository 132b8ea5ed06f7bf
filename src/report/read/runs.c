/* runs.c: reading a run folder (a tolerant config.ini reader, the CSV logs, the run's name) and
 * the questions the report asks of one run's logs (status, layers, attention steps). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "report/read/read.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runlog/log_query.h"
#include "util/error_list.h"
#include "util/file_check.h"
#include "util/run_lock.h"

/* ------------------------------------------------------------- config.ini */

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

const char *ini_get(const Ini *ini, const char *key) {
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
    char why[128];
    FILE *f = file_fopen_regular(path, FILE_MAX_TEXT_BYTES, why, sizeof why);
    if (!f) {
        int err = errno;
        if (err == EINVAL || err == EFBIG) {
            error_add(NULL, 0, NULL, "'%s': %s", path, why);
            err = ECANCELED; /* reported: as csv_load */
        }
        errno = err;
        return -1;
    }
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

/* The last component of path ("runs/scaled/" -> "scaled"), resolving "." and "..", as the
 * report shows it: escaped as error lines write it (util/error_list.h), since it reaches the
 * terminal's tables and verdict lines; a long name is cut. */
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
            error_shown(out, n, b);
            return;
        }
    }
    error_shown(out, n, base);
}

/* Loads an optional CSV; a missing file is silent, any other failure is reported. Returns 1
 * (loaded), 0 (left out), or -1 when it was refused as not a regular file (message printed). */
static int load_optional(Csv *t, const char *dir, const char *file, int note_missing) {
    char p[PATH_MAX];
    if (log_read(t, dir, file, p, sizeof p, 0) == 0) return 1;
    if (errno == ECANCELED) return -1;
    if (errno != ENOENT || note_missing)
        fprintf(stderr, "note: %s: %s; left out of the report\n", SHOWN(p), strerror(errno));
    return 0;
}

int load_run(Run *r, const char *path) {
    r->path = path;
    run_name(r->name, sizeof r->name, path);
    struct stat st;
    if (stat(path, &st) != 0) {
        error_add(NULL, 0, NULL, "run folder '%s': %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        error_add(NULL, 0, NULL, "'%s' is not a folder; expected a run folder holding loss.csv",
                  path);
        return -1;
    }
    char p[PATH_MAX];
    if (log_read(&r->loss, path, "loss.csv", p, sizeof p, 0) != 0) {
        if (errno != ECANCELED)
            error_add(NULL, 0, NULL, "cannot read '%s': %s", p, strerror(errno));
        return -1;
    }
    if (csv_col(&r->loss, "step") < 0) {
        error_add(NULL, 0, NULL, "'%s' has no 'step' column; is this a scaledot run folder?", p);
        return -1;
    }
    r->has_config = log_path(p, sizeof p, path, "config.ini") == 0 && ini_load(&r->config, p) == 0;
    if (!r->has_config && errno == ECANCELED) return -1; /* not a regular file: refused */
    if (!r->has_config)
        fprintf(stderr, "note: %s: %s; its settings show as '?'\n", SHOWN(p), strerror(errno));
    r->has_grads = load_optional(&r->grads, path, "grad_norms.csv", 1);
    r->has_attn = load_optional(&r->attn, path, "attention.csv", 0);
    r->has_map = load_optional(&r->map, path, "attn_map.csv", 0);
    r->has_map0 = load_optional(&r->map0, path, "attn_map_step0.csv", 0);
    r->has_tokens = load_optional(&r->tokens, path, "attn_map_tokens.csv", 0);
    return r->has_grads < 0 || r->has_attn < 0 || r->has_map < 0 || r->has_map0 < 0 ||
                   r->has_tokens < 0
               ? -1
               : 0;
}

void free_run(Run *r) {
    ini_free(&r->config);
    csv_free(&r->loss);
    csv_free(&r->grads);
    csv_free(&r->attn);
    csv_free(&r->map);
    csv_free(&r->map0);
    csv_free(&r->tokens);
}

static int name_taken(const Run *runs, int before, const char *name) {
    for (int j = 0; j < before; j++)
        if (strcmp(runs[j].name, name) == 0) return 1;
    return 0;
}

void make_names_unique(Run *runs, int n) {
    for (int i = 1; i < n; i++) {
        char base[RUN_NAME_LEN];
        snprintf(base, sizeof base, "%s", runs[i].name);
        /* room for " (k)": cut before a UTF-8 continuation byte (10xxxxxx), never inside a
         * character */
        int keep = (int)strlen(base);
        if (keep > RUN_NAME_LEN - 16) {
            keep = RUN_NAME_LEN - 16;
            while (keep > 0 && ((unsigned char)base[keep] & 0xc0) == 0x80) keep--;
        }
        for (int k = 2; name_taken(runs, i, runs[i].name); k++)
            snprintf(runs[i].name, RUN_NAME_LEN, "%.*s (%d)", keep, base, k);
    }
}

/* ------------------------------------------------------------ log queries */

int max_last_step(const Run *runs, int n, const char *name) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        int r = log_last_row(&runs[i].loss, csv_col(&runs[i].loss, name));
        if (r >= 0 && log_step(&runs[i].loss, r) > s) s = log_step(&runs[i].loss, r);
    }
    return s;
}

int grad_layers(const Run *r) {
    if (!r->has_grads) return 0;
    int l = 0;
    char col[96];
    for (;; l++) {
        snprintf(col, sizeof col, "blocks.%d.attn.qkv.weight.q", l);
        if (csv_col(&r->grads, col) < 0) return l;
    }
}

int attn_layers(const Run *r) {
    int c = csv_col(&r->attn, "layer"), n = 0;
    if (!r->has_attn || c < 0) return 0;
    for (int i = 0; i < r->attn.n_rows; i++) {
        double l = csv_num(&r->attn, i, c);
        if (isfinite(l) && l + 1 > n && l < 4096) n = (int)l + 1;
    }
    return n;
}

int attn_step(const Run *r, int last) {
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

void run_status(const Run *r, char *out, size_t n) {
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
    int last = t->n_rows ? log_step(t, t->n_rows - 1) : 0;
    if (first_bad >= 0) {
        snprintf(out, n, "diverged @%d", log_step(t, first_bad));
        return;
    }
    int c_skip = csv_col(t, "skipped_steps");
    long skipped = c_skip >= 0 ? csv_int(t, t->n_rows - 1, c_skip, 0) : 0;
    if (skipped <= 0) skipped = bad_rows;
    const char *steps = ini_get(&r->config, "train.steps");
    /* a run folder whose ./train is still at work: not stopped, only not done yet */
    const char *what = run_lock_holder(r->path) ? "running"
                       : steps && atoi(steps) > last ? "stopped"
                                                     : "finished";
    if (skipped > 0)
        snprintf(out, n, "%s @%d, %ld skipped", what, last, skipped);
    else
        snprintf(out, n, "%s @%d", what, last);
}

int task_name_is_text(const char *task) { return task && strcmp(task, "text") == 0; }

const char *run_task(const Run *r) {
    const char *task = ini_get(&r->config, "task.name");
    return task && *task ? task : csv_col(&r->loss, "val_bpb") >= 0 ? "text" : NULL;
}

int run_is_text(const Run *r) {
    return task_name_is_text(ini_get(&r->config, "task.name")) || csv_col(&r->loss, "val_bpb") >= 0;
}

int runs_are_text(const Run *runs, int n) {
    for (int i = 0; i < n; i++)
        if (!run_is_text(&runs[i])) return 0;
    return n > 0;
}

double run_last_logged(const Run *r, const char *col, int *step) {
    int c = csv_col(&r->loss, col), row = log_last_row(&r->loss, c);
    *step = row >= 0 ? log_step(&r->loss, row) : -1;
    return row >= 0 ? csv_num(&r->loss, row, c) : NAN;
}

double run_last_bpb(const Run *r, int *step) {
    double v = run_last_logged(r, "val_bpb", step);
    if (*step < 0) v = run_last_logged(r, "val_loss", step) / log(2.0);
    return v;
}

int run_has_file(const Run *r, const char *file) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", r->path, file);
    return access(path, F_OK) == 0;
}

char *run_read_text(const Run *r, const char *file, size_t max, size_t *len, char *why, size_t n) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", r->path, file);
    return file_read_regular(path, max, len, why, n);
}
