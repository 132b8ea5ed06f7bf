/* test_main.c: the command line of ./train (src/main.c) end to end: a bare ./train prints the
 * usage, trains nothing and says what would, --help's --prompt example is answered,
 * `--set key value` (a space for '=') is named as such, a run's
 * config.ini, --eval and the --compare report carry the provenance, a closed stdout/stderr pipe does not kill a
 * run before its checkpoint, stdout that cannot be written is an I/O error (exit 1), and the
 * restart that sets OMP_WAIT_POLICY keeps the command line. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_internal.h" /* CLI_PROMPT_EXAMPLE */
#include "config/config.h"
#include "train/train.h"
#include "util/version.h"
#include "testutil.h"

static char tmpdir[256];

static void make_tmpdir(void) { tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_main_XXXXXX"); }

static int exists(const char *rel) {
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    return stat(path, &st) == 0;
}

/* A run of a few seconds at most: copy task, one layer. */
#define TINY "--set task.name=copy --set task.length=3 --set task.symbols=6 --set task.val_size=32 " \
             "--set model.d_model=16 --set model.n_heads=2 --set model.n_layers=1 " \
             "--set train.batch_size=8 --set train.eval_every=10 --set log.every=5 --set run.threads=1"

START_TEST(test_no_arguments_prints_usage_and_exits_2) {
    make_tmpdir();
    ck_assert_int_eq(tu_run_train(tmpdir, ""), EXIT_CONFIG);
    ck_assert(tu_train_output_contains(tmpdir, "usage: ./train"));
    /* what is true: a config file or any --set trains; run.name is optional (default "run") */
    ck_assert(tu_train_output_contains(tmpdir, "./train configs/scaled.ini"));
    ck_assert(tu_train_output_contains(tmpdir, "./train --set run.seed=1 (into runs/run/"));
    ck_assert(!tu_train_output_contains(tmpdir, "say ./train --set run.name=NAME"));
    ck_assert(!exists("runs"));
}
END_TEST

START_TEST(test_set_with_space_names_the_argument) {
    make_tmpdir();
    /* the case, and the same after a config file */
    static const char *const cases[] = {"--set optim.lr 1e-3", "cfg.ini --set optim.lr 1e-3"};
    char cfg[300];
    snprintf(cfg, sizeof cfg, "%s/cfg.ini", tmpdir);
    tu_write_file(cfg, "[run]\nname = x\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(tu_run_train(tmpdir, cases[i]), EXIT_CONFIG);
        ck_assert_msg(tu_train_output_contains(tmpdir, "section.key=value"), "case %zu", i);
        ck_assert_msg(tu_train_output_contains(tmpdir, "'optim.lr'"), "case %zu", i);
        ck_assert_msg(!tu_train_output_contains(tmpdir, "more than one config file"), "case %zu", i);
    }
    ck_assert(!exists("runs"));
}
END_TEST

/* --help's --prompt example is one a sort run of the shipped shape (task.length 8, task.symbols
 * 16) answers; a prompt of another length is refused naming the length it needs. */
START_TEST(test_help_prompt_example_is_answered) {
    make_tmpdir();
    ck_assert_int_eq(tu_run_train(tmpdir, "--help"), 0);
    ck_assert(tu_train_output_contains(tmpdir, "--prompt \"" CLI_PROMPT_EXAMPLE "\""));
    ck_assert_int_eq(tu_run_train(tmpdir, "--set task.name=sort --set task.length=8 "
                                          "--set task.symbols=16 --set task.val_size=32 "
                                          "--set model.d_model=16 --set model.n_layers=1 "
                                          "--set train.steps=2 --set train.batch_size=8 "
                                          "--set run.threads=1 --set log.progress=0 "
                                          "--set run.name=s"),
                     0);
    ck_assert_int_eq(tu_run_train(tmpdir, "--eval runs/s --prompt \"" CLI_PROMPT_EXAMPLE "\""), 0);
    ck_assert(tu_train_output_contains(tmpdir, "prompt: " CLI_PROMPT_EXAMPLE "   model:"));
    ck_assert_int_eq(tu_run_train(tmpdir, "--eval runs/s --prompt \"3 1 2\""), EXIT_CONFIG);
    ck_assert(tu_train_output_contains(tmpdir, "3 symbols given, but a sort prompt of this run "
                                               "has 8 (task.length = 8)"));
    ck_assert(!tu_train_output_contains(tmpdir, "validation example"));
}
END_TEST

START_TEST(test_provenance_in_config_ini_and_eval) {
    make_tmpdir();
    ck_assert_int_eq(tu_run_train(tmpdir, TINY " --set train.steps=10 --set run.name=p --set log.progress=0"), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/runs/p/config.ini", tmpdir);
    char want[128];
    snprintf(want, sizeof want, "; provenance: scaledot %s", SCALEDOT_VERSION);
    ck_assert_msg(tu_file_contains(path, want), "config.ini lacks '%s'", want);
    ck_assert(tu_file_contains(path, "; provenance: compiler "));
    ck_assert(tu_file_contains(path, "run.name=p")); /* the command line */
    ck_assert(tu_file_contains(path, " 1 thread, cpu "));
    /* the comments leave the file a config that repeats the run */
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_load_file(&c, path), 0);
    ck_assert_str_eq(c.run_name, "p");
    /* the checkpoint carries them too: --eval shows them */
    ck_assert_int_eq(tu_run_train(tmpdir, "--eval runs/p"), 0);
    snprintf(want, sizeof want, "scaledot %s", SCALEDOT_VERSION);
    ck_assert(tu_train_output_contains(tmpdir, want));
    ck_assert(tu_train_output_contains(tmpdir, "run.name=p"));
    /* and the report shows them */
    ck_assert_int_eq(tu_run_train(tmpdir, "--compare runs/p --out rep"), 0);
    snprintf(path, sizeof path, "%s/rep/index.html", tmpdir);
    ck_assert(tu_file_contains(path, "<h2 id=\"provenance\">Provenance</h2>"));
    ck_assert_msg(tu_file_contains(path, want), "index.html lacks '%s'", want);
    ck_assert_int_eq(tu_run_train(tmpdir, "--version"), 0);
    ck_assert(tu_train_output_contains(tmpdir, want));
    ck_assert(tu_train_output_contains(tmpdir, "-march="));
}
END_TEST

/* Without OMP_WAIT_POLICY, ./train starts itself again with it set to passive (src/main.c); make
 * test sets it for the test programs (the Makefile's TEST_ENV), so this test unsets it: the
 * restarted program gets the whole command line and trains what it asks for. */
START_TEST(test_restart_for_passive_openmp_keeps_the_arguments) {
    make_tmpdir();
    char cmd[2048], path[512];
    snprintf(cmd, sizeof cmd, "cd %s && env -u OMP_WAIT_POLICY %s " TINY " --set train.steps=10 "
             "--set run.name=w --set log.progress=0 > out.txt 2>&1", tmpdir, tu_train_bin());
    int st = system(cmd);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "'%s' failed", cmd);
    snprintf(path, sizeof path, "%s/runs/w/config.ini", tmpdir);
    ck_assert(tu_file_contains(path, "run.name=w"));
    ck_assert(tu_file_contains(path, "steps = 10"));
    snprintf(path, sizeof path, "%s/runs/w/loss.csv", tmpdir);
    ck_assert(tu_file_contains(path, "\n10,"));
}
END_TEST

/* ./train ARGS with stdout on /dev/full (every write fails: no space left) and stderr in
 * tmpdir/out.txt. Returns the exit code. */
static int run_stdout_full(const char *args) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && %s %s >/dev/full 2>%s/out.txt", tmpdir, tu_train_bin(),
             args, tmpdir);
    int st = system(cmd);
    ck_assert_msg(WIFEXITED(st), "'%s' did not exit normally", cmd);
    return WEXITSTATUS(st);
}

/* Output on stdout that could not be written is an I/O error (exit 1, standard output named),
 * whichever command wrote it. */
START_TEST(test_stdout_write_error_exits_1) {
    make_tmpdir();
    ck_assert_int_eq(tu_run_train(tmpdir, TINY " --set train.steps=10 --set run.name=p --set log.progress=0"), 0);
    static const char *const cases[] = {"--version", "--eval runs/p",
                                        "--compare runs/p runs/p --at-equal-loss", "--help"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(tu_run_train(tmpdir, cases[i]), 0); /* written: done */
        ck_assert_msg(run_stdout_full(cases[i]) == 1, "case %zu: exit code not 1", i);
        ck_assert_msg(tu_train_output_contains(tmpdir, "standard output"), "case %zu", i);
    }
    /* a command refused before any output keeps its own exit code */
    ck_assert_int_eq(run_stdout_full("--regime-map"), 2);
}
END_TEST

/* ./train with stdout and stderr on a pipe whose reader is already gone: every write would
 * raise SIGPIPE. Returns the wait status. */
static int run_into_closed_pipe(const char *args) {
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    close(fds[0]);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && exec %s %s", tmpdir, tu_train_bin(), args);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL); /* as a shell pipeline gives it */
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return st;
}

START_TEST(test_closed_pipe_does_not_kill_the_run) {
    make_tmpdir();
    int st = run_into_closed_pipe(TINY " --set train.steps=20 --set run.name=pipe --set log.progress=1");
    ck_assert_msg(!WIFSIGNALED(st), "killed by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    ck_assert_int_eq(WEXITSTATUS(st), 0);
    ck_assert(exists("runs/pipe/checkpoint.bin"));
    char path[512];
    snprintf(path, sizeof path, "%s/runs/pipe/loss.csv", tmpdir);
    ck_assert_int_eq(tu_count_lines(path), 1 + 5); /* header, steps 0, 5, 10, 15, 20 */
}
END_TEST

TU_MAIN_TIMEOUT("main", 120, test_no_arguments_prints_usage_and_exits_2,
                test_set_with_space_names_the_argument, test_help_prompt_example_is_answered,
                test_provenance_in_config_ini_and_eval, test_closed_pipe_does_not_kill_the_run,
                test_stdout_write_error_exits_1, test_restart_for_passive_openmp_keeps_the_arguments);
