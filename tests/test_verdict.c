/* test_verdict.c: the verdict at the top of the report pages (src/report/page/verdict.c), every line
 * worked out by hand: a pair of generated-task runs (final answer accuracy, the first step at
 * 50 / 90 / 99 %, the unscaled over the scaled run's steps, censored where a run never got
 * there), a pair of text runs (bits per byte and next-byte accuracy, how far apart they end), and
 * a sweep (best and worst group, seeds at 99 %, the median slowdown over its pairs). */
#include "report/page/page_internal.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweepcsv.h"
#include "testutil.h"

static char tmp[200];
static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/scaledot_test_verdict_XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

/* Loads runs tmp/names[i] (written before) into runs[i]. A Run keeps its path pointer (load_run,
 * runs.c), so the paths outlive this call. */
static void load(Run *runs, const char *const *names, int n) {
    static char paths[8][300];
    ck_assert_int_le(n, 8);
    for (int i = 0; i < n; i++) {
        char *path = paths[i];
        snprintf(path, sizeof paths[i], "%s/%s", tmp, names[i]);
        memset(&runs[i], 0, sizeof runs[i]);
        TuCapture c;
        tu_capture_begin(&c, 2);
        int rc = load_run(&runs[i], path);
        free(tu_capture_end(&c));
        ck_assert_int_eq(rc, 0);
    }
}

static char *compare_verdict(const Run *runs, int n) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    verdict_compare(f, runs, n);
    fclose(f);
    return text;
}

/* b (scale none, first on the line) reaches 50 and 90 % at step 200, never 99 % by its last pass
 * at 200; a (sqrt_dk) reaches 50 % at 50, 90 and 99 % at 100. The slowdown is b's steps over a's
 * (none over sqrt_dk, whatever their order): 200/50 = 4, 200/100 = 2, and at 99 % more than
 * b's last pass over a's step, 200/100 = 2. */
START_TEST(test_task_pair) {
    tu_put_file(NULL, 0, tmp, "a", "loss.csv",
                "step,train_loss,val_loss,val_answer_acc\n0,3,3,0\n50,1,1,0.6\n100,0.1,0.1,0.995\n");
    tu_put_file(NULL, 0, tmp, "a", "config.ini", "[attention]\nscale = sqrt_dk\n[train]\nsteps = 100\n");
    tu_put_file(NULL, 0, tmp, "b", "loss.csv",
                "step,train_loss,val_loss,val_answer_acc\n0,3,3,0\n100,2,2,0.3\n200,1,1,0.92\n");
    tu_put_file(NULL, 0, tmp, "b", "config.ini", "[attention]\nscale = none\n[train]\nsteps = 200\n");
    Run runs[2];
    load(runs, (const char *const[]){"b", "a"}, 2);
    char *text = compare_verdict(runs, 2);
    ck_assert_str_eq(text,
                     "b: final answer accuracy 92.0 % at step 200; first at >= 50 / 90 / 99 %: "
                     "step 200 / step 200 / never (by 200)\n"
                     "a: final answer accuracy 99.5 % at step 100; first at >= 50 / 90 / 99 %: "
                     "step 50 / step 100 / step 100\n"
                     "slowdown, steps of b over a to 50 / 90 / 99 %: 4× / 2× / > 2×\n");
    free(text);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

/* Text runs speak of bytes: the last val_bpb and next-byte accuracy; no thresholds. t2 ends
 * 3.5 - 3.0296 = 0.4704 bits per byte above t1 (the second run against the first: neither is
 * none against sqrt_dk). A run that stopped early says so. */
START_TEST(test_text_pair) {
    static const char HEAD[] = "step,train_loss,val_loss,val_bpb,val_token_acc,val_answer_acc\n";
    char text[512];
    snprintf(text, sizeof text, "%s0,5.5,5.5,7.935,0.01,0.01\n60,2.0,2.1,3.0296,0.4,0.4\n", HEAD);
    tu_put_file(NULL, 0, tmp, "t1", "loss.csv", text);
    tu_put_file(NULL, 0, tmp, "t1", "config.ini", "[task]\nname = text\n[train]\nsteps = 60\n");
    snprintf(text, sizeof text, "%s0,5.5,5.5,7.935,0.01,0.01\n40,2.4,2.43,3.5,0.35,0.35\n", HEAD);
    tu_put_file(NULL, 0, tmp, "t2", "loss.csv", text);
    tu_put_file(NULL, 0, tmp, "t2", "config.ini", "[task]\nname = text\n[train]\nsteps = 60\n");
    Run runs[2];
    load(runs, (const char *const[]){"t1", "t2"}, 2);
    ck_assert(runs_are_text(runs, 2));
    char *got = compare_verdict(runs, 2);
    ck_assert_str_eq(got,
                     "t1: 3.030 bits per byte on validation at step 60, next-byte accuracy 40.0 %\n"
                     "t2 (stopped @40): 3.500 bits per byte on validation at step 40, next-byte "
                     "accuracy 35.0 %\n"
                     "t2 ends 0.470 bits per byte above t1 (3.500 against 3.030; lower is "
                     "better)\n");
    ck_assert_ptr_null(strstr(got, "answer"));
    free(got);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

/* sqrt_dk: accuracy 99, 100, 95 (median 99), seeds 1 and 2 at 99 % (steps 40, 60: median 50);
 * none: 50, 30, 99 (median 50), seed 3 at step 90. Pairs by seed, censored at steps_done 100:
 * seed 1: > 100/40 = 2.5; seed 2: > 100/60 = 1.67; seed 3: < 90/100 = 0.9. The median lies
 * between the middle of (2.5, 1.67, 0) = 1.67 and of (inf, inf, 0.9) = inf: "> 1.67×". No
 * first_step_50 / _90 columns: n/a. */
START_TEST(test_sweep) {
    static const char *const ROWS[] = {
        "s1,16,16,1,sqrt_dk,1,,ok,0.1,0.99,40,2,1,0.1,",
        "s2,16,16,1,sqrt_dk,2,,ok,0.1,1.0,60,2,1,0.1,",
        "s3,16,16,1,sqrt_dk,3,,ok,0.1,0.95,,2,1,0.1,",
        "n1,16,16,1,none,1,,ok,0.5,0.5,,2,1,0.1,",
        "n2,16,16,1,none,2,,ok,0.5,0.3,,2,1,0.1,",
        "n3,16,16,1,none,3,,ok,0.5,0.99,90,2,1,0.1,",
    };
    char *csv = sc_csv(0, ROWS, 6);
    SweepTable t;
    ck_assert_int_eq(sweep_table_parse(&t, "t/sweep.csv", csv, strlen(csv)), 0);
    free(csv);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(verdict_sweep(f, &t), 0);
    fclose(f);
    ck_assert_str_eq(text,
                     "verdict: best of 2 groups, scale=sqrt_dk: final answer accuracy 99.0 % "
                     "(median of 3 runs), 2/3 reached 99 % (median step 50)\n"
                     "  worst, scale=none: final answer accuracy 50.0 % (median of 3 runs), 1/3 "
                     "reached 99 % (median step 90)\n"
                     "  unscaled over scaled steps to 50 / 90 / 99 %: n/a / n/a / > 1.67× "
                     "(median over 3 pairs of runs that differ only in the scale)\n");
    free(text);
    sweep_table_free(&t);
}
END_TEST

TU_MAIN_FIXTURE("verdict", setup, teardown, test_task_pair, test_text_pair, test_sweep);
