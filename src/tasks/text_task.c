/* text_task.c: the text task -- byte-level next-token language modelling on task.file (layout in
 * tasks.h): the file read whole, split into a training part and a held-out tail, the tail laid
 * out as consecutive validation windows. The training windows are drawn by stream.c. task_init
 * (tasks.c) calls task_init_text_file. Part of the task stage (config -> task -> model). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks/text_task.h"
#include "tasks/file_parse.h"
#include "tasks/tasks_internal.h"
#include "tasks/valset.h"
#include "util/error_list.h"
#include "util/file_check.h"
#include "util/fnv1a.h"

/* 1 GiB bounds a wrong path (/var/log/...); rng_below draws window starts below 2^32. */
#define MAX_TEXT_BYTES ((size_t)1 << 30)

size_t task_text_tail(size_t n, double val_fraction) {
    return (size_t)floor((double)n * val_fraction);
}

/* Both parts hold a window of T + 1 bytes. */
static int split_ok(size_t n, int T, double f) {
    size_t tail = task_text_tail(n, f), need = (size_t)T + 1;
    return tail >= need && n - tail >= need;
}

size_t task_text_min_bytes(int T, double val_fraction) {
    /* (T + 1) / f rounded down, less a little: the search upward then finds the first size that
     * floor(n * f) in double accepts, whatever the rounding of the division */
    double start = floor(((double)T + 1) / val_fraction) - 2;
    size_t n = start < 2.0 * ((double)T + 1) ? 2 * ((size_t)T + 1) : (size_t)start;
    while (!split_ok(n, T, val_fraction) && n <= MAX_TEXT_BYTES) n++;
    return n;
}

int task_init_text_shape(Task *t, const TaskConfig *c) {
    if (c->val_size < 0 || c->val_size > MAX_VAL)
        return task_key_error(c, "task.val_size", "%d is out of range (0 .. %d)", c->val_size,
                              MAX_VAL);
    int T = c->seq_len;
    double f = c->val_fraction;
    if (T < 1 || T > MAX_SEQ)
        return task_key_error(c, "task.seq_len", "%d is out of range (1 .. %d)", T, MAX_SEQ);
    if (!(f > 0 && f < 1))
        return task_key_error(c, "task.val_fraction", "%g is out of range (0 .. 1)", f);
    if (c->max_seq_len != 0 && T > c->max_seq_len) {
        Origin om = task_origin_of(c, "model.max_seq_len");
        Origin os = task_set_at(c, "task.seq_len");
        return task_error_at(om.s, "'model.max_seq_len' = %d is too short for task 'text' "
                                   "(windows of task.seq_len = %d tokens, %s); raise "
                                   "model.max_seq_len or lower task.seq_len",
                             c->max_seq_len, T, os.s);
    }
    t->n_symbols = 256;
    t->vocab_size = 256;
    t->sep = t->pad = -1; /* never a token: every window is full length */
    t->seq_len = T;
    t->max_answer = T;
    return 0;
}

int task_init_text_file(Task *t, const TaskConfig *c, const char *path) {
    if (path[0] == '\0')
        return task_key_error(c, "task.file", "is empty, but task.name = text needs a text file");
    if (task_init_text_shape(t, c) != 0) return -1;
    int T = c->seq_len;
    double f = c->val_fraction;
    char why[256];
    size_t n = 0;
    char *bytes = file_read_regular(path, MAX_TEXT_BYTES, &n, why, sizeof why);
    if (!bytes) return task_file_error(c, path, 0, "cannot read the text: %s", why);
    t->text = (unsigned char *)bytes;
    t->text_size = n;
    t->file_hash = fnv1a64(FNV1A64_BASIS, bytes, n); /* what the run records: these bytes */
    size_t need = task_text_min_bytes(T, f);
    if (n == 0)
        return task_file_error(c, path, 0,
                               "is empty; task.name = text needs at least %zu bytes (task.seq_len "
                               "= %d, task.val_fraction = %g)", need, T, f);
    if (!split_ok(n, T, f)) {
        size_t tail = task_text_tail(n, f);
        /* a fraction so small that no text the program reads would do (1e-9 asked for 33 GB):
         * the key is named, with the smallest fraction that works for this text */
        if (tail < (size_t)T + 1 && n >= 2 * ((size_t)T + 1) && need > MAX_TEXT_BYTES) {
            /* (T + 1) / n rounded up to three significant digits, and one that holds out enough
             * as task_text_tail computes it */
            double x = ((double)T + 1) / (double)n, p = pow(10, floor(log10(x)) - 2);
            x = ceil(x / p - 1e-9) * p;
            while (task_text_tail(n, x) < (size_t)T + 1) x += p;
            return task_key_error(c, "task.val_fraction",
                                  "%g holds out %zu bytes of the %zu-byte text '%s', and the "
                                  "held-out tail needs task.seq_len + 1 = %d bytes: use "
                                  "task.val_fraction >= %g", f, tail, n, path, T + 1, x);
        }
        return task_file_error(c, path, 0,
                               "is %zu bytes, too short for task.seq_len = %d with "
                               "task.val_fraction = %g: the training part (%zu bytes) and the "
                               "held-out tail (%zu bytes) each need task.seq_len + 1 = %d bytes, "
                               "so the file needs at least %zu bytes; use a longer text or a "
                               "shorter task.seq_len", n, T, f, n - tail, tail, T + 1, need);
    }
    t->text_train = n - task_text_tail(n, f);
    size_t tail = n - t->text_train;
    size_t fit = (tail - 1) / (size_t)T;
    int n_val = fit < (size_t)c->val_size ? (int)fit : c->val_size;
    if (task_alloc_val(t, n_val) != 0) return -1;
    size_t Tz = (size_t)T;
    for (int k = 0; k < n_val; k++) {
        const unsigned char *w = t->text + t->text_train + (size_t)k * Tz;
        int *tok = t->val_tokens + (size_t)k * Tz, *tgt = t->val_targets + (size_t)k * Tz;
        float *m = t->val_mask + (size_t)k * Tz;
        for (size_t i = 0; i < Tz; i++) {
            tok[i] = w[i];
            tgt[i] = w[i + 1];
            m[i] = 1.0f;
        }
    }
    seed_stream(&t->rng, c->seed, STREAM_TRAIN);
    return 0;
}
