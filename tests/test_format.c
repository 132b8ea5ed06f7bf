/* test_format.c: examples and tokens as text (src/tasks/format.c): a table of hand-made rows
 * (with and without a separator, truncated to small buffers), the file task's symbol names, and
 * a table of token names (symbols, <sep>, <pad>, ids outside the vocabulary, truncation). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "tasktest.h"
#include "testutil.h"

enum { SEP = -1 };  /* stands for the task's SEP id, known after task_init */

typedef struct {
    const char *name;
    TaskKind kind;
    SeparatorMode mode;
    int length, pairs, symbols;
    int T;                /* the task's T, by hand */
    int tok[8], tgt[8];
    float m[8];
    int bufsize;
    const char *want;
} FormatCase;

static const FormatCase FORMATS[] = {
    /* the sequence "11 2 7 SEP 2 7 11" without its last token, and shifted by one */
    {"sort", TASK_SORT, SEPARATOR_AUTO, 3, 2, 12, 6, {11, 2, 7, SEP, 2, 7},
     {2, 7, SEP, 2, 7, 11}, {0, 0, 0, 1, 1, 1}, 64, "11 2 7 | 2 7 11"},
    {"sort, 6 bytes", TASK_SORT, SEPARATOR_AUTO, 3, 2, 12, 6, {11, 2, 7, SEP, 2, 7},
     {2, 7, SEP, 2, 7, 11}, {0, 0, 0, 1, 1, 1}, 6, "11 2 "},
    {"sort, 1 byte", TASK_SORT, SEPARATOR_AUTO, 3, 2, 12, 6, {11, 2, 7, SEP, 2, 7},
     {2, 7, SEP, 2, 7, 11}, {0, 0, 0, 1, 1, 1}, 1, ""},
    /* 3 1 5 2 5 -> 2: without a separator the value of key 5 is predicted at the query token */
    {"recall", TASK_RECALL, SEPARATOR_FALSE, 3, 2, 9, 5, {3, 1, 5, 2, 5}, {1, 5, 2, 5, 2},
     {0, 0, 0, 0, 1}, 64, "3 1 5 2 5 | 2"},
    {"recall with SEP", TASK_RECALL, SEPARATOR_TRUE, 3, 2, 9, 6, {3, 1, 5, 2, 5, SEP},
     {1, 5, 2, 5, SEP, 2}, {0, 0, 0, 0, 0, 1}, 64, "3 1 5 2 5 | 2"},
    /* copy without a separator: the prompt runs up to and including the first answer target */
    {"copy", TASK_COPY, SEPARATOR_FALSE, 2, 2, 9, 3, {4, 8, 4}, {8, 4, 8}, {0, 1, 1}, 64,
     "4 8 | 4 8"},
};

START_TEST(test_format_rows) {
    const FormatCase *e = &FORMATS[_i];
    Config c = gen_config(e->kind, e->length, e->pairs, e->symbols, 2);
    c.task_separator = e->mode;
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_msg(t.seq_len == e->T, "%s: T %d, want %d", e->name, t.seq_len, e->T);
    int tok[8], tgt[8];
    for (int i = 0; i < e->T; i++) {
        tok[i] = e->tok[i] == SEP ? t.sep : e->tok[i];
        tgt[i] = e->tgt[i] == SEP ? t.sep : e->tgt[i];
    }
    char buf[64];
    memset(buf, 'x', sizeof buf);
    task_format(&t, tok, tgt, e->m, buf, e->bufsize);
    ck_assert_msg(strcmp(buf, e->want) == 0, "%s: '%s', want '%s'", e->name, buf, e->want);
    task_free(&t);
}
END_TEST

START_TEST(test_file_format_uses_names) {
    const char text[] = "c a t | t a c\nd o g | g o d\n";
    char path[256];
    write_temp(path, sizeof path, text, sizeof text - 1);
    Config c = file_config(path);
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.n_val, 1);
    ck_assert_int_eq(t.n_train_file, 1);
    char v[64], tr[64];
    task_format(&t, t.val_tokens, t.val_targets, t.val_mask, v, sizeof v);
    task_format(&t, t.file_tokens, t.file_targets, t.file_mask, tr, sizeof tr);
    ck_assert_str_ne(v, tr);
    ck_assert(strcmp(v, "c a t | t a c") == 0 || strcmp(v, "d o g | g o d") == 0);
    ck_assert(strcmp(tr, "c a t | t a c") == 0 || strcmp(tr, "d o g | g o d") == 0);
    task_free(&t);
    unlink(path);
}
END_TEST

typedef struct {
    int token;
    int bufsize;
    const char *generated, *file;  /* want: sort over 10 symbols; the file task below */
} TokenCase;

/* Generated: symbols 0..9, SEP 10, PAD 11. File "cat | dog\nbird | fish\n": the alphabet sorted,
 * bird cat dog fish, so SEP 4 and PAD 5. */
static const TokenCase TOKENS[] = {
    {0, 32, "0", "bird"},    {3, 32, "3", "fish"},      {4, 32, "4", "<sep>"},
    {5, 32, "5", "<pad>"},   {9, 32, "9", "?"},         {10, 32, "<sep>", "?"},
    {11, 32, "<pad>", "?"},  {12, 32, "?", "?"},        {-1, 32, "?", "?"},
    {10, 3, "<s", "?"},      {3, 3, "3", "fi"},         {0, 1, "", ""},
};

START_TEST(test_token_names) {
    const TokenCase *e = &TOKENS[_i];
    const char text[] = "cat | dog\nbird | fish\n";
    char path[256];
    write_temp(path, sizeof path, text, sizeof text - 1);
    Config cf = file_config(path), cg = base_config(TASK_SORT);
    Task tf, tg;
    ck_assert_int_eq(task_init(&tf, &cf), 0);
    ck_assert_int_eq(task_init(&tg, &cg), 0);
    char buf[32];
    task_token_name(&tg, e->token, buf, e->bufsize);
    ck_assert_msg(strcmp(buf, e->generated) == 0, "generated, token %d, %d bytes: '%s', want '%s'",
                  e->token, e->bufsize, buf, e->generated);
    task_token_name(&tf, e->token, buf, e->bufsize);
    ck_assert_msg(strcmp(buf, e->file) == 0, "file, token %d, %d bytes: '%s', want '%s'", e->token,
                  e->bufsize, buf, e->file);
    task_free(&tf);
    task_free(&tg);
    unlink(path);
}
END_TEST

TU_MAIN("format", TU_LOOP(test_format_rows, 0, (int)(sizeof FORMATS / sizeof FORMATS[0])),
        test_file_format_uses_names,
        TU_LOOP(test_token_names, 0, (int)(sizeof TOKENS / sizeof TOKENS[0])));
