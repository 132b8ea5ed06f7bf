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
 * the nearest measured width, saying so. At a measured width whose runs stop below the config's lr
 * with none failed, the other widths' thresholds carried to it (lr_map_above). */
#ifndef SCALEDOT_LR_MAP_H
#define SCALEDOT_LR_MAP_H

#include <stdio.h>

#include "config/config.h"
#include "train/lr_map_types.h"

/* The fit of (regime, arm) over the n cells of `cells` (lr_map_cells, or a test's own). */
LrMapFit lr_map_fit(const LrMapCell *cells, int n, int regime, const char *arm);

/* The threshold (failed != 0: the smallest failing lr, else the largest learnt) of (regime, arm)
 * at d_model: measured when a cell has this width; between two widths whose value is on the grid,
 * interpolated; beyond them, from the nearest such width along lr_map_fit's exponent; UNKNOWN
 * without a fit. */
LrMapValue lr_map_estimate(const LrMapCell *cells, int n, int regime, const char *arm,
                           int d_model, int failed);

/* The verdict of lr at the measured width of cell t (one of `cells`) when lr is above every lr
 * measured there and none of them failed, where t's own thresholds say nothing (a width whose grid
 * is still filling): the thresholds of t's arm at the other widths carried to t's d_model as
 * lr_map_estimate carries them (interpolated between the widths around it, else extrapolated with
 * the fitted exponent), t's own cell left out. The width's own runs win: *learnt is the carried
 * largest learnt lr when above t->learnt_lr, else t->learnt_lr (kind MEASURED); *failed is the
 * carried smallest failing lr when above *learnt, else kind UNKNOWN (runs here learnt at or above
 * it). The verdict: learns at or below *learnt, fails at or above *failed, on the edge between,
 * not known above *learnt without *failed. */
LrVerdict lr_map_above(const LrMapCell *cells, int n, const LrMapCell *t, double lr,
                       LrMapValue *learnt, LrMapValue *failed);

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

/* The predicted step-0 logit std from which runs failed from the start: docs/findings.md ("where
 * it begins", experiments/init_width.sh): at d_model 64 unscaled runs learnt while it was at most
 * 2.5 and failed from about 5 on (at 5.1 no seed reached 99 %, from 8 on they ended at 20-26 %). */
#define LR_MAP_STEP0_FAIL_STD 5.0

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
