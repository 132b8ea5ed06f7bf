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
#include "util/file_check.h"
#include "util/shell_word.h"
#include "util/whole_write.h"

/* The start of a jobs.txt line's config word for a sweep into out, into want (n bytes): as
 * plan_write_files writes it (shell_word of the config's path; a run's name adds only plain
 * characters, so the word is quoted or bare as out/configs/ is), without its closing quote;
 * quoted, also into legacy (else ""): how versions before shell_word wrote every word. Returns
 * -1 when out of memory. */
static int jobs_word_start(const char *out, char *want, char *legacy, size_t n) {
    char dir[SWEEP_PATH + 16];
    snprintf(dir, sizeof dir, "%s/configs/", out);
    char *q = shell_word_dup(dir);
    if (!q) return -1;
    size_t len = strlen(q);
    int quoted = q[0] == '\'';
    snprintf(want, n, " --sweep-run %.*s", (int)(len - (size_t)quoted), q);
    if (quoted) legacy[0] = '\0';
    else snprintf(legacy, n, " --sweep-run '%s", q);
    free(q);
    return 0;
}

/* 1 when the file at path is one a sweep into `out` wrote: a run config (config_write's first
 * line, its run.dir this folder's runs/) or a jobs.txt (every line a --sweep-run of a config
 * under this folder's configs/, as this version or an earlier one wrote it). Such a file is
 * rewritten from the plan; anything else is the user's. */
static int written_by_a_sweep(const char *path, const char *out, int is_jobs) {
    size_t len;
    char why[128], want[4 * SWEEP_PATH + 64], legacy[4 * SWEEP_PATH + 64];
    char *text = file_read_regular(path, FILE_MAX_TEXT_BYTES, &len, why, sizeof why);
    if (!text) return 0;
    int ours;
    if (is_jobs) {
        ours = len > 0 && jobs_word_start(out, want, legacy, sizeof want) == 0;
        for (char *line = text; ours && *line;) {
            char *end = strchr(line, '\n');
            if (end) *end = '\0';
            ours = strstr(line, want) || (legacy[0] && strstr(line, legacy));
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

/* The message of plan_check_fresh for path; returns -1. */
static int not_ours(const char *path) {
    fprintf(stderr, "error: '%s' is not a file a sweep into this folder wrote, and the sweep "
                    "would overwrite it. Use another --out, or move it away; nothing was run\n",
            path);
    return -1;
}

int plan_check_fresh(const Plan *p, const char *out_abs) {
    char path[SWEEP_PATH + 64];
    /* the report files (summary.txt, index.html, figures): the one check the report makes */
    if (sweep_report_check_folder(out_abs) != 0) return -1;
    for (int r = -1; r < p->n_runs; r++) {
        if (r < 0) snprintf(path, sizeof path, "%s/jobs.txt", out_abs);
        else plan_config_path(path, sizeof path, out_abs, p->names[r]);
        if (access(path, F_OK) == 0 && !written_by_a_sweep(path, out_abs, r < 0))
            return not_ours(path);
    }
    return 0;
}

int sweep_write_atomic(const char *path, const char *text, size_t len) {
    if (file_write_atomic(path, text, len) == 0) return 0;
    fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
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
