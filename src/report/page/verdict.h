/* verdict.h: the result of a report page in a few lines, at the top of the page, computed from
 * the runs on it (never quoted from elsewhere): what --compare's index.html and a sweep's
 * summary.txt and index.html say first.
 *
 * A --compare page of text runs (runs_are_text, runs.h):
 * per run, the last validation bits per byte (val_bpb; val_loss / ln 2 without it) and next-byte
 * accuracy; for two runs, how far apart they end. Any other page: per run, the last validation
 * answer accuracy and the first validation pass at >= 50 / 90 / 99 % (time_to_learn.h); for two
 * runs, the slowdown (slowdown.h) of one over the other at each threshold: the unscaled over the
 * scaled run when one has attention.scale = none and the other sqrt_dk, else the second over the
 * first. A sweep: its best and worst group of the varied columns but the seed (median final
 * answer accuracy over the seeds), how many seeds reached 99 %, and the slowdown of the unscaled
 * over the scaled runs, median over every pair (slowdown_pairs); of a text sweep, the median
 * next-byte accuracy and bits per byte (sweep_acc_name) and no accuracy threshold, neither the
 * seeds at 99 % nor the slowdown to 50 / 90 / 99 % (the summary's slowdown table keeps it). */
#ifndef SCALEDOT_VERDICT_H
#define SCALEDOT_VERDICT_H

#include <stdio.h>

#include "report/read/runs.h"
#include "report/table/sweep_table.h"

/* The verdict of a --compare page as plain text, one line per run and, for two runs, a line for
 * the pair; every line ends with '\n'. */
void verdict_compare(FILE *f, const Run *runs, int n);

/* The verdict of a sweep: "verdict: " and the best group, then indented lines (the worst group,
 * the slowdown), each ending with '\n'; nothing when no run trained. Returns 0, or -1 when memory
 * runs out. */
int verdict_sweep(FILE *f, const SweepTable *t);

#endif
