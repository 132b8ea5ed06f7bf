/* file_conflict.h: the check that a task file gives each prompt one answer. */
#ifndef SCALEDOT_FILE_CONFLICT_H
#define SCALEDOT_FILE_CONFLICT_H

#include <stddef.h>

/* Examples k = 0 .. n-1 are ids[start[k] .. start[k] + plen[k]) (the prompt) followed by
 * alen[k] answer ids. Finds the first example (in order) whose prompt equals an earlier
 * example's and whose answer differs: *first gets the earliest example with that prompt,
 * *second the conflicting one. Returns 1 when found, 0 when every prompt has one answer
 * (repeated identical lines are fine), -1 when out of memory. */
int task_file_conflict(const int *ids, const size_t *start, const int *plen, const int *alen, int n,
                       int *first, int *second);

#endif
