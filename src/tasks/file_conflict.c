/* file_conflict.c: one answer per prompt in a task file. The same prompt with two answers is a
 * contradiction the model cannot learn (its loss has a floor of log 2 there) and is usually a
 * typo in the file, so it is an error naming both lines. */
#include "tasks/file_conflict.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t prompt_hash(const int *p, int n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        h = (h ^ (uint32_t)p[i]) * 0x100000001B3ull;
        h ^= h >> 29;
    }
    return h;
}

static int same_ids(const int *a, int na, const int *b, int nb) {
    return na == nb && memcmp(a, b, (size_t)na * sizeof(int)) == 0;
}

int task_file_conflict(const int *ids, const size_t *start, const int *plen, const int *alen, int n,
                       int *first, int *second) {
    size_t cap = 16;
    while (cap < 2 * (size_t)n) cap *= 2;
    int *slot = malloc(cap * sizeof(int)); /* the first example of each distinct prompt, or -1 */
    if (!slot) return -1;
    for (size_t i = 0; i < cap; i++) slot[i] = -1;
    int found = 0;
    for (int k = 0; k < n && !found; k++) {
        const int *pk = ids + start[k];
        size_t i = prompt_hash(pk, plen[k]) & (cap - 1);
        for (; slot[i] >= 0; i = (i + 1) & (cap - 1)) {
            int j = slot[i];
            const int *pj = ids + start[j];
            if (!same_ids(pj, plen[j], pk, plen[k])) continue;
            if (!same_ids(pj + plen[j], alen[j], pk + plen[k], alen[k])) {
                *first = j;
                *second = k;
                found = 1;
            }
            break;
        }
        if (!found && slot[i] < 0) slot[i] = k;
    }
    free(slot);
    return found;
}
