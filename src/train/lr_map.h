/* lr_map.h: the learning-rate map, a config placed on it before any training (./train --where,
 * and the "lr map:" line of init_check.txt). The map is the measured sweeps of
 * experiments/lr_width.sh (results/lr_width/<part>/sweep.csv: sort as shipped, GPT-2 init, d_k
 * 64, AdamW, 2000 steps, a factor-2 grid of optim.lr, seeds 1-2), compiled into the program by
 * `make lr-map` as lr_map_table.c (tools/lr_map_table.sh), so ./train answers from any folder;
 * tests/test_lr_map_table.c recomputes the table from the results and fails when they differ.
 *
 * At a config's width and scale the map gives two thresholds: the largest lr at which every seed
 * learnt (final val_answer_acc >= 99 %) and the smallest at which a seed did not. A width that
 * was trained gives them measured; between two trained widths they are interpolated, piecewise
 * linear in log2 d_model against log2 lr; beyond the trained widths extrapolated along the line
 * through the nearest two. */
#ifndef SCALEDOT_LR_MAP_H
#define SCALEDOT_LR_MAP_H

#include <stdio.h>

#include "config/config.h"

/* One finished run of the map (status ok or diverged). */
typedef struct {
    const char *sweep;       /* its sweep folder, as make lr-map was given it: "results/lr_width/d64" */
    const char *run;         /* its name in the sweep: "dk64_none_lr-8e-3_s1" */
    int d_model, d_k;
    const char *scale;       /* "sqrt_dk" | "none" (config_scale_name) */
    double lr;
    const char *lr_text;     /* the lr as the sweep wrote it: "8e-3" */
    int seed;
    int learnt;              /* status ok and final val_answer_acc >= 0.99 */
    double acc, peak;        /* final val_answer_acc (0..1) and logit_std_peak; -1: not measured */
} LrMapRun;

/* The thresholds of one (d_model, d_k, scale) of the map. */
typedef struct {
    int d_model, d_k;
    const char *scale;
    double learnt_lr;        /* largest grid lr at which every seed learnt; 0: none did */
    double failed_lr;        /* smallest grid lr at which a seed did not learn; 0: none failed */
    const char *learnt_text, *failed_text; /* as written in the sweep ("" for 0) */
    double lr_min, lr_max;   /* the grid's ends */
    int n_lrs, n_seeds;
} LrMapThreshold;

/* The compiled map (lr_map_table.c, generated; make lr-map). */
extern const LrMapRun lr_map_runs[];
extern const int lr_map_n_runs;
extern const LrMapThreshold lr_map_thresholds[];
extern const int lr_map_n_thresholds;
/* The regime the runs were measured in: the sweeps' base settings but the map's axes (run.seed,
 * model.d_model, model.n_heads, attention.scale, optim.lr), as an INI text. */
extern const char lr_map_regime_ini[];

typedef enum { LR_MAP_UNKNOWN, LR_MAP_MEASURED, LR_MAP_INTERPOLATED, LR_MAP_EXTRAPOLATED } LrMapKind;

/* One threshold at one width: how it was found, its lr (0 with MEASURED: the grid holds none;
 * 0 with UNKNOWN: fewer than two widths measured it), and the two widths it comes from (w_lo ==
 * w_hi == the width itself when measured). */
typedef struct {
    LrMapKind kind;
    double lr;
    int w_lo, w_hi;
    double lr_lo, lr_hi; /* the threshold at w_lo and w_hi */
} LrMapValue;

/* The threshold (failed != 0: the smallest failing lr, else the largest learnt) of `scale` at
 * d_model, from the n rows of `rows` (lr_map_thresholds, or a test's own): measured when a row
 * has this width and scale, else interpolated or extrapolated in log2 d_model against log2 lr
 * from the rows whose value is on the grid. */
LrMapValue lr_map_estimate(const LrMapThreshold *rows, int n, const char *scale, int d_model,
                           int failed);

#define LR_MAP_MAX_DIFFS 24

/* The predicted step-0 logit std from which runs failed from the start: docs/findings.md ("where
 * it begins", experiments/init_width.sh): at d_model 64 unscaled runs learnt while it was at most
 * 2.5 and failed from about 5 on (at 5.1 no seed reached 99 %, from 8 on they ended at 20-26 %). */
#define LR_MAP_STEP0_FAIL_STD 5.0

/* A config on the map: its own numbers, the two thresholds at its width and scale, and every
 * setting in which it differs from the regime the map was measured in. */
typedef struct {
    int d_model, n_heads, d_k;
    const char *scale;       /* config_scale_name of its attention.scale, a number equal to
                              * 1/sqrt(d_k) or 1 read as sqrt_dk or none (what the run uses) */
    int on_map;              /* its scale is one the map has (sqrt_dk, none) */
    double lr, predicted_std;
    int map_d_k;             /* the d_k of the map's runs */
    double grid_lr_min;      /* the smallest lr the map measured at this width and scale; 0: the
                              * width was not trained */
    int steps;               /* train.steps: the budget */
    LrMapValue learnt, failed;
    int n_diffs;
    char diffs[LR_MAP_MAX_DIFFS][200]; /* "init.scheme = fan_in (the map: gpt2)" */
} LrPlacement;

/* Places the validated config c on the compiled map. Returns 0, or -1 after a message when the
 * compiled regime cannot be read (a broken generated table) or memory runs out. */
int lr_map_place(const Config *c, LrPlacement *p);

/* Writes the one verdict line of a placement, prefix first ("verdict: " for --where, "lr map: "
 * for init_check.txt). In the map's regime: how many factors of 2 its lr is below or above the
 * largest lr that learnt, against the smallest that failed (below the smallest lr measured at
 * its width: that the map does not say), how sure the map is there (measured, interpolated,
 * extrapolated). Outside it: first that the thresholds were measured under other settings and do
 * not apply (the differences by key), then the placement for reference only. And with a
 * predicted step-0 logit std >= LR_MAP_STEP0_FAIL_STD, that such runs failed from the start. */
void lr_map_verdict(FILE *f, const LrPlacement *p, const char *prefix);

/* ./train --where: the placement of c written in full to f (its numbers, the predicted step-0
 * logit std, the thresholds and how they were found, the nearest measured runs named, the
 * regime, the verdict). Writes no file. Returns 0, or -1 as lr_map_place. */
int lr_map_report(FILE *f, const Config *c);

#endif
