/* valset.h: examples as rows of the model's input and the validation set's hash set (valset.c),
 * below the builders and the training stream that use them. */
#ifndef SCALEDOT_VALSET_H
#define SCALEDOT_VALSET_H

#include <stdint.h>

#include "tasks/task.h"

/* Lays out seq (the prompt, SEP when the task has one, the answer; total length L; the answer
 * starts at seq[a]) as one [T] row: targets[i] = seq[i + 1] is an answer token from i = a - 1 on,
 * that is at SEP with a separator and at the prompt's last token without. */
void task_put_row(const Task *t, const int *seq, int a, int L, int *tok, int *tgt, float *m);

/* Hash of one [T] row: tokens, targets and which positions the mask counts. */
uint64_t task_row_hash(const int *tok, const int *tgt, const float *m, int T);

/* Index of the validation example equal to the row (h = its task_row_hash), or -1. */
int task_val_find(const Task *t, const int *tok, const int *tgt, const float *m, uint64_t h);

/* Records validation example k (hash h) in the hash set; the caller has checked it is new. */
void task_val_insert(Task *t, uint64_t h, int k);

/* Allocates n_val validation rows of t->seq_len and an empty hash set with load factor <= 1/2.
 * Returns 0, or -1 (with a message) when out of memory. */
int task_alloc_val(Task *t, int n_val);

#endif
