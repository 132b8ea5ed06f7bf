/* compare.c: the report behind ./train --compare RUN_DIR ... (its arguments are read by
 * cli/cmd_compare.c).
 *
 * Reads the logs of several run folders and shows, side by side, what the attention scale does:
 * a summary table on stdout, SVG figures and an index.html that ties them together. This file
 * runs the parts and picks the report folder, which it writes only when it is new or a report
 * folder of ours (never through a link, never over or beside a user's files, and with no figure
 * of an earlier report left beside the new page). The parts are, in
 * the order they run:
 * runs.h (the run folders), summary.h (the table), figures.h (the SVGs), html.h (the page), and
 * last on the terminal the page's verdict (verdict.h) and the page's path. */
#include "report/report.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/figures.h"
#include "report/html.h"
#include "runlog/log_query.h"
#include "report/out_dir.h"
#include "report/runs.h"
#include "report/summary.h"
#include "report/svg.h"
#include "report/verdict.h"
#include "report/warnings.h"
#include "util/dirs.h"
#include "util/file_check.h"

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

/* 1 when the entry name of the folder dir is a file --compare writes: a regular index.html
 * carrying HTML_COMPARE_MARK (html.h), a regular *.svg that svg.c began (svg_is_ours), or a leftover
 * index.html.tmp or *.svg.tmp (atomic_open removes it, a link without following it). */
static int entry_is_ours(const char *dir, const char *name) {
    size_t len = strlen(name);
    int tmp = len > 4 && strcmp(name + len - 4, ".tmp") == 0;
    if (tmp) len -= 4;
    int page = len == 10 && strncmp(name, "index.html", 10) == 0;
    int svg = len > 4 && strncmp(name + len - 4, ".svg", 4) == 0;
    if (!page && !svg) return 0;
    if (tmp) return 1;
    char path[PATH_MAX], why[128];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
        lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    size_t n;
    char *text = file_read_regular(path, FILE_MAX_LOG_BYTES, &n, why, sizeof why);
    int ours = text && (page ? strstr(text, HTML_COMPARE_MARK) != NULL : svg_is_ours(text));
    free(text);
    return ours;
}

/* 0 when the report may be written into dir: dir is no symbolic link, and is missing or holds
 * only files of a report (entry_is_ours: a report folder of ours, written again). Else -1 after
 * naming the link, or the first other entry (strcmp order): nothing is written then. */
static int check_out_folder(const char *dir) {
    if (dirs_refuse_link(dir, "report folder") != 0) return -1;
    DIR *d = opendir(dir);
    if (!d) return 0; /* missing (made below), or not a folder (make_dirs says so) */
    char first[256] = "";
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (!entry_is_ours(dir, e->d_name) && (!first[0] || strcmp(e->d_name, first) < 0))
            snprintf(first, sizeof first, "%s", e->d_name);
    }
    closedir(d);
    if (!first[0]) return 0;
    fprintf(stderr, "error: '%s/%s' is not a file ./train --compare wrote, and the report would "
                    "replace it or mix with it. Use another --out, or move it away; nothing was "
                    "written\n", dir, first);
    return -1;
}

/* Removes from dir every figure of an earlier report (a regular *.svg svg.c began, entry_is_ours)
 * that this report did not write, figs[0..n_figs): runs without attention maps must not be shown
 * beside the maps of the runs compared there before, nor an earlier figure beside the note that
 * this report's could not be written. Files of the user's were refused before; one made
 * read-only is kept, as every whole-file write keeps it. */
static void remove_stale_figures(const char *dir, const FigureInfo *figs, int n_figs) {
    DIR *d = opendir(dir);
    if (!d) return;
    char path[PATH_MAX];
    struct stat st;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        int fresh = !(len > 4 && strcmp(e->d_name + len - 4, ".svg") == 0);
        for (int i = 0; i < n_figs && !fresh; i++)
            fresh = !figs[i].err && strcmp(e->d_name, figs[i].file) == 0;
        if (fresh || !entry_is_ours(dir, e->d_name) ||
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        if (lstat(path, &st) == 0 && (st.st_mode & 0222)) remove(path);
    }
    closedir(d);
}

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
    if (check_out_folder(dir) != 0) {
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
        fprintf(stderr, "error: cannot create report folder '%s': %s\n", dir, strerror(errno));
        rc = RC_IO;
        goto done;
    }
    FigureInfo figs[FIGURES_MAX];
    int n_figs = 0;
    if (figures_write(runs, n_dirs, dir, a->log_scale, figs, &n_figs) != 0) rc = RC_IO;
    remove_stale_figures(dir, figs, n_figs);
    if (log_path(index, sizeof index, dir, "index.html") != 0) {
        fprintf(stderr, "error: report folder name '%s' is too long\n", dir);
        rc = RC_IO;
    } else if (html_write(index, runs, n_dirs, &summary, figs, n_figs) != 0) {
        rc = RC_IO;
    }
    /* The terminal ends with the answer: the page's verdict, the same lines (verdict.h), and
     * where the page is. */
    printf("\nverdict:\n");
    verdict_compare(stdout, runs, n_dirs);
    if (rc == RC_OK) printf("report: %s\n", index);
done:
    fflush(stdout);
    summary_free(&summary);
    for (int i = 0; i < n_dirs; i++) free_run(&runs[i]);
    free(runs);
    return rc;
}
