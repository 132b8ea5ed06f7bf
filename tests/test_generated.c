/* test_generated.c: the generated tasks (src/tasks/generated.c): every row's answer recomputed
 * from its prompt and its mask, the sizes of the tasks (by hand), a distinct validation set even
 * at half the example space, and a table of parameters that are refused (the message names the
 * keys and where they were set) or accepted, among them spaces far beyond 2^64. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "tasktest.h"
#include "testutil.h"

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Recomputes the answer of a generated example from its prompt. */
static void check_answer(const Task *t, const Decoded *d) {
    int expect[MAXT], n;
    if (t->kind == TASK_RECALL) {
        ck_assert_int_eq(d->p, 2 * t->pairs + 1);
        n = 1;
        int q = d->prompt[2 * t->pairs], found = 0;
        for (int i = 0; i < t->pairs; i++) {
            for (int j = 0; j < i; j++) TU_CHECK(d->prompt[2 * i] != d->prompt[2 * j]);
            if (d->prompt[2 * i] == q) {
                expect[0] = d->prompt[2 * i + 1];
                found++;
            }
        }
        ck_assert_int_eq(found, 1);
    } else {
        n = t->length;
        ck_assert_int_eq(d->p, n);
        for (int i = 0; i < n; i++)
            expect[i] = t->kind == TASK_REVERSE ? d->prompt[n - 1 - i] : d->prompt[i];
        if (t->kind == TASK_SORT) qsort(expect, (size_t)n, sizeof(int), cmp_int);
    }
    ck_assert_int_eq(d->na, n);
    ck_assert_int_eq(d->L, d->p + t->separator + n);
    for (int i = 0; i < n; i++) TU_CHECK_INT_EQ(d->answer[i], expect[i]);
}

static const TaskKind GEN_KINDS[] = {TASK_SORT, TASK_REVERSE, TASK_COPY, TASK_RECALL};

START_TEST(test_generated_answers_and_masks) {
    TaskKind kind = GEN_KINDS[_i];
    Config c = base_config(kind);
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.kind, kind);
    ck_assert_int_eq(t.n_symbols, 10);
    ck_assert_int_eq(t.sep, 10);
    ck_assert_int_eq(t.pad, 11);
    ck_assert_int_eq(t.vocab_size, 12);
    /* recall has no separator by default: k1 v1 .. k4 v4 q a, less the last token */
    ck_assert_int_eq(t.seq_len, kind == TASK_RECALL ? 2 * 4 + 1 : 2 * 6);
    ck_assert_int_eq(t.max_answer, kind == TASK_RECALL ? 1 : 6);
    ck_assert_int_eq(t.n_val, 64);
    Batch b = batch_new(&t, 300);
    task_train_batch(&t, b.B, b.tok, b.tgt, b.m);
    Decoded d;
    size_t T = (size_t)t.seq_len;
    for (int i = 0; i < b.B; i++) {
        decode_row(&t, b.tok + i * T, b.tgt + i * T, b.m + i * T, &d);
        check_answer(&t, &d);
    }
    for (int k = 0; k < t.n_val; k++) {
        decode_row(&t, t.val_tokens + k * T, t.val_targets + k * T, t.val_mask + k * T, &d);
        check_answer(&t, &d);
        ck_assert(task_in_val(&t, t.val_tokens + k * T, t.val_targets + k * T, t.val_mask + k * T));
    }
    batch_free(&b);
    task_free(&t);
}
END_TEST

typedef struct {
    const char *name;
    TaskKind kind;
    int length, pairs, symbols;
    int seq_len, vocab_size, max_answer;  /* by hand */
} SizeCase;

/* T: sort, reverse, copy 2 * length - 1 + 1; recall (no separator) 2 * pairs + 1. */
static const SizeCase SIZES[] = {
    {"recall 8 pairs, 16 symbols", TASK_RECALL, 6, 8, 16, 17, 18, 1},
    {"sort 8, 16 symbols", TASK_SORT, 8, 4, 16, 16, 18, 8},
    {"reverse 3, 2 symbols", TASK_REVERSE, 3, 4, 2, 6, 4, 3},
    {"copy 1, 5 symbols", TASK_COPY, 1, 4, 5, 2, 7, 1},
};

START_TEST(test_sizes) {
    const SizeCase *e = &SIZES[_i];
    Config c = gen_config(e->kind, e->length, e->pairs, e->symbols, 1);
    Task t;
    ck_assert_msg(task_init(&t, &c) == 0, "%s: refused", e->name);
    ck_assert_msg(t.seq_len == e->seq_len && t.vocab_size == e->vocab_size &&
                      t.max_answer == e->max_answer,
                  "%s: T %d, vocab %d, max answer %d; want %d, %d, %d", e->name, t.seq_len,
                  t.vocab_size, t.max_answer, e->seq_len, e->vocab_size, e->max_answer);
    task_free(&t);
}
END_TEST

/* Half of the space: the distinct draw must keep rejecting repeats. */
START_TEST(test_val_distinct_at_half_the_space) {
    Config c = base_config(TASK_COPY);
    c.task_length = 3;
    c.task_symbols = 4;
    c.val_size = 32;
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.n_val, 32);
    check_val_distinct(&t);
    Batch b = batch_new(&t, 2000);
    task_train_batch(&t, b.B, b.tok, b.tgt, b.m);
    /* the training stream then only ever shows the other 32 examples */
    int seen[64] = {0}, distinct = 0;
    for (int i = 0; i < b.B; i++) {
        const int *r = b.tok + (size_t)i * (size_t)t.seq_len;
        int code = r[0] * 16 + r[1] * 4 + r[2];
        if (!seen[code]++) distinct++;
        ck_assert_int_eq(val_index_of(&t, r, b.tgt + (size_t)i * (size_t)t.seq_len), -1);
    }
    ck_assert_int_eq(distinct, 32);
    batch_free(&b);
    task_free(&t);
}
END_TEST

/* ---- parameters refused and accepted ---------------------------------------------------- */

typedef struct {
    const char *name;
    TaskKind kind;
    int length, pairs, symbols, val_size, max_seq_len;
    int ok;
    int seq_len;                  /* ok: expected T (0 = not checked) */
    const char *origin_key;       /* refused: the message starts with where this key was set */
    int key_form;                 /* ... followed by "'KEY': " (else by "'KEY' = ") */
    const char *needles[4];       /* refused: text the message holds */
} ParamCase;

static const ParamCase PARAMS[] = {
    /* copy of length 2 over 2 symbols has 2^2 = 4 examples: 3 held out leave too few */
    {"space too small", TASK_COPY, 2, 4, 2, 3, 0, 0, 0, "task.val_size", 1,
     {"task.val_size", "task.length", "task.symbols", "copy"}},
    {"space too small names its size", TASK_COPY, 2, 4, 2, 3, 0, 0, 0, "task.val_size", 1,
     {"only 4;"}},
    {"exactly half the space", TASK_COPY, 2, 4, 2, 2, 0, 1, 4, NULL, 0, {NULL}},
    /* recall, 2 pairs over 2 symbols: 2 * 1 ordered keys * 2^2 values * 2 queries = 16 */
    {"recall space too small", TASK_RECALL, 6, 2, 2, 9, 0, 0, 0, "task.val_size", 1,
     {"task.val_size", "task.pairs", "16"}},
    {"recall half the space", TASK_RECALL, 6, 2, 2, 8, 0, 1, 5, NULL, 0, {NULL}},
    {"recall pairs exceed symbols", TASK_RECALL, 6, 5, 4, 64, 0, 0, 0, "task.pairs", 1,
     {"task.pairs", "task.symbols"}},
    {"recall every symbol a key", TASK_RECALL, 6, 4, 4, 10, 0, 1, 9, NULL, 0, {NULL}},
    {"sort longer than max_seq_len", TASK_SORT, 8, 4, 16, 64, 15, 0, 0, "model.max_seq_len", 0,
     {"'model.max_seq_len' = 15 is too short for task 'sort' (sequences need T = 16 tokens); "
      "raise model.max_seq_len or lower task.length"}},
    {"sort at max_seq_len", TASK_SORT, 8, 4, 16, 64, 16, 1, 16, NULL, 0, {NULL}},
    {"recall longer than max_seq_len", TASK_RECALL, 6, 4, 10, 64, 8, 0, 0, "model.max_seq_len", 0,
     {"task 'recall'", "T = 9", "task.pairs"}},
    {"symbols 0", TASK_SORT, 6, 4, 0, 64, 0, 0, 0, "task.symbols", 1, {"out of range", "'sort'"}},
    {"length 0", TASK_REVERSE, 0, 4, 10, 64, 0, 0, 0, "task.length", 1, {"out of range"}},
    {"val_size negative", TASK_COPY, 6, 4, 10, -1, 0, 0, 0, "task.val_size", 1, {"out of range"}},
    /* spaces far beyond 2^64 saturate rather than wrap around to a small number */
    {"recall 128 pairs of 4096", TASK_RECALL, 6, 128, 4096, 4, 0, 1, 257, NULL, 0, {NULL}},
    {"sort 2^256", TASK_SORT, 256, 4, 2, 100, 0, 1, 512, NULL, 0, {NULL}},
    {"sort 2^64, one past UINT64_MAX", TASK_SORT, 64, 4, 2, 100, 0, 1, 128, NULL, 0, {NULL}},
};

START_TEST(test_parameters) {
    const ParamCase *e = &PARAMS[_i];
    Config c = gen_config(e->kind, e->length, e->pairs, e->symbols, e->val_size);
    c.max_seq_len = e->max_seq_len;
    Task t;
    char msg[1024], want[512];
    int rc = init_capture(&t, &c, msg, sizeof msg);
    if (e->ok) {
        ck_assert_msg(rc == 0, "%s: refused: %s", e->name, msg);
        if (e->seq_len) ck_assert_msg(t.seq_len == e->seq_len, "%s: T %d", e->name, t.seq_len);
        check_val_distinct(&t);
        task_free(&t);
        return;
    }
    ck_assert_msg(rc == -1, "%s: accepted", e->name);
    const char *o = config_origin(&c, e->origin_key);
    if (e->key_form)
        snprintf(want, sizeof want, "error: %s: '%s': ", o ? o : "default", e->origin_key);
    else
        snprintf(want, sizeof want, "error: %s: '%s' = ", o ? o : "default", e->origin_key);
    ck_assert_msg(strstr(msg, want) == msg, "%s: want the prefix '%s', message: %s", e->name,
                  want, msg);
    for (int k = 0; k < 4 && e->needles[k]; k++)
        ck_assert_msg(strstr(msg, e->needles[k]), "%s: want '%s', message: %s", e->name,
                      e->needles[k], msg);
    /* nothing is left allocated: task_init freed and zeroed the task */
    ck_assert_msg(!t.val_tokens && !t.scratch && t.n_val == 0, "%s: task not emptied", e->name);
}
END_TEST

TU_MAIN_TIMEOUT("generated", 60, TU_LOOP(test_generated_answers_and_masks, 0, 4),
                TU_LOOP(test_sizes, 0, (int)(sizeof SIZES / sizeof SIZES[0])),
                test_val_distinct_at_half_the_space,
                TU_LOOP(test_parameters, 0, (int)(sizeof PARAMS / sizeof PARAMS[0])));
