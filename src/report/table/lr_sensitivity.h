/* lr_sensitivity.h: the learning-rate sensitivity of a sweep over optim.lr.
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
#ifndef SCALEDOT_LR_SENSITIVITY_H
#define SCALEDOT_LR_SENSITIVITY_H

#include <stdio.h>

#include "report/table/sweep_table.h"

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

#endif
