/* stream.c: the training stream -- batches of fresh generated examples that are not in the
 * validation set, the file task's training examples drawn with replacement, or the text task's
 * windows drawn from the training part. Called once per training step (train/); allocates
 * nothing. Part of the task stage (config -> task -> model). */
#include <string.h>

#include "tasks/tasks.h"
#include "tasks/generated.h"
#include "tasks/tasks_internal.h"
#include "tasks/valset.h"

void task_train_batch(Task *t, int B, int *tokens, int *targets, float *mask) {
    size_t T = (size_t)t->seq_len;
    for (int b = 0; b < B; b++) {
        int *tok = tokens + (size_t)b * T, *tgt = targets + (size_t)b * T;
        float *m = mask + (size_t)b * T;
        if (t->kind == TASK_TEXT) {
            /* a start in [0, text_train - T - 1]: the window's last target is byte
             * text_train - 1 at most, before the held-out tail */
            const unsigned char *w = t->text + rng_below(&t->rng, (uint32_t)(t->text_train - T));
            for (size_t i = 0; i < T; i++) {
                tok[i] = w[i];
                tgt[i] = w[i + 1];
                m[i] = 1.0f;
            }
            continue;
        }
        if (t->kind == TASK_FILE) {
            size_t k = rng_below(&t->rng, (uint32_t)t->n_train_file);
            memcpy(tok, t->file_tokens + k * T, T * sizeof(int));
            memcpy(tgt, t->file_targets + k * T, T * sizeof(int));
            memcpy(m, t->file_mask + k * T, T * sizeof(float));
            continue;
        }
        for (;;) {
            int L, a = task_gen_example(t, &t->rng, t->scratch, &L);
            task_put_row(t, t->scratch, a, L, tok, tgt, m);
            if (!task_in_val(t, tok, tgt, m)) break;
            t->skipped++;
        }
    }
}

int task_in_val(const Task *t, const int *tokens, const int *targets, const float *mask) {
    if (t->n_val == 0) return 0;
    uint64_t h = task_row_hash(tokens, targets, mask, t->seq_len);
    return task_val_find(t, tokens, targets, mask, h) >= 0;
}
