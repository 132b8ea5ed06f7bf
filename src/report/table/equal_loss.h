/* equal_loss.h: two runs' gradient readings at equal validation loss (./train --compare A B
 * --at-equal-loss). At equal step a run that learns fast is compared, late in training, with one
 * that has not learned: its gradients are those of a solved task. At equal loss both are read
 * where they are equally far along. */
#ifndef SCALEDOT_EQUAL_LOSS_H
#define SCALEDOT_EQUAL_LOSS_H

#include <stdio.h>

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

#endif
