/* test_file_check.c: a FIFO, a character device or a folder given as the config, the task file
 * or a checkpoint is refused at once (before a byte is read) with a message naming the file;
 * file_read_regular reads regular files whole and stops at its size bound.
 *
 * A FIFO with no writer used to block open() forever and /dev/zero to be read until memory ran
 * out; alarm() turns such a hang into a failed test within seconds. */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "testutil.h"
#include "train/checkpoint.h"
#include "util/file_check.h"

static char tmpdir[200], fifo[230];

static void setup(void) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_file_check_XXXXXX");
    snprintf(fifo, sizeof fifo, "%s/fifo", tmpdir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    alarm(10);
}

static void teardown(void) {
    alarm(0);
    tu_remove_tree(tmpdir);
}

/* The three non-regular inputs every reader must refuse, and the word its message must hold. */
static const char *bad_path(int i) { return i == 0 ? fifo : i == 1 ? "/dev/zero" : tmpdir; }
static const char *const BAD_WHAT[] = {"a FIFO", "a character device", "a folder"};

START_TEST(test_read_regular) {
    char path[320], why[128];
    snprintf(path, sizeof path, "%s/f.txt", tmpdir);
    tu_write_file(path, "0123456789");
    size_t len = 99;
    char *buf = file_read_regular(path, 10, &len, why, sizeof why);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(len, 10);
    ck_assert_str_eq(buf, "0123456789");
    free(buf);
    ck_assert_ptr_null(file_read_regular(path, 9, &len, why, sizeof why));
    ck_assert_msg(strstr(why, "larger than 9 bytes"), "%s", why);
    snprintf(path, sizeof path, "%s/empty.txt", tmpdir);
    tu_write_file(path, "");
    buf = file_read_regular(path, 10, &len, why, sizeof why);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(len, 0);
    free(buf);
    ck_assert_ptr_null(file_read_regular("/nonexistent/x", 10, &len, why, sizeof why));
    ck_assert_msg(strstr(why, "No such file"), "%s", why);
}
END_TEST

START_TEST(test_read_refuses_non_regular) {
    char why[128];
    size_t len;
    ck_assert_ptr_null(file_read_regular(bad_path(_i), 1 << 20, &len, why, sizeof why));
    ck_assert_msg(strstr(why, "not a regular file") && strstr(why, BAD_WHAT[_i]), "%s", why);
}
END_TEST

START_TEST(test_config_refuses_non_regular) {
    Config c;
    config_defaults(&c);
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = config_load_file(&c, bad_path(_i));
    char *err = tu_capture_end(&cap);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, bad_path(_i)) && strstr(err, BAD_WHAT[_i]), "%s", err);
    free(err);
}
END_TEST

START_TEST(test_task_file_refuses_non_regular) {
    Config c;
    config_defaults(&c);
    c.task = TASK_FILE;
    snprintf(c.task_file, sizeof c.task_file, "%.200s", bad_path(_i));
    Task t;
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = task_init(&t, &c);
    char *err = tu_capture_end(&cap);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, bad_path(_i)) && strstr(err, BAD_WHAT[_i]) && strstr(err, "task.file"),
                  "%s", err);
    free(err);
    task_free(&t);
}
END_TEST

START_TEST(test_checkpoint_refuses_non_regular) {
    ModelConfig mc = {.vocab_size = 5, .d_model = 4, .n_heads = 1, .n_layers = 1, .d_ff = 8,
                      .max_seq_len = 3, .ln_eps = 1e-5f, .scale = 0.5f};
    Model m;
    Optimizer o;
    ck_assert_int_eq(model_build(&m, &mc, 1), 0);
    ck_assert_int_eq(optim_init(&o, OPT_ADAMW, 0.9, 0.999, 1e-8, 0, 0, m.n_params), 0);
    CheckpointState st;
    char *text = NULL;
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = checkpoint_load(bad_path(_i), &m, &o, &st);
    int rc2 = checkpoint_read_config(bad_path(_i), &text);
    char *err = tu_capture_end(&cap);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(rc2, -1);
    ck_assert_ptr_null(text);
    ck_assert_msg(strstr(err, bad_path(_i)) && strstr(err, BAD_WHAT[_i]), "%s", err);
    free(err);
    optim_free(&o);
    model_free(&m);
}
END_TEST

/* End to end: ./train with a FIFO as its config exits with code 2 at once. */
START_TEST(test_train_refuses_fifo_config) {
    char args[400];
    snprintf(args, sizeof args, "%s", fifo);
    ck_assert_int_eq(tu_run_train(tmpdir, args), CONFIG_EXIT_CODE);
    ck_assert(tu_train_output_contains(tmpdir, "a FIFO"));
}
END_TEST

int main(void) {
    Suite *s = suite_create("file_check");
    TCase *tc = tcase_create("file_check");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_read_regular);
    tcase_add_loop_test(tc, test_read_refuses_non_regular, 0, 3);
    tcase_add_loop_test(tc, test_config_refuses_non_regular, 0, 3);
    tcase_add_loop_test(tc, test_task_file_refuses_non_regular, 0, 3);
    tcase_add_loop_test(tc, test_checkpoint_refuses_non_regular, 0, 3);
    tcase_add_test(tc, test_train_refuses_fifo_config);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
