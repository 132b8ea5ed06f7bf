/* plan_text.c: the sweep plan's text, OUT/plan.txt (written by plan.c's plan_text), read back:
 * for --collect (plan_parse), compared with the plan already in the folder (plan_check_same),
 * its task-file hashes checked before a run starts (plan_check_task_file), a run's config from
 * it (plan_row_config).
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

#include "report/read/read.h"
#include "tasks/tasks.h"
#include "train/task_source.h"
#include "util/error_list.h"
#include "util/file_check.h"

/* Splits line at spaces into up to max words (NUL-terminating them in place). */
static int split_words(char *line, char **w, int max) {
    int n = 0;
    for (char *t = strtok(line, " "); t; t = strtok(NULL, " ")) {
        if (n == max) return -1;
        w[n++] = t;
    }
    return n;
}

/* "base KEY = VALUE" of a plan (hand-edited, perhaps): only keys the program knows. Returns 0,
 * or -1 with the reason in why. */
static int check_base_line(const char *line, char *why, size_t n) {
    char key[128];
    size_t kl = strcspn(line + 5, " =");
    snprintf(key, sizeof key, "%.*s", (int)(kl < 127 ? kl : 127), line + 5);
    if (config_key_index(key) < 0) {
        snprintf(why, n, "unknown config key '%s'", key);
        return -1;
    }
    return 0;
}

/* "run NAME CELL..." (n_cols cells) as run p->n_runs of p (at most n_runs), at line line_no;
 * run_line[k] keeps the line of run k. The name is a folder under OUT/runs/ (nothing that leads
 * outside it), listed once. Returns 0, or -1 (why says more, or is left empty). */
static int add_run_line(Plan *p, char *line, int n_cols, long n_runs, int *run_line, int line_no,
                        char *why, size_t n) {
    char *w[SWEEP_MAX_AXES + 8];
    int r = p->n_runs;
    why[0] = '\0';
    if (n_cols < 0 || r >= n_runs || split_words(line + 4, w, SWEEP_MAX_AXES + 8) != n_cols + 1)
        return -1;
    /* the name is a folder under OUT/runs/: nothing that leads outside it */
    if (!*w[0] || strchr(w[0], '/') || strcmp(w[0], ".") == 0 || strcmp(w[0], "..") == 0 ||
        (int)strlen(w[0]) > PLAN_NAME_MAX) {
        snprintf(why, n, "run name '%.200s' is not a folder name under "
                 "runs/ (no '/', '.' or '..', at most %d characters)", w[0], PLAN_NAME_MAX);
        return -1;
    }
    for (int k = 0; k < r; k++)
        if (strcmp(p->names[k], w[0]) == 0) {
            snprintf(why, n, "run '%.200s' is listed twice (line %d too)", w[0], run_line[k]);
            return -1;
        }
    snprintf(p->names[r], PLAN_CELL, "%s", w[0]);
    for (int c = 0; c < n_cols; c++) snprintf(p->cells[r * n_cols + c], PLAN_CELL, "%s", w[c + 1]);
    run_line[r] = line_no;
    p->n_runs++;
    return 0;
}

int plan_parse(Plan *p, const char *text, const char *path) {
    memset(p, 0, sizeof *p);
    char *copy = strdup(text);
    if (!copy) return -1;
    long n_runs = 0;
    for (const char *q = text; (q = strstr(q, "\nrun ")); q++) n_runs++;
    char *w[SWEEP_MAX_AXES + 8];
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
        if (!*line || line[0] == '#' || strncmp(line, "axis ", 5) == 0 ||
            strncmp(line, PLAN_TASK_FILE, strlen(PLAN_TASK_FILE)) == 0)
            continue;
        if (strncmp(line, "base ", 5) == 0) {
            if (check_base_line(line, whybuf, sizeof whybuf) == 0) continue;
            why = whybuf;
            rc = -1;
            break;
        }
        if (strncmp(line, "columns ", 8) == 0 && n_cols < 0) {
            n_cols = split_words(line + 8, w, SWEEP_MAX_AXES + 8);
            if (n_cols < 1 || plan_alloc(p, n_cols, n_runs) != 0) break;
            for (int c = 0; c < n_cols; c++) snprintf(p->col_names[c], PLAN_CELL, "%s", w[c]);
            p->n_runs = 0;
            rc = 0;
        } else if (strncmp(line, "run ", 4) == 0) {
            if (add_run_line(p, line, n_cols, n_runs, run_line, line_no, whybuf, sizeof whybuf)) {
                if (whybuf[0]) why = whybuf;
                rc = -1;
                break;
            }
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
    error_add(NULL, 0, NULL, "%s:%d: %s", path, line_no, why);
    plan_free(p);
    return -1;
}

/* 1 when the n-byte line at b names key `key` in "base KEY = ..." form. */
static int base_line_of(const char *b, size_t n, const char *key, size_t klen) {
    return n > 5 + klen && strncmp(b, "base ", 5) == 0 && strncmp(b + 5, key, klen) == 0 &&
           b[5 + klen] == ' ';
}

/* 1 when text has a line of exactly the n bytes at line. */
static int has_line(const char *text, const char *line, size_t n) {
    for (const char *q = text; *q;) {
        size_t l = strcspn(q, "\n");
        if (l == n && strncmp(q, line, n) == 0) return 1;
        q += l + (q[l] != '\0');
    }
    return 0;
}

/* 1 when the new plan's line b (n bytes) is a base key the old plan has no line for, at the
 * value the defaults give it (a line of `defaults`): a key added since the old plan was written,
 * which that plan's runs trained at its default (the program had no other value then). */
static int added_default(const char *b, size_t n, const char *old, const char *defaults) {
    if (n < 6 || strncmp(b, "base ", 5) != 0 || !has_line(defaults, b, n)) return 0;
    size_t klen = strcspn(b + 5, " ");
    for (const char *q = old; *q;) {
        size_t l = strcspn(q, "\n");
        if (base_line_of(q, l, b + 5, klen)) return 0;
        q += l + (q[l] != '\0');
    }
    return 1;
}

/* The "base ..." lines of the defaults, as plan_write_base writes them. malloc'd; NULL when out of
 * memory. */
static char *default_base_lines(void) {
    Config *d = malloc(sizeof *d);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = d ? open_memstream(&buf, &len) : NULL;
    if (f) {
        config_defaults(d);
        plan_write_base(f, d);
        if (fclose(f) != 0) free(buf), buf = NULL;
    }
    free(d);
    return buf;
}

int plan_check_same(const char *path, const char *text) {
    char why[128];
    size_t len = 0;
    char *old = file_read_regular(path, FILE_MAX_TEXT_BYTES, &len, why, sizeof why);
    if (!old) return errno == ENOENT ? 0 : (error_add(NULL, 0, NULL, "cannot read '%s': %s", path,
                                                      why), -1);
    if (len == 0) {
        error_add(NULL, 0, NULL, "cannot read '%s': empty", path);
        free(old);
        return -1;
    }
    if (strcmp(old, text) == 0) {
        free(old);
        return 0;
    }
    /* a plan.txt of an older program lacks the keys added since: such a line of this plan at
     * the key's default is no difference (issue 45 item 4) */
    char *defaults = default_base_lines();
    if (!defaults) {
        free(old);
        return -1;
    }
    const char *a = old, *b = text;
    int line = 1, rc = -1;
    for (;;) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (*b && added_default(b, lb, old, defaults)) {
            b += lb + (b[lb] != '\0');
            continue;
        }
        if (!*a && !*b) {
            rc = 0;
            break;
        }
        if (!*a || !*b || la != lb || strncmp(a, b, la) != 0) {
            static const char END_FILE[] = "(end of file)", END_PLAN[] = "(end of plan)";
            error_add(NULL, 0, NULL, "%s holds a different sweep plan; line %d was '%.*s', this "
                                     "command's is '%.*s'. Use another --out, or remove that "
                                     "folder to start over",
                      path, line, *a ? (int)la : (int)strlen(END_FILE), *a ? a : END_FILE,
                      *b ? (int)lb : (int)strlen(END_PLAN), *b ? b : END_PLAN);
            break;
        }
        a += la + (a[la] != '\0'), b += lb + (b[lb] != '\0'), line++;
    }
    free(defaults);
    free(old);
    return rc;
}

int plan_check_task_file(const Config *c, const char *cfg_path) {
    if (!plan_reads_task_file(c)) return 0;
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
            error_add(NULL, 0, NULL, "%s: task.file '%s' cannot be read: %s; nothing was run",
                      cfg_path, c->task_file, strerror(errno));
            rc = -1;
        } else if (now != then) {
            error_add(NULL, 0, NULL, "%s: task.file '%s' changed since the sweep was planned (hash "
                                     "%016llx in %s, %016llx now); this run would train on other "
                                     "data than the sweep's others. Restore the file, or plan a "
                                     "new sweep into another --out; nothing was run",
                      cfg_path, c->task_file, then, path, (unsigned long long)now);
            rc = -1;
        }
    }
    free(text);
    return rc;
}

/* Sets key to value in c; an error names path and line (one line: "PATH:LINE: 'key': why"). */
static int set_from_plan(Config *c, const char *key, const char *value, const char *path, int line) {
    size_t n = strlen(key) + strlen(value) + 2;
    char *buf = malloc(n), *where = malloc(strlen(path) + 24);
    int rc = -1;
    if (buf && where) {
        snprintf(buf, n, "%s=%s", key, value);
        sprintf(where, "%s:%d", path, line);
        rc = config_set_as(c, buf, where, -1, NULL);
    }
    free(buf);
    free(where);
    return rc;
}

/* The plan column holding axis key's value: the --grid column of that name, or the fixed column
 * that records the key (report/read/sweep_columns.c); -1 when none. */
static int axis_column(const Plan *p, const char *key) {
    for (int c = 0; c < p->n_cols; c++) {
        if (strcmp(p->col_names[c], key) == 0) return c;
        for (int f = 0; f < PC_N; f++)
            if (SWEEP_PLAN_COLUMNS[f].key && strcmp(SWEEP_PLAN_COLUMNS[f].name, p->col_names[c]) == 0 &&
                strcmp(SWEEP_PLAN_COLUMNS[f].key, key) == 0)
                return c;
    }
    return -1;
}

/* Applies plan.txt line `line` (number line_no) to c when it says what run r trains: in pass 0 a
 * base value, in pass 1 run r's cell(s) of an axis (the axis lines come first in the file, but
 * their values replace the base's). Returns 0, or -1 after a message naming path and line. */
static int apply_line(const Plan *p, int r, Config *c, char *line, const char *path, int line_no,
                      int pass) {
    if (pass == 0) {
        if (strncmp(line, "base ", 5) != 0) return 0;
        char *eq = strstr(line + 5, " = ");
        if (!eq) {
            error_add(NULL, 0, NULL, "%s:%d: not a 'base section.key = value' line", path, line_no);
            return -1;
        }
        *eq = '\0';
        return set_from_plan(c, line + 5, eq + 3, path, line_no);
    }
    if (pass != 1 || strncmp(line, "axis ", 5) != 0) return 0;
    line[5 + strcspn(line + 5, " ")] = '\0';
    const char *key = line + 5;
    /* the d_k axis sets the width and the heads, both recorded in their columns */
    const char *keys[2] = {key, NULL};
    if (strcmp(key, SWEEP_PLAN_COLUMNS[PC_D_K].name) == 0)
        keys[0] = SWEEP_PLAN_COLUMNS[PC_D_MODEL].key, keys[1] = SWEEP_PLAN_COLUMNS[PC_N_HEADS].key;
    for (int k = 0; k < 2 && keys[k]; k++) {
        int col = axis_column(p, keys[k]);
        if (col < 0) {
            error_add(NULL, 0, NULL, "%s:%d: axis %s has no column in the plan",
                      path, line_no, key);
            return -1;
        }
        if (set_from_plan(c, keys[k], p->cells[r * p->n_cols + col], path, line_no) != 0) return -1;
    }
    return 0;
}

/* A relative task.file (a --grid value as given) as the plan made it absolute: the shortest path
 * of the plan's task-file lines that ends in "/" + it (the plan may have been made in another
 * folder than this one); left as it is when there is none. */
static void absolute_task_file(const char *text, Config *c) {
    size_t plen = strlen(PLAN_TASK_FILE), flen = strlen(c->task_file), best_len = 0;
    const char *best = NULL;
    if (!flen || c->task_file[0] == '/') return;
    for (const char *q = text; *q;) {
        size_t l = strcspn(q, "\n"), n = l > plen + 17 ? l - plen - 17 : 0; /* 16 hex, a space */
        const char *f = q + plen + 17;
        if (strncmp(q, PLAN_TASK_FILE, plen) == 0 && n > flen && f[n - flen - 1] == '/' &&
            strncmp(f + n - flen, c->task_file, flen) == 0 && n < sizeof c->task_file &&
            (!best || n < best_len))
            best = f, best_len = n;
        q += l + (q[l] != '\0');
    }
    if (best) snprintf(c->task_file, sizeof c->task_file, "%.*s", (int)best_len, best);
}

int plan_row_config(const Plan *p, int r, const char *runs_dir, const char *path, Config *out) {
    config_defaults(out);
    int rc = 0;
    for (int pass = 0; pass < 2 && !rc; pass++) {
        char *copy = strdup(p->text);
        if (!copy) return -1;
        int line_no = 0;
        for (char *line = copy, *next; line && *line && !rc; line = next) {
            next = strchr(line, '\n');
            if (next) *next++ = '\0';
            rc = apply_line(p, r, out, line, path, ++line_no, pass);
        }
        free(copy);
    }
    if (rc) return -1;
    absolute_task_file(p->text, out);
    if (strlen(runs_dir) >= sizeof out->run_dir) return -1;
    snprintf(out->run_dir, sizeof out->run_dir, "%s", runs_dir);
    snprintf(out->run_name, sizeof out->run_name, "%s", p->names[r]);
    if (config_validate_stored(out) != 0) {
        error_add(NULL, 0, NULL, "%s: run %s of the plan is not a valid configuration (see above)",
                  path, p->names[r]);
        return -1;
    }
    /* resolved as the run stores it (sweep_load_run_config) */
    out->task_separator = task_has_separator(out) ? SEPARATOR_TRUE : SEPARATOR_FALSE;
    return 0;
}
