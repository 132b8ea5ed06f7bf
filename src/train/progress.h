/* progress.h: the heartbeat line ./train prints to stderr every log.every steps (log.progress =
 * 1): step, training loss, milliseconds per step, tokens per second and the time left, and the
 * validation metrics on the steps that have them. */
#ifndef SCALEDOT_PROGRESS_H
#define SCALEDOT_PROGRESS_H

#include <stdio.h>

typedef struct {
    int step, steps;       /* updates done, train.steps */
    double train_loss;     /* NaN: not measured (the final row) */
    double ms_per_step;    /* wall milliseconds per update since the previous line; NaN unknown */
    double tokens_per_s;   /* training tokens per second over the same span; NaN unknown */
    double eta_s;          /* seconds left at the pace so far; NaN unknown (nothing timed yet) */
    int has_val;           /* the three below were measured at this step */
    double val_loss, answer_acc, token_acc;  /* accuracies as fractions; printed in % */
    int has_bpb;           /* the text task: val_bpb is printed, answer_acc (= token_acc) not */
    double val_bpb;        /* validation bits per byte */
} ProgressRow;

/* Writes one line, e.g.
 *   step   120/2000  train loss 0.5123   3.1 ms/step  20645 tok/s  ETA 6s  | val loss 0.4711 ...
 * or for the text task (has_bpb)  ... | val loss 1.2345  bpb 1.7810  token acc  61.2%
 * "-" stands for what is unknown (no ETA before a step was timed, no train loss at the end). */
void progress_line(FILE *f, const ProgressRow *p);

/* "42s", "3m05s" or "1h02m" for s >= 0 seconds; "-" when s is NaN or negative. */
void progress_format_eta(char *buf, size_t n, double s);

#endif
