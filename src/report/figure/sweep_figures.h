/* sweep_figures.h: the SVG figures of a sweep, drawn from its sweep.csv.
 *
 * When d_k varies: sweep_accuracy.svg, sweep_loss.svg and sweep_logit_std.svg, the final
 * validation answer accuracy (of a text sweep, the next-byte accuracy, and its loss per byte:
 * sweep_acc_name), the final validation loss and the step-0 attention-logit std against
 * d_k (log x), one line per group of the other varied columns (the scale modes of a d_k sweep),
 * median over seeds with min-max bars. When optim.lr varies: sweep_lr.svg, the final validation
 * loss against lr (log x, log y), one line per LR-sensitivity group, median over seeds with
 * min-max bars, and a dashed line at l0, the loss at initialisation. When neither varies:
 * sweep_by_KEY.svg for each other varied column KEY but the seed (at most 8; KEY's characters
 * other than letters, digits and '-' made '_'), the final validation answer accuracy against
 * KEY's values (one tick per value: ascending when all are numbers, else in order of first
 * appearance), one line per group of the other varied columns, median over seeds with min-max
 * bars, and when that is a single line (only KEY and the seed varied), one line per seed too. */
#ifndef SCALEDOT_SWEEP_FIGURES_H
#define SCALEDOT_SWEEP_FIGURES_H

#include <stdio.h>

#include "report/table/lr_sensitivity.h"
#include "report/table/sweep_table.h"

/* Writes the figures that apply into dir and a caption per figure (its file name, then exactly
 * what is drawn) to captions. lr holds lr_analyse's n_lr groups (n_lr == 0: no lr figure).
 * A figure that cannot be written gets the caption "FILE.svg: " SWEEP_FIGURE_NOT_WRITTEN "WHY)"
 * instead (WHY: the error text), an earlier report's copy of it is removed (the page would show
 * it as this one's), and the others are still written. Returns the number of figures written,
 * or -1 when any failed, after a message naming the file that failed. */
int sweep_figures_write(const SweepTable *t, const LrGroup *lr, int n_lr, const char *dir,
                        FILE *captions);

/* How the caption of a figure that could not be written begins (the sweep page names it as
 * missing, sweep_page.c). */
#define SWEEP_FIGURE_NOT_WRITTEN "could not be written ("

#endif
