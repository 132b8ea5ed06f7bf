/* plan_files.c: the files a sweep writes from its plan into OUT: plan.txt, configs/<run>.ini
 * (each run's whole config) and jobs.txt (one --sweep-run command per run), each through a
 * temporary file and a rename; and the check, before any is written, that none of them, nor of
 * the report files the sweep writes later (sweep_report_check_folder: summary.txt, index.html,
 * its figures; sweep.csv is sweep.c's), is a file of the user's. */
#include "sweep/plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/page/page.h"
#include "util/dirs.h"
#include "util/error_list.h"
#include "util/file_check.h"
#include "util/shell_word.h"
#include "util/whole_write.h"

/* The value of the shell word at s as shell_word's rules read back ('...' taken literally, \' a
 * quote, any other character itself) into *value (malloc'd), up to an unquoted space or the end;
 * *end past it. Lenient: the caller compares the word with the value's shell_word. Returns -1 on
 * an unclosed quote or out of memory. */
static int read_word(const char *s, char **value, const char **end) {
    char *v = malloc(strlen(s) + 1);
    size_t n = 0;
    if (!v) return -1;
    while (*s && *s != ' ') {
        if (*s == '\'') {
            const char *close = strchr(s + 1, '\'');
            if (!close) break;
            memcpy(v + n, s + 1, (size_t)(close - s - 1));
            n += (size_t)(close - s - 1);
            s = close + 1;
        } else if (s[0] == '\\' && s[1] == '\'') {
            v[n++] = '\'', s += 2;
        } else {
            v[n++] = *s++;
        }
    }
    v[n] = '\0';
    if (*s && *s != ' ') {
        free(v);
        return -1;
    }
    *value = v;
    *end = s;
    return 0;
}

/* Whether the text w (len bytes) is value as shell_word writes it (legacy 0), or as versions
 * before shell_word wrote every word (legacy 1: single-quoted, even a plain one). */
static int word_is(const char *w, size_t len, const char *value, int legacy) {
    char *q = shell_word_dup(value);
    if (!q) return 0;
    int bare = q[0] != '\'', same;
    if (legacy && bare)
        same = len == strlen(q) + 2 && w[0] == '\'' && w[len - 1] == '\'' &&
               strncmp(w + 1, q, len - 2) == 0;
    else
        same = len == strlen(q) && strncmp(w, q, len) == 0;
    free(q);
    return same;
}

/* 1 when line is exactly one that plan_write_files writes for a sweep into out, this version or
 * an earlier one: "EXE --sweep-run OUT/configs/RUN.ini", EXE an absolute path, RUN a run's name
 * (the characters run.name accepts), both words as shell_word writes them or both single-quoted
 * (versions before shell_word). Text around the command (a hand-written "cd x; ... ; rm y")
 * makes it the user's. */
static int jobs_line_is_ours(const char *line, const char *out) {
    static const char RUN[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
    const char *e1, *e2, *w2 = NULL, *mid = " --sweep-run ";
    char *exe = NULL, *cfg = NULL;
    int ours = read_word(line, &exe, &e1) == 0 && strncmp(e1, mid, strlen(mid)) == 0 &&
               read_word(w2 = e1 + strlen(mid), &cfg, &e2) == 0 && *e2 == '\0' && exe[0] == '/';
    size_t lo = strlen(out), lc = ours ? strlen(cfg) : 0;
    ours = ours && lc > lo + 13 && strncmp(cfg, out, lo) == 0 &&
           strncmp(cfg + lo, "/configs/", 9) == 0 && strcmp(cfg + lc - 4, ".ini") == 0 &&
           strspn(cfg + lo + 9, RUN) == lc - lo - 9; /* RUN.ini: RUN's characters */
    size_t l1 = ours ? (size_t)(e1 - line) : 0, l2 = ours ? (size_t)(e2 - w2) : 0;
    ours = ours && ((word_is(line, l1, exe, 0) && word_is(w2, l2, cfg, 0)) ||
                    (word_is(line, l1, exe, 1) && word_is(w2, l2, cfg, 1)));
    free(exe);
    free(cfg);
    return ours;
}

/* 1 when the file at path is one a sweep into `out` wrote: a run config (config_write's first
 * line, its run.dir this folder's runs/) or a jobs.txt (every line exactly one of
 * jobs_line_is_ours). Such a file is rewritten from the plan; anything else is the user's, and
 * the first line of a jobs.txt that is not ours goes into foreign (n bytes; "" if none). */
static int written_by_a_sweep(const char *path, const char *out, int is_jobs, char *foreign,
                              size_t n) {
    size_t len;
    char why[128], want[SWEEP_PATH + 64];
    char *text = file_read_regular(path, FILE_MAX_TEXT_BYTES, &len, why, sizeof why);
    foreign[0] = '\0';
    if (!text) return 0;
    int ours = len > 0;
    if (is_jobs) {
        long no = 0;
        for (char *line = text; ours && *line;) {
            char *end = strchr(line, '\n');
            if (end) *end = '\0';
            no++;
            if (!(ours = jobs_line_is_ours(line, out)))
                snprintf(foreign, n, "line %ld: '%.200s%s'", no, line,
                         strlen(line) > 200 ? "..." : "");
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

/* The message of plan_check_folder for path (foreign: its first line that is not ours, or "");
 * returns -1. */
static int not_ours(const char *path, const char *foreign) {
    /* the line is quoted escaped: a CRLF line's CR would hide the rest of the message */
    error_add(NULL, 0, NULL, "'%s' is not a file a sweep into this folder wrote%s%s%s, and the "
                             "sweep would overwrite it. Use another --out, or move it away; "
                             "nothing was run",
              path, foreign[0] ? " (" : "", foreign, foreign[0] ? ")" : "");
    return -1;
}

int plan_check_folder(const Plan *p, const char *out_abs, int has_plan) {
    char path[SWEEP_PATH + 64], foreign[256];
    /* the report files (summary.txt, index.html, figures): the one check the report makes */
    if (sweep_report_check_folder(out_abs) != 0) return -1;
    /* r = -1: jobs.txt, in every folder; then the run configs, in a folder without a plan */
    for (int r = -1; r < (has_plan ? 0 : p->n_runs); r++) {
        if (r < 0) snprintf(path, sizeof path, "%s/jobs.txt", out_abs);
        else plan_config_path(path, sizeof path, out_abs, p->names[r]);
        if (access(path, F_OK) == 0 && !written_by_a_sweep(path, out_abs, r < 0, foreign,
                                                           sizeof foreign))
            return not_ours(path, foreign);
    }
    return 0;
}

int sweep_write_atomic(const char *path, const char *text, size_t len) {
    if (file_write_atomic(path, text, len) == 0) return 0;
    error_add(NULL, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
    return -1;
}

void plan_config_path(char *buf, size_t n, const char *out, const char *name) {
    snprintf(buf, n, "%s/configs/%s.ini", out, name);
}

int plan_write_files(const SweepArgs *a, const Config *base, const Plan *p, const char *out_abs,
                     const char *exe_abs) {
    char path[SWEEP_PATH + 64], runs[SWEEP_PATH + 8];
    snprintf(path, sizeof path, "%s/configs", out_abs);
    snprintf(runs, sizeof runs, "%s/runs", out_abs);
    if (make_dirs(path) != 0) {
        error_add(NULL, 0, NULL, "cannot create '%s': %s", path, strerror(errno));
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
        /* the command word too: exe_abs is absolute, so bare it is no assignment or reserved word */
        shell_word(jf, exe_abs);
        fputs(" --sweep-run ", jf);
        shell_word(jf, path);
        fputc('\n', jf);
    }
    if (jf && fclose(jf) != 0) rc = -1;
    snprintf(path, sizeof path, "%s/jobs.txt", out_abs);
    if (!rc) rc = sweep_write_atomic(path, jobs, jobs_len);
    free(jobs);
    free(c);
    return rc;
}
