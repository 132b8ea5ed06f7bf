/* test_sweep_restart.c: ./train --sweep and its per-run command (--sweep-run, a jobs.txt line)
 * started again over a folder that already holds runs, end to end on tiny runs in a fresh mkdtemp
 * folder (as test_sweep.c): SIGINT stops a sweep with 130 and the same command started again
 * skips the finished run and resumes the interrupted one; a run folder whose checkpoint is of
 * another configuration is not resumed; an interrupted run whose task file was edited is refused
 * by its jobs.txt line and by the sweep started again, as ./train --resume refuses it, and so is
 * one whose loss.csv has another header; a task file
 * changed before a run started makes the restarted sweep another plan, refused; finished runs of
 * another plan are refused; a run still locked by a live process is waited for; kill -9 of the
 * sweep ends its children, and the sweep started again finishes. */
#include "sweep/sweep.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweeptest.h"
#include "testutil.h"
#include "runlog/csv_read.h"
#include "util/run_lock.h"

/* Starts `./train --sweep ARGS...` in g_tmp in a child, output in g_tmp/bg.txt. */
static pid_t start_sweep(char *const *args) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char out[128];
        snprintf(out, sizeof out, "%s/bg.txt", g_tmp);
        if (chdir(g_tmp) != 0 || !freopen(out, "a", stderr) || !freopen(out, "a", stdout)) _exit(99);
        execv(tu_train_bin(), args);
        _exit(98);
    }
    return pid;
}

/* start_sweep in a process group of its own, as a shell job: kill(-pid, sig) is a Ctrl-C. */
static pid_t start_sweep_group(char *const *args) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char out[128];
        snprintf(out, sizeof out, "%s/bg.txt", g_tmp);
        if (setpgid(0, 0) != 0 || chdir(g_tmp) != 0 || !freopen(out, "a", stderr) ||
            !freopen(out, "a", stdout))
            _exit(99);
        execv(tu_train_bin(), args);
        _exit(98);
    }
    setpgid(pid, pid); /* either side may win the race; both set the same group */
    return pid;
}


static int stop_with(pid_t pid, int sig) {
    kill(pid, sig);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* A sweep `./train --sweep INI --grid train.steps=2000 --out OUT` (INI in g_tmp) stopped by SIGINT
 * (exit 130) once its run's loss.csv holds row; that loss.csv's path into loss (n bytes). */
static void interrupt_run(const char *ini, const char *out, const char *row, char *loss, size_t n) {
    char path[160], o[64];
    snprintf(path, sizeof path, "%s/%s", g_tmp, ini);
    snprintf(o, sizeof o, "%s", out);
    char *args[] = {"train", "--sweep", path, "--grid", "train.steps=2000", "--out", o, NULL};
    snprintf(loss, n, "%s/%s/runs/steps-2000/loss.csv", g_tmp, out);
    pid_t pid = start_sweep(args);
    tu_wait_for_file(loss, row, pid, 60);
    ck_assert_int_eq(stop_with(pid, SIGINT), 130);
}

/* g_tmp/words.txt (8 lines of a file task) and g_tmp/file.ini training on it by its absolute
 * path: the jobs.txt lines run from this test's folder. */
static void write_file_task(void) {
    char path[256], ini[512];
    snprintf(path, sizeof path, "%s/words.txt", g_tmp);
    tu_write_file(path, "a b | b a\nb c | c b\nc a | a c\na a | a a\nb b | b b\nc c | c c\n"
                        "a c | c a\nb a | a b\n");
    snprintf(ini, sizeof ini, "[task]\nname = file\nfile = %s/words.txt\nval_size = 4\n[model]\n"
             "n_layers = 1\nd_model = 16\nn_heads = 2\n[train]\nbatch_size = 4\n", g_tmp);
    snprintf(path, sizeof path, "%s/file.ini", g_tmp);
    tu_write_file(path, ini);
}

/* write_file_task's words.txt edited: a line appended. */
static void edit_file_task(void) {
    char path[256];
    snprintf(path, sizeof path, "%s/words.txt", g_tmp);
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    fputs("c b | b c\n", f);
    fclose(f);
}

/* Run 1 (20 steps) finishes, run 2 (a million steps) is stopped by SIGINT to the sweep alone
 * (not its process group: the sweep must pass it on): exit 130, sweep.csv keeps run 1's row.
 * Started again: run 1 is not trained again (its train.log has one start and its loss.csv the
 * same mtime), run 2 resumes from its checkpoint; SIGTERM then stops it with 143. */
START_TEST(test_resume_after_sigint) {
    write_ini();
    char tiny[128], log1[256], log2[256], loss1[256], csv[256];
    snprintf(tiny, sizeof tiny, "%s/tiny.ini", g_tmp);
    char *args[] = {"train", "--sweep", tiny, "--grid", "train.steps=20,1000000", "--out", "r",
                    NULL};
    snprintf(log1, sizeof log1, "%s/r/runs/steps-20/train.log", g_tmp);
    snprintf(loss1, sizeof loss1, "%s/r/runs/steps-20/loss.csv", g_tmp);
    snprintf(log2, sizeof log2, "%s/r/runs/steps-1000000/loss.csv", g_tmp);
    snprintf(csv, sizeof csv, "%s/r/sweep.csv", g_tmp);
    pid_t pid = start_sweep(args);
    /* run 2 has logged a row: its signal handler is in place */
    tu_wait_for_file(log2, "\n10,", pid, 60);
    ck_assert_int_eq(stop_with(pid, SIGINT), 130);
    ck_assert(tu_file_contains(csv, "\nsteps-20,64,64,1,sqrt_dk,1,20,ok,0,20,"));
    /* stopped by the signal, nobody trains it: "stopped" (was "running") */
    ck_assert(tu_file_contains(csv, "\nsteps-1000000,64,64,1,sqrt_dk,1,1000000,stopped,,"));
    snprintf(log2, sizeof log2, "%s/r/runs/steps-1000000/train.log", g_tmp);
    ck_assert(tu_file_contains(log2, "interrupted (SIGINT)"));
    struct stat before;
    ck_assert_int_eq(stat(loss1, &before), 0);
    pid = start_sweep(args);
    tu_wait_for_file(log2, "resuming from checkpoint.bin", pid, 60);
    tu_wait_for_file(log2, "resumed", pid, 60);
    ck_assert_int_eq(stop_with(pid, SIGTERM), 143); /* passed on to the run, which saves */
    ck_assert(tu_file_contains(log2, "terminated (SIGTERM)"));
    struct stat after;
    ck_assert_int_eq(stat(loss1, &after), 0);
    ck_assert(after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
              after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    char *t = tu_read_file(log1, NULL);
    ck_assert_ptr_nonnull(t);
    int starts = 0;
    for (const char *p = t; (p = strstr(p, "sweep-run ")); p++) starts++;
    ck_assert_int_eq(starts, 1);
    free(t);
    ck_assert(tu_file_contains(csv, "\nsteps-20,64,64,1,sqrt_dk,1,20,ok,0,20,"));
    char bg[128];
    snprintf(bg, sizeof bg, "%s/bg.txt", g_tmp);
    ck_assert(tu_file_contains(bg, "1 finished before, skipped; 1 to run"));
    ck_assert(exists(loss1));
}
END_TEST

/* A run folder whose checkpoint is of another configuration is not resumed with this one: the
 * per-run command refuses it (exit code 2, recorded as failed) and keeps the folder. */
/* A Ctrl-C at the terminal reaches the sweep and its runs at once (the process group); the
 * sweep passes it on too (stop_signal_relay), and that relay, arriving after the run has its
 * first signal, is not a second request: the run stops cleanly (its checkpoint saved, the
 * "interrupted" line in its train.log), exit 130. A plain kill from the parent would now count
 * as the second (issue 33: a second signal stops at once from whoever sends it). */
START_TEST(test_ctrl_c_to_the_group_stops_runs_cleanly) {
    write_ini();
    char tiny[128], log2[256], loss2[256];
    snprintf(tiny, sizeof tiny, "%s/tiny.ini", g_tmp);
    char *args[] = {"train", "--sweep", tiny, "--grid", "train.steps=1000000", "--out", "g", NULL};
    snprintf(loss2, sizeof loss2, "%s/g/runs/steps-1000000/loss.csv", g_tmp);
    snprintf(log2, sizeof log2, "%s/g/runs/steps-1000000/train.log", g_tmp);
    pid_t pid = start_sweep_group(args);
    tu_wait_for_file(loss2, "\n10,", pid, 60); /* the run's signal handler is in place */
    kill(-pid, SIGINT);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 130);
    ck_assert_msg(tu_file_contains(log2, "interrupted (SIGINT)"),
                  "the sweep's relay cut the run short");
}
END_TEST

START_TEST(test_foreign_checkpoint) {
    write_ini();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --plan --out %s", "f"), 0);
    char cmd[512], path[256], cfg[256];
    snprintf(cmd, sizeof cmd, "sh %s/f/jobs.txt", g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/f/runs/lr-1e-3/%s", g_tmp, "sweep_result.txt");
    ck_assert_int_eq(remove(path), 0); /* as if it had been interrupted */
    snprintf(cfg, sizeof cfg, "%s/f/configs/lr-1e-3.ini", g_tmp);
    char *text = tu_read_file(cfg, NULL), *at = strstr(text, "lr = 0.001");
    ck_assert_ptr_nonnull(at);
    at[strlen("lr = 0.00")] = '2';
    tu_write_file(cfg, text);
    free(text);
    int st = system(cmd);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    snprintf(path, sizeof path, "%s/f/runs/lr-1e-3/train.log", g_tmp);
    ck_assert(tu_file_contains(path, "holds a run of another configuration"));
    snprintf(path, sizeof path, "%s/f/runs/lr-1e-3/checkpoint.bin", g_tmp);
    ck_assert(exists(path));
}
END_TEST

/* A run on a task file, interrupted (its outcome removed) and then its task file edited: its
 * jobs.txt line (--sweep-run) and the sweep started again refuse to resume it (exit code 2, the
 * reason in its train.log), as ./train --resume does; the checkpoint keeps its bytes. */
START_TEST(test_edited_task_file_refused) {
    char path[256], copy[256], cmd[1024];
    write_file_task();
    ck_assert_int_eq(sweep_cmd("file.ini --grid optim.lr=1e-3 --steps 5 --plan --out %s", "t"), 0);
    snprintf(cmd, sizeof cmd, "sh %s/t/jobs.txt", g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/t/runs/lr-1e-3/sweep_result.txt", g_tmp);
    ck_assert_int_eq(remove(path), 0); /* as if it had been interrupted */
    snprintf(path, sizeof path, "%s/t/runs/lr-1e-3/checkpoint.bin", g_tmp);
    snprintf(copy, sizeof copy, "%s/checkpoint.copy", g_tmp);
    snprintf(cmd, sizeof cmd, "cp %s %s", path, copy);
    ck_assert_int_eq(system(cmd), 0);
    edit_file_task();
    snprintf(cmd, sizeof cmd, "sh %s/t/jobs.txt 2>/dev/null", g_tmp);
    int st = system(cmd);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    snprintf(path, sizeof path, "%s/t/runs/lr-1e-3/train.log", g_tmp);
    ck_assert(tu_file_contains(path, "--sweep-run: task.file"));
    ck_assert(tu_file_contains(path, "changed since the run was trained on it"));
    snprintf(path, sizeof path, "%s/t/runs/lr-1e-3/sweep_result.txt", g_tmp);
    ck_assert_int_eq(remove(path), 0); /* the refusal's outcome: the sweep restart decides again */
    ck_assert_int_ne(sweep_cmd("file.ini --grid optim.lr=1e-3 --steps 5 --out %s", "t"), 0);
    snprintf(path, sizeof path, "%s/t/sweep.csv", g_tmp);
    ck_assert(!tu_file_contains(path, ",ok,"));
    snprintf(path, sizeof path, "%s/t/runs/lr-1e-3/checkpoint.bin", g_tmp);
    snprintf(cmd, sizeof cmd, "cmp -s %s %s", path, copy);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* An interrupted run whose loss.csv has another header (a made-up one here): its jobs.txt line
 * (--sweep-run) refuses to resume it with exit code 2 and ./train --resume's reason in its
 * train.log, placed at --sweep-run; the log keeps its bytes (test_resume_headers: the other
 * headers refused). */
START_TEST(test_other_log_header_refused) {
    write_ini();
    char loss[200], log[200];
    interrupt_run("tiny.ini", "h", "\n10,", loss, sizeof loss);
    snprintf(log, sizeof log, "%.*s/train.log", (int)(strlen(loss) - strlen("/loss.csv")), loss);
    char *text = tu_read_file(loss, NULL);
    ck_assert_ptr_nonnull(text);
    char *rows = strchr(text, '\n');
    ck_assert_ptr_nonnull(rows);
    char *other = malloc(strlen(rows) + 16);
    snprintf(other, strlen(rows) + 16, "step,foo%s", rows);
    tu_write_file(loss, other);
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep-run h/configs/steps-2000.ini"), 2);
    char said[512];
    snprintf(said, sizeof said, "\nerror: --sweep-run: cannot resume: '%s': its header is not "
             "the one this run writes (column 2 is 'foo' where this run writes 'train_loss'", loss);
    ck_assert_msg(tu_file_contains(log, said), "'%s' not in %s", said, log);
    ck_assert(tu_file_holds(loss, other));
    free(other);
    free(text);
}
END_TEST

/* A run refused when the sweep is started again (its unfinished loss.csv's
 * header damaged: train_loss misspelt), after it logged validation passes: the sweep exits 2, and
 * its line gives the accuracy as the last logged one at its step, not as "final". */
START_TEST(test_refused_run_says_last_logged_val) {
    char ini[256], loss[200];
    snprintf(ini, sizeof ini, "%s/eval5.ini", g_tmp);
    tu_write_file(ini, "[task]\nname = copy\nlength = 3\nsymbols = 6\nval_size = 32\n"
                       "[model]\nn_layers = 1\n[train]\nbatch_size = 8\neval_every = 5\n");
    interrupt_run("eval5.ini", "e", "\n20,", loss, sizeof loss);
    /* the last row with a validation accuracy, read here from the log itself */
    Csv t = {0};
    ck_assert_int_eq(csv_load(&t, loss), 0);
    int acc = csv_col(&t, "val_answer_acc"), last = -1;
    ck_assert_int_ge(acc, 0);
    for (int i = 0; i < t.n_rows; i++)
        if (!csv_empty(&t, i, acc)) last = i;
    ck_assert_int_ge(last, 0);
    char want[256];
    snprintf(want, sizeof want, "sweep: run steps-2000: refused (exit code 2), last logged val "
             "answer acc %.1f%% at step %s", 100 * csv_num(&t, last, acc), csv_str(&t, last, 0));
    ck_assert_msg(strcmp(csv_str(&t, last, 0), "0") != 0, "a validation pass after step 0");
    csv_free(&t);
    char *text = tu_read_file(loss, NULL), *col = text ? strstr(text, ",train_loss,") : NULL;
    ck_assert_ptr_nonnull(col);
    ck_assert(col < strchr(text, '\n')); /* in the header */
    memcpy(col + 1, "trainXloss", 10);
    tu_write_file(loss, text);
    free(text);
    ck_assert_int_eq(sweep_cmd("eval5.ini --grid train.steps=2000 --out %s", "e"), 2);
    char *msg = out_text();
    ck_assert_msg(strstr(msg, want) && !strstr(msg, "final val"), "no '%s' in:\n%s", want, msg);
    free(msg);
}
END_TEST

/* A sweep on a task file, one run done, then the file edited: plan.txt records the file's hash,
 * so the same sweep command started again is another plan, refused naming the task-file line,
 * and the jobs.txt line of the run not yet started refuses the file; neither creates its run
 * folder, so no summary pools runs of two datasets. --collect reads the plan, and one from
 * before the task-file lines (the line removed) too. */
START_TEST(test_changed_task_file_new_plan) {
    char path[256], cmd[1024];
    write_file_task();
    ck_assert_int_eq(sweep_cmd("file.ini --grid optim.lr=1e-3,2e-3 --steps 5 --plan --out %s", "h"), 0);
    snprintf(path, sizeof path, "%s/h/plan.txt", g_tmp);
    ck_assert(tu_file_contains(path, "\ntask-file fnv1a64 "));
    snprintf(cmd, sizeof cmd, "head -n 1 %s/h/jobs.txt | sh", g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    edit_file_task();
    char args[512];
    snprintf(args, sizeof args, "--sweep-run %s/h/configs/lr-2e-3.ini", g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 2);
    ck_assert(tu_train_output_contains(g_tmp, "changed since the sweep was planned"));
    snprintf(path, sizeof path, "%s/h/runs/lr-2e-3", g_tmp);
    ck_assert(!exists(path));
    int rc = sweep_cmd("file.ini --grid optim.lr=1e-3,2e-3 --steps 5 --out %s", "h");
    char *msg = out_text();
    ck_assert_msg(rc == 2 && strstr(msg, "holds a different sweep plan") &&
                  strstr(msg, "task-file fnv1a64 "), "rc %d:\n%s", rc, msg);
    free(msg);
    ck_assert(!exists(path));
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep --collect --out h"), 0);
    ck_assert(tu_train_output_contains(g_tmp, "not finished: lr-2e-3"));
    /* a plan from before the task-file lines: --collect reads it as before */
    snprintf(path, sizeof path, "%s/h/plan.txt", g_tmp);
    char *text = tu_read_file(path, NULL), *line = strstr(text, "\ntask-file ");
    ck_assert_ptr_nonnull(line);
    memmove(line + 1, strchr(line + 1, '\n') + 1, strlen(strchr(line + 1, '\n') + 1) + 1);
    tu_write_file(path, text);
    free(text);
    ck_assert(!tu_file_contains(path, "task-file"));
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep --collect --out h"), 0);
    ck_assert(tu_train_output_contains(g_tmp, "not finished: lr-2e-3"));
}
END_TEST

/* A finished sweep whose plan.txt and sweep.csv were deleted, started again with another plan
 * (another d_model) into the same folder: refused with exit code 2 before anything runs, naming
 * the run; no plan.txt is left claiming the folder for the new plan and the runs are untouched.
 * The same per-run refusal from the jobs.txt command. The original plan then goes on as before
 * (every run finished, skipped). */
START_TEST(test_finished_runs_of_another_plan_refused) {
    write_ini();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3,2e-3 --steps 5 --out %s", "o"), 0);
    char path[256], loss[256];
    snprintf(loss, sizeof loss, "%s/o/runs/lr-1e-3/loss.csv", g_tmp);
    struct stat before;
    ck_assert_int_eq(stat(loss, &before), 0);
    snprintf(path, sizeof path, "%s/o/plan.txt", g_tmp);
    ck_assert_int_eq(remove(path), 0);
    snprintf(path, sizeof path, "%s/o/sweep.csv", g_tmp);
    ck_assert_int_eq(remove(path), 0);
    int rc = sweep_cmd("tiny.ini --grid optim.lr=1e-3,2e-3 --steps 5 --set model.d_model=32 "
                       "--out %s", "o");
    char *msg = out_text();
    ck_assert_msg(rc == 2, "rc %d:\n%s", rc, msg);
    ck_assert_msg(strstr(msg, "holds a finished run of another configuration"), "%s", msg);
    free(msg);
    snprintf(path, sizeof path, "%s/o/plan.txt", g_tmp);
    ck_assert_msg(access(path, F_OK) != 0, "plan.txt of the refused plan left behind");
    struct stat after;
    ck_assert_int_eq(stat(loss, &after), 0);
    ck_assert(after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
              after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    /* the per-run command refuses it too (the refused sweep left this plan's configs) */
    char args[512];
    snprintf(args, sizeof args, "--sweep-run %s/o/configs/lr-1e-3.ini", g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 2);
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3,2e-3 --steps 5 --out %s", "o"), 0);
    ck_assert(tu_train_output_contains(g_tmp, "2 finished before, skipped; 0 to run"));
}
END_TEST

/* Issue 21 item 8: a run still locked by a live process is waited for by the per-run command
 * (never started beside it, never recorded failed); when the lock goes, it trains and records
 * exit code 0. The live process is this test holding the run's lock. */
START_TEST(test_locked_run_waited_for) {
    write_ini();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --plan --out %s", "w"), 0);
    char run[160], marker[200], cfg[200];
    snprintf(run, sizeof run, "%s/w/runs/lr-1e-3", g_tmp);
    snprintf(marker, sizeof marker, "%s/sweep_result.txt", run);
    snprintf(cfg, sizeof cfg, "%s/w/configs/lr-1e-3.ini", g_tmp);
    char mk[200];
    snprintf(mk, sizeof mk, "mkdir -p %s", run);
    ck_assert_int_eq(system(mk), 0);
    int fd = run_lock_take(run, NULL);
    ck_assert_int_ge(fd, 0);
    char *args[] = {"train", "--sweep-run", cfg, NULL};
    pid_t pid = start_sweep(args);
    char bg[128];
    snprintf(bg, sizeof bg, "%s/bg.txt", g_tmp);
    tu_wait_for_file(bg, "waiting for it to end", pid, 60);
    struct timespec nap = {0, 300000000};
    nanosleep(&nap, NULL);
    ck_assert(!exists(marker)); /* nothing recorded while it waits */
    close(fd);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ck_assert(tu_file_contains(marker, "exit_code 0\n"));
}
END_TEST

/* Issue 21 item 8: kill -9 of the sweep parent ends its children too (parent-death signal:
 * SIGTERM, so the run saves its checkpoint); an immediate restart finishes the sweep with no run
 * failed. */
START_TEST(test_children_die_with_the_sweep) {
    write_ini();
    char tiny[128], run[160], loss[200], log[200], csv[160];
    snprintf(tiny, sizeof tiny, "%s/tiny.ini", g_tmp);
    char *args[] = {"train", "--sweep", tiny, "--grid", "train.steps=1000000", "--out", "k", NULL};
    snprintf(run, sizeof run, "%s/k/runs/steps-1000000", g_tmp);
    snprintf(loss, sizeof loss, "%s/loss.csv", run);
    snprintf(log, sizeof log, "%s/train.log", run);
    snprintf(csv, sizeof csv, "%s/k/sweep.csv", g_tmp);
    pid_t pid = start_sweep(args);
    tu_wait_for_file(loss, "\n10,", pid, 60);
    pid_t child = run_lock_holder(run);
    ck_assert_int_gt(child, 0);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    struct timespec nap = {0, 20000000};
    for (int i = 0; i < 500 && run_lock_holder(run) != 0; i++) nanosleep(&nap, NULL);
    int outlived = run_lock_holder(run) != 0;
    if (outlived) kill(child, SIGKILL); /* no orphan left training a million steps */
    ck_assert_msg(!outlived, "the run's process outlived its sweep");
    ck_assert(tu_file_contains(log, "terminated (SIGTERM)"));
    ck_assert(!exists(csv) || !tu_file_contains(csv, ",failed,"));
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("sweep_restart", make_tmp, remove_tmp, 120, test_resume_after_sigint,
                        test_ctrl_c_to_the_group_stops_runs_cleanly,
                        test_foreign_checkpoint, test_edited_task_file_refused,
                        test_other_log_header_refused,
                        test_refused_run_says_last_logged_val,
                        test_changed_task_file_new_plan,
                        test_finished_runs_of_another_plan_refused, test_locked_run_waited_for,
                        test_children_die_with_the_sweep);
