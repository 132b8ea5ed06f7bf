/* map.h: the face of report/map/, ./train --regime-map: every run of the sweeps given on the
 * regime map (regime_map.c) and, when they vary optim.lr, the map over lr x width
 * (regime_map_lr.c, drawn by regime_map_lr_draw.c). Includes report/plot/, report/read/ and
 * report/table/. */
#ifndef SCALEDOT_REPORT_MAP_H
#define SCALEDOT_REPORT_MAP_H

#include <stddef.h>
#include <stdio.h>

#include "report/table/table.h"

/* ==== regime_map.c: the regime map of the √d_k failure (./train --regime-map): every run of every
 * sweep given, placed by its predicted step-0 attention-logit std (sweep.csv's
 * predicted_logit_std, model_predicted_logit_std) on a log axis, against its final validation
 * answer accuracy (panel 1) and, for the unscaled run of a none / sqrt_dk pair, its slowdown to
 * 90 % (panel 2, slowdown.c; censored values drawn hollow with an arrow). Colour: scale; marker:
 * init_scheme. Values come from the sweep.csv files alone. */

/* The first line of every regime_map.csv: how regime_map_check_out knows the file is ours. */
#define REGIME_MAP_CSV_HEADER                                                                     \
    "sweep,run,scale,init_scheme,predicted_logit_std,val_answer_acc,slowdown_90,"                 \
    "slowdown_90_bound\n"

/* 0 when regime_map_write may write into out_dir: it is no symbolic link, and each of
 * regime_map.svg, regime_map.csv, regime_map_lr.svg and regime_map_lr.csv there is missing or a
 * regular file this command wrote (an SVG as svg_begin opens it, a CSV starting with
 * REGIME_MAP_CSV_HEADER or REGIME_MAP_LR_CSV_HEADER), so a map drawn again
 * replaces only its own files. Else -1 after a message naming the link or the file; nothing is
 * written then. Other files in out_dir are left alone and do not matter. */
int regime_map_check_out(const char *out_dir);

/* For a writer that must stay out of every folder ./train writes (--export), also one a version
 * before manifests wrote: "regime_map.csv" or "regime_map_lr.csv" when dir holds that CSV as
 * regime_map_check_out adopts it (its header), else NULL (a figure alone marks nothing). */
const char *regime_map_folder_mark(const char *dir);

/* Reads DIR/sweep.csv of each of dirs[0..n_dirs) (the caller has checked that each exists) and
 * writes out_dir/regime_map.svg and out_dir/regime_map.csv (one row per trained run: sweep, run,
 * scale, init_scheme, predicted_logit_std, val_answer_acc, slowdown_90, slowdown_90_bound =
 * exact | lower | upper | neither | empty when the run is not the unscaled run of a pair), and,
 * when the sweeps vary optim.lr (regime_map_lr_varies), out_dir/regime_map_lr.svg and .csv (the
 * map over lr x width, regime_map_lr.c; said on out), each via a new temporary file renamed over
 * the name (a link there is replaced, not followed). An earlier map's file of those four that
 * this map does not write (no lr map drawn: said on out; or a write failed: said on stderr, and
 * the files after it are not written) is removed, so old and new files never stand side by side
 * (one made read-only is kept, and said). Text fields of the CSVs are quoted as RFC 4180 says
 * when they hold a comma, a quote or a line break.
 * out_dir and its missing parents are created after every sweep.csv was read. Prints what it wrote to out. Returns 0, or 1 after a message (a sweep.csv
 * unreadable or a value in it malformed, a write failed, out of memory). */
int regime_map_write(const char *out_dir, char *const *dirs, int n_dirs, FILE *out);

/* ==== regime_map_lr.c: the regime map over learning rate x width (./train --regime-map, drawn beside
 * regime_map.svg when the sweeps given vary optim.lr): two panels, scale 1/sqrt(d_k) (sqrt_dk)
 * and none; x = optim.lr (log), y = d_model (log2); one cell per (d_model, optim.lr) that was
 * trained, coloured by the median over its runs (seeds) of the final val_answer_acc, framed in
 * black when the logits ran away (the median logit_std_peak >= REGIME_MAP_LR_RUNAWAY), starred at
 * the largest lr of its width and scale at which every run learnt (status ok and final
 * val_answer_acc >= 0.99, as train/lr_map.h's map). A (d_model, lr) of the grid that was not
 * trained at that scale is drawn empty (dashed outline, "not run"), never as a failure.
 * Values come from the sweep.csv files alone. */

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
