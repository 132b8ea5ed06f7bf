/* test_file_check.c: a FIFO, a character device or a folder given as the config, the task file
 * or a checkpoint is refused at once (before a byte is read) with a message naming the file;
 * file_read_regular reads regular files whole and stops at its size bound.
 *
 * A FIFO with no writer used to block open() forever and /dev/zero to be read until memory ran
 * out; alarm() turns such a hang into a failed test within seconds. End to end: a FIFO (or a link
 * to /dev/zero) at each file --resume, --compare, a sweep restart, --collect and --sweep-report
 * read (the task file of a resumed run included) ends the command at once (under `timeout`),
 * non-zero, naming the file. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
    ck_assert_int_eq(errno, ENOENT);
    /* file_fopen_regular: the bound is checked before a byte is read (EFBIG) */
    snprintf(path, sizeof path, "%s/f.txt", tmpdir);
    ck_assert_ptr_null(file_fopen_regular(path, 9, why, sizeof why));
    ck_assert_int_eq(errno, EFBIG);
    ck_assert_msg(strstr(why, "larger than 9 bytes"), "%s", why);
    FILE *f = file_fopen_regular(path, 10, why, sizeof why);
    ck_assert_ptr_nonnull(f);
    char line[32];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "0123456789");
    fclose(f);
}
END_TEST

START_TEST(test_read_refuses_non_regular) {
    char why[128];
    size_t len;
    ck_assert_ptr_null(file_read_regular(bad_path(_i), 1 << 20, &len, why, sizeof why));
    ck_assert_msg(strstr(why, "not a regular file") && strstr(why, BAD_WHAT[_i]), "%s", why);
    /* the stream form, for the line-by-line readers: the same refusal, errno EINVAL */
    why[0] = 0;
    errno = 0;
    ck_assert_ptr_null(file_fopen_regular(bad_path(_i), 1 << 20, why, sizeof why));
    ck_assert_int_eq(errno, EINVAL);
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
    ck_assert_int_eq(optim_init(&o, OPTIMIZER_ADAMW, 0.9, 0.999, 1e-8, 0, 0, m.n_params), 0);
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
    ck_assert_int_eq(tu_run_train(tmpdir, args), EXIT_CONFIG);
    ck_assert(tu_train_output_contains(tmpdir, "a FIFO"));
}
END_TEST


/* ---- end to end: every file a command reads -------------------------------------------------- */

static char e2e[200];

static void e2e_setup(void) { tu_make_tmp(e2e, sizeof e2e, "/tmp/scaledot_test_file_check_e2e_XXXXXX"); }
static void e2e_teardown(void) { tu_remove_tree(e2e); }

static int sh_in(const char *dir, const char *cmd) {
    char all[2048];
    snprintf(all, sizeof all, "cd %s && %s", dir, cmd);
    int st = system(all);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* What each case makes unreadable (a FIFO, or with zero a link to /dev/zero) in a copy of the
 * finished run r or sweep sw, and the command run on it; all must end within the timeout,
 * non-zero (exit_ok: any exit code, the file named in a warning), naming the file. */
static const struct {
    const char *file, *cmd;
    int zero, exit_ok;
} READS[] = {
    {"r/checkpoint.bin", "--resume r --set train.steps=30", 0, 0},
    {"r/config.ini", "--resume r --set train.steps=30", 0, 0},
    {"r/loss.csv", "--resume r --set train.steps=30", 0, 0},
    {"r/grad_norms.csv", "--resume r --set train.steps=30", 0, 0},
    {"r/attention.csv", "--resume r --set train.steps=30", 0, 0},
    {"r/loss.csv", "--resume r --set train.steps=30", 1, 0},
    {"r/loss.csv", "--compare r --out rep", 0, 0},
    {"r/loss.csv", "--compare r --out rep", 1, 0},
    {"r/config.ini", "--compare r --out rep", 0, 0},
    {"r/grad_norms.csv", "--compare r --out rep", 0, 0},
    {"r/attention.csv", "--compare r --out rep", 0, 0},
    {"r/attn_map.csv", "--compare r --out rep", 0, 0},
    {"sw/plan.txt", "--sweep tiny.ini --grid optim.lr=1e-3 --steps 5 --out sw", 0, 0},
    {"sw/plan.txt", "--sweep --collect --out sw", 0, 0},
    {"sw/sweep.csv", "--sweep-report sw", 0, 0},
    {"sw/runs/lr-1e-3/sweep_result.txt", "--sweep tiny.ini --grid optim.lr=1e-3 --steps 5 --out sw", 0, 1},
    {"sw/runs/lr-1e-3/loss.csv", "--sweep --collect --out sw", 0, 1},
    {"words.txt", "--resume rt --set train.steps=30", 0, 0}, /* the task file of run rt */
};

START_TEST(test_commands_refuse_unreadable_inputs) {
    char cmd[1024], path[400];
    snprintf(path, sizeof path, "%s/tiny.ini", e2e);
    tu_write_file(path, "[task]\nname = copy\nlength = 3\nsymbols = 6\nval_size = 16\n"
                        "[model]\nn_layers = 1\nd_model = 16\n[train]\nbatch_size = 8\n");
    snprintf(cmd, sizeof cmd,
             "%s tiny.ini --set train.steps=20 --set train.checkpoint_every=10 --set log.progress=0 "
             "--set run.dir=. --set run.name=r > /dev/null 2>&1 && %s --sweep tiny.ini --grid "
             "optim.lr=1e-3 --steps 5 --out sw > /dev/null 2>&1",
             tu_train_bin(), tu_train_bin());
    ck_assert_int_eq(sh_in(e2e, cmd), 0);
    snprintf(path, sizeof path, "%s/words.txt", e2e);
    tu_write_file(path, "a b | b a\nb c | c b\nc a | a c\na a | a a\nb b | b b\nc c | c c\n");
    snprintf(cmd, sizeof cmd,
             "%s --set task.name=file --set task.file=words.txt --set task.val_size=2 "
             "--set model.d_model=16 --set train.batch_size=4 --set train.steps=20 "
             "--set train.checkpoint_every=10 --set log.progress=0 --set run.dir=. --set run.name=rt "
             "> /dev/null 2>&1", tu_train_bin());
    ck_assert_int_eq(sh_in(e2e, cmd), 0);
    ck_assert_int_eq(sh_in(e2e, "mkdir pristine && cp -a r sw rt words.txt pristine/"), 0);
    for (size_t k = 0; k < sizeof READS / sizeof READS[0]; k++) {
        snprintf(cmd, sizeof cmd, "rm -rf r sw rt words.txt rep && cp -a pristine/* . && rm %s && %s",
                 READS[k].file, READS[k].zero ? "ln -s /dev/zero" : "mkfifo");
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " %s", READS[k].file);
        ck_assert_int_eq(sh_in(e2e, cmd), 0);
        snprintf(cmd, sizeof cmd, "timeout 30 %s %s > out.txt 2>&1", tu_train_bin(), READS[k].cmd);
        int rc = sh_in(e2e, cmd);
        ck_assert_msg(rc != 124, "case %zu: '%s' with %s hung", k, READS[k].cmd, READS[k].file);
        ck_assert_msg(READS[k].exit_ok || rc != 0, "case %zu: '%s' with %s exited 0", k,
                      READS[k].cmd, READS[k].file);
        snprintf(path, sizeof path, "%s/out.txt", e2e);
        char *out = tu_read_file(path, NULL);
        const char *what = READS[k].zero ? "a character device" : "a FIFO";
        ck_assert_msg(out && strstr(out, READS[k].file) && strstr(out, what),
                      "case %zu: '%s' with %s: no message naming it as %s: %s", k, READS[k].cmd,
                      READS[k].file, what, out ? out : "");
        free(out);
    }
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
    TCase *e = tcase_create("commands");
    tcase_set_timeout(e, 600);
    tcase_add_checked_fixture(e, e2e_setup, e2e_teardown);
    tcase_add_test(e, test_commands_refuse_unreadable_inputs);
    suite_add_tcase(s, e);
    return tu_run(s);
}
