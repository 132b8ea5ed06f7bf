/* test_children.c: the sweep's child processes (children_run, sweep/children.h) and the signals
 * they pass on, with this program itself as the "run" (`test_children --sweep-run STATUS`), so
 * that the order in which the signals arrive is set by the test, not by the scheduler.
 *
 * A Ctrl-C at the terminal reaches the run and the sweep; the sweep then passes its signal on
 * (stop_signal_relay). A run that has already had the terminal's signal must take the relay for
 * what it is, not for a second request ("stop now", util/stop_signal.h): it finishes its clean
 * stop. The group-wide version of this in test_sweep_restart cannot fix the order: when the relay
 * comes while the first signal is still pending, the two merge into one, and a plain kill() in
 * place of the relay passes unseen. The progress line's ETA counts the runs going at once, and
 * the heartbeat names the running runs and their logged step. */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweep/children.h"
#include "testutil.h"
#include "util/dirs.h"
#include "util/stop_signal.h"

static void nap_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void append(const char *path, const char *line) {
    FILE *f = fopen(path, "a");
    if (!f) _exit(97);
    fputs(line, f);
    fclose(f);
}

/* The stand-in run: says "ready PID", waits for its first signal, says "first", then keeps
 * going for 2 s, as a run saving its checkpoint would, and says "clean" if nothing stopped it
 * meanwhile. A second signal that is not the parent's relay ends it at once (exit 128 + signal,
 * no "clean"). */
static int fake_run(const char *status) {
    StopSignals saved;
    stop_signals_catch(&saved);
    char line[64];
    snprintf(line, sizeof line, "ready %ld\n", (long)getpid());
    append(status, line);
    for (int i = 0; i < 2000 && !stop_signal_caught(); i++) nap_ms(10);
    if (!stop_signal_caught()) return 1;
    append(status, "first\n");
    nap_ms(2000);
    append(status, "clean\n");
    return 128 + stop_signal_caught();
}

/* The sweep's record of how the run ended, in the status file (ctx). */
static int done_note(void *ctx, int i, int rc) {
    char line[32];
    snprintf(line, sizeof line, "run %d exit %d\n", i, rc);
    append(ctx, line);
    return 0;
}

/* A sweep of one run (children_run in a child of this test) whose run is this program's
 * fake_run, reporting to dir/status.txt (dir made here, 64 bytes); returns once the run is
 * ready, with the sweep's and the run's process ids. */
static void start_sweep(char *dir, char *status, size_t n_status, pid_t *sweep, pid_t *run) {
    char exe[PATH_MAX];
    tu_make_tmp(dir, 64, "/tmp/test_children.XXXXXX");
    snprintf(status, n_status, "%s/status.txt", dir);
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(n, 0);
    exe[n] = '\0';
    *sweep = fork();
    ck_assert_int_ge(*sweep, 0);
    if (*sweep == 0) {
        char *cfg[] = {status};
        JobList jl = {.exe = exe, .jobs = 1, .n = 1, .cfg = cfg, .total = 1,
                     .done = done_note, .ctx = status};
        _exit(children_run(&jl, NULL));
    }
    tu_wait_for_file(status, "ready ", *sweep, 20);
    char *text = tu_read_file(status, NULL);
    ck_assert_ptr_nonnull(text);
    *run = (pid_t)strtol(strstr(text, "ready ") + 6, NULL, 10);
    free(text);
    ck_assert_int_gt(*run, 0);
}

START_TEST(test_relay_after_the_terminal_signal_is_not_a_second) {
    char dir[64], status[128];
    pid_t sweep, run;
    start_sweep(dir, status, sizeof status, &sweep, &run);
    ck_assert_int_eq(kill(run, SIGINT), 0); /* the terminal's signal, to the run first */
    tu_wait_for_file(status, "first\n", sweep, 20);
    ck_assert_int_eq(kill(sweep, SIGINT), 0); /* then to the sweep, which relays it */
    int st;
    ck_assert_int_eq(waitpid(sweep, &st, 0), sweep);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 128 + SIGINT);
    ck_assert_msg(tu_file_contains(status, "clean\n"),
                  "the sweep's relay was taken for a second signal and cut the run short");
    ck_assert(tu_file_contains(status, "run 0 exit 130\n"));
    tu_remove_tree(dir);
}
END_TEST

/* The control: a second SIGINT from this test (not the run's parent) does stop the run at
 * once, so "clean" above means the relay was recognised, not that no signal came. */
START_TEST(test_second_signal_from_elsewhere_stops_at_once) {
    char dir[64], status[128];
    pid_t sweep, run;
    start_sweep(dir, status, sizeof status, &sweep, &run);
    ck_assert_int_eq(kill(run, SIGINT), 0);
    tu_wait_for_file(status, "first\n", sweep, 20);
    ck_assert_int_eq(kill(run, SIGINT), 0);
    int st;
    ck_assert_int_eq(waitpid(sweep, &st, 0), sweep);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 0); /* the sweep itself had no signal */
    ck_assert(tu_file_contains(status, "run 0 exit 130\n"));
    ck_assert(!tu_file_contains(status, "clean\n"));
    tu_remove_tree(dir);
}
END_TEST

/* Issue 45: the sweep's own second signal. Two SIGINTs to the sweep (not to the run: kill(2),
 * as from another terminal or a batch system): the first is relayed to the run, which starts its
 * clean stop; the second ends the sweep at once with exit 130 and one line on its stderr saying
 * so in the run's words: its running run not waited for, which folder keeps a checkpoint (here
 * one is planted: the line says so) and how to resume. The run stops at once too (no "clean":
 * it gets SIGTERM as its parent dies), and the sweep's done() never ran for it. Before: the
 * sweep ended silently. */
START_TEST(test_sweeps_second_signal_says_what_it_did) {
    char dir[64], status[128], err[160], run_dir[160], exe[PATH_MAX];
    tu_make_tmp(dir, sizeof dir, "/tmp/test_children.XXXXXX");
    snprintf(status, sizeof status, "%s/status.txt", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    snprintf(run_dir, sizeof run_dir, "%s/runs/r", dir);
    ck_assert_int_eq(make_dirs(run_dir), 0);
    tu_put_file(NULL, 0, dir, "runs/r", "checkpoint.bin", "a checkpoint\n");
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(n, 0);
    exe[n] = '\0';
    pid_t sweep = fork();
    ck_assert_int_ge(sweep, 0);
    if (sweep == 0) {
        if (!freopen(err, "w", stderr)) _exit(99);
        char *cfg[] = {status}, *dirs[] = {run_dir};
        JobList jl = {.exe = exe, .jobs = 1, .n = 1, .cfg = cfg, .total = 1, .dir = dirs,
                     .beat_s = 1000, .done = done_note, .ctx = status};
        _exit(children_run(&jl, NULL));
    }
    tu_wait_for_file(status, "ready ", sweep, 20);
    nap_ms(200); /* the sweep's loop has seen the run start (its note names it) */
    ck_assert_int_eq(kill(sweep, SIGINT), 0);
    tu_wait_for_file(status, "first\n", sweep, 20); /* the relay reached the run */
    ck_assert_int_eq(kill(sweep, SIGINT), 0);
    int st;
    ck_assert_int_eq(waitpid(sweep, &st, 0), sweep);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 130);
    char want[600];
    snprintf(want, sizeof want, "\nsecond SIGINT: stopped at once; its 1 running run too, not "
             "waited for: no checkpoint of this step. Their logs and last checkpoint kept: %s/. "
             "Every finished run is kept; the same command resumes the sweep, each run from its "
             "checkpoint\n", run_dir);
    char *said = tu_read_file(err, NULL);
    ck_assert_msg(said && strstr(said, want), "no '%s' in '%s'", want, said ? said : "");
    free(said);
    nap_ms(2500); /* the run's clean stop would have said "clean" by now */
    ck_assert_msg(!tu_file_contains(status, "clean\n"), "the run was waited for");
    ck_assert(!tu_file_contains(status, "run 0 exit"));
    tu_remove_tree(dir);
}
END_TEST

/* The progress line's ETA (children_eta), worked by hand: slots free after what their run has
 * left, each queued run starts on the slot that frees first, the ETA is the last slot's end. */
START_TEST(test_eta_counts_the_jobs) {
    static const struct {
        double run_s, age[3];
        int running, queued, jobs;
        double want;
    } cases[] = {
        {60, {0}, 0, 2, 2, 60},              /* two runs side by side: 60 s, not 120 */
        {60, {0, 60}, 2, 1, 2, 60},          /* the first end at --jobs 2 of 4 runs: one just
                                              * started, one due now, one queued behind it */
        {10, {4}, 1, 3, 1, 36},              /* one at a time: 6 left + 3 x 10 */
        {10, {2, 5}, 2, 4, 3, 20},           /* slots 8, 5, 0: queued at 0, 5, 8, 10 -> 20 */
        {10, {25}, 1, 0, 2, 0},              /* running past the mean: due now */
        {30, {0}, 0, 5, 2, 90},              /* 5 runs on 2 slots: 3 rounds */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = children_eta(cases[i].run_s, cases[i].age, cases[i].running,
                                  cases[i].queued, cases[i].jobs);
        ck_assert_msg(fabs(got - cases[i].want) < 1e-9, "case %zu: ETA %g s, want %g s", i, got,
                      cases[i].want);
    }
}
END_TEST

/* The stand-in run of the heartbeat test: its "config" is the loss.csv it writes, two rows
 * (steps 0 and 40), before it runs on for 1.5 s and ends well. */
static const char HEARTBEAT_LOG[] = "step,train_loss\n0,3\n40,2.5\n";

static int logging_run(const char *loss_csv) {
    append(loss_csv, HEARTBEAT_LOG); /* outside a test: no ck_assert */
    nap_ms(1500);
    return 0;
}

static int done_quietly(void *ctx, int i, int rc) {
    (void)ctx, (void)i, (void)rc;
    return 0;
}

/* A run that logs and runs on: the sweep says, every beat (0.2 s here, 10 s by default), that it
 * runs, under its folder's name, at the last step its loss.csv holds (40, read from the log the
 * run wrote: the last line of HEARTBEAT_LOG), before the line that it ended. */
START_TEST(test_heartbeat_names_the_running_runs) {
    char tmp[64], dir[128], cfg_path[160], exe[PATH_MAX];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_children.XXXXXX");
    snprintf(dir, sizeof dir, "%s/d16_s1", tmp);
    tu_put_file(NULL, 0, tmp, "d16_s1", "train.log", "");
    snprintf(cfg_path, sizeof cfg_path, "%s/loss.csv", dir);
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(n, 0);
    exe[n] = '\0';
    char *cfg[] = {cfg_path}, *dirs[] = {dir};
    JobList jl = {.exe = exe, .jobs = 2, .n = 1, .cfg = cfg, .total = 3, .finished_before = 2,
                  .dir = dirs, .beat_s = 0.2, .done = done_quietly};
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = children_run(&jl, NULL);
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, 0);
    const char *last = strrchr(HEARTBEAT_LOG, '\n') - 1;
    while (last[-1] != '\n') last--;
    char beat[96];
    snprintf(beat, sizeof beat, "sweep: 2/3 runs done; running: d16_s1 (step %ld, ",
             strtol(last, NULL, 10));
    static const char *ORDER[2] = {NULL, "sweep: 3/3 runs done (2 before this start)"};
    ORDER[0] = beat;
    ck_assert_msg(tu_in_order(err, ORDER, 2) < 0, "want '%s' before '%s' in:\n%s", beat, ORDER[1],
                  err);
    free(err);
    tu_remove_tree(tmp);
}
END_TEST

/* Issue 45: a run refused at its start (exit 2 at once, as --sweep-run of a config it refuses)
 * says nothing of how long a run takes: the progress line after it gives no ETA (it said "ETA
 * 0s", the mean of one refused run). */
START_TEST(test_no_eta_from_refused_runs) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(n, 0);
    exe[n] = '\0';
    char *cfg[] = {"a.refused", "b.refused"};
    JobList jl = {.exe = exe, .jobs = 1, .n = 2, .cfg = cfg, .total = 2, .done = done_quietly};
    TuCapture c;
    tu_capture_begin(&c, 2);
    int failed = 0, rc = children_run(&jl, &failed);
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(failed, 2);
    ck_assert_msg(strstr(err, "sweep: 1/2 runs done (0 before this start), 1 running, 1 failed\n"),
                  "%s", err);
    free(err);
}
END_TEST

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--sweep-run") == 0) {
        size_t len = strlen(argv[2]);
        if (len > 8 && strcmp(argv[2] + len - 8, ".refused") == 0) return 2;
        if (len > 8 && strcmp(argv[2] + len - 8, "loss.csv") == 0) return logging_run(argv[2]);
        return fake_run(argv[2]);
    }
    return tu_main("children", 20, NULL, NULL,
                   (const TTest *const[]){test_relay_after_the_terminal_signal_is_not_a_second,
                                          test_second_signal_from_elsewhere_stops_at_once,
                                          test_sweeps_second_signal_says_what_it_did,
                                          test_eta_counts_the_jobs,
                                          test_heartbeat_names_the_running_runs,
                                          test_no_eta_from_refused_runs, NULL});
}
