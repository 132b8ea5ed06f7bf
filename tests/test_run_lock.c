/* test_run_lock.c: the "being trained" lock of a run folder (src/util/run_lock.c): seen by
 * other processes while held, gone when its process ends; a second ./train on a held folder is
 * refused, and the report labels such a run "running", not "stopped". */
#include "util/run_lock.h"

#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/read/read.h"
#include "testutil.h"

#define FIX SCALEDOT_SOURCE_DIR "/tests/fixtures/runs"

static char tmpdir[256];

/* A child that takes the lock of dir, says so on a pipe and waits to be killed. */
static pid_t hold_in_child(const char *dir) {
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        pid_t h = 0;
        char ok = run_lock_take(dir, &h) >= 0 ? 'y' : 'n';
        if (write(fds[1], &ok, 1) != 1) _exit(1);
        for (;;) pause();
    }
    close(fds[1]);
    char ok = 0;
    ck_assert_int_eq(read(fds[0], &ok, 1), 1);
    close(fds[0]);
    ck_assert_int_eq(ok, 'y');
    return pid;
}

static void end_child(pid_t pid) {
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
}

START_TEST(test_lock_seen_while_held_and_gone_after) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_run_lock_XXXXXX");
    ck_assert_int_eq(run_lock_holder(tmpdir), 0); /* no .lock yet */
    pid_t child = hold_in_child(tmpdir);
    ck_assert_int_eq(run_lock_holder(tmpdir), child);
    pid_t h = 0;
    ck_assert_int_eq(run_lock_take(tmpdir, &h), -2);
    ck_assert_int_eq(h, child);
    end_child(child); /* killed, not tidied up: the kernel releases the lock */
    ck_assert_int_eq(run_lock_holder(tmpdir), 0);
    int fd = run_lock_take(tmpdir, &h);
    ck_assert_int_ge(fd, 0);
    close(fd);
    tu_remove_tree(tmpdir);
}
END_TEST

START_TEST(test_second_train_refused_and_report_says_running) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_run_lock_XXXXXX");
    char run[PATH_MAX], cmd[PATH_MAX * 2];
    snprintf(run, sizeof run, "%s/runs/no_attention", tmpdir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s/runs && cp -r %s/no_attention %s/runs/", tmpdir, FIX, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    /* the fixture stopped at step 50 of 100 */
    Run r;
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(load_run(&r, run), 0);
    char status[64];
    run_status(&r, status, sizeof status);
    ck_assert_msg(strncmp(status, "stopped @", 9) == 0, "status '%s'", status);
    pid_t child = hold_in_child(run);
    run_status(&r, status, sizeof status);
    ck_assert_msg(strncmp(status, "running @", 9) == 0, "status '%s' while it trains", status);
    ck_assert_int_eq(tu_run_train(tmpdir, "--set run.name=no_attention --set train.steps=5"), 2);
    /* at the argument that named the folder: the --set of run.name */
    ck_assert(tu_train_output_contains(tmpdir, "error: --set (argument 2): run folder "
                                               "'runs/no_attention' is being trained by another "
                                               "process (pid "));
    snprintf(cmd, sizeof cmd, "%s/loss.csv", run);
    ck_assert_int_eq(tu_count_lines(cmd), 8); /* its logs untouched: the fixture's 8 lines */
    end_child(child);
    run_status(&r, status, sizeof status);
    ck_assert_msg(strncmp(status, "stopped @", 9) == 0, "status '%s' after", status);
    free_run(&r);
    tu_remove_tree(tmpdir);
}
END_TEST

TU_MAIN_TIMEOUT("run_lock", 60, test_lock_seen_while_held_and_gone_after,
                test_second_train_refused_and_report_says_running);
