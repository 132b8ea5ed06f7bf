/* test_file_task.c: the file task built from a task file (src/tasks/file_task.c): ids that do not
 * depend on line order, duplicates removed, the held-out split (a fifth at most) reproducible by
 * seed, short rows padded, the model.max_seq_len check, and the shipped data/words.txt. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "tasktest.h"
#include "testutil.h"

START_TEST(test_file_ids_do_not_depend_on_line_order) {
    const char a[] = "b a | c\nz | y\n", b[] = "z | y\nb a | c\n";
    char pa[256], pb[256];
    write_temp(pa, sizeof pa, a, sizeof a - 1);
    write_temp(pb, sizeof pb, b, sizeof b - 1);
    Config ca = file_config(pa), cb = file_config(pb);
    Task ta, tb;
    ck_assert_int_eq(task_init(&ta, &ca), 0);
    ck_assert_int_eq(task_init(&tb, &cb), 0);
    ck_assert_int_eq(ta.n_symbols, 5);
    ck_assert_int_eq(tb.n_symbols, 5);
    for (int i = 0; i < 5; i++) ck_assert_str_eq(ta.symbol_names[i], tb.symbol_names[i]);
    ck_assert_str_eq(ta.symbol_names[0], "a");
    ck_assert_str_eq(ta.symbol_names[4], "z");
    task_free(&ta);
    task_free(&tb);
    unlink(pa);
    unlink(pb);
}
END_TEST

START_TEST(test_file_dedup_split_and_padding) {
    /* 50 distinct examples of varying length, each written twice or three times, plus two
     * lines of the same symbols split differently (distinct examples; the same prompt with
     * another answer would be an error). */
    char *text = malloc(1 << 16);
    size_t len = 0;
    for (int rep = 0; rep < 3; rep++)
        for (int i = 0; i < 50; i++) {
            if (rep == 2 && i % 2) continue;
            len += (size_t)sprintf(text + len, "n%d", i);
            for (int k = 0; k < i % 4; k++) len += (size_t)sprintf(text + len, " p%d", k);
            len += (size_t)sprintf(text + len, " | a%d", i % 7);
            for (int k = 0; k < i % 3; k++) len += (size_t)sprintf(text + len, " q");
            len += (size_t)sprintf(text + len, "\n");
        }
    len += (size_t)sprintf(text + len, "p0 | n0 a0\np0 n0 | a0\n");
    char path[256];
    write_temp(path, sizeof path, text, len);
    free(text);
    Config c = file_config(path);
    c.val_size = 100;  /* more than a fifth: capped at 52 / 5 = 10 */
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.n_duplicates, 125 - 50);
    ck_assert_int_eq(t.n_val, 10);
    ck_assert_int_eq(t.n_train_file, 42);
    ck_assert_int_eq(t.seq_len, 1 + 3 + 1 + 2);
    ck_assert_int_eq(t.max_answer, 3);
    char lines[64][128];
    int n = all_examples(&t, lines, 64);
    ck_assert_int_eq(n, 52);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) ck_assert_str_ne(lines[a], lines[b]);
    ck_assert(contains_line(lines, n, "p0 | n0 a0"));
    ck_assert(contains_line(lines, n, "p0 n0 | a0"));
    ck_assert(contains_line(lines, n, "n0 | a0"));
    /* every row is well formed; short ones are padded with PAD and mask 0 */
    size_t T = (size_t)t.seq_len;
    Decoded d;
    int padded = 0;
    for (int k = 0; k < t.n_train_file; k++) {
        const int *tok = t.file_tokens + k * T, *tgt = t.file_targets + k * T;
        const float *m = t.file_mask + k * T;
        decode_row(&t, tok, tgt, m, &d);
        ck_assert_int_eq(val_index_of(&t, tok, tgt), -1);
        if (d.L - 1 < (int)T) {
            padded++;
            for (size_t i = (size_t)d.L - 1; i < T; i++) {
                TU_CHECK_INT_EQ(tok[i], t.pad);
                TU_CHECK_INT_EQ(tgt[i], t.pad);
                TU_CHECK(m[i] == 0.0f);
            }
        }
    }
    ck_assert_int_gt(padded, 20);
    for (int k = 0; k < t.n_val; k++)
        decode_row(&t, t.val_tokens + k * T, t.val_targets + k * T, t.val_mask + k * T, &d);

    /* same seed, same split; another seed holds out other examples */
    Task t2, t3;
    ck_assert_int_eq(task_init(&t2, &c), 0);
    c.seed = 99;
    ck_assert_int_eq(task_init(&t3, &c), 0);
    size_t nv = (size_t)t.n_val * T;
    ck_assert(memcmp(t.val_tokens, t2.val_tokens, nv * sizeof(int)) == 0);
    ck_assert(memcmp(t.val_tokens, t3.val_tokens, nv * sizeof(int)) != 0);
    task_free(&t);
    task_free(&t2);
    task_free(&t3);
    unlink(path);
}
END_TEST

START_TEST(test_file_max_seq_len) {
    const char text[] = "a b c | d\ne | f g h i\n";
    char path[256], msg[1024];
    write_temp(path, sizeof path, text, sizeof text - 1);
    Config c = file_config(path);
    c.max_seq_len = 4;
    Task t;
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "'model.max_seq_len' = 4 is too short for task 'file' (sequences "
                              "need T = 5 tokens)"),
                  "message: %s", msg);
    c.max_seq_len = 5;
    ck_assert_int_eq(task_init(&t, &c), 0);
    task_free(&t);
    unlink(path);
}
END_TEST

/* The shipped example loads and really is "reverse the letters". */
START_TEST(test_shipped_words_file) {
    Config c = file_config(SCALEDOT_SOURCE_DIR "/data/words.txt");
    Task t;
    ck_assert_msg(task_init(&t, &c) == 0, "%s did not load", c.task_file);
    ck_assert_int_le(t.n_symbols, 26);
    ck_assert_int_ge(t.n_val + t.n_train_file, 200);
    ck_assert_int_eq(t.n_duplicates, 0);
    size_t T = (size_t)t.seq_len;
    Decoded d;
    for (int k = 0; k < t.n_train_file; k++) {
        decode_row(&t, t.file_tokens + k * T, t.file_targets + k * T, t.file_mask + k * T, &d);
        ck_assert_int_eq(d.na, d.p);
        for (int i = 0; i < d.p; i++) ck_assert_int_eq(d.answer[i], d.prompt[d.p - 1 - i]);
    }
    for (int k = 0; k < t.n_val; k++) {
        decode_row(&t, t.val_tokens + k * T, t.val_targets + k * T, t.val_mask + k * T, &d);
        ck_assert_int_eq(d.na, d.p);
        for (int i = 0; i < d.p; i++) ck_assert_int_eq(d.answer[i], d.prompt[d.p - 1 - i]);
    }
    task_free(&t);
}
END_TEST

TU_MAIN_TIMEOUT("file_task", 60, test_file_ids_do_not_depend_on_line_order,
                test_file_dedup_split_and_padding, test_file_max_seq_len, test_shipped_words_file);
