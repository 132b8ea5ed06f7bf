/* log_check.h: the rows of a run's numeric logs that --compare may use. */
#ifndef SCALEDOT_LOG_CHECK_H
#define SCALEDOT_LOG_CHECK_H

#include "runlog/csv_read.h"

/* Removes from t (loaded from path: loss.csv, grad_norms.csv, attention.csv, attn_map.csv, whose
 * every field is a number) each row that ./train cannot have written, with one warning per row on
 * stderr: "warning: PATH:LINE: REASON; row skipped". A row is malformed when it has another
 * number of fields than the header, its first field (step, layer) is not an integer in
 * [0, INT_MAX], or another field is neither empty (not measured), a finite decimal number, nor
 * nan, inf or -inf (a logged divergence). So a row such as "12,abc,," or "1e999,nan,inf" can
 * never be read as a diverged step. In an attention map (a header with a query column) every
 * weight k0, k1, ... must be a number in [0, 1] (masked keys are written as 0): 1e308 would be
 * drawn as weight 1 and nan as a masked cell. Returns the number of rows removed. */
int log_check_rows(Csv *t, const char *path);

#endif
