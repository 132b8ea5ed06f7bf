/* log_check.h: the one checked reader of what ./train writes and reads back: a run's numeric logs
 * (loss.csv, grad_norms.csv, attention.csv, attn_map*.csv) and a sweep's sweep.csv. Every command
 * that reads them (--compare and --at-equal-loss, the sweep's collection and heartbeat,
 * --sweep-report and its page, --regime-map) reads them through here; tests/test_log_check.c
 * fails when a file of src/ calls the raw readers (csv_load, csv_parse, log_load) itself.
 *
 * A row ./train cannot have written is skipped with a warning naming file and line (warnings.h:
 * printed on stderr and shown on the command's page); the file itself is refused (-1) only when
 * it is no such file at all (csv_read.h's refusals, or a sweep.csv without its required columns).
 * docs/manual.md, "Logs read back", is the user's side of this. */
#ifndef SCALEDOT_LOG_CHECK_H
#define SCALEDOT_LOG_CHECK_H

#include <stddef.h>

#include "runlog/csv_read.h"

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
 *  - sweep.csv: its numeric columns (sweep_columns.h) numbers, blanks around them allowed; a
 *    known status; one row per run name (a second row of a run is skipped, naming the first).
 * Returns the number of rows removed. */
int log_check_rows(Csv *t, const char *path);

/* Warnings of one file printed one by one; the rest are counted in one line. */
#define LOG_WARN_MAX 10

#endif
