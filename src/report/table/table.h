/* table.h: the face of report/table/, the numbers the reports print, computed from what
 * report/read/ read: the time to learn of a run (time_to_learn.c), the summary table of --compare
 * (summary.c), sweep.csv as a table with its groups and medians (sweep_table.c), the slowdown
 * (slowdown.c), the LR sensitivity (lr_sensitivity.c), --at-equal-loss (equal_loss.c) and
 * --softmax-table (softmax_table.c). Includes report/read/ only; draws nothing. */
#ifndef SCALEDOT_REPORT_TABLE_H
#define SCALEDOT_REPORT_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runlog/csv_read.h"
#include "report/read/read.h"

/* ==== time_to_learn.c: how long a run took to learn, from its loss.csv alone: the first evaluated
 * step at which the validation answer accuracy reached 50 %, 90 % and 99 %, and the step of its
 * last validation pass (a threshold not reached is censored there: "not by step N"). The one
 * computation behind sweep.csv's first_step_* columns, --compare's table and the sweep
 * summary's slowdowns. Includes nothing from train/, sweep/ or cli/. */

#define TTL_N 3
/* The thresholds, fractions of answers right: 0.5, 0.9, 0.99. */
extern const double TTL_THRESHOLD[TTL_N];
/* Their names as in sweep.csv's columns and the tables: "50", "90", "99". */
extern const char *const TTL_NAME[TTL_N];

typedef struct {
    int has_eval;          /* loss.csv has a val_answer_acc value (a validation pass) */
    int last_eval_step;    /* step of the last validation pass; -1 without one */
    int reached[TTL_N];    /* the accuracy reached TTL_THRESHOLD[k] at some validation pass */
    int step[TTL_N];       /* the first such pass's step; -1 when never (censored at
                            * last_eval_step) */
} TimeToLearn;

/* Reads the val_answer_acc column of loss (a run's loss.csv; rows in step order, as written).
 * A pass reaches a threshold when its accuracy is >= it (a NaN accuracy reaches nothing).
 * Without the column or any value in it, everything is "not measured": has_eval 0. */
TimeToLearn time_to_learn(const Csv *loss);

/* ==== summary.c: the summary table of ./train --compare, one table of strings (a row per measure, a
 * column per run) that is printed for the terminal here and written as HTML by html.c. */

#define CELL_LEN 48

typedef struct {
    char label[96];
    int section;                /* a heading row: label only */
    char (*cell)[CELL_LEN];     /* one per run */
} Row;

typedef struct {
    Row *row;
    int n, cap, n_runs;
    int failed;                 /* out of memory: the table is incomplete */
} Table;

/* Builds the table of runs[0..n): setup, loss, accuracy, gradient norms, attention logits, the
 * softmax pass-through (when a run's attention.csv has it). Text runs (runs_are_text) get the
 * losses in nats per byte and in bits per byte, and one accuracy, next-byte, without the
 * answer-accuracy threshold rows. A value
 * logged at a step other than the row's carries "(@step)", "-" is not logged near that step, "n/a"
 * not in the run's logs. Returns 0, or -1 when out of memory; summary_free frees t either way. */
int summary_build(Table *t, const Run *runs, int n);
void summary_free(Table *t);

/* The table with aligned columns (labels left, one right-aligned column per run, headed by the
 * run names) and a legend of the cell marks. */
void summary_print(const Table *t, const Run *runs, FILE *f);

/* ==== sweep_table.c: OUT/sweep.csv read by column names into rows, the columns a sweep varied, groups
 * of rows that differ only in some of them, and the order statistics the sweep report prints.
 *
 * The schema (one row per planned run, header first, no quoting) is the contract between the
 * sweep engine and the report: run, d_k, d_model, n_heads, scale, seed, one `section.key` column
 * per other --grid key, steps, then the result columns of sweep_columns.c (status ... version).
 * Only status, val_loss and val_answer_acc are required; any other column may be missing (an
 * older file) and then reads as "not measured"; an older file's logit_std_step0 is read as
 * logit_std0. An empty field is not measured; nan / inf are measured non-finite values. */

/* The numeric columns a row keeps, in this order (SW_STEPS: the plan's steps column, the
 * budget). */
typedef enum {
    SW_VAL_LOSS, SW_VAL_ACC, SW_FIRST99, SW_LOSS0, SW_STD0, SW_SAT, SW_PASS, SW_EXIT, SW_FIRST50,
    SW_FIRST90, SW_LAST_EVAL, SW_STEPS_DONE, SW_PRED_STD, SW_STEPS, SW_N_METRIC
} SweepMetric;

/* The schema's column name of metric m ("val_loss", ...). */
const char *sweep_metric_name(SweepMetric m);

#define SW_MAX_KEYS 32  /* varied columns */

/* What val_answer_acc (and first_step_*) measure in a sweep.csv, from its task column: the answer
 * accuracy (every task but text, and an older file without the column), the next-byte accuracy
 * (every row that names its task is of the text task, which has no answers: evaluate.h), or each
 * in its rows (some are text). */
typedef enum { SWEEP_ACC_ANSWER, SWEEP_ACC_NEXT_BYTE, SWEEP_ACC_MIXED } SweepAcc;

typedef struct {
    int line;            /* line of the file (1 = header) */
    int csv_row;         /* data row in the Csv */
    const char *run;     /* the run column ("" when the file has none) */
    const char *status;  /* one of SWEEP_STATUSES (sweep_columns.c) */
    int in_stats;        /* status ok, diverged or guard: the run trained */
    int stopped;         /* status diverged or guard */
    double v[SW_N_METRIC];    /* the value; NAN when not measured (see has) */
    int has[SW_N_METRIC];     /* the field was not empty */
} SweepRow;

typedef struct {
    Csv csv;
    const char *path;          /* for messages (the caller's string) */
    SweepRow *rows;            /* the well-formed rows, in file order */
    int n_rows;
    int n_malformed;           /* rows skipped after a warning */
    int n_keys;                /* varied columns: more than one distinct value in the file */
    int key_col[SW_MAX_KEYS];  /* their Csv columns, in file order */
    int col[SW_N_METRIC];      /* Csv column of each metric, -1 when missing */
    SweepAcc acc;              /* what the accuracy columns measure */
} SweepTable;

/* Reads and checks path. A row with a field that must be a number and is not (val_loss = "abc"),
 * or an unknown status, gets a warning on stderr naming file, line and column, and is skipped:
 * never a made-up number. Returns 0; -2 after a message naming the file when it is no sweep.csv
 * (no header, a required column missing, a NUL byte or a column twice: bad input); or -1 after a
 * message (cannot read it, out of memory); t then empty and safe to free. */
int sweep_table_load(SweepTable *t, const char *path);

/* Same, from text in memory (path only names it in messages). */
int sweep_table_parse(SweepTable *t, const char *path, const char *text, size_t len);

void sweep_table_free(SweepTable *t);

/* The name of what t's accuracy columns measure, as the report's sentences say it: "answer
 * accuracy", "next-byte accuracy", or for both "answer accuracy (next-byte accuracy on the text
 * runs)". */
const char *sweep_acc_name(const SweepTable *t);

/* The varied column named name, as an index into key_col; -1 when it did not vary. */
int sweep_key(const SweepTable *t, const char *name);

/* The header name of varied column k, and its text in row r. */
const char *sweep_key_name(const SweepTable *t, int k);
const char *sweep_key_value(const SweepTable *t, const SweepRow *r, int k);

/* Rows that trained (in_stats) and agree on every varied column whose bit is NOT set in
 * `ignore` (bit k: varied column k). */
typedef struct {
    char label[256];  /* "scale=none optim.lr=0.01" (the columns compared), "all runs" if none;
                       * names and values escaped as error lines are, util/error_list.h */
    int first;        /* a row of the group (index into rows), for key values */
    int *rows;        /* indices into t->rows, in file order */
    int n;
} SweepGroup;

/* Splits the trained rows into groups, in order of first appearance. Returns the number of
 * groups (*out malloc'd; free with sweep_groups_free), or -1 when memory runs out. */
int sweep_groups(const SweepTable *t, unsigned ignore, SweepGroup **out);
void sweep_groups_free(SweepGroup *g, int n);

/* Median of v[0..n) (sorted in place; NaN must not be among them): the middle value, or the mean
 * of the two middle values for an even n. NAN when n == 0. */
double sweep_median(double *v, int n);

typedef struct {
    double median, lo, hi;  /* over the group's rows where the metric is measured and not NaN */
    int n;                  /* how many such rows; NAN statistics when 0 */
} SweepStat;

/* SweepStat of metric m over the group; scale multiplies the values (100: fraction to %). */
SweepStat sweep_stat(const SweepTable *t, const SweepGroup *g, SweepMetric m, double scale);

/* ==== slowdown.c: how much slower the unscaled run learns than the scaled one, from sweep.csv: per
 * pair of runs that differ only in attention.scale (none against sqrt_dk; same seed and every
 * other varied column), the ratio steps(none) / steps(sqrt_dk) to the first validation pass at
 * >= 50, 90 and 99 % answer accuracy (time_to_learn.c), censored honestly when a run never got
 * there, and a median over seeds that says when the censored values decide it. */

typedef enum {
    SD_EXACT,    /* both got there: ratio = steps(none) / steps(sqrt_dk) */
    SD_MORE,     /* only the scaled run got there: the ratio is > ratio (none's last pass over
                  * sqrt_dk's steps) */
    SD_LESS,     /* only the unscaled run got there: the ratio is < ratio (none's steps over
                  * sqrt_dk's last pass) */
    SD_NEITHER,  /* neither got there: no information on the ratio */
    SD_UNKNOWN   /* not measured, or a denominator of 0 (reached at step 0) */
} SlowKind;

typedef struct {
    SlowKind kind;
    double ratio;  /* the value or the bound; NAN for SD_NEITHER and SD_UNKNOWN */
} Slowdown;

/* One pair at one threshold. *_reached: the run got there, at step *_step; else it was last
 * seen (its last validation pass) at *_censor. Steps are >= 0. */
Slowdown slowdown_pair(int none_reached, double none_step, double none_censor, int sqrt_reached,
                       double sqrt_step, double sqrt_censor);

/* "12.3×", "> 12.3×", "< 0.5×", "—" (neither), "n/a" (unknown); out of n bytes. */
void slowdown_format(char *out, size_t n, Slowdown s);

/* The median of v[0..n) with censoring. SD_NEITHER and SD_UNKNOWN are left out (n_used counts
 * the rest). It is computed twice: lo with each "> N" at N and each "< N" at 0, hi with each
 * "> N" at +inf and each "< N" at N (the middle value, or the mean of the two middle values for
 * an even count). Equal: the median is known exactly. Otherwise the true median lies in [lo, hi]
 * whatever the censored runs would have done. */
typedef struct {
    int n_used, n_neither;
    double lo, hi;  /* NAN when n_used == 0 */
} SlowMedian;

SlowMedian slowdown_median(const Slowdown *v, int n);

/* "12.3×" (lo == hi), "> 12.3×" (hi infinite: a lower bound), "< 0.5×" (lo 0: an upper bound),
 * "3.1–12.3×" (between), "?" (anything: 0 to infinity), "—" (nothing used, some pair where
 * neither got there), "n/a" (nothing measured). */
void slowdown_median_format(char *out, size_t n, SlowMedian m);

/* The slowdown of pair (none, sq) (rows of t) at threshold k (0: 50 %, 1: 90 %, 2: 99 %), from
 * their first_step_* columns; a run that never got there is censored at its last_eval_step
 * (else steps_done, else steps). SD_UNKNOWN when the column is not in the file. */
Slowdown slowdown_at(const SweepTable *t, const SweepRow *none, const SweepRow *sq, int k);

/* One pair of runs that differ only in attention.scale: rows (indices into t->rows) of the
 * scale=none and the scale=sqrt_dk run, and the group (of the groups slowdown_pairs returns) that
 * holds them, whose label names the pair. */
typedef struct {
    int none, sq, group;
} SlowPair;

/* The pairs of t: *groups (sweep_groups ignoring scale; free with sweep_groups_free(*groups,
 * *n_groups)) and *out (malloc'd). Returns their number (0 when scale did not vary), or -1 when
 * memory runs out. */
int slowdown_pairs(const SweepTable *t, SweepGroup **groups, int *n_groups, SlowPair **out);

/* The slowdown section of the sweep summary: the pairs, then the medians over seeds per group of
 * the other varied columns. Prints nothing when scale does not vary over none and sqrt_dk.
 * Returns 0, or -1 when memory runs out. */
int slowdown_print(FILE *f, const SweepTable *t);

/* ==== lr_sensitivity.c: the learning-rate sensitivity of a sweep over optim.lr.
 *
 * Wortsman et al. 2023, "Small-scale proxies for large-scale Transformer training instabilities"
 * (arXiv 2309.14322), section 2.2 "LR vs. loss curves and learning rate sensitivity":
 *
 *     LR sensitivity = E_lr [ min(l(lr), l0) - l* ],   l* = min over the lr grid of l(lr)
 *
 * with l(lr) the final loss at learning rate lr, l0 the loss at initialisation, and the
 * expectation a mean over the lr grid. The paper computes it per configuration (one curve of loss
 * against lr: one parameterisation, one model size), so l* is the best loss of that curve, not of
 * the whole sweep. Here a configuration is a group of rows that agree on every varied column but
 * seed and optim.lr (for example one scale mode). l(lr) is the final validation loss (val_loss)
 * averaged over the seeds at that lr; a run whose val_loss is non-finite or that diverged counts
 * as l0 (the min() caps it the same way); l0 is the mean of loss0 over the group's rows. */

/* The formula itself on one curve: loss[i] = l(lr_i), i < n, l0 the loss at initialisation.
 * Returns the LR sensitivity; *best (may be NULL) gets the index of l*. NAN when n == 0, l0 is
 * not finite or a loss is NaN. */
double lr_sensitivity(const double *loss, int n, double l0, int *best);

#define LR_MAX_GRID 64

/* One learning rate of one group. */
typedef struct {
    const char *text;   /* optim.lr as written in sweep.csv */
    double lr;          /* its value */
    double loss;        /* l(lr): mean over seeds of val_loss, a diverged run counted as l0 */
    double loss_median, loss_lo, loss_hi;  /* of the seeds' val_loss, a diverged run again
                                            * counted as l0 (left out when l0 is unknown) */
    double acc_median;  /* final val_answer_acc in %, median over seeds */
    int runs, diverged; /* seeds in the mean; of them counted as l0 */
} LrPoint;

typedef struct {
    char label[256];    /* the group ("scale=none"), "all runs" when only lr and seed vary */
    double l0;          /* mean loss0 of the group's rows; NAN when sweep.csv has none */
    double sensitivity; /* NAN when l0 is not known */
    double l_star;      /* best l(lr) */
    int best;           /* index of the best lr in pt */
    LrPoint pt[LR_MAX_GRID];  /* ascending lr */
    int n;
    int skipped;        /* trained rows left out: val_loss not measured on a run that did not
                         * diverge, or an lr beyond LR_MAX_GRID */
} LrGroup;

/* The LR sensitivity of every group of t. Returns the number of groups (*out malloc'd, the
 * caller frees it; its lr texts point into t, valid while t is), 0 when optim.lr did not vary,
 * -1 when memory runs out (after a message). */
int lr_analyse(const SweepTable *t, LrGroup **out);

/* Prints the LR-sensitivity table of the groups and one line per lr of each. */
void lr_print(FILE *f, const LrGroup *g, int n);

/* ==== equal_loss.c: two runs' gradient readings at equal validation loss (./train --compare A B
 * --at-equal-loss). At equal step a run that learns fast is compared, late in training, with one
 * that has not learned: its gradients are those of a solved task. At equal loss both are read
 * where they are equally far along. */

/* The step at which an evaluation series (steps[i], losses[i], i < n, in step order) first falls
 * to `level`: the first evaluation k with losses[k] <= level; when k > 0, the step is linearly
 * interpolated between evaluations k − 1 (above the level) and k:
 *   steps[k−1] + (losses[k−1] − level) / (losses[k−1] − losses[k]) · (steps[k] − steps[k−1]).
 * steps[0] when k = 0; NAN when no evaluation reaches the level (non-finite losses are skipped). */
double equal_loss_step(const double *steps, const double *losses, int n, double level);

/* Prints to out, for every evaluation of run dir_a whose validation loss lies in the range both
 * runs cover ([max of the two minima, min of the two maxima] over their finite val_loss), run
 * dir_b's step where its validation loss first fell to that level (equal_loss_step), and, per
 * layer, both runs' readings at the logged step nearest their step: the W_q gradient norm
 * (grad_norms.csv blocks.L.attn.qkv.weight.q) and the mean over heads of attention.csv's
 * dlogit_norm, dprob_norm, softmax_pass and blocked_rows. Then per layer and reading the median
 * over the levels for A, for B at equal loss and for B at equal step (A's steps), the ratios
 * A / B ("—" for 0 / 0, explained below the table) and whether the equal-step reading's direction
 * (A above or below B) survives at equal loss. When the ranges do not overlap, or none of A's
 * evaluations lies in the overlap, it says so and prints no levels.
 * Returns 0, 2 when a log is missing or lacks a column (stderr names the path and column) or a
 * run has no finite val_loss (no validation evaluation: stderr names the run; nothing printed),
 * or 1 when memory runs out. */
int report_equal_loss(FILE *out, const char *dir_a, const char *dir_b);

/* ==== softmax_table.c: ./train --softmax-table, the worked numbers behind the 1/sqrt(d_k) scale. */

/* What ./train --softmax-table asks for (read by cli/cmd_softmax_table.c). */
typedef struct {
    uint64_t seed;     /* the generator's seed */
    int samples;       /* rows (one query, `keys` keys) per d_k, >= 1 */
    int keys;          /* keys per row, the softmax's width, >= 2 */
} SoftmaxTableArgs;

/* ./train --softmax-table [--seed N] [--samples N] [--keys N]
 * Prints the worked numbers behind the 1/√d_k argument. Returns an exit code (0, or 1 when out
 * of memory). */
int report_softmax_table(const SoftmaxTableArgs *a);

#endif
