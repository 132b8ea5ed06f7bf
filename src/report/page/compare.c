/* compare.c: the report behind ./train --compare RUN_DIR ... (its arguments are read by
 * cli/cmd_compare.c).
 *
 * Reads the logs of several run folders and shows, side by side, what the attention scale does:
 * a summary table on stdout, SVG figures and an index.html that ties them together. This file
 * runs the parts and picks the report folder, which it writes under the owner rule
 * (util/owned_dir.h: never through a link, never over a user's file, locked while written, and
 * with no figure of an earlier report left beside the new page). The parts are, in
 * the order they run:
 * runs.c (the run folders), summary.c (the table), figures.c (the SVGs), html.c (the page), and
 * last on the terminal the page's verdict (verdict.c) and the page's path. */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/figure/figure.h"
#include "report/page/page_internal.h"
#include "runlog/log_query.h"
#include "report/read/read.h"
#include "report/table/table.h"
#include "report/plot/plot.h"
#include "util/dirs.h"
#include "util/error_list.h"
#include "util/file_check.h"
#include "util/owned_dir.h"

enum { RC_OK = 0, RC_IO = 1, RC_USAGE = 2 };

/* The report folder when there is no --out (out_dir.c). */
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

/* The report folder's owner rule (util/owned_dir.h): index.html and the figures are the names
 * --compare writes; in a folder of an earlier version (no manifest), a regular index.html
 * carrying HTML_COMPARE_MARK (html.c) or a figure svg.c began (svg_is_ours) is adopted as ours. */
static int adopt_report_file(const char *dir, const char *name) {
    char path[PATH_MAX], why[128];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
        lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    size_t n;
    char *text = file_read_regular(path, FILE_MAX_LOG_BYTES, &n, why, sizeof why);
    int page = strcmp(name, "index.html") == 0;
    int ours = text && (page ? strstr(text, HTML_COMPARE_MARK) != NULL : svg_is_ours(text));
    free(text);
    return ours;
}

const char *compare_folder_mark(const char *dir) {
    return adopt_report_file(dir, "index.html") ? "index.html" : NULL;
}

/* index.html, then every figure's name (figures_file_names) */
static const char *g_report_names[FIGURES_MAX + 1] = {"index.html"};

static const OwnedWriter COMPARE_WRITER = {
    .id = "compare",
    .what = "report folder",
    .who = "./train --compare",
    .would = "the report would replace it or mix with it",
    .names = g_report_names,
    .adopt = adopt_report_file,
    .advice = "Use another --out, or move it away",
};

/* Runs of different tasks measure different things under one name (a text run's val_answer_acc
 * is its next-byte accuracy, a sort run's the share of answers right): compared all the same,
 * with a warning on the terminal and the page (issue 45, F7). */
static void warn_mixed_tasks(const Run *runs, int n) {
    int first = -1;
    for (int i = 0; i < n; i++) {
        const char *task = run_task(&runs[i]);
        if (!task) continue;
        if (first < 0) {
            first = i;
        } else if (strcmp(task, run_task(&runs[first])) != 0) {
            warn_input("the runs are of different tasks ('%s': %s, '%s': %s): their losses and "
                       "accuracies measure different things; shown side by side all the same",
                       runs[first].name, run_task(&runs[first]), runs[i].name, task);
            return;
        }
    }
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
    warn_mixed_tasks(runs, n_dirs);
    if (a->out)
        snprintf(dir, sizeof dir, "%s", a->out);
    else
        default_out(dir, sizeof dir, runs, n_dirs);
    OwnedWriter w = COMPARE_WRITER;
    w.n_names = 1 + figures_file_names(g_report_names + 1);
    if (owned_dir_check(dir, &w, NULL) != 0) {
        rc = RC_USAGE;
        goto done;
    }
    if (summary_build(&summary, runs, n_dirs) != 0) {
        fprintf(stderr, "error: out of memory\n");
        rc = RC_IO;
        goto done;
    }
    summary_print(&summary, runs, stdout);
    if (make_dirs(dir) != 0) {
        error_add(NULL, 0, NULL, "cannot create report folder '%s': %s", dir, strerror(errno));
        rc = RC_IO;
        goto done;
    }
    /* locked while it is written: a second --compare into it waits (owned_dir.h) */
    int owned = owned_dir_open(dir, &w, OWNED_LOCK_WAIT, NULL);
    if (owned < 0) {
        rc = owned == -2 ? RC_USAGE : RC_IO;
        goto done;
    }
    FigureInfo figs[FIGURES_MAX];
    int n_figs = 0;
    if (figures_write(runs, n_dirs, dir, a->log_scale, figs, &n_figs) != 0) rc = RC_IO;
    /* an earlier report's figure this one did not draw (or failed to write) must not be shown
     * beside this page: the manifest says which are ours; a user's files are never touched */
    owned_dir_remove_stale(owned, g_report_names + 1, w.n_names - 1);
    if (log_path(index, sizeof index, dir, "index.html") != 0) {
        error_add(NULL, 0, NULL, "report folder name '%s' is too long", dir);
        rc = RC_IO;
    } else if (html_write(index, runs, n_dirs, &summary, figs, n_figs) != 0) {
        rc = RC_IO;
    }
    owned_dir_close(owned);
    /* The terminal ends with the answer: the page's verdict, the same lines (verdict.c), and
     * where the page is. */
    printf("\nverdict:\n");
    verdict_compare(stdout, runs, n_dirs);
    if (rc == RC_OK) printf("report: %s\n", SHOWN(index));
done:
    fflush(stdout);
    summary_free(&summary);
    for (int i = 0; i < n_dirs; i++) free_run(&runs[i]);
    free(runs);
    return rc;
}
