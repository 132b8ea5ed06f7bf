/* log_query.h: queries on the CSV logs of one run (loss.csv, grad_norms.csv, attention.csv),
 * shared by ./train --compare and ./train --sweep.
 *
 * Every log has a "step" column. An empty field was not measured at that step and is skipped; a
 * logged NaN or Inf is a value and stays visible (log_format_value writes nan / inf / -inf). */
#ifndef SCALEDOT_LOG_QUERY_H
#define SCALEDOT_LOG_QUERY_H

#include <stddef.h>

#include "runlog/csv_read.h"

/* dir/file into out (n bytes; no '/' is doubled when dir ends in one). Returns 0, or -1 with errno
 * ENAMETOOLONG when it does not fit (out then holds the cut path, for the message). */
int log_path(char *out, size_t n, const char *dir, const char *file);

/* csv_load of dir/file; the path it tried is left in path (n bytes) for the caller's message.
 * Returns 0, or -1 with errno set (ENOENT: no such file; ENAMETOOLONG; see csv_load). */
int log_load(Csv *t, const char *dir, const char *file, char *path, size_t n);

/* The step of a row; -1 when the field is not a number. */
int log_step(const Csv *t, int row);

/* The last row where column col is not empty; -1 when there is none or col < 0. */
int log_last_row(const Csv *t, int col);

/* The row where col is not empty whose step is nearest to target (the earlier one on a tie);
 * -1 when there is none or col < 0. */
int log_nearest_row(const Csv *t, int col, double target);

/* Mean over heads of column `name` of attention.csv (rows: step, layer, head, ...) at one step
 * and layer, over the rows where it is not empty; *n (may be NULL) gets their number. NAN when
 * there is none or a column is missing. */
double log_head_mean(const Csv *attn, int step, int layer, const char *name, int *n);

/* How one layer's attention logits grew over a run (attention.csv; issue 29's growth measure).
 * s(t) = the mean over heads of logit_std at logged step t (log_head_mean's mean), taken in the
 * order the rows are written (steps ascending):
 *   std0       s at step 0 (NAN when step 0 is not logged)
 *   peak       max_t s(t), and peak_step the first step where it is reached
 *   first_10x  the first step with s(t) > 10·s(0); -1 when none (or no step 0)
 * NaN values of s are skipped (a diverged run's NaN is no peak). */
typedef struct {
    double std0, peak;
    long peak_step, first_10x;
} LogitGrowth;

/* Fills *g for layer `layer`; returns 0, or -1 when no row of that layer has a logit_std (or the
 * step, layer or logit_std column is missing). */
int log_logit_growth(const Csv *attn, int layer, LogitGrowth *g);

/* v times scale in printf format fmt (one double conversion), or "nan" / "inf" / "-inf". */
void log_format_value(char *out, size_t n, double v, const char *fmt, double scale);

#endif
