/* sweep_report.h: the report of a finished (or partly finished) sweep, from its sweep.csv alone:
 * the summary over seeds, the outlying seeds, the LR sensitivity when optim.lr varied, and the
 * figures. It reads no run folder and includes nothing of training or of the sweep engine, so the
 * same report comes from an in-process sweep, a --collect of runs trained elsewhere, or by hand
 * (./train --sweep-report OUT). */
#ifndef SCALEDOT_SWEEP_REPORT_H
#define SCALEDOT_SWEEP_REPORT_H

#include <stdio.h>

/* Reads OUT/sweep.csv (columns: see sweep_table.h); prints the summary table to `out`, writes the
 * same text to OUT/summary.txt, the SVG figures and OUT/index.html (sweep_page.h) into OUT.
 * Malformed rows are skipped after a warning on stderr. Returns 0; 2 (EXIT_CONFIG) when
 * sweep.csv is not one (its header damaged: bad input, nothing written); or 1 after an I/O
 * message (no sweep.csv, cannot write into OUT, out of memory), or after sweep_report_check_folder refused OUT (nothing
 * written), or when no row trained (none ok, diverged or guard: every file is still written,
 * saying which runs are missing, but the sweep, --collect and --sweep-report exit with 1). */
int sweep_report(const char *out_dir, FILE *out);

/* The longest sweep folder name (bytes) the report takes: each file it writes there (a '/' and a
 * name of at most 140 bytes: summary.txt, index.html, sweep_by_KEY.svg) must fit its path
 * buffers whole, or a cut path would name another file. */
#define SWEEP_DIR_MAX 1900

/* 0 when dir is at most SWEEP_DIR_MAX bytes long, else -1 after saying so on stderr. */
int sweep_report_check_name(const char *dir);

/* 0 when the report may be written into dir: none of the files it writes there (summary.txt,
 * index.html, *.svg) is there, or each is one a sweep report wrote (a regular file: summary.txt
 * starting with SWEEP_REPORT_MARK, an index.html carrying SWEEP_PAGE_MARK, an SVG svg_is_ours
 * recognises). Else -1 after "error: 'DIR/NAME' is not a file a sweep into this folder wrote"
 * on stderr, naming the first such file in strcmp order: the user's, which the report would
 * replace. -1 too when dir is too long (sweep_report_check_name, checked first). sweep_report
 * makes this check itself; ./train --sweep-report and a new sweep (plan_check_fresh) make it
 * first, to refuse with exit code 2 before any work. */
int sweep_report_check_folder(const char *dir);

/* The names of the report's figures (sweep_figures.h), as a pattern of util/owned_dir.h. */
#define SWEEP_FIGURE_NAMES "sweep_*.svg"

/* The start of every sweep report (summary.txt's first line, followed by the sweep.csv path): the
 * mark by which a sweep's own summary.txt is recognised (sweep/plan_files.c). */
#define SWEEP_REPORT_MARK "sweep report of "

#endif
