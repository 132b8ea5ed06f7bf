/* figure.h: the face of report/figure/, the SVG figures of the report pages: those of
 * --compare (figures.c, made of panels.c's grid, with figure_passthru.c, figure_maps.c and
 * figure_caption.c) and those of a sweep (sweep_figures.c). Includes report/plot/, report/read/
 * and report/table/. */
#ifndef SCALEDOT_REPORT_FIGURE_H
#define SCALEDOT_REPORT_FIGURE_H

#include <stdio.h>

#include "report/read/read.h"
#include "report/table/table.h"

/* ==== figures.c: the SVG figures of ./train --compare, one line per run in every panel (plot.h), all
 * panels of a figure over the same steps so they line up, plus the attention heatmaps. */

#define FIGURE_CAPTION_LEN 4096

/* A figure as the HTML page shows it: its file, title and what to look for (HTML; the numbers
 * in it are those of the runs on the page). folded: the page shows it behind a <details> toggle.
 * err is 0 when it was written, else the errno of the write that failed (the page then says it
 * is missing). */
typedef struct {
    const char *file, *title;
    char caption[FIGURE_CAPTION_LEN];
    int folded;
    int err;
} FigureInfo;

#define FIGURES_MAX 7

/* Heads per run and layer in attn_maps.svg: the most and the least saturated. */
#define FIGURES_MAP_HEADS 2

/* The names of every figure file figures_write may write, into names[0..FIGURES_MAX) (the
 * report folder's owner rule, util/owned_dir.h, lists them); returns their number. */
int figures_file_names(const char **names);

/* log_scale of figures_write: choose the loss axis from the data (log when it spans > 30x). */
#define FIGURES_LOG_AUTO (-1)

/* Writes into dir every figure the runs have data for: loss.svg (log_scale: 1 a log loss axis,
 * 0 a linear one, FIGURES_LOG_AUTO log when the losses span more than 30x),
 * accuracy.svg, grad_norms.svg, attention.svg, passthru.svg (figure_passthru.c),
 * attn_maps.svg and attn_maps_more.svg, and lists those written in figs[0..*n_figs) (room for
 * FIGURES_MAX). On a page of text runs (verdict.c: runs_are_text) the losses are in bits per
 * byte with the uniform guess (8 bits per byte) drawn, and the accuracy figure is one panel of
 * next-byte accuracy. attn_maps.svg holds, per run and layer, the most and the least saturated
 * head (FIGURES_MAP_HEADS: the mean over query rows with two or more visible keys of the row's
 * largest weight, in the end map, else the step-0 map), at step 0 and at the end; the other heads
 * go to attn_maps_more.svg, folded. A figure whose write failed stays on the list with err, the
 * errno of that write (so the page can say which one is missing and why). Returns 0, or -1 when
 * any could not be written (after printing why, naming the file that failed; the others are
 * still written). */
int figures_write(const Run *runs, int n, const char *dir, int log_scale, FigureInfo *figs,
                  int *n_figs);

/* ==== sweep_figures.c: the SVG figures of a sweep, drawn from its sweep.csv.
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
