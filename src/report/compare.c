/* compare.c: ./train --compare RUN_DIR ... [--out DIR] [--log-scale | --linear]
 *
 * Reads the logs of several run folders and shows, side by side, what the attention scale does:
 * a summary table on stdout, SVG figures and an index.html that ties them together. This file is
 * the command: its arguments and the report folder. The parts are, in the order they run:
 * runs.h (the run folders), summary.h (the table), figures.h (the SVGs) and html.h (the page). */
#include "report/report.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/figures.h"
#include "report/html.h"
#include "report/logs.h"
#include "report/out_dir.h"
#include "report/runs.h"
#include "report/summary.h"
#include "util/dirs.h"

enum { RC_OK = 0, RC_IO = 1, RC_USAGE = 2 };

static void usage(FILE *f) {
    fprintf(f,
            "usage: ./train --compare RUN_DIR [RUN_DIR ...] [--out DIR] [--log-scale | --linear]\n"
            "Prints a summary table of the runs and writes SVG figures and index.html into DIR\n"
            "(default reports/<run1>_vs_<run2>...).\n"
            "The loss axis is logarithmic when the losses span more than 30x, else linear;\n"
            "--log-scale or --linear chooses it.\n"
            "Exit codes: 0 done, 1 cannot write the report, 2 bad arguments or unreadable run.\n");
}

/* The report folder when there is no --out (out_dir.h). */
static void default_out(char *out, size_t n, const Run *runs, int n_runs) {
    const char **names = malloc((size_t)(n_runs > 0 ? n_runs : 1) * sizeof *names);
    if (!names) { /* a name of the first run alone still keeps spaces out */
        const char *first = n_runs > 0 ? runs[0].name : "compare";
        out_dir_default(out, n, &first, 1);
        return;
    }
    for (int i = 0; i < n_runs; i++) names[i] = runs[i].name;
    out_dir_default(out, n, names, n_runs);
    free(names);
}

typedef struct {
    const char *out;   /* --out, or NULL */
    int log_scale;
    char **dirs;       /* the run folders, in command-line order */
    int n_dirs;
} CompareArgs;

/* Fills a (a->dirs is allocated; the caller frees it). Returns -1 when the report is to be made,
 * else the exit code: RC_OK after --help, RC_USAGE after an error message, RC_IO out of memory. */
static int parse_args(CompareArgs *a, int argc, char **argv) {
    *a = (CompareArgs){.log_scale = FIGURES_LOG_AUTO};
    a->dirs = calloc((size_t)(argc > 0 ? argc : 1), sizeof *a->dirs);
    if (!a->dirs) return RC_IO;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return RC_OK;
        } else if (strcmp(argv[i], "--log-scale") == 0) {
            a->log_scale = 1;
        } else if (strcmp(argv[i], "--linear") == 0) {
            a->log_scale = 0;
        } else if (strcmp(argv[i], "--out") == 0 || strncmp(argv[i], "--out=", 6) == 0) {
            a->out = argv[i][5] == '=' ? argv[i] + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!a->out || !*a->out) {
                fprintf(stderr, "error: --out needs a folder\n");
                return RC_USAGE;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "error: unknown option '%s' for --compare\n", argv[i]);
            usage(stderr);
            return RC_USAGE;
        } else {
            a->dirs[a->n_dirs++] = argv[i];
        }
    }
    if (a->n_dirs == 0) {
        fprintf(stderr, "error: --compare needs at least one run folder\n");
        usage(stderr);
        return RC_USAGE;
    }
    return -1;
}

int report_compare(int argc, char **argv) {
    CompareArgs a;
    int rc = parse_args(&a, argc, argv);
    if (rc >= 0) {
        free(a.dirs);
        return rc;
    }
    int n_dirs = a.n_dirs;
    Run *runs = calloc((size_t)n_dirs, sizeof *runs);
    if (!runs) {
        free(a.dirs);
        return RC_IO;
    }
    rc = RC_OK;
    for (int i = 0; i < n_dirs; i++)
        if (load_run(&runs[i], a.dirs[i]) != 0) rc = RC_USAGE; /* report every bad folder */
    Table summary = {0};
    char dir[PATH_MAX], index[PATH_MAX];
    if (rc != RC_OK) goto done;
    make_names_unique(runs, n_dirs);
    if (summary_build(&summary, runs, n_dirs) != 0) {
        fprintf(stderr, "error: out of memory\n");
        rc = RC_IO;
        goto done;
    }
    summary_print(&summary, runs, stdout);
    if (a.out)
        snprintf(dir, sizeof dir, "%s", a.out);
    else
        default_out(dir, sizeof dir, runs, n_dirs);
    if (make_dirs(dir) != 0) {
        fprintf(stderr, "error: cannot create report folder '%s': %s\n", dir, strerror(errno));
        rc = RC_IO;
        goto done;
    }
    FigureInfo figs[FIGURES_MAX];
    int n_figs = 0;
    if (figures_write(runs, n_dirs, dir, a.log_scale, figs, &n_figs) != 0) rc = RC_IO;
    if (log_path(index, sizeof index, dir, "index.html") != 0) {
        fprintf(stderr, "error: report folder name '%s' is too long\n", dir);
        rc = RC_IO;
    } else if (html_write(index, runs, n_dirs, &summary, figs, n_figs) != 0) {
        rc = RC_IO;
    }
    if (rc == RC_OK) printf("\nreport: %s\n", index);
done:
    fflush(stdout);
    summary_free(&summary);
    for (int i = 0; i < n_dirs; i++) free_run(&runs[i]);
    free(runs);
    free(a.dirs);
    return rc;
}
