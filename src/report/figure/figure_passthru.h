/* figure_passthru.h: the softmax pass-through figure of ./train --compare (passthru.svg): per
 * layer, how much of the gradient reaching the attention probabilities the softmax passes on to
 * the logits, beside the share of saturated rows. */
#ifndef SCALEDOT_FIGURE_PASSTHRU_H
#define SCALEDOT_FIGURE_PASSTHRU_H

#include "report/read/runs.h"

/* The y axis of the pass-through panels turns logarithmic when their values (> 0) span more
 * than this factor. */
#define PASSTHRU_LOG_SPAN 30.0

/* Writes dir/passthru.svg: per layer of attention.csv, a panel of softmax_pass (mean over heads;
 * log axis past PASSTHRU_LOG_SPAN) and one of saturated_frac (%, mean over heads), one line per
 * run. A run whose attention.csv has no softmax_pass column (logged before it existed) has no
 * line in the first. Returns 1 when written, 0 when no run has attention.csv, -1 on error
 * (printed). log_scale is ignored (the axis follows the data). */
int figure_passthru(const Run *runs, int n, const char *dir, int log_scale);

/* Title and caption (HTML) of the figure, for the report page. */
extern const char FIGURE_PASSTHRU_TITLE[], FIGURE_PASSTHRU_CAPTION[];

#endif
