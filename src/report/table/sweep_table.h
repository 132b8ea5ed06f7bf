/* sweep_table.h: OUT/sweep.csv read by column names into rows, the columns a sweep varied, groups
 * of rows that differ only in some of them, and the order statistics the sweep report prints.
 *
 * The schema (one row per planned run, header first, no quoting) is the contract between the
 * sweep engine and the report: run, d_k, d_model, n_heads, scale, seed, one `section.key` column
 * per other --grid key, steps, then the result columns of sweep_columns.h (status ... version).
 * Only status, val_loss and val_answer_acc are required; any other column may be missing (an
 * older file) and then reads as "not measured"; an older file's logit_std_step0 is read as
 * logit_std0. An empty field is not measured; nan / inf are measured non-finite values. */
#ifndef SCALEDOT_SWEEP_TABLE_H
#define SCALEDOT_SWEEP_TABLE_H

#include "runlog/csv_read.h"

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
    const char *status;  /* one of SWEEP_STATUSES (sweep_columns.h) */
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
    char label[256];  /* "scale=none optim.lr=0.01" (the columns compared), "all runs" if none */
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

#endif
