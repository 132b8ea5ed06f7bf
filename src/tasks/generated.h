/* generated.h: the generated tasks, sort, reverse, copy and recall (generated.c): built for
 * task_init (tasks.c) and drawn from by the training stream (stream.c). */
#ifndef SCALEDOT_GENERATED_H
#define SCALEDOT_GENERATED_H

#include "tasks/task.h"
#include "tasks/task_config.h"

/* Draws one example into seq (prompt, SEP if the task has one, answer; room for t->seq_len + 1
 * ints); returns where the answer starts, sets *L. Recall shuffles keys in t->scratch beyond
 * seq_len + 1. */
int task_gen_example(Task *t, Rng *r, int *seq, int *L);

/* task_init for sort, reverse, copy and recall (t->kind and t->separator set). */
int task_init_generated(Task *t, const TaskConfig *c);

#endif
