/* page.h: the face of report/page/, the commands that write a report folder, on top of
 * report/: ./train --compare (compare.c: its summary, figures and index.html) and a sweep's
 * report (sweep_report.c: summary.txt, figures, index.html), with their pages' parts. The top
 * floor: its files include every lower room of report/, each through its face. */
#ifndef SCALEDOT_REPORT_PAGE_H
#define SCALEDOT_REPORT_PAGE_H

#include <stdio.h>

#include "report/read/read.h" /* SWEEP_DIR_MAX, the longest sweep folder the report takes */

/* ==== compare.c: ./train --compare. */

/* What ./train --compare asks for (read by cli/cmd_compare.c). */
typedef struct {
    const char *out;   /* --out DIR, or NULL: reports/<run1>_vs_<run2>... (out_dir.c) */
    int log_scale;     /* the loss axis: 1 log, 0 linear, FIGURES_LOG_AUTO (figures.c) chooses */
    char **dirs;       /* the run folders, in command-line order */
    int n_dirs;        /* at least 1 */
    int at_equal_loss; /* --at-equal-loss: exactly 2 dirs; report_equal_loss instead of the report */
} CompareArgs;

/* ./train --compare RUN_DIR RUN_DIR ... [--out DIR] [--log-scale | --linear]
 * Prints the terminal summary table, writes the SVG figures and index.html into the report
 * folder, and prints last the page's verdict (verdict.c), the same lines, and the page's path
 * ("report: DIR/index.html", when it was written). Returns an exit code (0, 1 on I/O error,
 * 2 on unreadable runs, each named). */
int report_compare(const CompareArgs *a);

/* ==== sweep_report.c: the report of a finished (or partly finished) sweep, from its sweep.csv alone:
 * the summary over seeds, the outlying seeds, the LR sensitivity when optim.lr varied, and the
 * figures. It reads no run folder and includes nothing of training or of the sweep engine, so the
 * same report comes from an in-process sweep, a --collect of runs trained elsewhere, or by hand
 * (./train --sweep-report OUT). */

/* Reads OUT/sweep.csv (columns: see sweep_table.c); prints the summary table to `out`, writes the
 * same text to OUT/summary.txt, the SVG figures and OUT/index.html (sweep_page.c) into OUT.
 * Malformed rows are skipped after a warning on stderr. Returns 0; 2 (EXIT_CONFIG) when
 * sweep.csv is not one (its header damaged: bad input, nothing written); or 1 after an I/O
 * message (no sweep.csv, cannot write into OUT, out of memory), or after sweep_report_check_folder refused OUT (nothing
 * written), or when no row trained (none ok, diverged or guard: every file is still written,
 * saying which runs are missing, but the sweep, --collect and --sweep-report exit with 1). */
int sweep_report(const char *out_dir, FILE *out);

/* 0 when dir is at most SWEEP_DIR_MAX bytes long, else -1 after saying so on stderr. */
int sweep_report_check_name(const char *dir);

/* 0 when the report may be written into dir: none of the files it writes there (summary.txt,
 * index.html, *.svg) is there, or each is one a sweep report wrote (a regular file: summary.txt
 * starting with SWEEP_REPORT_MARK, an index.html carrying SWEEP_PAGE_MARK, an SVG svg_is_ours
 * recognises). Else -1 after "error: 'DIR/NAME' is not a file a sweep into this folder wrote"
 * on stderr, naming the first such file in strcmp order: the user's, which the report would
 * replace. -1 too when dir is too long (sweep_report_check_name, checked first). sweep_report
 * makes this check itself; ./train --sweep-report and a new sweep (plan_check_folder) make it
 * first, to refuse with exit code 2 before any work. */
int sweep_report_check_folder(const char *dir);

/* For a writer that must stay out of every folder ./train writes (--export), also one a version
 * before manifests (util/owned_dir.h) wrote: the name of the file in dir that makes it a sweep
 * report's folder (a summary.txt or index.html sweep_report_check_folder would adopt as the
 * report's own), else NULL. A figure alone marks nothing: a user copies one anywhere. */
const char *sweep_report_folder_mark(const char *dir);

/* The same for a --compare report folder: "index.html" when dir holds the page --compare wrote
 * (HTML_COMPARE_MARK, what its owner rule adopts), else NULL. */
const char *compare_folder_mark(const char *dir);

/* The names of the report's figures (sweep_figures.c), as a pattern of util/owned_dir.h. */
#define SWEEP_FIGURE_NAMES "sweep_*.svg"

/* The start of every sweep report (summary.txt's first line, followed by the sweep.csv path): the
 * mark by which a sweep's own summary.txt is recognised (sweep/plan_files.c). */
#define SWEEP_REPORT_MARK "sweep report of "

#endif
