/* test_valset.c: the validation set's hash set (src/tasks/valset.c): task_in_val agrees with a
 * brute-force search over the validation rows (tokens, targets and mask) for every validation
 * row, for each of them with one token, one target or one mask entry changed, and for a batch
 * of fresh rows; and two file lines that differ only in where the answer starts are told apart. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "tasktest.h"
#include "testutil.h"

/* 1 when the row equals a validation example in tokens, targets and which positions count. */
static int in_val_brute(const Task *t, const int *tok, const int *tgt, const float *m) {
    size_t T = (size_t)t->seq_len;
    for (int k = 0; k < t->n_val; k++) {
        if (!row_equals_val(t, tok, tgt, k)) continue;
        const float *vm = t->val_mask + (size_t)k * T;
        int same = 1;
        for (size_t i = 0; i < T && same; i++) same = (vm[i] != 0.0f) == (m[i] != 0.0f);
        if (same) return 1;
    }
    return 0;
}

typedef struct {
    const char *name;
    TaskKind kind;
    int length, pairs, symbols, val_size;
} ValCase;

/* Small spaces, so changed rows often land on other validation rows as well. */
static const ValCase VAL_CASES[] = {
    {"copy 3 of 4", TASK_COPY, 3, 2, 4, 20},
    {"sort 4 of 3", TASK_SORT, 4, 2, 3, 30},
    {"recall 2 pairs of 3", TASK_RECALL, 3, 2, 3, 40},
    {"reverse 6 of 10", TASK_REVERSE, 6, 2, 10, 64},
};

START_TEST(test_in_val_matches_brute_force) {
    const ValCase *e = &VAL_CASES[_i];
    Config c = gen_config(e->kind, e->length, e->pairs, e->symbols, e->val_size);
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    size_t T = (size_t)t.seq_len;
    int tok[MAXT], tgt[MAXT];
    float m[MAXT];
    int changed_out = 0;
    for (int k = 0; k < t.n_val; k++) {
        const int *vt = t.val_tokens + k * T, *vg = t.val_targets + k * T;
        const float *vm = t.val_mask + k * T;
        ck_assert_msg(task_in_val(&t, vt, vg, vm), "%s: validation row %d not found", e->name, k);
        /* 0: a token, 1: a target, 2: a mask entry changed, at a position that moves with k */
        for (int what = 0; what < 3; what++) {
            memcpy(tok, vt, T * sizeof(int));
            memcpy(tgt, vg, T * sizeof(int));
            memcpy(m, vm, T * sizeof(float));
            size_t i = (size_t)(k + what) % T;
            if (what == 0) tok[i] = (tok[i] + 1) % t.n_symbols;
            if (what == 1) tgt[i] = (tgt[i] + 1) % t.n_symbols;
            if (what == 2) m[i] = m[i] != 0.0f ? 0.0f : 1.0f;
            int want = in_val_brute(&t, tok, tgt, m);
            ck_assert_msg(task_in_val(&t, tok, tgt, m) == want,
                          "%s: row %d with change %d at %zu: task_in_val says %d, brute force %d",
                          e->name, k, what, i, !want, want);
            changed_out += !want;
        }
    }
    ck_assert_int_gt(changed_out, 0);  /* the changes are not all other validation rows */
    Batch b = batch_new(&t, 500);
    task_train_batch(&t, b.B, b.tok, b.tgt, b.m);
    for (int i = 0; i < b.B; i++)
        ck_assert_msg(!task_in_val(&t, b.tok + i * T, b.tgt + i * T, b.m + i * T) &&
                          !in_val_brute(&t, b.tok + i * T, b.tgt + i * T, b.m + i * T),
                      "%s: training row %d is a validation row", e->name, i);
    batch_free(&b);
    task_free(&t);
}
END_TEST

/* Without a separator 'a b | c' and 'a | b c' are the same tokens and targets (a b -> b c); only
 * the mask tells them apart, so the held-out one must not be found for the other. */
START_TEST(test_file_rows_differing_only_in_mask) {
    const char text[] = "a b | c\na | b c\n";
    char path[256];
    write_temp(path, sizeof path, text, sizeof text - 1);
    Config c = file_config(path);
    c.task_separator = SEPARATOR_FALSE;
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.n_val, 1);
    ck_assert_int_eq(t.n_train_file, 1);
    ck_assert_int_eq(t.seq_len, 2);
    ck_assert(memcmp(t.val_tokens, t.file_tokens, 2 * sizeof(int)) == 0);
    ck_assert(memcmp(t.val_targets, t.file_targets, 2 * sizeof(int)) == 0);
    ck_assert(task_in_val(&t, t.val_tokens, t.val_targets, t.val_mask));
    ck_assert(!task_in_val(&t, t.file_tokens, t.file_targets, t.file_mask));
    char v[32], tr[32];
    task_format(&t, t.val_tokens, t.val_targets, t.val_mask, v, sizeof v);
    task_format(&t, t.file_tokens, t.file_targets, t.file_mask, tr, sizeof tr);
    ck_assert(strcmp(v, "a b | c") == 0 ? strcmp(tr, "a | b c") == 0
                                        : strcmp(v, "a | b c") == 0 && strcmp(tr, "a b | c") == 0);
    task_free(&t);
    unlink(path);
}
END_TEST

TU_MAIN_TIMEOUT("valset", 60,
                TU_LOOP(test_in_val_matches_brute_force, 0,
                        (int)(sizeof VAL_CASES / sizeof VAL_CASES[0])),
                test_file_rows_differing_only_in_mask);
