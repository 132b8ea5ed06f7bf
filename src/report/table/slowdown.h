/* slowdown.h: how much slower the unscaled run learns than the scaled one, from sweep.csv: per
 * pair of runs that differ only in attention.scale (none against sqrt_dk; same seed and every
 * other varied column), the ratio steps(none) / steps(sqrt_dk) to the first validation pass at
 * >= 50, 90 and 99 % answer accuracy (time_to_learn.h), censored honestly when a run never got
 * there, and a median over seeds that says when the censored values decide it. */
#ifndef SCALEDOT_SLOWDOWN_H
#define SCALEDOT_SLOWDOWN_H

#include <stddef.h>
#include <stdio.h>

#include "report/table/sweep_table.h"

typedef enum {
    SD_EXACT,    /* both got there: ratio = steps(none) / steps(sqrt_dk) */
    SD_MORE,     /* only the scaled run got there: the ratio is > ratio (none's last pass over
                  * sqrt_dk's steps) */
    SD_LESS,     /* only the unscaled run got there: the ratio is < ratio (none's steps over
                  * sqrt_dk's last pass) */
    SD_NEITHER,  /* neither got there: no information on the ratio */
    SD_UNKNOWN   /* not measured, or a denominator of 0 (reached at step 0) */
} SlowKind;

typedef struct {
    SlowKind kind;
    double ratio;  /* the value or the bound; NAN for SD_NEITHER and SD_UNKNOWN */
} Slowdown;

/* One pair at one threshold. *_reached: the run got there, at step *_step; else it was last
 * seen (its last validation pass) at *_censor. Steps are >= 0. */
Slowdown slowdown_pair(int none_reached, double none_step, double none_censor, int sqrt_reached,
                       double sqrt_step, double sqrt_censor);

/* "12.3×", "> 12.3×", "< 0.5×", "—" (neither), "n/a" (unknown); out of n bytes. */
void slowdown_format(char *out, size_t n, Slowdown s);

/* The median of v[0..n) with censoring. SD_NEITHER and SD_UNKNOWN are left out (n_used counts
 * the rest). It is computed twice: lo with each "> N" at N and each "< N" at 0, hi with each
 * "> N" at +inf and each "< N" at N (the middle value, or the mean of the two middle values for
 * an even count). Equal: the median is known exactly. Otherwise the true median lies in [lo, hi]
 * whatever the censored runs would have done. */
typedef struct {
    int n_used, n_neither;
    double lo, hi;  /* NAN when n_used == 0 */
} SlowMedian;

SlowMedian slowdown_median(const Slowdown *v, int n);

/* "12.3×" (lo == hi), "> 12.3×" (hi infinite: a lower bound), "< 0.5×" (lo 0: an upper bound),
 * "3.1–12.3×" (between), "?" (anything: 0 to infinity), "—" (nothing used, some pair where
 * neither got there), "n/a" (nothing measured). */
void slowdown_median_format(char *out, size_t n, SlowMedian m);

/* The slowdown of pair (none, sq) (rows of t) at threshold k (0: 50 %, 1: 90 %, 2: 99 %), from
 * their first_step_* columns; a run that never got there is censored at its last_eval_step
 * (else steps_done, else steps). SD_UNKNOWN when the column is not in the file. */
Slowdown slowdown_at(const SweepTable *t, const SweepRow *none, const SweepRow *sq, int k);

/* One pair of runs that differ only in attention.scale: rows (indices into t->rows) of the
 * scale=none and the scale=sqrt_dk run, and the group (of the groups slowdown_pairs returns) that
 * holds them, whose label names the pair. */
typedef struct {
    int none, sq, group;
} SlowPair;

/* The pairs of t: *groups (sweep_groups ignoring scale; free with sweep_groups_free(*groups,
 * *n_groups)) and *out (malloc'd). Returns their number (0 when scale did not vary), or -1 when
 * memory runs out. */
int slowdown_pairs(const SweepTable *t, SweepGroup **groups, int *n_groups, SlowPair **out);

/* The slowdown section of the sweep summary: the pairs, then the medians over seeds per group of
 * the other varied columns. Prints nothing when scale does not vary over none and sqrt_dk.
 * Returns 0, or -1 when memory runs out. */
int slowdown_print(FILE *f, const SweepTable *t);

#endif
