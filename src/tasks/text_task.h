/* text_task.h: the byte-level text task (text_task.c), for task_init and task_init_model_only
 * (tasks.c). */
#ifndef SCALEDOT_TEXT_TASK_H
#define SCALEDOT_TEXT_TASK_H

#include <stddef.h>

#include "tasks/task.h"
#include "tasks/task_config.h"

/* task_init for the text task (t->kind set) from the file at path. */
int task_init_text_file(Task *t, const TaskConfig *c, const char *path);

/* Its keys checked and its fixed shape set (256 byte tokens, no SEP or PAD, task.seq_len
 * windows), the file not read: task_init_text_file's first half, and task_init_model_only. */
int task_init_text_shape(Task *t, const TaskConfig *c);

/* Bytes of the held-out tail of a text of n bytes, floor(n * val_fraction). */
size_t task_text_tail(size_t n, double val_fraction);

/* The fewest bytes a text needs for windows of T + 1 bytes in both its training part and its
 * held-out tail (the number the too-short message gives). */
size_t task_text_min_bytes(int T, double val_fraction);

#endif
