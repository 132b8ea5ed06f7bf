/* test_sweep.c: ./train --sweep (src/report/sweep.c).
 *
 * A tiny real sweep (copy of 3 symbols over 6, one layer, 20 steps, d_k 4 and 8, scales sqrt_dk
 * and none, one seed) into a fresh mkdtemp folder: sweep.csv holds one row per run with the right
 * keys and sane numbers, the unscaled logits are wider at step 0, and the three figures are
 * well-formed with one series per scale mode. A run stopped by a guard is recorded and the sweep
 * goes on; without --out the folder is sweeps/<config name>. Then the error paths: bad arguments
 * and a bad base config must exit with 2 before any run, leaving no sweep folder behind; and
 * SIGINT during a run stops the sweep with exit code 130, as it stops ./train. */
#include "report/report.h"

#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report/csv.h"
#include "testutil.h"
#include "xmlcheck.h"

static char g_tmp[64];

static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_sweep.XXXXXX"); }

static void remove_tmp(void) { tu_remove_tree(g_tmp); }

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* g_tmp/name into buf. */
static char *tmp_path(char *buf, size_t n, const char *name) {
    snprintf(buf, n, "%s/%s", g_tmp, name);
    return buf;
}

/* The tiny task: 216 possible inputs, so 32 validation examples leave plenty to train on.
 * One thread: the runs are far too small for OpenMP to pay, and the machine is shared. */
static const char TINY_INI[] = "[run]\nthreads = 1\n"
                               "[task]\nname = copy\nlength = 3\nsymbols = 6\nval_size = 32\n"
                               "[model]\nn_layers = 1\n"
                               "[train]\nbatch_size = 8\n";

/* Runs report_sweep on a NULL-terminated argument list with stdout and stderr captured. */
static TuResult sweep(const char *first, ...) {
    va_list ap;
    va_start(ap, first);
    TuResult r = tu_vcall(report_sweep, first, ap);
    va_end(ap);
    return r;
}

/* Reads a figure, checks that it is well-formed XML and returns its text (caller frees). */
static char *read_figure(const char *dir, const char *file) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return tu_read_xml(path);
}

/* ------------------------------------------------------------------ the tiny sweep */

static void check_rows(const Csv *t) {
    static const struct {
        int dk;
        const char *scale;
    } WANT[] = {{4, "sqrt_dk"}, {4, "none"}, {8, "sqrt_dk"}, {8, "none"}};
    ck_assert_int_eq(t->n_rows, 4);
    ck_assert_int_eq(t->n_cols, 11);
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq((int)csv_num(t, i, csv_col(t, "d_k")), WANT[i].dk);
        ck_assert_str_eq(csv_str(t, i, csv_col(t, "scale")), WANT[i].scale);
        ck_assert_int_eq((int)csv_num(t, i, csv_col(t, "seed")), 1);
        ck_assert_int_eq((int)csv_num(t, i, csv_col(t, "steps")), 20);
        ck_assert_str_eq(csv_str(t, i, csv_col(t, "status")), "ok");
        const char *cols[] = {"val_answer_acc", "val_token_acc"};
        for (int c = 0; c < 2; c++) {
            double v = csv_num(t, i, csv_col(t, cols[c]));
            ck_assert_msg(isfinite(v) && v >= 0 && v <= 1, "row %d %s = %g", i, cols[c], v);
        }
        const char *pos[] = {"val_loss", "logit_std_step0", "grad_q_final", "grad_k_final"};
        for (int c = 0; c < 4; c++) {
            double v = csv_num(t, i, csv_col(t, pos[c]));
            ck_assert_msg(isfinite(v) && v > 0, "row %d %s = %g", i, pos[c], v);
        }
    }
    /* Without the 1/√d_k the step-0 logits are about √8 times wider. */
    int std = csv_col(t, "logit_std_step0");
    ck_assert_msg(csv_num(t, 3, std) > csv_num(t, 2, std), "none %g <= sqrt_dk %g at d_k 8",
                  csv_num(t, 3, std), csv_num(t, 2, std));
}

static void check_figures(const char *dir) {
    static const char *const FILES[] = {"sweep_accuracy.svg", "sweep_loss.svg",
                                        "sweep_logit_std.svg"};
    for (int i = 0; i < 3; i++) {
        char *doc = read_figure(dir, FILES[i]);
        ck_assert_int_eq(xmlcheck_count(doc, "<path class=\"series\""), 2);
        /* the real d_k values under the log2 axis */
        ck_assert_int_eq(xmlcheck_count(doc, "class=\"dk-tick\""), 2);
        ck_assert_ptr_nonnull(strstr(doc, "d_k (log2 scale)"));
        free(doc);
    }
}

START_TEST(test_tiny_sweep) {
    char ini[PATH_MAX], out[PATH_MAX], path[PATH_MAX + 64];
    tu_write_file(tmp_path(ini, sizeof ini, "tiny.ini"), TINY_INI);
    tmp_path(out, sizeof out, "sw");
    TuResult r = sweep(ini, "--dk", "8,4", "--scales", "sqrt_dk,none", "--seeds", "1", "--steps",
                       "20", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr:\n%s", r.rc, r.err);
    Csv t = {0};
    snprintf(path, sizeof path, "%s/sweep.csv", out);
    ck_assert_int_eq(csv_load(&t, path), 0);
    check_rows(&t);
    csv_free(&t);
    check_figures(out);
    snprintf(path, sizeof path, "%s/runs/dk8_none_s1/loss.csv", out);
    ck_assert(exists(path));
    /* one progress line per run, the table and the paths */
    ck_assert_int_eq(xmlcheck_count(r.err, "sweep: run "), 4);
    ck_assert_ptr_nonnull(strstr(r.err, "sweep: run 4/4 dk8_none_s1: ok"));
    ck_assert_ptr_nonnull(strstr(r.out, "sqrt_dk"));
    ck_assert_ptr_nonnull(strstr(r.out, "std0"));
    snprintf(path, sizeof path, "%s/sweep_logit_std.svg", out);
    ck_assert_ptr_nonnull(strstr(r.out, path));
    tu_result_free(&r);
}
END_TEST

/* A run that trips a guard is recorded as such and the sweep goes on: the unscaled logits at
 * d_k 16 have a std of about 4 at step 0, the scaled ones about 1. */
START_TEST(test_guard_recorded) {
    char ini[PATH_MAX], out[PATH_MAX], path[PATH_MAX + 64];
    tu_write_file(tmp_path(ini, sizeof ini, "tiny.ini"), TINY_INI);
    tmp_path(out, sizeof out, "sw");
    TuResult r = sweep(ini, "--dk", "16", "--scales", "none,sqrt_dk", "--steps", "5", "--out", out,
                       "--set", "guard.logit_std_max=2", "--set", "guard.action=stop", NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr:\n%s", r.rc, r.err);
    Csv t = {0};
    snprintf(path, sizeof path, "%s/sweep.csv", out);
    ck_assert_int_eq(csv_load(&t, path), 0);
    ck_assert_int_eq(t.n_rows, 2);
    ck_assert_str_eq(csv_str(&t, 0, csv_col(&t, "status")), "guard");
    ck_assert(csv_empty(&t, 0, csv_col(&t, "val_answer_acc"))); /* stopped before evaluating */
    ck_assert(csv_num(&t, 0, csv_col(&t, "logit_std_step0")) > 2);
    ck_assert_str_eq(csv_str(&t, 1, csv_col(&t, "status")), "ok");
    ck_assert_int_eq((int)csv_num(&t, 1, csv_col(&t, "steps")), 5);
    csv_free(&t);
    ck_assert_ptr_nonnull(strstr(r.out, "tripped a guard"));
    char *doc = read_figure(out, "sweep_logit_std.svg");
    ck_assert_int_eq(xmlcheck_count(doc, "<path class=\"series\""), 2);
    free(doc);
    tu_result_free(&r);
}
END_TEST

/* Without --out the folder is sweeps/<config name>; --set overrides the file. */
START_TEST(test_default_out_dir) {
    char ini[PATH_MAX], path[PATH_MAX];
    tu_write_file(tmp_path(ini, sizeof ini, "tiny.ini"), TINY_INI);
    char cwd[PATH_MAX];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(g_tmp), 0);
    TuResult r = sweep("tiny.ini", "--dk", "4", "--scales", "none", "--steps", "2", "--set",
                       "task.val_size=16", NULL);
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_msg(r.rc == 0, "rc %d, stderr:\n%s", r.rc, r.err);
    ck_assert(exists(tmp_path(path, sizeof path, "sweeps/tiny/sweep.csv")));
    ck_assert(exists(tmp_path(path, sizeof path, "sweeps/tiny/runs/dk4_none_s1/config.ini")));
    char *cfg = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(cfg);
    ck_assert_ptr_nonnull(strstr(cfg, "val_size = 16"));
    ck_assert_ptr_nonnull(strstr(cfg, "d_model = 4"));
    ck_assert_ptr_nonnull(strstr(cfg, "scale = none"));
    free(cfg);
    tu_result_free(&r);
}
END_TEST

START_TEST(test_help) {
    TuResult r = sweep("--help", NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "--scales"));
    tu_result_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ errors */

/* Runs a sweep that must be refused: exit code 2, `needle` in the message, no sweep folder. */
static void expect_refused(const char *needle, const char *a1, const char *a2, const char *a3) {
    char ini[PATH_MAX], out[PATH_MAX];
    tu_write_file(tmp_path(ini, sizeof ini, "tiny.ini"), TINY_INI);
    tmp_path(out, sizeof out, "sw");
    TuResult r = sweep(ini, "--out", out, a1, a2, a3, NULL);
    ck_assert_msg(r.rc == 2, "%s %s: rc %d, stderr:\n%s", a1, a2 ? a2 : "", r.rc, r.err);
    ck_assert_msg(strstr(r.err, needle) != NULL, "'%s' not in:\n%s", needle, r.err);
    ck_assert_msg(!exists(out), "%s %s created the sweep folder", a1, a2 ? a2 : "");
    ck_assert_ptr_null(strstr(r.err, "run '"));
    tu_result_free(&r);
}

START_TEST(test_bad_arguments) {
    expect_refused("--bogus", "--bogus", NULL, NULL);
    expect_refused("--dk", "--dk", "8,x", NULL);
    expect_refused("--dk", "--dk", "0", NULL);
    expect_refused("--dk", "--dk", "8,,16", NULL);
    expect_refused("--dk", "--dk", "8,16,8", NULL);
    expect_refused("--dk", "--dk", "-8", NULL);
    expect_refused("--dk", "--dk", "100000", NULL);  /* beyond model.d_model's range */
    expect_refused("--dk", "--dk", NULL, NULL);      /* missing value */
    expect_refused("--dk", "--dk=", NULL, NULL);
    expect_refused("--seeds", "--seeds", "0", NULL);
    expect_refused("--seeds", "--seeds", "two", NULL);
    expect_refused("--steps", "--steps", "-1", NULL);
    expect_refused("--steps", "--steps", NULL, NULL);
    expect_refused("--scales", "--scales", "sqrt_dk,bogus", NULL);
    expect_refused("--scales", "--scales", "none,none", NULL);
    expect_refused("--set", "--set", NULL, NULL);
    expect_refused("one config file", "other.ini", NULL, NULL);
}
END_TEST

START_TEST(test_bad_base_config) {
    /* a cross-key error only config_validate sees */
    expect_refused("min_lr", "--set", "optim.schedule=cosine", "--set=optim.min_lr=0.5");
    /* a bad --set value */
    expect_refused("optim.lr", "--set", "optim.lr=fast", NULL);
    /* a task that cannot be built: 2^3 inputs cannot hold 2 x 32 validation examples */
    expect_refused("task", "--set", "task.symbols=2", NULL);
    /* keys the sweep sets itself would be overwritten silently: refused, naming the option */
    expect_refused("use --dk", "--set", "model.d_model=32", NULL);
    expect_refused("'model.n_heads' is set by the sweep", "--set", "model.n_heads=2", NULL);
    expect_refused("use --scales", "--set", "attention.scale=none", NULL);
    expect_refused("use --seeds", "--set", "run.seed=3", NULL);
    expect_refused("'run.seed' is set by the sweep", "--set", " run . seed = 3", NULL);
    expect_refused("'run.name'", "--set", "run.name=mine", NULL);
    expect_refused("use --steps", "--steps", "5", "--set=train.steps=7");
}
END_TEST

/* SIGINT while the first run trains: that run saves its checkpoint and the sweep exits 130 (it
 * used to report an I/O error, exit 1). The sweep runs in a child process; the signal is sent
 * once the first run's loss.csv has a row (the header is written before the run installs its
 * signal handler). */
START_TEST(test_interrupted) {
    char ini[PATH_MAX], out[PATH_MAX], err[PATH_MAX], loss[PATH_MAX + 64];
    tu_write_file(tmp_path(ini, sizeof ini, "tiny.ini"), TINY_INI);
    tmp_path(out, sizeof out, "sw");
    tmp_path(err, sizeof err, "stderr.txt");
    snprintf(loss, sizeof loss, "%s/runs/dk4_sqrt_dk_s1/loss.csv", out);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (!freopen(err, "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(99);
        char *argv[] = {ini, "--out", out, "--dk", "4", "--steps", "1000000", NULL};
        int rc = report_sweep(7, argv);
        fflush(NULL); /* _exit does not flush */
        _exit(rc);
    }
    struct timespec nap = {0, 20000000};
    for (int i = 0; i < 3000 && !(exists(loss) && tu_count_lines(loss) >= 2); i++)
        nanosleep(&nap, NULL);
    ck_assert_msg(exists(loss) && tu_count_lines(loss) >= 2, "the first run never logged a row");
    kill(pid, SIGINT);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    char *msg = tu_read_file(err, NULL);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130, "status %d, stderr:\n%s", st, msg);
    ck_assert_msg(strstr(msg, "sweep: stopped during run 1/3"), "stderr:\n%s", msg);
    ck_assert_msg(strstr(msg, "interrupted (SIGINT)"), "stderr:\n%s", msg);
    free(msg);
    snprintf(loss, sizeof loss, "%s/runs/dk4_sqrt_dk_s1/checkpoint.bin", out);
    ck_assert_msg(exists(loss), "the interrupted run left no checkpoint");
}
END_TEST

/* A config file with an unknown key, and a missing one: refused before any run, file named. */
START_TEST(test_bad_config_file) {
    char ini[PATH_MAX], out[PATH_MAX];
    tu_write_file(tmp_path(ini, sizeof ini, "bad.ini"), "[model]\nd_modle = 8\n");
    tmp_path(out, sizeof out, "sw");
    TuResult r = sweep(ini, "--out", out, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "bad.ini:2"));
    ck_assert(!exists(out));
    tu_result_free(&r);
    r = sweep(tmp_path(ini, sizeof ini, "missing.ini"), "--out", out, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "missing.ini"));
    ck_assert(!exists(out));
    tu_result_free(&r);
}
END_TEST

static Suite *sweep_suite(void) {
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("runs");
    tcase_add_checked_fixture(tc, make_tmp, remove_tmp);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_tiny_sweep);
    tcase_add_test(tc, test_guard_recorded);
    tcase_add_test(tc, test_default_out_dir);
    tcase_add_test(tc, test_help);
    tcase_add_test(tc, test_interrupted);
    suite_add_tcase(s, tc);
    TCase *err = tcase_create("errors");
    tcase_add_checked_fixture(err, make_tmp, remove_tmp);
    tcase_add_test(err, test_bad_arguments);
    tcase_add_test(err, test_bad_base_config);
    tcase_add_test(err, test_bad_config_file);
    suite_add_tcase(s, err);
    return s;
}

int main(void) { return tu_run(sweep_suite()); }
