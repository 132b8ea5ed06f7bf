/* test_file_parse.c: reading a task file (src/tasks/file_parse.c): a byte-order mark, CRLF,
 * blank and comment lines, tabs, UTF-8 symbols and a missing final newline; a table of malformed
 * files, each refused with its file and line; unreadable paths; and the symbol limit, which names
 * the line that exceeds it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "tasktest.h"
#include "testutil.h"

START_TEST(test_file_parse) {
    const char text[] = "\xEF\xBB\xBF# a comment line\r\n"
                        "c a t | t a c\r\n"
                        "\r\n"
                        "   \t\r\n"
                        "  # indented comment | with a bar\n"
                        "d\to g|g o d\n"
                        "h\xC3\xA9llo world | \xE2\x86\x92 !\r\n"
                        "x | y z w v";  /* no final newline */
    char path[256];
    write_temp(path, sizeof path, text, sizeof text - 1);
    Config c = file_config(path);
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    const char *names[] = {"!", "a", "c", "d", "g", "h\xC3\xA9llo", "o", "t", "v", "w",
                           "world", "x", "y", "z", "\xE2\x86\x92"};
    int ns = (int)(sizeof names / sizeof names[0]);
    ck_assert_int_eq(t.n_symbols, ns);
    for (int i = 0; i < ns; i++) ck_assert_str_eq(t.symbol_names[i], names[i]);
    ck_assert_int_eq(t.sep, ns);
    ck_assert_int_eq(t.pad, ns + 1);
    ck_assert_int_eq(t.vocab_size, ns + 2);
    ck_assert_int_eq(t.seq_len, 6);  /* "c a t | t a c": 7 tokens, T = 6 */
    ck_assert_int_eq(t.max_answer, 4);
    ck_assert_int_eq(t.n_val, 1);  /* 4 examples: max(1, min(64, 4/5)) */
    ck_assert_int_eq(t.n_train_file, 3);
    ck_assert_int_eq(t.n_duplicates, 0);
    char lines[8][128];
    int n = all_examples(&t, lines, 8);
    ck_assert_int_eq(n, 4);
    ck_assert(contains_line(lines, n, "c a t | t a c"));
    ck_assert(contains_line(lines, n, "d o g | g o d"));
    ck_assert(contains_line(lines, n, "h\xC3\xA9llo world | \xE2\x86\x92 !"));
    ck_assert(contains_line(lines, n, "x | y z w v"));
    task_free(&t);
    unlink(path);
}
END_TEST
typedef struct {
    const char *text;
    size_t len;      /* bytes of text; 0 = strlen */
    int line;        /* expected line in the message, 0 = none */
    const char *what;
} FileErrorCase;

static const FileErrorCase FILE_ERRORS[] = {
    {"a | b\n# c\nno bar here\n", 0, 3, "missing '|'"},
    {"a | b\nb | c | d\n", 0, 2, "more than one '|'"},
    {"a | b\r\n  | c\r\n", 0, 2, "empty prompt"},
    {"a | b\nx y |   \n", 0, 2, "empty answer"},
    {"# only\n\n  # comments\n", 0, 0, "no examples"},
    {"a | b\na | b\r\n", 0, 0, "only 1 distinct example"},
    {"a | b\nb \xC3\x28 | c\n", 0, 2, "invalid UTF-8"},
    {"a | b\nb | c\x00\n", 13, 2, "NUL"},
    {"", 0, 0, "no examples"},
};

START_TEST(test_file_errors) {
    const FileErrorCase *e = &FILE_ERRORS[_i];
    size_t len = e->len ? e->len : strlen(e->text);
    char path[256], msg[1024], want[300];
    write_temp(path, sizeof path, e->text, len);
    Config c = file_config(path);
    Task t;
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    if (e->line)
        snprintf(want, sizeof want, "error: %s:%d: ", path, e->line);
    else
        snprintf(want, sizeof want, "error: %s: ", path);
    ck_assert_msg(strstr(msg, want) == msg, "want prefix '%s', message: %s", want, msg);
    ck_assert_msg(strstr(msg, e->what), "want '%s', message: %s", e->what, msg);
    ck_assert_msg(strstr(msg, "task.file"), "message: %s", msg);
    ck_assert_ptr_null(t.symbol_names);
    task_free(&t);
    unlink(path);
}
END_TEST

typedef struct {
    const char *path;
    const char *prefix;  /* the message starts with it */
    const char *what;    /* and holds it */
} UnreadableCase;

static const UnreadableCase UNREADABLE[] = {
    {"/nonexistent/scaledot/none.txt", "error: /nonexistent/scaledot/none.txt: ",
     "No such file or directory"},
    {"/tmp", "error: /tmp: ", "task.file"},  /* a directory: opens, but cannot be read */
    {"", "error: default: 'task.file': ", "task.file"},            /* the key is empty */
};

START_TEST(test_file_unreadable) {
    const UnreadableCase *e = &UNREADABLE[_i];
    Config c = file_config(e->path);
    Task t;
    char msg[1024];
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, e->prefix) == msg && strstr(msg, e->what), "'%s': message: %s",
                  e->path, msg);
}
END_TEST

START_TEST(test_file_too_many_symbols) {
    /* 4096 distinct prompts plus the answer symbol 'x' make 4097 symbols: the line that brings
     * the 4097th is named. */
    char *text = malloc(1 << 17);
    size_t len = 0;
    for (int i = 0; i < 4096; i++) len += (size_t)sprintf(text + len, "s%d | x\n", i);
    char path[256], msg[1024], want[300];
    write_temp(path, sizeof path, text, len);
    Config c = file_config(path);
    Task t;
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    snprintf(want, sizeof want, "error: %s:4096: ", path);
    ck_assert_msg(strstr(msg, want) == msg && strstr(msg, "too many distinct symbols") &&
                      strstr(msg, "4096"),
                  "message: %s", msg);
    unlink(path);
    /* exactly 4096 is accepted */
    len = 0;
    for (int i = 0; i < 4095; i++) len += (size_t)sprintf(text + len, "s%d | x\n", i);
    write_temp(path, sizeof path, text, len);
    free(text);
    c = file_config(path);
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.n_symbols, 4096);
    ck_assert_int_eq(t.vocab_size, 4098);
    task_free(&t);
    unlink(path);
}
END_TEST

TU_MAIN_TIMEOUT("file_parse", 60, test_file_parse,
                TU_LOOP(test_file_errors, 0, (int)(sizeof FILE_ERRORS / sizeof FILE_ERRORS[0])),
                TU_LOOP(test_file_unreadable, 0, (int)(sizeof UNREADABLE / sizeof UNREADABLE[0])),
                test_file_too_many_symbols);
