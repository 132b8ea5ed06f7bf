/* sweep_columns.h: the columns of sweep.csv, spelled once, here: "run", the plan's columns
 * (SWEEP_PLAN_COLUMNS: d_k, d_model, n_heads, scale, seed, one section.key per other --grid key,
 * steps), then the result columns (SWEEP_COLUMNS), in file order. sweep/plan.c makes the plan's
 * columns and cells in this order, sweep/results.c writes the header and rows, cli/sweep_args.c
 * tells a --grid key with a column of its own from these, and report/table/sweep_table.c reads them by
 * these names. Meanings (docs/sweeps.md, "What a row records"): status ok | diverged | guard | failed | missing |
 * running ... (SWEEP_STATUSES); first_step_50 / _90 / _99 the first validation pass at >= 50 / 90 / 99 % answer
 * accuracy (empty: not reached by last_eval_step, the last pass; time_to_learn.h);
 * predicted_logit_std the step-0 attention-logit std predicted from the run's config.ini
 * (model_predicted_logit_std) and init_scheme its init.scheme (fan_in | gpt2), so the regime map
 * knows every run's init whether or not the sweep varied it; task its task.name, so the report
 * knows what val_answer_acc measures (the text task has no answers: there it is the next-byte
 * accuracy, evaluate.h). */
#ifndef SCALEDOT_SWEEP_COLUMNS_H
#define SCALEDOT_SWEEP_COLUMNS_H

#include <stddef.h>

typedef enum {
    SC_STATUS, SC_EXIT_CODE, SC_STEPS_DONE, SC_VAL_LOSS, SC_VAL_ACC, SC_VAL_TOK, SC_BEST_LOSS,
    SC_BEST_ACC, SC_FIRST_50, SC_FIRST_90, SC_FIRST_99, SC_LAST_EVAL, SC_LOSS0, SC_STD0,
    SC_PRED_STD, SC_INIT, SC_TASK, SC_SAT, SC_PASS, SC_STD_PEAK, SC_STD_PEAK_STEP,
    SC_STD_PEAK_LAYER, SC_STD_10X, SC_GQ, SC_GK, SC_WALL, SC_VERSION, SC_N
} SweepColumn;

typedef struct {
    const char *name;  /* header name */
    int numeric;       /* a non-empty field must be a number (nan / inf included); its range,
                          if it has one, is log_check.c's */
} SweepColumnInfo;

/* Indexed by SweepColumn. */
extern const SweepColumnInfo SWEEP_COLUMNS[SC_N];

/* The first column: the run's folder name under OUT/runs/. */
#define SWEEP_RUN_COLUMN "run"

/* The plan's fixed columns, in file order; the --grid columns (one per --grid key that is none
 * of these keys) come between PC_SEED and PC_STEPS. */
typedef enum { PC_D_K, PC_D_MODEL, PC_N_HEADS, PC_SCALE, PC_SEED, PC_STEPS, PC_N } PlanColumn;

typedef struct {
    const char *name;  /* header name */
    const char *key;   /* the config key it records; NULL for d_k (model.d_model / n_heads) */
    int numeric;       /* a non-empty field must be a number */
} PlanColumnInfo;

/* Indexed by PlanColumn. The columns before PC_STEPS are the ones a sweep varies (its axes);
 * steps is the budget. */
extern const PlanColumnInfo SWEEP_PLAN_COLUMNS[PC_N];

/* The values of the status column, spelled once (docs/sweeps.md, "What a row records"): what a
 * run's folder says of it (sweep/results.c decides which), and what a reader of sweep.csv does
 * with its row (report/table/sweep_table.c: only a run that trained to its end is in the statistics). */
typedef enum {
    ST_OK, ST_DIVERGED, ST_GUARD, ST_FAILED, ST_MISSING, ST_RUNNING, ST_STOPPED, ST_INCOMPLETE,
    ST_UNKNOWN, ST_MISMATCH, ST_REFUSED, ST_N
} SweepStatus;

typedef struct {
    const char *name;  /* as written in the status column */
    int in_stats;      /* 1: the run trained to its end (ok, diverged, guard): its numbers count */
    int stopped;       /* 1: it ended early for good (diverged, guard) */
    int stuck;         /* 1: its jobs.txt line will not train it; only removing its folder does */
} SweepStatusInfo;

/* Indexed by SweepStatus. */
extern const SweepStatusInfo SWEEP_STATUSES[ST_N];

/* The status named s, or -1 when s is none of SWEEP_STATUSES. */
int sweep_status_find(const char *s);

/* The status names as "ok, diverged, ..., or unknown" into out (for messages). */
void sweep_status_list(char *out, size_t n);

/* The first_step_* column of time_to_learn threshold k (0: 50 %, 1: 90 %, 2: 99 %). */
#define SC_FIRST(k) ((SweepColumn)(SC_FIRST_50 + (k)))

#endif
