/* lr_map_types.h: the types of the measured regimes and of a config's placement among them
 * (lr_map.h, which includes this): the compiled table's regimes, runs and cells
 * (lr_map_table.c), a fitted exponent, and LrPlacement, which lr_map_regime.c fills with the
 * regime and lr_map.c with the verdict. */
#ifndef SCALEDOT_LR_MAP_TYPES_H
#define SCALEDOT_LR_MAP_TYPES_H

#include <limits.h>
#include <stdio.h>

#include "config/config.h"
#include "train/corpus_match.h"

/* One regime of experiments/regimes.txt. */
typedef struct {
    const char *id, *title;
    const char *axes;        /* the keys it was measured over, space-separated */
    int d_k;                 /* model.d_model / model.n_heads of its runs */
    const char *criterion;   /* the sweep.csv column that says whether a run learnt */
    const char *op;          /* ">=" or "<=": learnt when status ok and criterion op threshold */
    double threshold;
    int relative;            /* 1: learnt when criterion <= the smallest of the regime's runs
                              * (status ok) at the run's width, any arm and lr, + threshold (text:
                              * no learn/fail edge; "near the best" is the verdict); lrs below the
                              * smallest at which every run learnt leave its cells' thresholds */
    double min_lr_ratio;     /* > 0: every run's optim.min_lr was this times its optim.lr (the
                              * experiment's rule: text_map.sh decays to lr / 10), and a config's
                              * must be too; 0: min_lr is matched or copied like any other key */
    const char *ini;         /* its settings as an INI text: the match keys, then the plans' other
                              * base lines (its axes not among them) */
    const char *sweeps;      /* the sweep.csv files its runs came from, space-separated */
} LrMapRegime;

/* One finished run (status ok or diverged) of a regime. */
typedef struct {
    int regime;              /* index into lr_map_regimes */
    const char *sweep;       /* its sweep folder: "results/lr_width/d64" */
    const char *run;         /* its name in the sweep: "dk64_none_lr-8e-3_s1" */
    int d_model, d_k;
    const char *arm;         /* the regime's arm keys: "attention.scale=none init.scheme=gpt2" */
    double lr;
    const char *lr_text;     /* optim.lr as its sweep or plan wrote it */
    int seed;
    int learnt;              /* status ok and the regime's criterion met */
    double metric, peak;     /* the criterion's column and logit_std_peak; -1: not measured */
} LrMapRun;

/* The thresholds of one (regime, arm, d_model). */
typedef struct {
    int regime;
    const char *arm;
    int d_model;
    double learnt_lr;        /* largest lr at which every run learnt; 0: none did */
    double failed_lr;        /* smallest lr at which a run did not learn; 0: none failed */
    const char *learnt_text, *failed_text; /* as written ("" for 0) */
    double lr_min, lr_max;   /* the lrs' ends */
    int n_lrs, n_seeds;
} LrMapCell;

/* The compiled regimes, runs and cells (lr_map_table.c, generated; make lr-map). */
extern const LrMapRegime lr_map_regimes[];
extern const int lr_map_n_regimes;
extern const LrMapRun lr_map_runs[];
extern const int lr_map_n_runs;
extern const LrMapCell lr_map_cells[];
extern const int lr_map_n_cells;

typedef enum { LR_MAP_UNKNOWN, LR_MAP_MEASURED, LR_MAP_INTERPOLATED, LR_MAP_EXTRAPOLATED } LrMapKind;

/* The exponent of lr against d_model fitted over a regime's arm: least squares of log2 of the
 * bracket's geometric middle, sqrt(learnt_lr * failed_lr), on log2 d_model, over the widths where
 * both are on the grid; n_widths < 2: no fit. */
typedef struct {
    int n_widths;
    double slope;
    int w_min, w_max;        /* the fitted widths' range */
} LrMapFit;

/* One threshold at one width: how it was found, its lr (0 with MEASURED: the grid holds none;
 * 0 with UNKNOWN: not known), and the widths it comes from (w_lo == w_hi: one width, the width
 * itself when measured, the anchor when extrapolated). */
typedef struct {
    LrMapKind kind;
    double lr;
    int w_lo, w_hi;
    double lr_lo, lr_hi;     /* the threshold at w_lo and w_hi */
} LrMapValue;

/* Differences kept per placement: every key a config has (84 today) and d_k; any beyond are
 * counted in LrPlacement.n_unlisted, never dropped silently. */
#define LR_MAP_MAX_DIFFS 88

/* The verdict: what the regime's runs say of the config. */
typedef enum {
    LR_VERDICT_NONE,         /* in no regime, or its arm or width has no run */
    LR_VERDICT_LEARNS,
    LR_VERDICT_FAILS,
    LR_VERDICT_SPLIT,        /* the runs it rests on: some learnt, some did not */
    LR_VERDICT_EDGE,         /* between the largest lr that learnt and the smallest that failed */
    LR_VERDICT_UNKNOWN       /* in the regime, but its lr lies outside the lrs measured */
} LrVerdict;

/* What the verdict rests on. */
typedef enum {
    LR_BASIS_NONE,
    LR_BASIS_RUNS,           /* the runs at its width, arm and lr */
    LR_BASIS_WIDTH,          /* the thresholds measured at its width */
    LR_BASIS_ABOVE,          /* above the lrs measured at its width, none of which failed: the
                              * other widths' thresholds carried to it (lr_map_above) */
    LR_BASIS_INTERPOLATED,   /* the thresholds interpolated between two widths */
    LR_BASIS_NEIGHBOURS,     /* the runs at its lr at the measured widths around it */
    LR_BASIS_EXTRAPOLATED,   /* the thresholds extrapolated with the fitted exponent */
    LR_BASIS_NEAREST         /* beyond the measured widths without a fit: the nearest one's */
} LrBasis;

/* One measured width's say at the config's lr (LR_BASIS_NEIGHBOURS, LR_BASIS_NEAREST). */
typedef struct {
    int d_model;
    LrVerdict verdict;
    int n_runs, n_learnt;    /* the runs at the config's lr there (0: judged by its thresholds) */
} LrMapSay;

/* A config in its regime. */
typedef struct {
    int regime;              /* index into lr_map_regimes; -1: in none */
    int nearest;             /* with regime -1, the regime it differs from least; -1: none */
    int n_diffs;             /* against regime, or nearest */
    int n_unlisted;          /* differences beyond LR_MAP_MAX_DIFFS: counted, not listed */
    char diffs[LR_MAP_MAX_DIFFS][200]; /* "optim.beta2 = 0.95 (the regime: 0.999)" */
    char sets[LR_MAP_MAX_DIFFS][200];  /* each diff as the --set that removes it:
                                        * "optim.beta2=0.999" ("": none, e.g. d_k alone) */
    int d_model, n_heads, d_k;
    const char *scale;       /* config_scale_name of the scale the run uses (a number equal to
                              * 1/sqrt(d_k) or 1 read as sqrt_dk or none); NULL: another number */
    char arm[200];           /* its values of the regime's arm keys, as the runs' */
    double lr, predicted_std;
    int steps;
    LrVerdict verdict;
    LrBasis basis;
    int n_runs, n_learnt;    /* LR_BASIS_RUNS: the runs it rests on */
    LrMapValue learnt, failed; /* the thresholds at its width (kind UNKNOWN: none) */
    double lr_min, lr_max;   /* the lrs measured at its width (0: not measured) */
    LrMapFit fit;
    LrMapSay lo, hi;         /* NEIGHBOURS: the widths below and above; NEAREST: lo alone */
    LrMapValue above_learnt, above_failed; /* LR_BASIS_ABOVE: lr_map_above's thresholds */
    double behind_bits;      /* a relative regime with LR_BASIS_RUNS: lr_map_behind_best of the
                              * runs it rests on; -1: none */
    char corpus[PATH_MAX + CONFIG_STR]; /* a text regime's corpus (its runs' task.file,
                              * "data/kjv.txt", from the folder it is read from: "CHECKOUT/data/
                              * kjv.txt") when the config trains on another (config_file below) or
                              * on one that cannot be told from it (corpus_match), else "" */
    char config_file[CONFIG_STR]; /* with corpus: the config's task.file */
    LrCorpus corpus_match;   /* a text config in a text regime: its task.file against corpus */
} LrPlacement;

#endif
