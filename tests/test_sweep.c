/* test_sweep.c: ./train --sweep end to end (src/sweep/sweep.c with children.c and run_one.c), on
 * tiny runs (copy of 3 symbols over 6, one layer, a few steps) in a fresh mkdtemp folder, each
 * through the real program (children are exec'd from /proc/self/exe): --jobs 2 and --jobs 1 give
 * the same sweep.csv (wall_s aside), and a different plan into the same folder is refused naming
 * the line that differs; --plan + jobs.txt under the `xargs -0 -P 2` recipe --plan prints +
 * --collect gives it too, and --collect names the runs that did not run; a guard stop is recorded
 * (status guard, exit code 4) and the sweep goes on; a symlinked run folder, or one holding the
 * user's files (their own train.log included), is refused with nothing written into it; the
 * default --out folder; a second sweep into a folder a sweep is using is refused; the line per
 * run names its measure (a text run's bits per byte and next-byte accuracy).
 * Started again after an interruption or an edit: test_sweep_restart.c. Argument and config
 * errors: test_plan.c. */
#include "sweep/sweep.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runlog/csv_read.h"
#include "sweeptest.h"
#include "testutil.h"
#include "util/run_lock.h"

/* The d_k axis at width 16 (d_k 4 and 8: 4 and 2 heads), two scales, two seeds. */
#define TINY_SWEEP "tiny.ini --dk 4,8 --d-model 16 --scales sqrt_dk,none --seeds 2 --steps 20"

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

/* g_tmp/dir/sweep.csv into t (asserted readable). Returns its number of rows. */
static int load_sweep_csv(Csv *t, const char *tmp, const char *dir) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s/sweep.csv", tmp, dir);
    ck_assert_msg(csv_load(t, path) == 0, "no %s", path);
    return t->n_rows;
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

/* --plan, then jobs.txt run by the xargs recipe --plan prints (docs/sweeps.md's line, the --out
 * as given: one NUL-separated line per sh -c, so xargs leaves the lines' quotes alone), and
 * again from another folder (its lines hold absolute paths), then --collect. */
START_TEST(test_plan_xargs_collect) {
    write_ini();
    ck_assert_int_eq(sweep_cmd(TINY_SWEEP " --grid optim.lr=1e-3,3e-3 --out %s", "inproc"), 0);
    ck_assert_int_eq(sweep_cmd(TINY_SWEEP " --grid optim.lr=1e-3,3e-3 --plan --out %s", "planned"), 0);
    /* docs/sweeps.md's line, for --out planned */
    const char *recipe = "tr '\\n' '\\0' < planned/jobs.txt | xargs -0 -P 2 -n 1 sh -c";
    char line[300];
    snprintf(line, sizeof line, "\nrun them, e.g.:  %s\nor:              parallel -j 2 < "
             "planned/jobs.txt   (GNU parallel: apt-get install parallel)\nthen:            "
             "./train --sweep --collect --out planned\n", recipe);
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

/* --plan's lines to paste: the folder quoted for sh when it needs it (single quotes, ' as
 * '\''), as it is when plain, and so is its configs' path in jobs.txt (the folder in /tmp: plain); -P and parallel's -j are --jobs when given, else 2; the GNU
 * parallel line names the package to install. Pasting the printed --collect line
 * into sh (with ./train the test's binary) reads this plan back, and runs nothing else. The
 * expected words are written by hand. */
START_TEST(test_plan_lines_quoted) {
    write_ini();
    static const struct {
        const char *arg, *flags, *word; /* --out as the test's sh reads it; the printed word */
        int p;
        const char *dir, *job; /* the folder; its jobs.txt's --sweep-run word's start (%s: g_tmp) */
    } cases[] = {
        {"'sw/$(touch PWNED)'", "", "'sw/$(touch PWNED)'", 2, "sw/$(touch PWNED)",
         " --sweep-run '%s/sw/$(touch PWNED)/configs/"},
        {"'sw/with space'", " --jobs 3", "'sw/with space'", 3, "sw/with space",
         " --sweep-run '%s/sw/with space/configs/"},
        {"\"sw/it's\"", "", "'sw/it'\\''s'", 2, "sw/it's", " --sweep-run '%s/sw/it'\\''s/configs/"},
        {"sw/plain_1.x", " --jobs 1", "sw/plain_1.x", 1, "sw/plain_1.x",
         " --sweep-run %s/sw/plain_1.x/configs/"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char args[512];
        snprintf(args, sizeof args, "--sweep tiny.ini --grid optim.lr=1e-3 --steps 5%s --plan "
                 "--out %s", cases[c].flags, cases[c].arg);
        ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
        char want[512];
        snprintf(want, sizeof want, "\nrun them, e.g.:  tr '\\n' '\\0' < %s/jobs.txt | xargs -0 "
                 "-P %d -n 1 sh -c\nor:              parallel -j %d < %s/jobs.txt   (GNU parallel: "
                 "apt-get install parallel)\nthen:            ./train --sweep --collect --out %s\n",
                 cases[c].word, cases[c].p, cases[c].p, cases[c].word, cases[c].word);
        char *msg = out_text();
        ck_assert_msg(strstr(msg, want), "case %zu: no '%s' in:\n%s", c, want, msg);
        char jobs[512];
        snprintf(jobs, sizeof jobs, "%s/%s/jobs.txt", g_tmp, cases[c].dir);
        snprintf(want, sizeof want, cases[c].job, g_tmp);
        ck_assert_msg(tu_file_contains(jobs, want), "case %zu: no '%s' in %s", c, want, jobs);
        /* the printed --collect line, pasted */
        const char *then = strstr(msg, "then:            ./train ");
        ck_assert_ptr_nonnull(then);
        then += strlen("then:            ./train ");
        snprintf(args, sizeof args, "%.*s", (int)strcspn(then, "\n"), then);
        free(msg);
        ck_assert_int_eq(tu_run_train(g_tmp, args), 1); /* read back; no run has trained */
        msg = out_text();
        ck_assert_msg(strstr(msg, "of 1 planned runs"), "case %zu: %s", c, msg);
        free(msg);
        char path[256];
        snprintf(path, sizeof path, "%s/PWNED", g_tmp);
        ck_assert_msg(access(path, F_OK) != 0, "case %zu: the pasted line ran a command", c);
    }
}
END_TEST

/* --collect of a plan whose runs did not all run: those rows say missing, and are named. When
 * none has trained, every file is still written but the exit code is 1 (issue 33: it was 0, so
 * `--collect && publish` went on with a report of nothing). */
START_TEST(test_collect_missing) {
    write_ini();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3,3e-3 --steps 5 --plan --out %s", "p"), 0);
    char cmd[512], file[256];
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep --collect --out p"), 1);
    char *none = out_text();
    ck_assert_msg(strstr(none, "error: no run in p/sweep.csv has trained"), "%s", none);
    free(none);
    static const char *const WRITTEN[] = {"sweep.csv", "summary.txt", "index.html"};
    for (size_t i = 0; i < sizeof WRITTEN / sizeof *WRITTEN; i++) {
        snprintf(file, sizeof file, "%s/p/%s", g_tmp, WRITTEN[i]);
        ck_assert_msg(access(file, F_OK) == 0, "%s not written", file);
    }
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep-report p"), 1);
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
    /* issue 33: a finished run whose loss.csv stops short (incomplete): its jobs.txt line does
     * nothing, so --collect says to remove its folder instead */
    snprintf(cmd, sizeof cmd, "cd %s/p/runs/lr-1e-3 && head -n 2 loss.csv > l && mv l loss.csv",
             g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep --collect --out p"), 1); /* none trained now */
    msg = out_text();
    ck_assert_msg(strstr(msg, "not finished: lr-1e-3 (incomplete: its jobs.txt line does not "
                              "train it; remove p/runs/lr-1e-3 to train it again)") &&
                      strstr(msg, "not finished: lr-3e-3 (missing)\n"),
                  "%s", msg);
    free(msg);
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

/* A run folder holding files of the user's: their own train.log (not one a sweep's run command
 * began), or any other file. Its jobs.txt line refuses it (exit 2, naming the folder) before
 * anything is written there: the train.log is not appended to, no marker, no config.ini. */
static const struct {
    const char *name, *text;
} USER_RUN_FILES[] = {{"train.log", "my own log\n"}, {"notes.txt", "mine\n"}};

START_TEST(test_user_run_folder_refused) {
    write_ini();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --plan --out %s", "u"), 0);
    char path[256], args[512], cmd[600];
    snprintf(path, sizeof path, "%s/u/runs", g_tmp);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    tu_put_file(path, sizeof path, path, "lr-1e-3", USER_RUN_FILES[_i].name,
                USER_RUN_FILES[_i].text);
    snprintf(args, sizeof args, "--sweep-run %s/u/configs/lr-1e-3.ini", g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 2);
    ck_assert(tu_train_output_contains(g_tmp, "holds files but no run of ./train"));
    ck_assert(tu_train_output_contains(g_tmp, "/u/runs/lr-1e-3'"));
    snprintf(cmd, sizeof cmd, "[ \"$(ls -A %s)\" = %s ]", path, USER_RUN_FILES[_i].name);
    ck_assert_msg(system(cmd) == 0, "a file was written into the user's folder");
    snprintf(path, sizeof path, "%s/u/runs/lr-1e-3/%s", g_tmp, USER_RUN_FILES[_i].name);
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, USER_RUN_FILES[_i].text);
    free(text);
}
END_TEST

/* A run of ./train in a sweep's run folder that no run command has taken yet (its manifest
 * names the run's writer only, as a version before the run command's did), with a
 * sweep_wall.txt of the user's: refused, naming the file, and kept as it was, never added to as
 * the run's wall time. Both writers of the folder read it before they adopt it (a number of
 * seconds is theirs); ./train's rule, checked first, names it. */
START_TEST(test_user_sweep_wall_refused) {
    write_ini();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --plan --out %s", "w"), 0);
    char path[256], args[512];
    snprintf(args, sizeof args, "%s/w/configs/lr-1e-3.ini", g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    snprintf(path, sizeof path, "%s/w/runs", g_tmp);
    tu_put_file(NULL, 0, path, "lr-1e-3", "sweep_wall.txt", "my timing notes\n");
    snprintf(path, sizeof path, "%s/w/runs/lr-1e-3/sweep_wall.txt", g_tmp);
    snprintf(args, sizeof args, "--sweep-run %s/w/configs/lr-1e-3.ini", g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 2);
    ck_assert(tu_train_output_contains(g_tmp, "/w/runs/lr-1e-3/sweep_wall.txt' is not a file "
                                              "./train"));
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "my timing notes\n");
    free(text);
}
END_TEST

/* The same folder of the user's in a sweep run in one process: the run is refused before it
 * opens a train.log, so the sweep's line for it says its error is above, not "see its
 * train.log" (there is none). */
START_TEST(test_refused_run_named_without_train_log) {
    write_ini();
    char path[256];
    snprintf(path, sizeof path, "%s/v", g_tmp);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/v/runs", g_tmp);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    tu_put_file(NULL, 0, path, "lr-1e-3", "notes.txt", "mine\n");
    /* issue 45 item 4: refused is bad input (exit 2), recorded as refused, not stopped (which
     * says interrupted), and the closing line names it by that status, not "failed ... see their
     * train.log"; the other run trains */
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3,2e-3 --steps 5 --out %s", "v"), 2);
    char *t = out_text();
    ck_assert_msg(strstr(t, "holds files but no run of ./train"), "%s", t);
    ck_assert_msg(strstr(t, "sweep: run lr-1e-3: refused (exit code 2)") &&
                      strstr(t, "it wrote no train.log: its error is above") &&
                      !strstr(t, "see its train.log") && !strstr(t, "see their train.log"),
                  "%s", t);
    ck_assert_msg(strstr(t, "  did not finish: lr-1e-3 (refused, exit code 2; it wrote no "
                            "train.log: its error is above)\nsweep: 1 run did not finish"), "%s", t);
    free(t);
    Csv c = {0};
    ck_assert_int_eq(load_sweep_csv(&c, g_tmp, "v"), 2);
    ck_assert_str_eq(csv_str(&c, 0, csv_col(&c, "status")), "refused");
    ck_assert_str_eq(csv_str(&c, 0, csv_col(&c, "exit_code")), "2");
    ck_assert_str_eq(csv_str(&c, 1, csv_col(&c, "status")), "ok");
    csv_free(&c);
}
END_TEST

/* --collect into a sweep folder holding a summary.txt of the user's: refused (exit 2) before
 * sweep.csv or the report is written; the user's file is kept. */
START_TEST(test_collect_keeps_user_summary) {
    write_ini();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --plan --out %s", "k"), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/k/summary.txt", g_tmp);
    tu_write_file(path, "my notes\n");
    ck_assert_int_eq(sweep_cmd("--collect --out %s", "k"), 2);
    ck_assert(tu_train_output_contains(g_tmp, "k/summary.txt' is not a file a sweep into this "
                                              "folder wrote"));
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "my notes\n");
    free(text);
    snprintf(path, sizeof path, "%s/k/sweep.csv", g_tmp);
    ck_assert(!exists(path));
}
END_TEST

/* A sweep's run trained again by hand with another configuration (the README's "./train
 * runs/x/config.ini repeats the run", here with --set optim.lr=9e-3): the sweep's marker goes
 * with the run it described, so --collect no longer reports the folder as the plan's run
 * finished (status ok under the plan's optim.lr) but as not finished. */
START_TEST(test_run_replaced_by_hand_not_collected_as_planned) {
    write_ini();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --out %s", "h"), 0);
    char path[256], args[512];
    snprintf(path, sizeof path, "%s/h/runs/lr-1e-3/sweep_result.txt", g_tmp);
    ck_assert(exists(path)); /* the premise: a finished run of the sweep */
    snprintf(args, sizeof args, "h/runs/lr-1e-3/config.ini --set optim.lr=9e-3 --set log.progress=0");
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    ck_assert(!exists(path));
    ck_assert_int_eq(sweep_cmd("--collect --out %s", "h"), 1); /* its only run: not finished */
    snprintf(path, sizeof path, "%s/h/sweep.csv", g_tmp);
    Csv t = {0};
    ck_assert_int_eq(csv_load(&t, path), 0);
    ck_assert_int_eq(t.n_rows, 1);
    ck_assert_str_eq(csv_str(&t, 0, csv_col(&t, "optim.lr")), "1e-3");
    ck_assert_str_ne(csv_str(&t, 0, csv_col(&t, "status")), "ok");
    csv_free(&t);
    ck_assert(tu_train_output_contains(g_tmp, "not finished: lr-1e-3"));
}
END_TEST

/* Issue 45 item 3: a sweep's run that is not the plan's row, each way the issue found: trained
 * again by hand with another lr, resumed with another train.steps, or trained from an edited
 * configs/RUN.ini after its folder was removed. --collect names it with the setting that differs
 * (the expected text is the config writer's spelling of the two values), marks the row mismatch
 * with no numbers, exits 1; --sweep-report counts it out of the statistics and says why. */
static const struct {
    const char *name;
    const char *edit;  /* a sed on configs/lr-1e-3.ini after removing runs/lr-1e-3, or NULL */
    const char *train; /* ./train arguments in g_tmp */
    const char *differs;
} NOT_THE_PLANS[] = {
    {"lr by hand", NULL, "h/runs/lr-1e-3/config.ini --set optim.lr=9e-3 --set log.progress=0",
     "optim.lr = 0.009, the plan's 0.001"},
    {"resumed longer", NULL, "--resume h/runs/lr-1e-3 --set train.steps=8 --set log.progress=0",
     "train.steps = 8, the plan's 5"},
    {"edited config", "s/^batch_size = 8/batch_size = 4/", "--sweep-run h/configs/lr-1e-3.ini",
     "train.batch_size = 4, the plan's 8"},
};

START_TEST(test_run_not_the_plans_marked) {
    write_ini();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --out %s", "h"), 0);
    char cmd[512];
    if (NOT_THE_PLANS[_i].edit) {
        snprintf(cmd, sizeof cmd, "cd %s && rm -r h/runs/lr-1e-3 && sed -i '%s' h/configs/lr-1e-3.ini",
                 g_tmp, NOT_THE_PLANS[_i].edit);
        ck_assert_int_eq(system(cmd), 0);
    }
    ck_assert_int_eq(tu_run_train(g_tmp, NOT_THE_PLANS[_i].train), 0);
    ck_assert_int_eq(sweep_cmd("--collect --out %s", "h"), 1);
    char *msg = out_text(), want[256];
    snprintf(want, sizeof want, "warning: h/runs/lr-1e-3 holds a run of another configuration "
                                "than the plan's row (%s)", NOT_THE_PLANS[_i].differs);
    ck_assert_msg(strstr(msg, want), "%s: no '%s' in:\n%s", NOT_THE_PLANS[_i].name, want, msg);
    ck_assert_msg(strstr(msg, "1 run is not the plan's"), "%s", msg);
    /* issue 45 F6: where configs/lr-1e-3.ini was edited, removing the folder and running its
     * jobs.txt line would train the edit again: that is said, and how to put the plan's back */
    int edited = NOT_THE_PLANS[_i].edit != NULL;
    snprintf(want, sizeof want, "warning: h/configs/lr-1e-3.ini is not the plan's row either (%s): "
                                "it was edited after the plan was made", NOT_THE_PLANS[_i].differs);
    ck_assert_msg(!strstr(msg, want) == !edited, "%s: edited %d, in:\n%s", NOT_THE_PLANS[_i].name,
                  edited, msg);
    ck_assert_msg(!strstr(msg, "first put the plan's settings back in the edited configs/ files "
                               "(run the sweep's command again with --plan") == !edited,
                  "%s: advice, in:\n%s", NOT_THE_PLANS[_i].name, msg);
    free(msg);
    Csv t = {0};
    ck_assert_int_eq(load_sweep_csv(&t, g_tmp, "h"), 1);
    ck_assert_str_eq(csv_str(&t, 0, csv_col(&t, "optim.lr")), "1e-3");
    ck_assert_str_eq(csv_str(&t, 0, csv_col(&t, "status")), "mismatch");
    ck_assert_str_eq(csv_str(&t, 0, csv_col(&t, "val_loss")), "");
    ck_assert_str_eq(csv_str(&t, 0, csv_col(&t, "val_answer_acc")), "");
    csv_free(&t);
    char path[256];
    snprintf(path, sizeof path, "%s/h/summary.txt", g_tmp);
    ck_assert(tu_file_contains(path, "status mismatch: 1 run folder holds a run of another"));
    /* --sweep-report reads sweep.csv alone: the row is not the plan's run, not counted */
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep-report h"), 1);
    ck_assert(tu_train_output_contains(g_tmp, "in the statistics: 0 (ok 0"));
    ck_assert(tu_train_output_contains(g_tmp, "lr-1e-3: mismatch"));
    if (!edited) return;
    /* the advice followed: re-planned, the folder removed, its jobs.txt line run: the plan's run */
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --plan --out %s", "h"), 0);
    snprintf(cmd, sizeof cmd, "cd %s && rm -r h/runs/lr-1e-3 && sh h/jobs.txt > /dev/null 2>&1",
             g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(sweep_cmd("--collect --out %s", "h"), 0);
    ck_assert_int_eq(load_sweep_csv(&t, g_tmp, "h"), 1);
    ck_assert_str_eq(csv_str(&t, 0, csv_col(&t, "status")), "ok");
    csv_free(&t);
}
END_TEST

/* The identity check does not mistake the plan's own runs for others: --grid task.file with
 * relative values (made absolute in each run's config, as given in plan.txt's cells), collected
 * from another folder: every row ok, exit 0. */
START_TEST(test_relative_task_files_are_the_plans) {
    char path[256];
    static const char WORDS[] = "a b | b a\nb c | c b\nc a | a c\na a | a a\nb b | b b\nc c | c c\n";
    snprintf(path, sizeof path, "%s/w1.txt", g_tmp);
    tu_write_file(path, WORDS);
    snprintf(path, sizeof path, "%s/w2.txt", g_tmp);
    tu_write_file(path, "a c | c a\nb a | a b\nc b | b c\na a | a a\nb b | b b\nc c | c c\n");
    snprintf(path, sizeof path, "%s/f.ini", g_tmp);
    tu_write_file(path, "[task]\nname = file\nval_size = 2\n[model]\nd_model = 16\nn_layers = 1\n"
                        "[train]\nbatch_size = 4\n");
    ck_assert_int_eq(sweep_cmd("f.ini --grid task.file=w1.txt,w2.txt --steps 5 --out %s", "f"), 0);
    snprintf(path, sizeof path, "%s/sub", g_tmp);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_int_eq(tu_run_train(path, "--sweep --collect --out ../f"), 0);
    Csv t = {0};
    ck_assert_int_eq(load_sweep_csv(&t, g_tmp, "f"), 2);
    for (int r = 0; r < 2; r++) ck_assert_str_eq(csv_str(&t, r, csv_col(&t, "status")), "ok");
    csv_free(&t);
}
END_TEST

/* Without --out the folder is sweeps/<config name>; --set reaches every run's config. */
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
    ck_assert(tu_file_contains(path, "--sweep-run /")); /* a plain path bare (shell_word) */
    ck_assert_int_eq(tu_count_lines(path), 1);
}
END_TEST

/* The line the sweep prints per finished run names what its number is: a run of a generated task
 * its answer accuracy, a text run (which has no answers; its val_answer_acc is the next-byte
 * accuracy) its bits per byte and next-byte accuracy. The expected numbers come from each run's
 * own loss.csv: the last val_loss / ln 2 and the last val_token_acc (on text the same as
 * val_answer_acc), the copy run's last val_answer_acc. */
START_TEST(test_run_line_names_the_measure) {
    write_ini();
    char args[600];
    snprintf(args, sizeof args, "tiny.ini --set task.name=text --set task.file=%s/data/prose.txt "
                                "--set task.seq_len=16 --set model.d_model=16 --grid "
                                "attention.scale=sqrt_dk,none --steps 4 --out %%s", SCALEDOT_SOURCE_DIR);
    ck_assert_int_eq(sweep_cmd(args, "text"), 0);
    char *msg = out_text();
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 4 --out %s", "copy"), 0);
    char *copy = out_text();
    static const struct {
        const char *dir, *run;
        int text;
    } RUNS[] = {{"text", "scale-sqrt_dk", 1}, {"text", "scale-none", 1}, {"copy", "lr-1e-3", 0}};
    for (int i = 0; i < 3; i++) {
        char path[256], want[256];
        snprintf(path, sizeof path, "%s/%s/runs/%s/loss.csv", g_tmp, RUNS[i].dir, RUNS[i].run);
        Csv t = {0};
        ck_assert_msg(csv_load(&t, path) == 0, "no %s", path);
        int row = t.n_rows - 1;
        double loss = csv_num(&t, row, csv_col(&t, "val_loss"));
        double acc = csv_num(&t, row, csv_col(&t, RUNS[i].text ? "val_token_acc" : "val_answer_acc"));
        csv_free(&t);
        if (RUNS[i].text)
            snprintf(want, sizeof want, "sweep: run %s: ok (exit code 0), final val bpb %.4f, "
                     "next-byte acc %.1f%%, ", RUNS[i].run, loss / log(2.0), 100 * acc);
        else
            snprintf(want, sizeof want, "sweep: run %s: ok (exit code 0), final val answer acc "
                     "%.1f%%, ", RUNS[i].run, 100 * acc);
        const char *out = RUNS[i].text ? msg : copy;
        ck_assert_msg(strstr(out, want), "no '%s' in:\n%s", want, out);
    }
    ck_assert_msg(!strstr(msg, "answer acc"), "%s", msg);
    free(copy);
    free(msg);
    /* the report knows it from sweep.csv's task column */
    char path[256];
    snprintf(path, sizeof path, "%s/text/summary.txt", g_tmp);
    ck_assert(tu_file_contains(path, "final next-byte accuracy"));
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
    /* refused at once: a sweep that went on would wait for the folder's lock this process holds
     * (its report takes it), so it gets 15 s, not the test's whole time limit */
    char args[256];
    snprintf(args, sizeof args, "--sweep tiny.ini --grid optim.lr=1e-3 --steps 5 --out %s", "two");
    ck_assert_int_eq(tu_run_train_within(g_tmp, 15, args), 2);
    char *t = out_text(), want[64];
    snprintf(want, sizeof want, "another sweep (pid %ld)", (long)getpid());
    ck_assert_msg(strstr(t, want), "%s", t);
    free(t);
    ck_assert(!exists(plan));
    close(fd);
    ck_assert_int_eq(sweep_cmd("tiny.ini --grid optim.lr=1e-3 --steps 5 --out %s", "two"), 0);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("sweep", make_tmp, remove_tmp, 120, test_jobs_1_and_2_agree,
                        test_plan_xargs_collect, test_plan_lines_quoted, test_collect_missing,
                        test_guard_recorded,
                        test_symlinked_run_folder_refused,
                        TU_LOOP(test_user_run_folder_refused, 0,
                                (int)(sizeof USER_RUN_FILES / sizeof *USER_RUN_FILES)),
                        test_user_sweep_wall_refused,
                        test_refused_run_named_without_train_log, test_collect_keeps_user_summary,
                        test_run_replaced_by_hand_not_collected_as_planned,
                        TU_LOOP(test_run_not_the_plans_marked, 0,
                                (int)(sizeof NOT_THE_PLANS / sizeof *NOT_THE_PLANS)),
                        test_relative_task_files_are_the_plans, test_default_out_dir,
                        test_second_sweep_refused, test_run_line_names_the_measure);
