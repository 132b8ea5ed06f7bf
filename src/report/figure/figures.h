/* figures.h: the SVG figures of ./train --compare, one line per run in every panel (plot.h), all
 * panels of a figure over the same steps so they line up, plus the attention heatmaps. */
#ifndef SCALEDOT_FIGURES_H
#define SCALEDOT_FIGURES_H

#include "report/read/runs.h"

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
 * accuracy.svg, grad_norms.svg, attention.svg, passthru.svg (figure_passthru.h),
 * attn_maps.svg and attn_maps_more.svg, and lists those written in figs[0..*n_figs) (room for
 * FIGURES_MAX). On a page of text runs (verdict.h: runs_are_text) the losses are in bits per
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

#endif
