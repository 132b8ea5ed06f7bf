/* map_internal.h: what report/map/ shares inside itself: the drawing of the lr map
 * (regime_map_lr_draw.c), which regime_map_lr.c calls. */
#ifndef SCALEDOT_REPORT_MAP_INTERNAL_H
#define SCALEDOT_REPORT_MAP_INTERNAL_H

#include <stddef.h>

#include "report/map/map.h"

/* ==== regime_map_lr_draw.c: the figure of the lr map (regime_map_lr.c), from the runs and cells
 * regime_map_lr.c made of the sweeps. Internal to those two files. */

/* The panels' scales, in panel order (panel 0 left). */
#define LR_N_PANELS 2
extern const char *const LR_PANEL_SCALE[LR_N_PANELS];

/* One trained run on the map. */
typedef struct {
    int panel;            /* index into LR_PANEL_SCALE */
    int d_model, seed;    /* seed -1: not known */
    double lr;
    const char *lr_text;  /* as the sweep wrote it ("8e-3") */
    double acc, peak, std0; /* final val_answer_acc (0..1), logit_std_peak, logit_std0; NAN: not
                             * measured */
    int learnt;           /* status ok and acc >= 0.99 */
} LrRun;

/* One trained (d_model, scale, lr): statistics over its runs; NAN where none measured it. */
typedef struct {
    int panel, d_model;
    double lr;
    const char *lr_text;
    int n;                /* runs */
    double acc_med, acc_lo, acc_hi, peak_med, std0_med;
    int ran_away;         /* peak_med >= REGIME_MAP_LR_RUNAWAY; -1: peak not measured */
    int all_learnt;       /* every run learnt */
    int largest;          /* all_learnt, at the largest such lr of its width and scale */
} LrCell;

typedef struct {
    const LrRun *runs;    /* sorted by panel, d_model, lr */
    int n_runs;
    const LrCell *cells;  /* in the same order */
    int n_cells;
    int n_sweeps;
} LrFigure;

/* Draws the two panels, legend and caption into a new SVG document (*svg, *len; the caller frees
 * *svg). Returns the number of (d_model, lr) grid places drawn empty over both panels, or -1 when
 * memory ran out. */
int lr_figure_draw(const LrFigure *f, char **svg, size_t *len);

#endif
