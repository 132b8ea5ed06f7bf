/* read.h: the face of report/read/, the one door through which report/ and sweep/ read what
 * ./train wrote: a run folder (runs.c), its logs and a sweep's sweep.csv through the checked
 * reader (log_check.c), the warnings about rows it skips (warnings.c) and sweep.csv's columns
 * (sweep_columns.c). The bottom floor of report/ with report/plot/: it includes nothing of
 * report/, only runlog/ and util/. */
#ifndef SCALEDOT_REPORT_READ_H
#define SCALEDOT_REPORT_READ_H

#include <stddef.h>

#include "runlog/csv_read.h"

/* ==== runs.c: the run folders ./train --compare reads, and what their logs say about each run.
 *
 * A run folder holds loss.csv (required) and, when the trainer wrote them, config.ini,
 * grad_norms.csv, attention.csv, attn_map.csv and attn_map_tokens.csv. */

#define RUN_NAME_LEN 256

/* The settings of config.ini as text: "section.key" -> value (unquoted, comment stripped). */
typedef struct {
    char *key;
    char *value;
} IniEntry;

typedef struct {
    IniEntry *e;   /* in order of first appearance in the file */
    int n, cap;
} Ini;

/* The value of "section.key", or NULL when the file does not set it. */
const char *ini_get(const Ini *ini, const char *key);

typedef struct {
    const char *path;          /* as given on the command line */
    char name[RUN_NAME_LEN];   /* the folder's name, made unique among the runs */
    Ini config;                /* empty without config.ini */
    Csv loss, grads, attn, map, tokens;
    Csv map0;                  /* attn_map_step0.csv: the map before the first update */
    int has_config, has_grads, has_attn, has_map, has_tokens, has_map0;
} Run;

/* Reads the run folder at path into r (zeroed by the caller). Only loss.csv (with a step column)
 * is required: a missing optional file is silent or gets a "note:" on stderr. Returns 0, or -1
 * after printing which path is missing or unreadable and why. free_run frees r either way. */
int load_run(Run *r, const char *path);
void free_run(Run *r);

/* 1 when run r's folder holds an entry named file (of any kind: sample.txt), else 0. */
int run_has_file(const Run *r, const char *file);

/* The text file `file` of run r's folder (config.ini, sample.txt) read whole: a regular file of
 * at most max bytes (util/file_check.h's file_read_regular). Returns the text, NUL-terminated
 * (malloc'd; *len its length), or NULL with why (n bytes) saying why. */
char *run_read_text(const Run *r, const char *file, size_t max, size_t *len, char *why, size_t n);

/* Two folders with the same name (runs/a/x, runs/b/x) would be indistinguishable in the legend:
 * the later ones become "x (2)", "x (3)", ... (a long name cut to make room, at a UTF-8 character
 * boundary). */
void make_names_unique(Run *runs, int n);

/* The last step at which column `name` of each run's loss.csv was logged, maximised over runs
 * (0 when none logged it). */
int max_last_step(const Run *runs, int n, const char *name);

/* Layers that have q/k gradient columns in grad_norms.csv (0 without the file). */
int grad_layers(const Run *r);

/* Layers that appear in attention.csv (0 without the file). */
int attn_layers(const Run *r);

/* First (last = 0) or last step of attention.csv; -1 when there is none. */
int attn_step(const Run *r, int last);

/* 1 when a task.name value names the text task ("text", as config/keys.c spells it; report/
 * reads no config, so this is the one place here that spells it). */
int task_name_is_text(const char *task);

/* Run r's task: task.name of its config.ini, else "text" when its loss.csv has val_bpb (written
 * for the text task only), else NULL (not known). */
const char *run_task(const Run *r);

/* 1 when run r is a text run: task.name = text in its config.ini, or a val_bpb column in its
 * loss.csv (the trainer writes it for the text task only). */
int run_is_text(const Run *r);

/* 1 when n > 0 and every run is a text run: the report then speaks of bytes (bits per byte,
 * next-byte accuracy) instead of answers. */
int runs_are_text(const Run *runs, int n);

/* The last logged value of loss.csv column col of run r, its step in *step; NAN (step -1) when
 * the column has no value. */
double run_last_logged(const Run *r, const char *col, int *step);

/* Run r's last validation loss in bits per byte (a text run's unit): val_bpb, else val_loss / ln 2;
 * NAN (step -1) when neither was logged. */
double run_last_bpb(const Run *r, int *step);

/* "diverged @N" when the run ended on NaN/inf (N: the first bad step after its last good one),
 * else "finished @N", "running @N" (a ./train still trains in the folder: util/run_lock.h) or
 * "stopped @N" (fewer steps than its config asked for), plus ", K skipped"
 * when it skipped non-finite updates and went on (train.on_divergence = skip). */
void run_status(const Run *r, char *out, size_t n);

/* ==== log_check.c: the one checked reader of what ./train writes and reads back: a run's numeric logs
 * (loss.csv, grad_norms.csv, attention.csv, attn_map*.csv) and a sweep's sweep.csv. Every command
 * that reads them (--compare and --at-equal-loss, the sweep's collection and heartbeat,
 * --sweep-report and its page, --regime-map) reads them through here; tests/test_log_check.c
 * fails when a file of src/ calls the raw readers (csv_load, csv_parse, log_load) itself.
 *
 * A row ./train cannot have written is skipped with a warning naming file and line (warnings.c:
 * printed on stderr and shown on the command's page); the file itself is refused (-1) only when
 * it is no such file at all (csv_read.h's refusals, or a sweep.csv without its required columns).
 * docs/manual.md, "Logs read back", is the user's side of this. */

/* log_read's flags. LOG_QUIET: bad rows are dropped without a warning -- for the sweep's
 * heartbeat, which reads a log still being written every few seconds (the collection after the
 * run reads it again, aloud). */
#define LOG_QUIET 1u

/* Loads dir/file (log_load: the path it tried is left in path, n bytes) and checks it
 * (log_check_rows). Returns 0, or -1 with errno set as log_load sets it. */
int log_read(Csv *t, const char *dir, const char *file, char *path, size_t n, unsigned flags);

/* Splits text (csv_parse), the sweep.csv at path, and checks it (as log_check_rows, with the
 * sweep.csv rules). Returns the number of rows skipped, or -1 with errno set and nothing
 * printed: csv_parse's refusals (t->problem says what), or EINVAL with t->problem "line 1: no
 * column 'status' (is it a sweep.csv?)" when a column every reader needs (status, val_loss,
 * val_answer_acc) is missing. */
int log_read_sweep(Csv *t, const char *path, const char *text, size_t len);

/* The text of the sweep.csv at path, read whole (a regular file of at most FILE_MAX_LOG_BYTES,
 * util/file_check.h), for log_read_sweep: NUL-terminated, malloc'd, *len its length; NULL after
 * "error: cannot read 'PATH': WHY" on stderr. */
char *log_sweep_text(const char *path, size_t *len);

/* Removes from t, a run log loaded from path (log_read_sweep: a sweep.csv), each row that ./train
 * cannot have written, with a warning "PATH:LINE: REASON; row skipped" (warn_input; past
 * LOG_WARN_MAX of one file, one line counts the rest). What a row must be:
 *  - every log: as many fields as the header; its leading index columns (step, layer, head,
 *    query: a log's key) whole numbers in [0, INT_MAX], each key greater than the last row kept
 *    (a step again, or going back, is skipped); every other field empty (not measured), a finite
 *    decimal number, or nan, inf, -inf (a logged divergence), so "12,abc,," or "1e999,nan,inf"
 *    never reads as a diverged step;
 *  - the ranges of log_check.c's RANGES, by column name, in every file: accuracies in [0, 1] (nan
 *    is none), losses and gradient norms >= 0, or nan / inf / -inf (a logged divergence), lr >= 0
 *    (a cosine schedule ends at optim.min_lr, 0 by default), sweep.csv's optim.lr > 0, steps,
 *    step counts and times >= 0;
 *  - an attention map (attn_map*.csv): every weight k0, k1, ... in [0, 1] (masked keys are 0):
 *    1e308 would be drawn as weight 1, nan as a masked cell; attn_map_tokens.csv (text) is not
 *    checked;
 *  - sweep.csv: its numeric columns (sweep_columns.c) numbers, blanks around them allowed; a
 *    known status; one row per run name (a second row of a run is skipped, naming the first).
 * Returns the number of rows removed. */
int log_check_rows(Csv *t, const char *path);

/* Warnings of one file printed one by one; the rest are counted in one line. */
#define LOG_WARN_MAX 10

/* ==== warnings.c: what a command warns about its input -- a row of a log or of sweep.csv it skips
 * (log_check.c), runs of different tasks compared -- printed on stderr as "warning: TEXT" and
 * kept, in order, for the page that must show them too: the --compare page (html.c) and a sweep's
 * summary and page (sweep_report.c). docs/manual.md ("Logs read back") states which case warns
 * and which refuses. A command starts with none (warnings_clear); a warning met again (a log read
 * twice by a sweep) is neither printed nor kept again. */

/* At most this many are kept for the page; later ones are printed and counted. */
#define WARNINGS_KEPT 200

/* Prints "warning: " and the text (printf format; no final newline) on stderr, and keeps it. */
void warn_input(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The number kept, the one kept at index i (in the order printed; "" when out of range), and
 * the number printed but not kept (past WARNINGS_KEPT, or when memory ran out). */
int warnings_count(void);
const char *warnings_at(int i);
int warnings_dropped(void);

/* Forgets every warning: a command's start. */
void warnings_clear(void);

/* ==== sweep_columns.c: the columns of sweep.csv, spelled once, here: "run", the plan's columns
 * (SWEEP_PLAN_COLUMNS: d_k, d_model, n_heads, scale, seed, one section.key per other --grid key,
 * steps), then the result columns (SWEEP_COLUMNS), in file order. sweep/plan.c makes the plan's
 * columns and cells in this order, sweep/results.c writes the header and rows, cli/sweep_args.c
 * tells a --grid key with a column of its own from these, and report/table/sweep_table.c reads them by
 * these names. Meanings (docs/sweeps.md, "What a row records"): status ok | diverged | guard | failed | missing |
 * running ... (SWEEP_STATUSES); first_step_50 / _90 / _99 the first validation pass at >= 50 / 90 / 99 % answer
 * accuracy (empty: not reached by last_eval_step, the last pass; time_to_learn.c);
 * predicted_logit_std the step-0 attention-logit std predicted from the run's config.ini
 * (model_predicted_logit_std) and init_scheme its init.scheme (fan_in | gpt2), so the regime map
 * knows every run's init whether or not the sweep varied it; task its task.name, so the report
 * knows what val_answer_acc measures (the text task has no answers: there it is the next-byte
 * accuracy, evaluate.h). */

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

/* The longest sweep folder name (bytes) the report takes: each file it writes there (a '/' and a
 * name of at most 140 bytes: summary.txt, index.html, sweep_by_KEY.svg) must fit its path
 * buffers whole, or a cut path would name another file (page.h's sweep_report_check_name
 * holds a folder to it; sweep_figures.c sizes its paths by it). */
#define SWEEP_DIR_MAX 1900

#endif
