/* compare.c: the report behind ./train --compare RUN_DIR ... (its arguments are read by
 * cli/cmd_compare.c).
 *
 * Reads the logs of several run folders and shows, side by side, what the attention scale does:
 * a summary table on stdout, SVG figures and an index.html that ties them together. This file
 * runs the parts and picks the report folder. The parts are, in the order they run:
 * runs.h (the run folders), summary.h (the table), figures.h (the SVGs) and html.h (the page). */
#include "report/report.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/figures.h"
#include "report/html.h"
#include "runlog/log_query.h"
#include "report/out_dir.h"
#include "report/runs.h"
#include "report/summary.h"
#include "util/dirs.h"

enum { RC_OK = 0, RC_IO = 1, RC_USAGE = 2 };

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

int report_compare(const CompareArgs *a) {
    int n_dirs = a->n_dirs;
    Run *runs = calloc((size_t)n_dirs, sizeof *runs);
    if (!runs) return RC_IO;
    int rc = RC_OK;
    for (int i = 0; i < n_dirs; i++)
        if (load_run(&runs[i], a->dirs[i]) != 0) rc = RC_USAGE; /* report every bad folder */
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
    if (a->out)
        snprintf(dir, sizeof dir, "%s", a->out);
    else
        default_out(dir, sizeof dir, runs, n_dirs);
    if (make_dirs(dir) != 0) {
        fprintf(stderr, "error: cannot create report folder '%s': %s\n", dir, strerror(errno));
        rc = RC_IO;
        goto done;
    }
    FigureInfo figs[FIGURES_MAX];
    int n_figs = 0;
    if (figures_write(runs, n_dirs, dir, a->log_scale, figs, &n_figs) != 0) rc = RC_IO;
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
    return rc;
}
