/* folder_mark.c: whether a folder is a sweep folder, by the first line of a file the sweep
 * writes there (sweep.h, sweep_folder_mark): for --export, which stays out of every folder
 * ./train writes, also of a sweep folder of a version before manifests. */
#include "sweep/sweep.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/read/read.h"
#include "util/file_check.h"

/* 1 when dir/name is a regular file whose first line starts with start and holds each of has[]
 * (NULL-ended), else 0 (not there, not a regular file, unreadable, another line). */
static int first_line_is(const char *dir, const char *name, const char *start,
                         const char *const *has) {
    char path[PATH_MAX + 32], why[128];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return 0;
    FILE *f = file_fopen_regular(path, FILE_MAX_LOG_BYTES, why, sizeof why);
    if (!f) return 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, f);
    fclose(f);
    int ours = n > 0 && strncmp(line, start, strlen(start)) == 0;
    if (ours) line[strcspn(line, "\n")] = '\0';
    for (int i = 0; ours && has[i]; i++) ours = strstr(line, has[i]) != NULL;
    free(line);
    return ours;
}

const char *sweep_folder_mark(const char *dir) {
    static const char *const NOTHING[] = {NULL}, *const RUN_LINE[] = {" --sweep-run ",
                                                                      "/configs/", NULL};
    char plan[sizeof PLAN_FIRST_LINE + 1], status[128];
    snprintf(plan, sizeof plan, "%s\n", PLAN_FIRST_LINE); /* the whole line */
    /* sweep.csv's header: "run,<the plan's columns>,status,exit_code,..." (read.h) */
    snprintf(status, sizeof status, ",%s,%s,", SWEEP_COLUMNS[SC_STATUS].name,
             SWEEP_COLUMNS[SC_EXIT_CODE].name);
    const char *const STATUS[] = {status, NULL};
    if (first_line_is(dir, "plan.txt", plan, NOTHING)) return "plan.txt";
    if (first_line_is(dir, "sweep.csv", SWEEP_RUN_COLUMN ",", STATUS)) return "sweep.csv";
    /* the very first sweep's (src/report/sweep.c, before src/sweep/): no run or exit_code
     * column; a header the program no longer writes, so spelled here */
    if (first_line_is(dir, "sweep.csv", "d_k,scale,seed,steps,status,", NOTHING))
        return "sweep.csv";
    /* jobs.txt: "EXE --sweep-run OUT/configs/RUN.ini", its words maybe quoted (shell_word.h) */
    if (first_line_is(dir, "jobs.txt", "", RUN_LINE)) return "jobs.txt";
    return NULL;
}
