/* tasktest.h: helpers shared by the tests of src/tasks/ (test_tasks, test_generated, test_valset,
 * test_stream, test_file_parse, test_file_task, test_format): a small config per task kind, task
 * files in the program's scratch folder (tu_scratch), stderr captured, one row decoded and checked
 * against the layout of tasks.h, and the validation set searched by brute force (never through
 * the hash set under test).
 *
 * Static inline, so a test program that uses a few of them compiles without unused-function
 * warnings; a header rather than a .c file of tests/ because those are linked into every test
 * program, the double-precision ones too, which do not have the task objects. */
#ifndef SCALEDOT_TASKTEST_H
#define SCALEDOT_TASKTEST_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "testutil.h"

#define MAXT 1024

/* The Makefile passes the source tree, so the shipped data is found from any directory. */
#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

/* A task of kind: length 6, 4 pairs, 10 symbols, 64 validation examples, seed 1234. */
static inline Config base_config(TaskKind kind) {
    Config c;
    config_defaults(&c);
    c.task = kind;
    c.task_length = 6;
    c.task_pairs = 4;
    c.task_symbols = 10;
    c.val_size = 64;
    c.max_seq_len = 0;
    c.seed = 1234;
    c.task_file[0] = '\0';
    return c;
}

/* base_config(kind) with the generated tasks' sizes and the validation set's size given. */
static inline Config gen_config(TaskKind kind, int length, int pairs, int symbols, int val_size) {
    Config c = base_config(kind);
    c.task_length = length;
    c.task_pairs = pairs;
    c.task_symbols = symbols;
    c.val_size = val_size;
    return c;
}

/* Runs task_init with stderr captured into msg. */
static inline int init_capture(Task *t, const Config *c, char *msg, size_t n) {
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = task_init(t, c);
    char *text = tu_capture_end(&cap);
    snprintf(msg, n, "%s", text);
    free(text);
    return rc;
}

/* Writes len bytes to a fresh temporary file in the program's scratch folder (tu_scratch: gone
 * after the last test, also when this one fails); its path goes to path. */
static inline void write_temp(char *path, size_t n, const char *content, size_t len) {
    snprintf(path, n, "%s/task_XXXXXX", tu_scratch());
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq((long)write(fd, content, len), (long)len);
    close(fd);
}

/* base_config(TASK_FILE) reading the task file at path. */
static inline Config file_config(const char *path) {
    Config c = base_config(TASK_FILE);
    snprintf(c.task_file, sizeof c.task_file, "%s", path);
    return c;
}

typedef struct {
    int p, L;                      /* prompt length, sequence length */
    int prompt[MAXT], answer[MAXT];
    int na;
} Decoded;

/* Decodes one row and checks its layout: the shift between tokens and targets, SEP after the
 * prompt (or, in a task without a separator, the prompt ending where the first answer target
 * is), padding at the end, and a mask that is 1 exactly at the answer targets. */
static inline void decode_row(const Task *t, const int *tok, const int *tgt, const float *m,
                              Decoded *d) {
    int T = t->seq_len, s = t->separator;
    int p = -1;
    for (int i = 0; i < T && p < 0; i++)
        if (s ? tok[i] == t->sep : m[i] != 0.0f) p = s ? i : i + 1;
    ck_assert_int_ge(p, 1);
    int last = T;  /* first padded input position, = L - 1 */
    for (int i = 0; i < T; i++)
        if (tok[i] == t->pad) {
            last = i;
            break;
        }
    ck_assert_int_gt(last, p - 1 + s);
    d->p = p;
    d->L = last + 1;
    for (int i = 0; i < p; i++) {
        ck_assert_int_ge(tok[i], 0);
        ck_assert_int_lt(tok[i], t->n_symbols);
        d->prompt[i] = tok[i];
    }
    d->na = 0;
    for (int i = 0; i < T; i++) {
        int answer_pos = i >= p - 1 + s && i < last;
        ck_assert_msg((m[i] == 1.0f) == answer_pos && (m[i] == 0.0f) == !answer_pos,
                      "mask[%d] = %g, prompt %d, L %d", i, (double)m[i], p, d->L);
        if (i < last - 1) ck_assert_int_eq(tgt[i], tok[i + 1]);
        if (i >= last) {
            ck_assert_int_eq(tok[i], t->pad);
            ck_assert_int_eq(tgt[i], t->pad);
        }
        if (i >= p + s && i < last) {
            ck_assert_int_ge(tok[i], 0);
            ck_assert_int_lt(tok[i], t->n_symbols);
        }
        if (answer_pos) {
            ck_assert_int_ge(tgt[i], 0);
            ck_assert_int_lt(tgt[i], t->n_symbols);
            d->answer[d->na++] = tgt[i];
        }
    }
}

/* One training batch: B rows of T tokens, targets and mask (malloc'd by batch_new). */
typedef struct {
    int *tok, *tgt;
    float *m;
    int B, T;
} Batch;

static inline Batch batch_new(const Task *t, int B) {
    Batch b = {malloc((size_t)B * (size_t)t->seq_len * sizeof(int)),
               malloc((size_t)B * (size_t)t->seq_len * sizeof(int)),
               malloc((size_t)B * (size_t)t->seq_len * sizeof(float)), B, t->seq_len};
    ck_assert(b.tok && b.tgt && b.m);
    return b;
}

static inline void batch_free(Batch *b) {
    free(b->tok);
    free(b->tgt);
    free(b->m);
}

/* 1 when the row's tokens and targets are those of validation example k (mask not compared). */
static inline int row_equals_val(const Task *t, const int *tok, const int *tgt, int k) {
    size_t T = (size_t)t->seq_len;
    return memcmp(tok, t->val_tokens + (size_t)k * T, T * sizeof(int)) == 0 &&
           memcmp(tgt, t->val_targets + (size_t)k * T, T * sizeof(int)) == 0;
}

/* Index of the validation example with these tokens and targets, by brute force; -1 if none. */
static inline int val_index_of(const Task *t, const int *tok, const int *tgt) {
    for (int k = 0; k < t->n_val; k++)
        if (row_equals_val(t, tok, tgt, k)) return k;
    return -1;
}

/* Fails the test when two validation examples have the same tokens and targets. */
static inline void check_val_distinct(const Task *t) {
    size_t T = (size_t)t->seq_len;
    for (int a = 0; a < t->n_val; a++)
        for (int b = a + 1; b < t->n_val; b++)
            ck_assert_msg(!row_equals_val(t, t->val_tokens + (size_t)a * T,
                                          t->val_targets + (size_t)a * T, b),
                          "validation examples %d and %d are equal", a, b);
}

/* Formats every example of a file task (validation first, then training) into lines[]. */
static inline int all_examples(const Task *t, char lines[][128], int max) {
    int n = 0;
    size_t T = (size_t)t->seq_len;
    for (int k = 0; k < t->n_val && n < max; k++, n++)
        task_format(t, t->val_tokens + k * T, t->val_targets + k * T, t->val_mask + k * T,
                    lines[n], 128);
    for (int k = 0; k < t->n_train_file && n < max; k++, n++)
        task_format(t, t->file_tokens + k * T, t->file_targets + k * T, t->file_mask + k * T,
                    lines[n], 128);
    return n;
}

/* 1 when one of lines[0..n) is s. */
static inline int contains_line(char lines[][128], int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (strcmp(lines[i], s) == 0) return 1;
    return 0;
}

#endif
