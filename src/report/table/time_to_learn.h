/* time_to_learn.h: how long a run took to learn, from its loss.csv alone: the first evaluated
 * step at which the validation answer accuracy reached 50 %, 90 % and 99 %, and the step of its
 * last validation pass (a threshold not reached is censored there: "not by step N"). The one
 * computation behind sweep.csv's first_step_* columns, --compare's table and the sweep
 * summary's slowdowns. Includes nothing from train/, sweep/ or cli/. */
#ifndef SCALEDOT_TIME_TO_LEARN_H
#define SCALEDOT_TIME_TO_LEARN_H

#include "runlog/csv_read.h"

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

#endif
