/* test_stream.c: the training stream (src/tasks/stream.c): generated examples never equal a
 * validation example (and the skips are counted), the same seed gives the same data and another
 * seed other data, and the file task draws only its training examples, all of them in time. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "tasktest.h"
#include "testutil.h"

/* Copy of length 3 over 4 symbols has 64 examples; 20 of them are held out, so about one
 * training draw in three would hit the validation set if it were not excluded. */
static const TaskKind GEN_KINDS[] = {TASK_SORT, TASK_REVERSE, TASK_COPY, TASK_RECALL};

START_TEST(test_val_never_in_training_stream) {
    Config c = base_config(GEN_KINDS[_i]);
    c.task_length = 3;
    c.task_pairs = 2;
    c.task_symbols = GEN_KINDS[_i] == TASK_RECALL ? 3 : 4;  /* recall: 3*2 * 3^2 * 2 = 108 */
    c.val_size = 20;
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    check_val_distinct(&t);
    Batch b = batch_new(&t, 100);
    size_t T = (size_t)t.seq_len;
    for (int round = 0; round < 200; round++) {
        task_train_batch(&t, b.B, b.tok, b.tgt, b.m);
        for (int i = 0; i < b.B; i++) {
            TU_CHECK_INT_EQ(val_index_of(&t, b.tok + i * T, b.tgt + i * T), -1);
            TU_CHECK(!task_in_val(&t, b.tok + i * T, b.tgt + i * T, b.m + i * T));
        }
    }
    ck_assert_int_gt(t.skipped, 1000);  /* 20000 * 20/64 expected for copy */
    batch_free(&b);
    task_free(&t);
}
END_TEST

static void first_batch(TaskKind kind, long seed, Task *t, Batch *b) {
    Config c = base_config(kind);
    c.seed = seed;
    ck_assert_int_eq(task_init(t, &c), 0);
    *b = batch_new(t, 50);
    task_train_batch(t, b->B, b->tok, b->tgt, b->m);
}

START_TEST(test_same_seed_same_data) {
    Task a, b, d;
    Batch ba, bb, bd;
    first_batch(GEN_KINDS[_i], 7, &a, &ba);
    first_batch(GEN_KINDS[_i], 7, &b, &bb);
    first_batch(GEN_KINDS[_i], 8, &d, &bd);
    size_t nv = (size_t)a.n_val * (size_t)a.seq_len, nb = (size_t)ba.B * (size_t)a.seq_len;
    ck_assert(memcmp(a.val_tokens, b.val_tokens, nv * sizeof(int)) == 0);
    ck_assert(memcmp(a.val_targets, b.val_targets, nv * sizeof(int)) == 0);
    ck_assert(memcmp(a.val_mask, b.val_mask, nv * sizeof(float)) == 0);
    ck_assert(memcmp(ba.tok, bb.tok, nb * sizeof(int)) == 0);
    ck_assert(memcmp(ba.tgt, bb.tgt, nb * sizeof(int)) == 0);
    ck_assert(memcmp(a.val_tokens, d.val_tokens, nv * sizeof(int)) != 0);
    ck_assert(memcmp(ba.tok, bd.tok, nb * sizeof(int)) != 0);
    /* the training stream is not the validation stream replayed */
    ck_assert(memcmp(a.val_tokens, ba.tok, nb * sizeof(int)) != 0);
    batch_free(&ba);
    batch_free(&bb);
    batch_free(&bd);
    task_free(&a);
    task_free(&b);
    task_free(&d);
}
END_TEST

/* 30 distinct lines: 6 held out (30 / 5), 24 for training. */
START_TEST(test_file_stream_draws_training_examples) {
    char text[1024];
    size_t len = 0;
    for (int i = 0; i < 30; i++) len += (size_t)sprintf(text + len, "p%d x | a%d\n", i, i % 4);
    char path[256];
    write_temp(path, sizeof path, text, len);
    Config c = file_config(path);
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.n_val, 6);
    ck_assert_int_eq(t.n_train_file, 24);
    size_t T = (size_t)t.seq_len;
    Batch b = batch_new(&t, 4000);
    task_train_batch(&t, b.B, b.tok, b.tgt, b.m);
    int hit[64] = {0};
    for (int i = 0; i < b.B; i++) {
        ck_assert_int_eq(val_index_of(&t, b.tok + i * T, b.tgt + i * T), -1);
        int found = -1;
        for (int k = 0; k < t.n_train_file && found < 0; k++)
            if (memcmp(b.tok + i * T, t.file_tokens + k * T, T * sizeof(int)) == 0 &&
                memcmp(b.tgt + i * T, t.file_targets + k * T, T * sizeof(int)) == 0 &&
                memcmp(b.m + i * T, t.file_mask + k * T, T * sizeof(float)) == 0)
                found = k;
        ck_assert_int_ge(found, 0);
        hit[found] = 1;
    }
    for (int k = 0; k < t.n_train_file; k++) ck_assert(hit[k]);
    ck_assert_int_eq(t.skipped, 0);
    batch_free(&b);
    task_free(&t);
    unlink(path);
}
END_TEST

TU_MAIN_TIMEOUT("stream", 60, TU_LOOP(test_val_never_in_training_stream, 0, 4),
                TU_LOOP(test_same_seed_same_data, 0, 4), test_file_stream_draws_training_examples);
