/* regime_map_lr.h: the regime map over learning rate x width (./train --regime-map, drawn beside
 * regime_map.svg when the sweeps given vary optim.lr): two panels, scale 1/sqrt(d_k) (sqrt_dk)
 * and none; x = optim.lr (log), y = d_model (log2); one cell per (d_model, optim.lr) that was
 * trained, coloured by the median over its runs (seeds) of the final val_answer_acc, framed in
 * black when the logits ran away (the median logit_std_peak >= REGIME_MAP_LR_RUNAWAY), starred at
 * the largest lr of its width and scale at which every run learnt (status ok and final
 * val_answer_acc >= 0.99, as train/lr_map.h's map). A (d_model, lr) of the grid that was not
 * trained at that scale is drawn empty (dashed outline, "not run"), never as a failure.
 * Values come from the sweep.csv files alone. */
#ifndef SCALEDOT_REGIME_MAP_LR_H
#define SCALEDOT_REGIME_MAP_LR_H

#include <stddef.h>
#include <stdio.h>

#include "report/table/sweep_table.h"

/* The first line of every regime_map_lr.csv: how regime_map_check_out knows the file is ours. */
#define REGIME_MAP_LR_CSV_HEADER                                                                  \
    "d_model,scale,optim.lr,n_seeds,val_answer_acc_median,val_answer_acc_min,"                    \
    "val_answer_acc_max,logit_std_peak_median,logit_std0_median,ran_away,largest_learnt\n"

/* "The logits ran away": the cell's median logit_std_peak (head-mean std, any layer) at least
 * this. docs/attention_fixes.md's runaway line falls between peaks that stay "in single digits or
 * near 10" (at most 10.8 in its tables, 25.4 at d_model 256 unscaled lr 1e-3, which learnt) and
 * peaks of "tens to hundreds" (58.7 upward); with GPT-2 init a step-0-relative criterion (10x
 * logit_std0) marks every run, so the threshold is absolute. 30 is also the level the soft-cap
 * and QK-clip fixes hold the logits at. */
#define REGIME_MAP_LR_RUNAWAY 30.0

/* The lr map in memory, for regime_map_write to write after every sweep.csv was read. */
typedef struct {
    char *svg, *csv;          /* the documents (NULL until built) */
    size_t svg_len, csv_len;
    int n_runs;               /* trained runs placed in a cell */
    int n_cells;              /* trained (d_model, scale, lr) cells: the CSV's rows */
    int n_empty;              /* (d_model, lr) of the grid drawn empty in a panel: not trained */
    int n_left_out;           /* trained runs without optim.lr or d_model, or of another scale */
} RegimeLr;

/* 1 when the trained runs of tables[0..n) hold two or more distinct optim.lr values (the lr map
 * is drawn then), or an optim.lr that is not a number (for regime_map_lr_build to name), else 0. */
int regime_map_lr_varies(const SweepTable *tables, int n);

/* Builds the lr map of the trained runs of tables[0..n) into *m (zeroed first): the CSV (header
 * REGIME_MAP_LR_CSV_HEADER, one row per trained cell: sqrt_dk before none, then d_model and lr
 * ascending; accuracies as fractions 0..1 like sweep.csv, an empty field where nothing was
 * measured; ran_away and largest_learnt 0 or 1) and the SVG. Returns 0; or -1 after a message on
 * stderr naming file, line and column (a trained run's optim.lr that is not a positive number or
 * d_model not a positive whole one), or out of memory; *m is then safe to free. */
int regime_map_lr_build(const SweepTable *tables, int n, RegimeLr *m);

void regime_map_lr_free(RegimeLr *m);

/* One numeric field of either map's CSV (regime_map.csv too): ",v" with v as %.6g ("nan", "inf"
 * for non-finite values), or "," alone when v is NAN meaning not measured. */
void regime_map_csv_value(FILE *f, double v);

#endif
