/* lr_map.h: a config placed, before any training, in the measured regime it is in (./train
 * --where, the "lr map:" line of init_check.txt, and the note before a run predicted to fail).
 *
 * A regime is the task, block and optimizer settings a set of sweeps was measured under
 * (experiments/regimes.txt, the one home of their definitions: which keys must match which
 * values, which keys it was measured over, and when a run learnt). `make lr-map`
 * (tools/lr_map_table.sh) compiles the regimes and every finished run of their sweeps into
 * lr_map_table.c, so ./train answers from any folder; tests/test_lr_map_table.c regenerates the
 * table and fails when it differs.
 *
 * In its regime a config's verdict comes from the runs of its arm (the regime's other axes:
 * attention.scale, init.scheme ...): the runs at its own width and lr when there are any; else the
 * two thresholds at its width (the largest lr at which every run learnt, the smallest at which one
 * did not), measured, interpolated between two measured widths (linear in log2 d_model against
 * log2 lr) or, beyond them, extrapolated with one exponent fitted by least squares over the widths
 * whose thresholds the grid brackets; where a regime has no such bracket (one lr), the verdict of
 * the nearest measured width, saying so. */
#ifndef SCALEDOT_LR_MAP_H
#define SCALEDOT_LR_MAP_H

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

/* The fit of (regime, arm) over the n cells of `cells` (lr_map_cells, or a test's own). */
LrMapFit lr_map_fit(const LrMapCell *cells, int n, int regime, const char *arm);

/* The threshold (failed != 0: the smallest failing lr, else the largest learnt) of (regime, arm)
 * at d_model: measured when a cell has this width; between two widths whose value is on the grid,
 * interpolated; beyond them, from the nearest such width along lr_map_fit's exponent; UNKNOWN
 * without a fit. */
LrMapValue lr_map_estimate(const LrMapCell *cells, int n, int regime, const char *arm,
                           int d_model, int failed);

/* How far the runs of (regime, arm) at d_model and lr ended behind the best run at d_model, in
 * bits per byte (a relative regime is byte-level text, its criterion val_loss in nats per byte):
 * (the mean of their criterion column - the smallest of any run of the regime at d_model that
 * learnt) / ln 2, over the n runs of `runs` (lr_map_runs, or a test's own). The best run is always
 * one that learnt (within the regime's tolerance of itself, status ok), so that smallest is the
 * generator's best (status ok, any arm and lr). Runs without the column (-1) are left out.
 * Returns -1 when no run is at (arm, d_model, lr) with the column, when one of them ended worse
 * than a uniform guess (criterion > ln 256 nats per byte: a diverged run, whose mean with the
 * others would say nothing), or none at d_model learnt. */
double lr_map_behind_best(const LrMapRun *runs, int n, int regime, const char *arm, int d_model,
                          double lr);

/* Differences kept per placement: every key a config has (84 today) and d_k; any beyond are
 * counted in LrPlacement.n_unlisted, never dropped silently. */
#define LR_MAP_MAX_DIFFS 88

/* The predicted step-0 logit std from which runs failed from the start: docs/findings.md ("where
 * it begins", experiments/init_width.sh): at d_model 64 unscaled runs learnt while it was at most
 * 2.5 and failed from about 5 on (at 5.1 no seed reached 99 %, from 8 on they ended at 20-26 %). */
#define LR_MAP_STEP0_FAIL_STD 5.0

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
    double behind_bits;      /* a relative regime with LR_BASIS_RUNS: lr_map_behind_best of the
                              * runs it rests on; -1: none */
    char corpus[PATH_MAX + CONFIG_STR]; /* a text regime's corpus (its runs' task.file,
                              * "data/kjv.txt", from the folder it is read from: "CHECKOUT/data/
                              * kjv.txt") when the config trains on another (config_file below) or
                              * on one that cannot be told from it (corpus_match), else "" */
    char config_file[CONFIG_STR]; /* with corpus: the config's task.file */
    LrCorpus corpus_match;   /* a text config in a text regime: its task.file against corpus */
} LrPlacement;

/* Places the validated config c in its regime (the first of lr_map_regimes whose settings it has)
 * and gives the verdict; T is the sequence length of c's task (Task.seq_len), for the settings a
 * run resolves by it (train/resolved.h: model.max_seq_len 0 is T, a window of T keys or more is
 * none). corpus_base: the folder a text regime's relative corpus path is read from (NULL: the
 * checkout the program is in, corpus_map_base; a test passes its own). Returns 0, or -1 after a
 * message when a compiled regime cannot be read (a broken generated table) or memory runs out. */
int lr_map_place(const Config *c, int T, const char *corpus_base, LrPlacement *p);

/* Writes the one verdict line of a placement, prefix first ("verdict: " for --where, "lr map: "
 * for init_check.txt): the verdict in a word (learns, fails, split, on the edge, not known, no
 * verdict; on text near the best, behind the best, with behind_bits when known: "near the best
 * (0.008 bits per byte behind the best run at d_model 256)"; on a corpus other than the map's, no
 * number but "(measured on the map's corpus CHECKOUT/data/kjv.txt; this config trains on FILE)",
 * or, when that cannot be told, "(measured on the map's corpus CHECKOUT/data/kjv.txt; whether
 * this config's FILE is that file cannot be told from here)" (CHECKOUT/data/kjv.txt reads
 * "data/kjv.txt of the program's checkout, not found" when the program is in none); the paths
 * escaped as error lines
 * write them, util/error_list.h), what it
 * rests on and the regime; with a predicted step-0 logit std >= LR_MAP_STEP0_FAIL_STD, that such
 * runs failed from the start. */
void lr_map_verdict(FILE *f, const LrPlacement *p, const char *prefix);

/* Whether a training run prints its lr map line before it starts: in a regime, the verdict
 * "fails", and the step-0 logit std predicted below LR_MAP_STEP0_FAIL_STD (from there init_check's
 * own verdict already says the logits start large). */
int lr_map_note_matters(const LrPlacement *p);

/* ./train --where: the verdict line first, then the details (the regime, the config's numbers,
 * the thresholds and fit, the runs it rests on, the differences from the nearest regime). T and
 * corpus_base as for lr_map_place. Writes no file. Returns 0, or -1 as lr_map_place. */
int lr_map_report(FILE *f, const Config *c, int T, const char *corpus_base);

#endif
