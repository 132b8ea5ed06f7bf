/* test_sweep.c: ./train --sweep end to end (src/sweep/sweep.c with children.c and run_one.c), on tiny
 * runs (copy of 3 symbols over 6, one layer, a few steps) in a fresh mkdtemp folder, each
 * through the real program (children are exec'd from /proc/self/exe):
 * --jobs 2 and --jobs 1 give the same sweep.csv (wall_s aside); --plan + jobs.txt under
 * the `xargs -0 -P 2` recipe --plan prints + --collect gives it too; a guard stop is recorded
 * (status guard, exit code 4) and the sweep goes on; SIGINT stops a sweep with 130 and the same command started again
 * skips the finished run and resumes the interrupted one; a different plan into the same folder
 * is refused naming the line that differs; an interrupted run whose task file was edited is
 * refused by its jobs.txt line and by the sweep started again, as ./train --resume refuses it;
 * a task file changed before a run started makes the restarted sweep another plan, refused.
 * Argument and config errors: test_plan.c. */
#include "sweep/sweep.h"

#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runlog/csv_read.h"
#include "testutil.h"
#include "util/run_lock.h"

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_sweep.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

static const char TINY_INI[] = "[task]\nname = copy\nlength = 3\nsymbols = 6\nval_size = 32\n"
                               "[model]\nn_layers = 1\n[train]\nbatch_size = 8\n";

/* The d_k axis at width 16 (d_k 4 and 8: 4 and 2 heads), two scales, two seeds. */
#define TINY_SWEEP "tiny.ini --dk 4,8 --d-model 16 --scales sqrt_dk,none --seeds 2 --steps 20"

static void write_ini(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/tiny.ini", g_tmp);
    tu_write_file(path, TINY_INI);
}

static int sweep_cmd(const char *fmt, const char *out) {
    char args[1024] = "--sweep ";
    snprintf(args + 8, sizeof args - 8, fmt, out);
    return tu_run_train(g_tmp, args);
}

static char *out_text(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/out.txt", g_tmp);
    char *t = tu_read_file(path, NULL);
    return t ? t : strdup("");
}

/* sweep.csv of g_tmp/dir without its wall_s column (a timing column), as text. */
static char *csv_without_wall(const char *dir) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s/sweep.csv", g_tmp, dir);
    Csv t = {0};
    ck_assert_msg(csv_load(&t, path) == 0, "no %s", path);
    int wall = csv_col(&t, "wall_s");
    ck_assert_int_ge(wall, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int r = -1; r < t.n_rows; r++) {
        for (int c = 0; c < t.n_cols; c++)
            if (c != wall) fprintf(f, "%s,", r < 0 ? t.cell[c] : csv_str(&t, r, c));
        fputc('\n', f);
    }
    fclose(f);
    csv_free(&t);
    return buf;
}

START_TEST(test_jobs_1_and_2_agree) {
    write_ini();
    int rc = sweep_cmd(TINY_SWEEP " --jobs 2 --out %s", "j2");
    char *msg = out_text();
    ck_assert_msg(rc == 0, "rc %d:\n%s", rc, msg);
    ck_assert_msg(strstr(msg, "8/8 runs done"), "%s", msg);
    /* one counter: after each run's line (named, not numbered) the progress line counts 1..8 */
    int k = 0;
    for (const char *p = msg; (p = strstr(p, "sweep: run ")); p++) {
        ck_assert_msg(!(p[11] >= '0' && p[11] <= '9'), "a numbered run line: %.200s", p);
        char want[64];
        snprintf(want, sizeof want, "\nsweep: %d/8 runs done (", ++k);
        const char *eol = strchr(p, '\n');
        ck_assert_msg(eol && strncmp(eol, want, strlen(want)) == 0, "run %d: no '%s' after: %.300s",
                      k, want + 1, p);
    }
    ck_assert_int_eq(k, 8);
    free(msg);
    ck_assert_int_eq(sweep_cmd(TINY_SWEEP " --jobs 1 --out %s", "j1"), 0);
    char *a = csv_without_wall("j2"), *b = csv_without_wall("j1");
    ck_assert_str_eq(a, b);
    free(b);
    free(a);
    char path[256];
    snprintf(path, sizeof path, "%s/j1/sweep.csv", g_tmp);
    Csv t = {0};
    ck_assert_int_eq(csv_load(&t, path), 0);
    ck_assert_int_eq(t.n_rows, 8);
    static const char *const NAMES[] = {"dk4_sqrt_dk_s1", "dk4_sqrt_dk_s2", "dk4_none_s1",
                                        "dk4_none_s2", "dk8_sqrt_dk_s1", "dk8_sqrt_dk_s2",
                                        "dk8_none_s1", "dk8_none_s2"};
    for (int r = 0; r < 8; r++) {
        ck_assert_str_eq(csv_str(&t, r, 0), NAMES[r]);
        ck_assert_str_eq(csv_str(&t, r, csv_col(&t, "status")), "ok");
        ck_assert_str_eq(csv_str(&t, r, csv_col(&t, "exit_code")), "0");
        ck_assert_str_eq(csv_str(&t, r, csv_col(&t, "d_model")), "16");
        ck_assert_str_eq(csv_str(&t, r, csv_col(&t, "n_heads")), r < 4 ? "4" : "2");
        ck_assert_str_eq(csv_str(&t, r, csv_col(&t, "steps_done")), "20");
    }
    /* the seed reaches the run: two seeds, two different step-0 losses */
    ck_assert_str_ne(csv_str(&t, 0, csv_col(&t, "loss0")), csv_str(&t, 1, csv_col(&t, "loss0")));
    csv_free(&t);
    /* a child's output went to its train.log, one thread per run */
    snprintf(path, sizeof path, "%s/j1/runs/dk8_none_s2/train.log", g_tmp);
    ck_assert(tu_file_contains(path, "run 'dk8_none_s2'"));
    snprintf(path, sizeof path, "%s/j1/configs/dk8_none_s2.ini", g_tmp);
    ck_assert(tu_file_contains(path, "threads = 1"));
    /* a different plan into the same folder: refused, naming the line */
    rc = sweep_cmd(TINY_SWEEP " --set optim.lr=0.003 --out %s", "j1");
    msg = out_text();
    ck_assert_msg(rc == 2 && strstr(msg, "different sweep plan") &&
                  strstr(msg, "'base optim.lr = 0.003'"), "rc %d:\n%s", rc, msg);
    free(msg);
    /* the same plan again: nothing to run, the table unchanged */
    ck_assert_int_eq(sweep_cmd(TINY_SWEEP " --jobs 2 --out %s", "j1"), 0);
    msg = out_text();
    ck_assert_msg(strstr(msg, "8 finished before, skipped; 0 to run"), "%s", msg);
    free(msg);
    a = csv_without_wall("j2"), b = csv_without_wall("j1");
    ck_assert_str_eq(a, b);
    free(b);
    free(a);
}
END_TEST

/* --plan, then jobs.txt run by the xargs recipe --plan prints (the README's line, the --out
 * as given: one NUL-separated line per sh -c, so xargs leaves the lines' quotes alone), and
 * again from another folder (its lines hold absolute paths), then --collect. */
START_TEST(test_plan_xargs_collect) {
    write_ini();
    ck_assert_int_eq(sweep_cmd(TINY_SWEEP " --grid optim.lr=1e-3,3e-3 --out %s", "inproc"), 0);
    ck_assert_int_eq(sweep_cmd(TINY_SWEEP " --grid optim.lr=1e-3,3e-3 --plan --out %s", "planned"), 0);
    /* the README's line, for --out planned */
    const char *recipe = "tr '\\n' '\\0' < planned/jobs.txt | xargs -0 -P 2 -n 1 sh -c";
    char line[300];
    snprintf(line, sizeof line, "\nrun them, e.g.:  %s\nthen:            ./train --sweep "
                                "--collect --out planned\n", recipe);
    char *plan_msg = out_text();
    ck_assert_msg(strstr(plan_msg, line), "no '%s' in:\n%s", line, plan_msg);
    free(plan_msg);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cd %s && %s", g_tmp, recipe);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "cd / && tr '\\n' '\\0' < %s/planned/jobs.txt | xargs -0 -P 2 -n 1 sh -c", g_tmp);
    /* jobs.txt again: each line finds its run finished and trains nothing */
    char loss[256];
    snprintf(loss, sizeof loss, "%s/planned/runs/dk4_none_lr-3e-3_s2/loss.csv", g_tmp);
    struct stat before, after;
    ck_assert_int_eq(stat(loss, &before), 0);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(stat(loss, &after), 0);
    ck_assert(after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
              after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    /* the same rows as the in-process sweep */
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep --collect --out planned"), 0);
    char *a = csv_without_wall("inproc"), *b = csv_without_wall("planned");
    ck_assert_str_eq(a, b);
    ck_assert_ptr_nonnull(strstr(a, "optim.lr"));
    free(a);
    free(b);
    char *msg = out_text();
    ck_assert_msg(strstr(msg, "every run has finished"), "%s", msg);
    free(msg);
}
END_TEST

/* --plan's two lines to paste: the folder quoted for sh when it needs it (single quotes, ' as
 * '\''), as it is when plain; -P is --jobs when given, else 2. Pasting the printed --collect line
 * into sh (with ./train the test's binary) reads this plan back, and runs nothing else. The
 * expected words are written by hand. */
START_TEST(test_plan_lines_quoted) {
    write_ini();
    static const struct {
        const char *arg, *flags, *word; /* --out as the test's sh reads it; the printed word */
        int p;
    } cases[] = {
        {"'sw/$(touch PWNED)'", "", "'sw/$(touch PWNED)'", 2},
        {"'sw/with space'", " --jobs 3", "'sw/with space'", 3},
        {"\"sw/it's\"", "", "'sw/it'\\''s'", 2},
        {"sw/plain_1.x", " --jobs 1", "sw/plain_1.x", 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char args[512];
        snprintf(args, sizeof args, "--sweep tiny.ini --grid optim.lr=1e-3 --steps 5%s --plan "
                 "--out %s", cases[c].flags, cases[c].arg);
        ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
        char want[512];
        snprintf(want, sizeof want, "\nrun them, e.g.:  tr '\\n' '\\0' < %s/jobs.txt | xargs -0 "
                 "-P %d -n 1 sh -c\nthen:            ./train --sweep --collect --out %s\n",
                 cases[c].word, cases[c].p, cases[c].word);
        char *msg = out_text();
        ck_assert_msg(strstr(msg, want), "case %zu: no '%s' in:\n%s", c, want, msg);
        /* the printed --collect line, pasted */
        const char *then = strstr(msg, "then:            ./train ");
        ck_assert_ptr_nonnull(then);
        then += strlen("then:            ./train ");
        snprintf(args, sizeof args, "%.*s", (int)strcspn(then, "\n"), then);
        free(msg);
        ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
        msg = out_text();
        ck_assert_msg(strstr(msg, "of 1 planned runs"), "case %zu: %s", c, msg);
        free(msg);
        char path[256];
        snprintf(path, sizeof path, "%s/PWNED", g_tmp);
        ck_assert_msg(access(path, F_OK) != 0, "case %zu: the pasted line ran a command", c);
    }
}
END_TEST

/* --collect of a plan whose runs did not all run: those rows say missing, and are named. */
START_TEST(test_collect_missing) {
    write_ini();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3,3e-3 --steps 5 --plan --out %s", "p"), 0);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "head -n 1 %s/p/jobs.txt | sh", g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep --collect --out p"), 0);
    char *msg = out_text();
    ck_assert_msg(strstr(msg, "not finished: lr-3e-3") && strstr(msg, "1 of 2 planned runs"),
                  "%s", msg);
    free(msg);
    char path[256];
    snprintf(path, sizeof path, "%s/p/sweep.csv", g_tmp);
    ck_assert(tu_file_contains(path, "\nlr-1e-3,"));
    ck_assert(tu_file_contains(path, ",ok,0,5,"));
    ck_assert(tu_file_contains(path, ",missing,,"));
}
END_TEST

/* A run that trips a guard is recorded as such and the sweep goes on: the unscaled logits at
 * d_k 16 have a std of about 4 at step 0, the scaled ones about 1. */
START_TEST(test_guard_recorded) {
    write_ini();
    int rc = sweep_cmd("tiny.ini --dk 16 --d-model 16 --scales none,sqrt_dk --steps 5 --set "
                       "guard.logit_std_max=2 --set guard.action=stop --out %s", "g");
    char *msg = out_text();
    ck_assert_msg(rc == 0, "rc %d:\n%s", rc, msg);
    free(msg);
    char path[256];
    snprintf(path, sizeof path, "%s/g/sweep.csv", g_tmp);
    Csv t = {0};
    ck_assert_int_eq(csv_load(&t, path), 0);
    ck_assert_int_eq(t.n_rows, 2);
    ck_assert_str_eq(csv_str(&t, 0, csv_col(&t, "status")), "guard");
    ck_assert_str_eq(csv_str(&t, 0, csv_col(&t, "exit_code")), "4");
    ck_assert(csv_num(&t, 0, csv_col(&t, "logit_std0")) > 2);
    ck_assert_str_eq(csv_str(&t, 1, csv_col(&t, "status")), "ok");
    ck_assert_str_eq(csv_str(&t, 1, csv_col(&t, "steps_done")), "5");
    csv_free(&t);
}
END_TEST

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

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

/* Waits until path contains needle (up to a minute). */
static void wait_for(const char *path, const char *needle) {
    struct timespec nap = {0, 20000000};
    for (int i = 0; i < 3000 && !tu_file_contains(path, needle); i++) nanosleep(&nap, NULL);
    ck_assert_msg(tu_file_contains(path, needle), "'%s' never appeared in %s", needle, path);
}

static int stop_with(pid_t pid, int sig) {
    kill(pid, sig);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
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
    wait_for(log2, "\n10,"); /* run 2 has logged a row: its signal handler is in place */
    ck_assert_int_eq(stop_with(pid, SIGINT), 130);
    ck_assert(tu_file_contains(csv, "\nsteps-20,64,64,1,sqrt_dk,1,20,ok,0,20,"));
    /* stopped by the signal, nobody trains it: "stopped" (was "running") */
    ck_assert(tu_file_contains(csv, "\nsteps-1000000,64,64,1,sqrt_dk,1,1000000,stopped,,"));
    snprintf(log2, sizeof log2, "%s/r/runs/steps-1000000/train.log", g_tmp);
    ck_assert(tu_file_contains(log2, "interrupted (SIGINT)"));
    struct stat before;
    ck_assert_int_eq(stat(loss1, &before), 0);
    pid = start_sweep(args);
    wait_for(log2, "resuming from checkpoint.bin");
    wait_for(log2, "resumed");
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
    snprintf(path, sizeof path, "%s/words.txt", g_tmp);
    tu_write_file(path, "a b | b a\nb c | c b\nc a | a c\na a | a a\nb b | b b\nc c | c c\n"
                        "a c | c a\nb a | a b\n");
    char ini[512]; /* an absolute task.file: the jobs.txt lines run from this test's folder */
    snprintf(ini, sizeof ini, "[task]\nname = file\nfile = %s/words.txt\nval_size = 4\n[model]\n"
             "n_layers = 1\nd_model = 16\nn_heads = 2\n[train]\nbatch_size = 4\n", g_tmp);
    snprintf(path, sizeof path, "%s/file.ini", g_tmp);
    tu_write_file(path, ini);
    ck_assert_int_eq(sweep_cmd("file.ini --grid optim.lr=1e-3 --steps 5 --plan --out %s", "t"), 0);
    snprintf(cmd, sizeof cmd, "sh %s/t/jobs.txt", g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/t/runs/lr-1e-3/sweep_result.txt", g_tmp);
    ck_assert_int_eq(remove(path), 0); /* as if it had been interrupted */
    snprintf(path, sizeof path, "%s/t/runs/lr-1e-3/checkpoint.bin", g_tmp);
    snprintf(copy, sizeof copy, "%s/checkpoint.copy", g_tmp);
    snprintf(cmd, sizeof cmd, "cp %s %s", path, copy);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/words.txt", g_tmp);
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    fputs("c b | b c\n", f);
    fclose(f);
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

/* A sweep on a task file, one run done, then the file edited: plan.txt records the file's hash,
 * so the same sweep command started again is another plan, refused naming the task-file line,
 * and the jobs.txt line of the run not yet started refuses the file; neither creates its run
 * folder, so no summary pools runs of two datasets. --collect reads the plan, and one from
 * before the task-file lines (the line removed) too. */
START_TEST(test_changed_task_file_new_plan) {
    char path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/words.txt", g_tmp);
    tu_write_file(path, "a b | b a\nb c | c b\nc a | a c\na a | a a\nb b | b b\nc c | c c\n"
                        "a c | c a\nb a | a b\n");
    char ini[512];
    snprintf(ini, sizeof ini, "[task]\nname = file\nfile = %s/words.txt\nval_size = 4\n[model]\n"
             "n_layers = 1\nd_model = 16\nn_heads = 2\n[train]\nbatch_size = 4\n", g_tmp);
    snprintf(path, sizeof path, "%s/file.ini", g_tmp);
    tu_write_file(path, ini);
    ck_assert_int_eq(sweep_cmd("file.ini --grid optim.lr=1e-3,2e-3 --steps 5 --plan --out %s", "h"), 0);
    snprintf(path, sizeof path, "%s/h/plan.txt", g_tmp);
    ck_assert(tu_file_contains(path, "\ntask-file fnv1a64 "));
    snprintf(cmd, sizeof cmd, "head -n 1 %s/h/jobs.txt | sh", g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/words.txt", g_tmp);
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    fputs("c b | b c\n", f);
    fclose(f);
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

/* A run folder that is a symbolic link: its jobs.txt line refuses it (exit 2, naming it) and
 * writes nothing through it, not even its train.log. */
START_TEST(test_symlinked_run_folder_refused) {
    write_ini();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --plan --out %s", "l"), 0);
    char victim[128], path[256], args[512];
    snprintf(victim, sizeof victim, "%s/victim", g_tmp);
    ck_assert_int_eq(mkdir(victim, 0755), 0);
    snprintf(path, sizeof path, "%s/l/runs", g_tmp);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/l/runs/lr-1e-3", g_tmp);
    ck_assert_int_eq(symlink(victim, path), 0);
    snprintf(args, sizeof args, "--sweep-run %s/l/configs/lr-1e-3.ini", g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 2);
    ck_assert(tu_train_output_contains(g_tmp, "symbolic link"));
    snprintf(path, sizeof path, "%s/train.log", victim);
    ck_assert(!exists(path));
    snprintf(path, sizeof path, "%s/config.ini", victim);
    ck_assert(!exists(path));
}
END_TEST

/* Without --out the folder is sweeps/<config name>; --set reaches every run's config. */
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

START_TEST(test_default_out_dir) {
    write_ini();
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep tiny.ini --dk 4 --d-model 8 --scales none "
                                         "--set task.val_size=16 --plan"), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/sweeps/tiny/configs/dk4_none_s1.ini", g_tmp);
    ck_assert(tu_file_contains(path, "val_size = 16"));
    ck_assert(tu_file_contains(path, "d_model = 8"));
    ck_assert(tu_file_contains(path, "n_heads = 2"));
    ck_assert(tu_file_contains(path, "scale = none"));
    snprintf(path, sizeof path, "%s/sweeps/tiny/jobs.txt", g_tmp);
    ck_assert(tu_file_contains(path, "--sweep-run '/"));
    ck_assert_int_eq(tu_count_lines(path), 1);
}
END_TEST

/* Issue 21 item 9: a second sweep into a folder a sweep is using is refused up front (exit 2),
 * naming the first one's pid, and writes nothing; once the first is gone it runs. The "first
 * sweep" is this test process holding the folder's lock. */
START_TEST(test_second_sweep_refused) {
    write_ini();
    char out[128], plan[160];
    snprintf(out, sizeof out, "%s/two", g_tmp);
    snprintf(plan, sizeof plan, "%s/plan.txt", out);
    ck_assert_int_eq(mkdir(out, 0755), 0);
    int fd = run_lock_take(out, NULL);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --out %s", "two"), 2);
    char *t = out_text(), want[64];
    snprintf(want, sizeof want, "another sweep (pid %ld)", (long)getpid());
    ck_assert_msg(strstr(t, want), "%s", t);
    free(t);
    ck_assert(!exists(plan));
    close(fd);
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --out %s", "two"), 0);
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
    wait_for(bg, "waiting for it to end");
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
    wait_for(loss, "\n10,");
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

TU_MAIN_FIXTURE_TIMEOUT("sweep", make_tmp, remove_tmp, 120, test_jobs_1_and_2_agree,
                        test_plan_xargs_collect, test_plan_lines_quoted, test_collect_missing, test_guard_recorded,
                        test_resume_after_sigint, test_foreign_checkpoint,
                        test_edited_task_file_refused, test_changed_task_file_new_plan,
                        test_symlinked_run_folder_refused, test_default_out_dir,
                        test_finished_runs_of_another_plan_refused, test_second_sweep_refused,
                        test_locked_run_waited_for, test_children_die_with_the_sweep);
