/* test_tasks.c: the task's entry points and messages (src/tasks/tasks.c): the kind names, which
 * tasks have a separator, an unknown kind refused, task_init_text the same task as task_init of
 * the same file, task_free safe on an empty task, and errors that name the INI file and line where
 * each key was set. The builders have their own tests (test_generated, test_file_task ...). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "tasktest.h"
#include "testutil.h"

typedef struct {
    TaskKind kind;
    const char *name;
    int sep_auto;  /* task_has_separator with task.separator = auto */
} KindCase;

static const KindCase KINDS[] = {
    {TASK_SORT, "sort", 1},     {TASK_REVERSE, "reverse", 1}, {TASK_COPY, "copy", 1},
    {TASK_RECALL, "recall", 0}, {TASK_FILE, "file", 1},
};

START_TEST(test_kinds) {
    const KindCase *e = &KINDS[_i];
    ck_assert_str_eq(task_kind_name(e->kind), e->name);
    Config c = base_config(e->kind);
    c.task_separator = SEPARATOR_AUTO;
    ck_assert_msg(task_has_separator(&c) == e->sep_auto, "%s: auto", e->name);
    c.task_separator = SEPARATOR_TRUE;
    ck_assert_msg(task_has_separator(&c) == 1, "%s: true", e->name);
    c.task_separator = SEPARATOR_FALSE;
    ck_assert_msg(task_has_separator(&c) == 0, "%s: false", e->name);
}
END_TEST

START_TEST(test_unknown_kind) {
    ck_assert_str_eq(task_kind_name((TaskKind)99), "?");
    Config c = base_config(TASK_SORT);
    c.task = (TaskKind)99;
    Task t;
    char msg[1024];
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "'task.name': unknown task kind 99"), "message: %s", msg);
    ck_assert_ptr_null(t.val_tokens);
}
END_TEST

/* The fuzz harness's entry: text in memory gives the task the file gives. */
START_TEST(test_init_text_same_as_file) {
    const char text[] = "c a t | t a c\nd o g | g o d\nx | y z\nz y | x\na | z\n";
    char path[256];
    write_temp(path, sizeof path, text, sizeof text - 1);
    Config c = file_config(path);
    Task a, b;
    ck_assert_int_eq(task_init(&a, &c), 0);
    ck_assert_int_eq(task_init_text(&b, &c, "in memory", text, sizeof text - 1), 0);
    ck_assert_int_eq(a.n_symbols, b.n_symbols);
    ck_assert_int_eq(a.seq_len, b.seq_len);
    ck_assert_int_eq(a.n_val, b.n_val);
    ck_assert_int_eq(a.n_train_file, b.n_train_file);
    size_t nv = (size_t)a.n_val * (size_t)a.seq_len;
    size_t nt = (size_t)a.n_train_file * (size_t)a.seq_len;
    ck_assert(memcmp(a.val_tokens, b.val_tokens, nv * sizeof(int)) == 0);
    ck_assert(memcmp(a.val_mask, b.val_mask, nv * sizeof(float)) == 0);
    ck_assert(memcmp(a.file_targets, b.file_targets, nt * sizeof(int)) == 0);
    for (int i = 0; i < a.n_symbols; i++) ck_assert_str_eq(a.symbol_names[i], b.symbol_names[i]);
    task_free(&a);
    task_free(&b);
    /* and its errors name the given name */
    char msg[1024];
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = task_init_text(&b, &c, "in memory", "a | b\nno bar\n", 12);
    char *err = tu_capture_end(&cap);
    ck_assert_int_eq(rc, -1);
    snprintf(msg, sizeof msg, "%s", err);
    free(err);
    ck_assert_msg(strstr(msg, "error: in memory:2: missing '|'") == msg, "message: %s", msg);
    unlink(path);
}
END_TEST

START_TEST(test_free_empty_and_twice) {
    Task t;
    memset(&t, 0, sizeof t);
    task_free(&t);
    Config c = base_config(TASK_COPY);
    ck_assert_int_eq(task_init(&t, &c), 0);
    task_free(&t);
    ck_assert_ptr_null(t.val_tokens);
    ck_assert_ptr_null(t.scratch);
    ck_assert_int_eq(t.n_val, 0);
    task_free(&t);
}
END_TEST

/* The errors name where the keys were set: here an INI file read by the config module. */
START_TEST(test_error_names_ini_file_and_line) {
    const char ini[] = "[task]\nname = copy\nlength = 2\nsymbols = 2\n; comment\nval_size = 3\n";
    char path[256];
    write_temp(path, sizeof path, ini, sizeof ini - 1);
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_load_file(&c, path), 0);
    Task t;
    char msg[1024], want[400];
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    snprintf(want, sizeof want, "error: %s:6: 'task.val_size'", path);
    ck_assert_msg(strstr(msg, want) == msg, "message: %s", msg);
    snprintf(want, sizeof want, "%s:3", path);
    ck_assert_msg(strstr(msg, want) != NULL, "message: %s", msg);
    snprintf(want, sizeof want, "%s:4", path);
    ck_assert_msg(strstr(msg, want) != NULL, "message: %s", msg);
    unlink(path);
}
END_TEST

TU_MAIN("tasks", TU_LOOP(test_kinds, 0, (int)(sizeof KINDS / sizeof KINDS[0])), test_unknown_kind,
        test_init_text_same_as_file, test_free_empty_and_twice, test_error_names_ini_file_and_line);
