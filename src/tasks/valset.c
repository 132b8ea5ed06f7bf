/* valset.c: examples as rows of the model's input (tokens, targets, mask) and the held-out
 * validation set's hash set, which keeps the training stream disjoint from it. Used by the
 * builders (generated.c, file_task.c) and the training stream (stream.c); part of the task
 * stage (config -> task -> model -> ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks/valset.h"
#include "tasks/tasks_internal.h"
#include "util/error_list.h"

void task_put_row(const Task *t, const int *seq, int a, int L, int *tok, int *tgt, float *m) {
    int T = t->seq_len;
    for (int i = 0; i < T; i++) {
        int real = i < L - 1;
        tok[i] = real ? seq[i] : t->pad;
        tgt[i] = real ? seq[i + 1] : t->pad;
        m[i] = (real && i >= a - 1) ? 1.0f : 0.0f;
    }
}

/* tokens and targets hold the whole sequence and its padding; the mask is part of the example
 * too: without a separator the file lines 'a b | c' and 'a | b c' differ only in it. */
uint64_t task_row_hash(const int *tok, const int *tgt, const float *m, int T) {
    uint64_t h = 0x243F6A8885A308D3ull;
    for (int i = 0; i < T; i++) h = mix64(h + (uint32_t)tok[i]);
    for (int i = 0; i < T; i++) h = mix64(h + (uint32_t)tgt[i]);
    for (int i = 0; i < T; i++) h = mix64(h + (m[i] != 0.0f));
    return h;
}

static int rows_equal(const Task *t, int k, const int *tok, const int *tgt, const float *m) {
    size_t T = (size_t)t->seq_len;
    if (memcmp(t->val_tokens + (size_t)k * T, tok, T * sizeof(int)) != 0 ||
        memcmp(t->val_targets + (size_t)k * T, tgt, T * sizeof(int)) != 0)
        return 0;
    const float *vm = t->val_mask + (size_t)k * T;
    for (size_t i = 0; i < T; i++)
        if ((vm[i] != 0.0f) != (m[i] != 0.0f)) return 0;
    return 1;
}

int task_val_find(const Task *t, const int *tok, const int *tgt, const float *m, uint64_t h) {
    if (t->n_val_hashes_cap == 0) return -1;
    size_t mask = (size_t)t->n_val_hashes_cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        int k = t->val_slots[i];
        if (k < 0) return -1;
        if (t->val_hashes[i] == h && rows_equal(t, k, tok, tgt, m)) return k;
    }
}

void task_val_insert(Task *t, uint64_t h, int k) {
    size_t mask = (size_t)t->n_val_hashes_cap - 1;
    size_t i = h & mask;
    while (t->val_slots[i] >= 0) i = (i + 1) & mask;
    t->val_slots[i] = k;
    t->val_hashes[i] = h;
}

int task_alloc_val(Task *t, int n_val) {
    size_t T = (size_t)t->seq_len;
    t->n_val = n_val;
    t->val_tokens = xcalloc((size_t)n_val * T, sizeof(int));
    t->val_targets = xcalloc((size_t)n_val * T, sizeof(int));
    t->val_mask = xcalloc((size_t)n_val * T, sizeof(float));
    int cap = 16;
    while (cap < 2 * n_val) cap *= 2;
    t->n_val_hashes_cap = cap;
    t->val_hashes = xcalloc((size_t)cap, sizeof(uint64_t));
    t->val_slots = malloc((size_t)cap * sizeof(int));
    if (!t->val_tokens || !t->val_targets || !t->val_mask || !t->val_hashes || !t->val_slots) {
        error_add(NULL, 0, NULL, "task: out of memory for %d validation examples of %d tokens",
                  n_val, t->seq_len);
        return -1;
    }
    for (int i = 0; i < cap; i++) t->val_slots[i] = -1;
    return 0;
}
