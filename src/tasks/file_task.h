/* file_task.h: the file task built from a task file's examples (file_task.c), for task_init and
 * task_init_text (tasks.c). */
#ifndef SCALEDOT_FILE_TASK_H
#define SCALEDOT_FILE_TASK_H

#include <stddef.h>

#include "tasks/task.h"
#include "tasks/task_config.h"

/* task_init for the file task (t->kind and t->separator set) from path; text = NULL reads the
 * file, else text[0..len) is its content and path only names it in messages. */
int task_init_file(Task *t, const TaskConfig *c, const char *path, const char *text, size_t len);

#endif
