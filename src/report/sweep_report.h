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
 * Malformed rows are skipped after a warning on stderr. Returns 0, or 1 after an I/O message (no sweep.csv, not a sweep.csv, cannot
 * write into OUT, out of memory). */
int sweep_report(const char *out_dir, FILE *out);

/* The start of every sweep report (summary.txt's first line, followed by the sweep.csv path): the
 * mark by which a sweep's own summary.txt is recognised (sweep/plan_files.c). */
#define SWEEP_REPORT_MARK "sweep report of "

#endif
