/* figures.h: the SVG figures of ./train --compare, one line per run in every panel (plot.h), all
 * panels of a figure over the same steps so they line up, plus the attention heatmaps. */
#ifndef SCALEDOT_FIGURES_H
#define SCALEDOT_FIGURES_H

#include "report/runs.h"

/* A figure as the HTML page shows it: its file, title and what to look for (HTML); err is 0 when
 * it was written, else the errno of the write that failed (the page then says it is missing). */
typedef struct {
    const char *file, *title, *caption;
    int err;
} FigureInfo;

#define FIGURES_MAX 6

/* log_scale of figures_write: choose the loss axis from the data (log when it spans > 30x). */
#define FIGURES_LOG_AUTO (-1)

/* Writes into dir every figure the runs have data for: loss.svg (log_scale: 1 a log loss axis,
 * 0 a linear one, FIGURES_LOG_AUTO log when the losses span more than 30x),
 * accuracy.svg, grad_norms.svg, attention.svg, passthru.svg (figure_passthru.h) and
 * attn_maps.svg, and lists those it drew in figs[0..*n_figs) (room for FIGURES_MAX), each with
 * err 0, or the errno of its failed write (so the page can say which one is missing and why).
 * Returns 0, or -1 when any could not be written (after printing why, naming the file that
 * failed; the others are still written). */
int figures_write(const Run *runs, int n, const char *dir, int log_scale, FigureInfo *figs,
                  int *n_figs);

#endif
