/* test_sweep_report.c: the sweep report (src/report/page/sweep_report.c) on hand-made sweep folders:
 * the summary over seeds (odd and even seed counts), outlying seeds named, rows that did not
 * train listed and counted, summary.txt the same text as the terminal, the LR-sensitivity table
 * and the sweep page (index.html) written beside it with every figure,
 * an older sweep.csv, a malformed row, a folder without sweep.csv, a report file made read-only
 * or of the user's (kept), ./train --sweep-report, and the words of a text sweep (next-byte
 * accuracy and bits per byte, not answer accuracy). */
#include "report/page/page.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweepcsv.h"
#include "temp_names.h"
#include "testutil.h"
#include "util/owned_dir.h"

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

static char g_tmp[256];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_sweep_report.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

typedef struct {
    int rc;
    char *out, *err;
} Report;

/* sweep_report(g_tmp) with stdout (the `out` stream) and stderr captured. */
static Report report(void) {
    Report r;
    TuCapture o, e;
    tu_capture_begin(&o, 1);
    tu_capture_begin(&e, 2);
    r.rc = sweep_report(g_tmp, stdout);
    r.err = tu_capture_end(&e);
    r.out = tu_capture_end(&o);
    return r;
}

static void report_free(Report *r) {
    free(r->out);
    free(r->err);
}

static void assert_has(const char *text, const char *needle) {
    ck_assert_msg(strstr(text, needle) != NULL, "'%s' not in:\n%s", needle, text);
}

/* d_k 8 x two scales. sqrt_dk: 5 seeds, accuracy 99.0 98.0 99.5 97.0 51.4 (sorted 51.4 97.0
 * 98.0 99.0 99.5: median 98.0; seed 5 is 46.6 points below); none: 4 seeds, 20 30 40 50 (median 35: no seed 20 points off) plus a
 * failed and a missing run; first_step_99 for sqrt_dk seeds 1 and 3: 120 and 80 (median 100). */
static const char *const DK_ROWS[] = {
    "s1,8,8,1,sqrt_dk,1,,ok,0.05,0.990,120,2.3,1.0,0.10,0.8",
    "s2,8,8,1,sqrt_dk,2,,ok,0.07,0.980,,2.3,1.1,0.20,0.8",
    "s3,8,8,1,sqrt_dk,3,,ok,0.04,0.995,80,2.3,1.2,0.30,0.8",
    "s4,8,8,1,sqrt_dk,4,,ok,0.09,0.970,,2.3,1.3,0.40,0.8",
    "s5,8,8,1,sqrt_dk,5,,ok,0.90,0.514,,2.3,1.4,0.50,0.8",
    "n1,8,8,1,none,1,,ok,1.0,0.20,,2.3,2.0,0.6,0.5",
    "n2,8,8,1,none,2,,ok,0.8,0.30,,2.3,2.2,0.7,0.5",
    "n3,8,8,1,none,3,,guard,0.6,0.40,,2.3,2.4,0.8,0.5",
    "n4,8,8,1,none,4,,ok,0.4,0.50,,2.3,2.6,0.9,0.5",
    "n5,8,8,1,none,5,,failed,,,,,,,",
    "n6,8,8,1,none,6,,missing,,,,,,,",
};

START_TEST(test_summary_over_seeds) {
    sc_write(g_tmp, 0, DK_ROWS, N(DK_ROWS));
    Report r = report();
    ck_assert_int_eq(r.rc, 0);
    assert_has(r.out, "11 runs; varied: scale, seed");
    assert_has(r.out, "in the statistics: 9 (ok 8, diverged 0, guard 1)");
    assert_has(r.out, "left out of the statistics: 2");
    assert_has(r.out, "line 11: n5: failed (exit code 1)");
    assert_has(r.out, "line 12: n6: missing\n");
    /* group, n, acc median [min-max], >=99%, step99, val_loss, std0, sat, pass (by hand) */
    assert_has(r.out, "  scale=sqrt_dk     5  98.0 [51.4-99.5]           2/5     100       0.07       "
                      "1.2   0.300   0.800\n");
    assert_has(r.out, "  scale=none       4*  35.0 [20.0-50.0]           0/4       -        0.7       "
                      "2.3   0.750   0.500\n");
    assert_has(r.out, "* the group has runs that diverged or tripped a guard");
    assert_has(r.out, "  scale=sqrt_dk: seed 5: 51.4 % (median 98.0 %, ok)\n");
    ck_assert_ptr_null(strstr(r.out, "seed 4:")); /* 97.0: one point from the median */
    ck_assert_ptr_null(strstr(r.out, "scale=none: seed")); /* 15 points at most */
    ck_assert_ptr_null(strstr(r.out, "LR sensitivity")); /* optim.lr not varied */
    /* the slowdown section (test_slowdown.c checks its numbers): seeds 1-4 pair none with
     * sqrt_dk; no first_step_50 / _90 column here: those are n/a, not "never" */
    assert_has(r.out, "\nslowdown: steps to the first validation pass at >= 50 / 90 / 99 %");
    assert_has(r.out, "\n  seed=4  ");
    assert_has(r.out, "?/?/");
    ck_assert_ptr_null(strstr(r.out, "seed=5  ")); /* n5 failed: no pair */
    /* summary.txt: the same text, without the line that names it */
    char path[512];
    snprintf(path, sizeof path, "%s/summary.txt", g_tmp);
    char *txt = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(txt);
    char wrote[1200];
    snprintf(wrote, sizeof wrote, "\nwrote %s\nwrote %s/index.html\n", path, g_tmp);
    size_t n = strlen(txt);
    ck_assert_int_eq(strncmp(r.out, txt, n), 0);
    ck_assert_str_eq(r.out + n, wrote);
    free(txt);
    /* neither d_k nor lr varied: a figure against the scale (test_sweep_figures.c draws it) */
    assert_has(r.out, "\nsweep_by_scale.svg: the final validation answer accuracy (%) against "
                      "scale");
    report_free(&r);
}
END_TEST

/* A text sweep (task column "text"): two scales x two seeds. The text task has no answers, its
 * val_answer_acc is the next-byte accuracy (evaluate.h), and its measure is bits per byte,
 * val_loss / ln 2. val_loss is written as B·ln 2 for B = 2.0 and 2.2 (sqrt_dk: median 2.1 bits
 * per byte) and 3.0 and 3.4 (none: median 3.2); accuracy 0.40, 0.42 (median 41.0 %) and 0.30,
 * 0.32 (31.0 %); a missing run (no task: no config.ini was read) changes nothing. Every line
 * names the next-byte accuracy and none the answer accuracy, in the summary, the page and the
 * figure; its verdict has no accuracy threshold (no seeds at 99 %, no slowdown line: the
 * slowdown table below keeps it). One row of another task makes the words name both; a column of "sort" leaves them as
 * a sweep.csv without the column has them. _i: 0 text, 1 one row sort, 2 all sort. */
START_TEST(test_text_sweep_words) {
    static const struct {
        const char *run, *scale, *seed;
        double bits, acc;
    } ROWS[] = {{"t1", "sqrt_dk", "1", 2.0, 0.40}, {"t2", "sqrt_dk", "2", 2.2, 0.42},
                {"n1", "none", "1", 3.0, 0.30}, {"n2", "none", "2", 3.4, 0.32}};
    char csv[2048];
    int len = snprintf(csv, sizeof csv, "run,scale,seed,steps,status,val_loss,val_answer_acc,"
                                        "val_token_acc,first_step_50,first_step_90,first_step_99,"
                                        "last_eval_step,task\n");
    for (int i = 0; i < N(ROWS); i++)
        len += snprintf(csv + len, sizeof csv - (size_t)len, "%s,%s,%s,100,ok,%.17g,%g,%g,,,,100,%s\n",
                        ROWS[i].run, ROWS[i].scale, ROWS[i].seed, ROWS[i].bits * log(2.0),
                        ROWS[i].acc, ROWS[i].acc, _i == 2 || (_i == 1 && i == 3) ? "sort" : "text");
    snprintf(csv + len, sizeof csv - (size_t)len, "m3,none,3,100,missing,,,,,,,,\n");
    char path[512];
    snprintf(path, sizeof path, "%s/sweep.csv", g_tmp);
    tu_write_file(path, csv);
    /* what the report must say, per case (NULL ends a list) */
    static const char *const WANT[3][9] = {
        {"verdict: best of 2 groups, scale=sqrt_dk: final next-byte accuracy 41.0 % (median of 2 "
         "runs), 2.100 bits per byte (median val_loss / ln 2)\n",
         "  worst, scale=none: final next-byte accuracy 31.0 % (median of 2 runs), 3.200 bits per "
         "byte (median val_loss / ln 2)\n\n", /* no 99 % threshold, no slowdown line: bytes */
         "acc = final next-byte accuracy (val_answer_acc = val_token_acc on text)",
         /* group, n, acc, >=99%, step99, val_loss (nats: 2.1 ln 2 = 1.456), bpb, std0, sat */
         "  group             n  acc                      >=99%  step99   val_loss      bpb      "
         "std0     sat\n",
         "  scale=sqrt_dk     2  41.0 [40.0-42.0]           0/2       -      1.456   2.1000      "
         "   -       -\n",
         "\nslowdown: steps to the first validation pass at >= 50 / 90 / 99 % next-byte accuracy, ",
         "\nsweep_by_scale.svg: the final validation next-byte accuracy (%) against scale", NULL},
        {": final answer accuracy (next-byte accuracy on the text runs) 41.0 % (median of 2 runs), "
         "0/2 reached 99 %\n", NULL},
        {"verdict: best of 2 groups, scale=sqrt_dk: final answer accuracy 41.0 % (median of 2 "
         "runs), 0/2 reached 99 %\n", "acc = final val_answer_acc (%)",
         "  unscaled over scaled steps to 50 / 90 / 99 %: ", NULL},
    };
    Report r = report();
    ck_assert_msg(r.rc == 0, "%s", r.err);
    for (int k = 0; WANT[_i][k]; k++) assert_has(r.out, WANT[_i][k]);
    ck_assert_msg(!strstr(r.out, "bits per byte") == (_i != 0), "%s", r.out);
    /* the words in every file the report writes */
    static const char *const FILES[] = {"summary.txt", "index.html", "sweep_by_scale.svg"};
    for (int f = 0; f < N(FILES); f++) {
        snprintf(path, sizeof path, "%s/%s", g_tmp, FILES[f]);
        char *text = tu_read_file(path, NULL);
        ck_assert_ptr_nonnull(text);
        ck_assert_msg(!strstr(text, "next-byte") == (_i == 2), "%s:\n%s", FILES[f], text);
        if (_i == 0) ck_assert_msg(!strstr(text, "answer acc"), "%s:\n%s", FILES[f], text);
        free(text);
    }
    report_free(&r);
}
END_TEST

/* Three lrs x two scale modes x two seeds (the table test_lr_sensitivity works out by hand) and
 * two d_k: the LR table and all four figures. */
START_TEST(test_lr_and_dk_sweep) {
    static const char *const rows[] = {
        "s1,16,16,1,sqrt_dk,1,0.01,ok,0.2,0.99,50,2.0,1,0.1,",
        "s2,16,16,1,sqrt_dk,2,0.01,ok,0.4,0.97,,2.2,1,0.1,",
        "s3,16,16,1,sqrt_dk,1,0.001,ok,1.0,0.50,,2.0,1,0.1,",
        "s4,16,16,1,sqrt_dk,2,0.001,ok,1.2,0.60,,2.2,1,0.1,",
        "s5,16,16,1,sqrt_dk,1,0.1,diverged,nan,0.10,,2.0,1,0.1,",
        "s6,16,16,1,sqrt_dk,2,0.1,ok,1.8,0.20,,2.2,1,0.1,",
        "n1,8,8,1,sqrt_dk,1,0.01,ok,0.2,0.99,50,2.0,1,0.1,",
        "n2,8,8,1,sqrt_dk,2,0.01,ok,0.4,0.97,,2.2,1,0.1,",
    };
    sc_write(g_tmp, 1, rows, N(rows));
    Report r = report();
    ck_assert_int_eq(r.rc, 0);
    assert_has(r.out, "LR sensitivity (Wortsman et al. 2023");
    /* per d_k: d_k 16 as in test_lr_sensitivity; d_k 8 has one lr, so nothing to be sensitive to */
    assert_has(r.out, "  d_k=16 d_model=16     0.8167       0.01        0.3        2.1\n");
    assert_has(r.out, "  d_k=8 d_model=8       0.0000       0.01        0.3        2.1\n");
    static const char *const figs[] = {"sweep_accuracy.svg", "sweep_loss.svg",
                                       "sweep_logit_std.svg", "sweep_lr.svg"};
    for (int i = 0; i < N(figs); i++) {
        char path[512], caption[64];
        snprintf(path, sizeof path, "%s/%s", g_tmp, figs[i]);
        free(tu_read_xml(path));
        snprintf(caption, sizeof caption, "\n%s: ", figs[i]);
        assert_has(r.out, caption);
    }
    /* the sweep's page beside summary.txt holds all four (test_sweep_page.c checks the page) */
    char page[512];
    snprintf(page, sizeof page, "%s/index.html", g_tmp);
    char *html = tu_read_xml(page);
    for (int i = 0; i < N(figs); i++) {
        char fig[64];
        snprintf(fig, sizeof fig, "<figure id=\"%.*s\">", (int)strcspn(figs[i], "."), figs[i]);
        assert_has(html, fig);
    }
    free(html);
    report_free(&r);
}
END_TEST

/* An older sweep.csv (no run, loss0, first_step_99 or softmax_pass_final columns; the step-0
 * logit std under its old name). */
START_TEST(test_old_style_file) {
    char path[512];
    snprintf(path, sizeof path, "%s/sweep.csv", g_tmp);
    tu_write_file(path, "d_k,scale,seed,steps,status,val_loss,val_answer_acc,val_token_acc,"
                        "logit_std_step0,grad_q_final,grad_k_final\n"
                        "8,sqrt_dk,1,100,ok,0.5,0.9,0.9,1.0,0.1,0.1\n"
                        "8,sqrt_dk,2,100,ok,0.7,0.8,0.8,1.0,0.1,0.1\n"
                        "16,sqrt_dk,1,100,diverged,nan,0.2,0.2,1.0,0.1,0.1\n");
    Report r = report();
    ck_assert_int_eq(r.rc, 0);
    assert_has(r.out, "  d_k=8      2  85.0 [80.0-90.0]             -       -        0.6         1");
    ck_assert_ptr_null(strstr(r.out, "softmax_pass_final")); /* no pass column */
    snprintf(path, sizeof path, "%s/sweep_accuracy.svg", g_tmp);
    free(tu_read_xml(path));
    report_free(&r);
}
END_TEST

START_TEST(test_malformed_row) {
    static const char *const rows[] = {
        "a,8,8,1,none,1,,ok,0.5,0.9,,2,1,0.1,",
        "b,8,8,1,none,2,,ok,oops,0.9,,2,1,0.1,",
        "c,8,8,1,none,3,,ok,0.7,0.8,,2,1,0.1,",
    };
    sc_write(g_tmp, 0, rows, N(rows));
    Report r = report();
    ck_assert_int_eq(r.rc, 0);
    assert_has(r.err, "sweep.csv:3: column val_loss: 'oops' is not a number; row skipped");
    /* the summary (and so the page) lists what was skipped, as the terminal said it */
    assert_has(r.out, "read with warnings: 1 (rows skipped; sweep.csv: 1)\n  ");
    assert_has(r.out, "sweep.csv:3: column val_loss: 'oops' is not a number; row skipped\n");
    assert_has(r.out, "  all runs     2  85.0 [80.0-90.0]");
    report_free(&r);
}
END_TEST

/* The report names text of sweep.csv (run names, column names, values, statuses, the cells of
 * a skipped row) on the terminal and in summary.txt: each control byte there is escaped as error
 * lines escape it (util/error_list.h: ESC as \x1b, BEL as \x07, the C1 CSI U+009B as \xc2\x9b),
 * never written raw, and the group table stays aligned on the shown text. A bad status cell and
 * a cell that is no number are named in "read with warnings" (the stdout copy escaped too). */
START_TEST(test_control_bytes_escaped) {
    static const char *const rows[] = {
        "s\x1b[2J1,8,8,1,n\xc2\x9b,1,,ok,0.5,0.9,,2,1,0.1,",
        "s2,8,8,1,n\xc2\x9b,2,,ok,0.7,0.8,,2,1,0.1,",
        "s3,8,8,1,n\xc2\x9b,3,,ok,1.2\x1b]0;pwn\x07,0.8,,2,1,0.1,",
        "f\x1b[2J4,8,8,1,none,4,,failed,,,,,,,",
        "s5,8,8,1,none,5,,ok,0.5,0.9,,2,1,0.1,",
        "s6,8,8,1,none,6,,o\x1bk,0.5,0.9,,2,1,0.1,",
    };
    char *csv = sc_csv(0, rows, N(rows)), *scale = strstr(csv, ",scale,");
    ck_assert_ptr_nonnull(scale);
    char *edited = malloc(strlen(csv) + 8);
    snprintf(edited, strlen(csv) + 8, "%.*s,sc\x1b.ale,%s", (int)(scale - csv), csv,
             scale + strlen(",scale,"));
    char path[512];
    snprintf(path, sizeof path, "%s/sweep.csv", g_tmp);
    tu_write_file(path, edited);
    free(edited);
    free(csv);
    Report r = report();
    ck_assert_int_eq(r.rc, 0);
    snprintf(path, sizeof path, "%s/summary.txt", g_tmp);
    char *txt = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(txt);
    const char *const shown[] = {r.out, txt};
    for (int i = 0; i < 2; i++) {
        for (const unsigned char *p = (const unsigned char *)shown[i]; *p; p++)
            ck_assert_msg((*p >= 0x20 && *p != 0x7f && !(p[0] == 0xc2 && p[1] >= 0x80 &&
                                                          p[1] <= 0x9f)) || *p == '\n',
                          "%s: a raw control byte 0x%02x at offset %td:\n%s",
                          i ? "summary.txt" : "stdout", *p, (const char *)p - shown[i], shown[i]);
        assert_has(shown[i], "varied: sc\\x1b.ale, seed\n");
        assert_has(shown[i], "line 5: f\\x1b[2J4: failed (exit code 1)\n");
        assert_has(shown[i], "'1.2\\x1b]0;pwn\\x07' is not a number; row skipped\n");
        /* aligned as shown: "group" padded to the widest label, 20 bytes shown */
        assert_has(shown[i], "\n  group                    n  acc");
        assert_has(shown[i], "\n  sc\\x1b.ale=n\\xc2\\x9b     2  85.0 [80.0-90.0]");
        assert_has(shown[i], "\n  sc\\x1b.ale=none          1  90.0");
    }
    free(txt);
    report_free(&r);
}
END_TEST

/* A sweep not yet run: every row missing; the first 20 are named, the rest counted. The report
 * is written, but with no run trained the result is 1 (issue 33: `--collect && publish`). */
START_TEST(test_many_missing_rows) {
    char rows[25][64];
    const char *p[25];
    for (int i = 0; i < 25; i++) {
        snprintf(rows[i], sizeof rows[i], "r%d,8,8,1,none,%d,,missing,,,,,,,", i + 1, i + 1);
        p[i] = rows[i];
    }
    sc_write(g_tmp, 0, p, 25);
    Report r = report();
    ck_assert_int_eq(r.rc, 1);
    assert_has(r.err, "error: no run in ");
    assert_has(r.out, "left out of the statistics: 25");
    assert_has(r.out, "line 21: r20: missing\n  ... and 5 more (status in sweep.csv)\n");
    ck_assert_ptr_null(strstr(r.out, "r21:"));
    assert_has(r.out, "no run in ");
    report_free(&r);
}
END_TEST

START_TEST(test_no_sweep_csv) {
    Report r = report();
    ck_assert_int_eq(r.rc, 1);
    assert_has(r.err, "cannot read '");
    assert_has(r.err, "/sweep.csv': No such file or directory");
    char path[512];
    snprintf(path, sizeof path, "%s/summary.txt", g_tmp);
    ck_assert_int_ne(access(path, F_OK), 0);
    report_free(&r);
}
END_TEST

/* Issue 45: a sweep.csv whose header is damaged (the status column renamed) is bad input, as the
 * README's exit codes say: 2, not 1, and nothing written. */
START_TEST(test_damaged_header_is_bad_input) {
    char path[512];
    snprintf(path, sizeof path, "%s/sweep.csv", g_tmp);
    tu_write_file(path, "run,stat,val_loss,val_answer_acc\na,ok,0.5,0.9\n");
    Report r = report();
    ck_assert_int_eq(r.rc, 2);
    assert_has(r.err, "sweep.csv: line 1: no column 'status' (is it a sweep.csv?)");
    snprintf(path, sizeof path, "%s/summary.txt", g_tmp);
    ck_assert_int_ne(access(path, F_OK), 0);
    report_free(&r);
}
END_TEST

/* A figure, summary.txt or the page that cannot be written (here: the report's own file, made
 * read-only by the user) is an I/O error naming it, but what was computed is still shown; the
 * file keeps its bytes. */
START_TEST(test_unwritable_outputs) {
    static const char *const files[] = {"sweep_accuracy.svg", "summary.txt", "index.html"};
    static const char *const rows[] = {"a,8,8,1,none,1,,ok,0.5,0.9,,2,1,0.1,",
                                       "b,16,16,1,none,1,,ok,0.7,0.8,,2,1,0.1,"};
    static const char *const rows2[] = {"a,8,8,1,none,1,,ok,0.5,0.7,,2,1,0.1,",
                                        "b,16,16,1,none,1,,ok,0.7,0.8,,2,1,0.1,"};
    for (int i = 0; i < N(files); i++) {
        sc_write(g_tmp, 0, rows, N(rows));
        Report r = report();
        ck_assert_int_eq(r.rc, 0);
        report_free(&r);
        char path[512];
        snprintf(path, sizeof path, "%s/%s", g_tmp, files[i]);
        char *before = tu_read_file(path, NULL);
        ck_assert_int_eq(chmod(path, 0444), 0);
        sc_write(g_tmp, 0, rows2, N(rows2)); /* a report that differs */
        r = report();
        ck_assert_int_eq(r.rc, 1);
        assert_has(r.err, "cannot write '");
        assert_has(r.err, files[i]);
        assert_has(r.err, "Permission denied");
        assert_has(r.out, "  d_k=8 d_model=8       1  70.0");
        if (i == 1) ck_assert_ptr_null(strstr(r.out, "\nwrote ")); /* summary.txt was not */
        if (i == 2) ck_assert_ptr_null(strstr(r.out, "index.html")); /* nor the page */
        report_free(&r);
        char *after = tu_read_file(path, NULL);
        ck_assert_str_eq(after, before);
        free(before);
        free(after);
        ck_assert_int_eq(chmod(path, 0644), 0);
    }
}
END_TEST

/* issue 33: a figure that cannot be written (every temporary name it would try taken by a
 * folder: temp_names.h) is named in the error as the file that failed, the page and summary.txt
 * say it is missing and why (libc's text for EEXIST), the earlier report's copy is removed, the
 * other figures are still written, and the result is 1. */
START_TEST(test_figure_not_written_named) {
    static const char *const rows[] = {"a,8,8,1,none,1,,ok,0.5,0.9,,2,1,0.1,",
                                       "b,16,16,1,none,1,,ok,0.7,0.8,,2,1,0.1,"};
    sc_write(g_tmp, 0, rows, N(rows));
    Report r = report();
    ck_assert_int_eq(r.rc, 0);
    report_free(&r);
    char path[512], want[600];
    char last[512];
    snprintf(path, sizeof path, "%s/sweep_accuracy.svg", g_tmp);
    temp_names_take(path, last, sizeof last);
    snprintf(path, sizeof path, "%s/sweep_loss.svg", g_tmp);
    ck_assert_int_eq(remove(path), 0); /* so that only this report can make it again */
    r = report();
    ck_assert_int_eq(r.rc, 1);
    snprintf(want, sizeof want, "error: cannot write '%s': %s\n", last, strerror(EEXIST));
    assert_has(r.err, want);
    report_free(&r);
    snprintf(path, sizeof path, "%s/index.html", g_tmp);
    snprintf(want, sizeof want, "Figure <code>sweep_accuracy.svg</code> (sweep_accuracy) is "
             "missing: it could not be written (%s)", strerror(EEXIST));
    ck_assert_msg(tu_file_contains(path, want), "the page does not name the missing figure");
    snprintf(path, sizeof path, "%s/summary.txt", g_tmp);
    snprintf(want, sizeof want, "sweep_accuracy.svg: could not be written (%s)\n",
             strerror(EEXIST));
    ck_assert(tu_file_contains(path, want));
    snprintf(path, sizeof path, "%s/sweep_accuracy.svg", g_tmp);
    ck_assert_msg(access(path, F_OK) != 0, "the earlier report's figure is still there");
    snprintf(path, sizeof path, "%s/sweep_loss.svg", g_tmp);
    ck_assert_int_eq(access(path, F_OK), 0);
}
END_TEST

/* A summary.txt, index.html or SVG of the user's (not one a sweep report wrote; a link
 * included) in the folder: the report refuses it (exit 1 here; ./train --sweep-report refuses
 * it first with exit 2, test_cmd_sweep.c) before writing anything, and the file keeps its
 * bytes. */
START_TEST(test_user_files_kept) {
    static const char *const files[] = {"summary.txt", "index.html", "sweep_loss.svg",
                                        "index.html"};
    sc_write(g_tmp, 0, DK_ROWS, N(DK_ROWS));
    char path[512], cmd[700];
    snprintf(path, sizeof path, "%s/%s", g_tmp, files[_i]);
    if (_i < 3) tu_write_file(path, "my notes\n");
    else ck_assert_int_eq(symlink("/dev/null", path), 0);
    Report r = report();
    ck_assert_int_eq(r.rc, 1);
    char want[700];
    snprintf(want, sizeof want, "error: '%s' is not a file a sweep into this folder wrote", path);
    assert_has(r.err, want);
    ck_assert_str_eq(r.out, "");
    report_free(&r);
    snprintf(cmd, sizeof cmd, "[ $(ls -A %s | wc -l) = 2 ]", g_tmp); /* sweep.csv and it */
    ck_assert_msg(system(cmd) == 0, "a file was written");
    if (_i < 3) {
        char *text = tu_read_file(path, NULL);
        ck_assert_str_eq(text, "my notes\n");
        free(text);
    }
}
END_TEST

/* Issue 45: an earlier report's figure that this report does not draw (a column no longer
 * varied) is removed, as the folder's manifest names it ours; a user's copy of a figure under a
 * name of their own stays. In a folder of an earlier version (no manifest) such a figure is
 * adopted by its content (an SVG the report drew) and removed all the same. */
START_TEST(test_stale_figures_removed) {
    sc_write(g_tmp, 0, DK_ROWS, N(DK_ROWS));
    Report r = report();
    ck_assert_int_eq(r.rc, 0);
    report_free(&r);
    char cmd[1200], path[600];
    snprintf(cmd, sizeof cmd, "cd %s && f=$(ls sweep_*.svg | head -n 1) && cp $f sweep_by_gone.svg && "
             "cp $f my_copy.svg && echo sweep_by_gone.svg >> " OWNED_MANIFEST, g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    r = report();
    ck_assert_int_eq(r.rc, 0);
    report_free(&r);
    snprintf(path, sizeof path, "%s/sweep_by_gone.svg", g_tmp);
    ck_assert_msg(access(path, F_OK) != 0, "an earlier report's figure is still there");
    snprintf(path, sizeof path, "%s/my_copy.svg", g_tmp);
    ck_assert_msg(access(path, F_OK) == 0, "the user's copy was removed");
    snprintf(cmd, sizeof cmd, "cd %s && rm " OWNED_MANIFEST " && cp my_copy.svg sweep_by_old.svg",
             g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    r = report();
    ck_assert_int_eq(r.rc, 0);
    report_free(&r);
    snprintf(path, sizeof path, "%s/sweep_by_old.svg", g_tmp);
    ck_assert_msg(access(path, F_OK) != 0, "an earlier version's figure is still there");
}
END_TEST

/* ./train --sweep-report DIR runs the same report; without DIR, with two folders, or with a
 * folder that holds no sweep.csv, it is a wrong command line (exit 2). */
START_TEST(test_train_sweep_report) {
    sc_write(g_tmp, 0, DK_ROWS, N(DK_ROWS));
    char args[512];
    snprintf(args, sizeof args, "--sweep-report %s", g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    ck_assert(tu_train_output_contains(g_tmp, "scale=sqrt_dk: seed 5: 51.4 %"));
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep-report"), 2);
    ck_assert(tu_train_output_contains(g_tmp, "usage: ./train --sweep-report SWEEP_DIR"));
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep-report /nonexistent/sweep"), 2);
    /* two sweep folders: the error says it takes one, and names both */
    char two[1100];
    snprintf(two, sizeof two, "--sweep-report %s %s/other", g_tmp, g_tmp);
    ck_assert_int_eq(tu_run_train(g_tmp, two), 2);
    ck_assert(tu_train_output_contains(g_tmp, "takes one sweep folder, not 2"));
    ck_assert(tu_train_output_contains(g_tmp, "/other'"));
    ck_assert(!tu_train_output_contains(g_tmp, "scale=sqrt_dk: seed 5"));
    /* an empty folder name: said, not only the usage */
    ck_assert_int_eq(tu_run_train(g_tmp, "--sweep-report ''"), 2);
    ck_assert(tu_train_output_contains(g_tmp, "the folder name is empty"));
}
END_TEST

/* A folder name longer than SWEEP_DIR_MAX (10 nested folders of 199 characters): refused with
 * exit 2 before any work, and a user's file whose name a cut path would have hit (summary.t:
 * the 2048-byte buffers cut "summary.txt" there when the folder's name was 2036 bytes) is left
 * as it was; a folder just inside the limit is reported. */
START_TEST(test_long_folder_refused) {
    char dir[2400], args[2600];
    int n = snprintf(dir, sizeof dir, "%s", g_tmp);
    while (n <= SWEEP_DIR_MAX) {
        n += snprintf(dir + n, sizeof dir - (size_t)n, "/%0199d", 0);
        ck_assert_int_eq(mkdir(dir, 0755), 0);
    }
    sc_write(dir, 0, DK_ROWS, N(DK_ROWS));
    char user[2600];
    snprintf(user, sizeof user, "%s/summary.t", dir);
    tu_write_file(user, "the user's notes\n");
    snprintf(args, sizeof args, "--sweep-report %s", dir);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 2);
    ck_assert(tu_train_output_contains(g_tmp, "bytes long, over the 1900 the report takes"));
    size_t len = 0;
    char *kept = tu_read_file(user, &len);
    ck_assert_str_eq(kept, "the user's notes\n");
    free(kept);
    char txt[2600];
    snprintf(txt, sizeof txt, "%s/summary.txt", dir);
    ck_assert_int_ne(access(txt, F_OK), 0);
    /* the parent, shorter than the limit, is reported */
    dir[strrchr(dir, '/') - dir] = '\0';
    ck_assert_int_le((int)strlen(dir), SWEEP_DIR_MAX);
    sc_write(dir, 0, DK_ROWS, N(DK_ROWS));
    snprintf(args, sizeof args, "--sweep-report %s", dir);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
}
END_TEST

TU_MAIN_FIXTURE("sweep_report", make_tmp, remove_tmp, test_summary_over_seeds, test_lr_and_dk_sweep,
                test_old_style_file, test_malformed_row, test_control_bytes_escaped,
                test_many_missing_rows, test_no_sweep_csv,
                test_damaged_header_is_bad_input,
                test_unwritable_outputs, test_figure_not_written_named,
                TU_LOOP(test_user_files_kept, 0, 4), test_stale_figures_removed,
                test_train_sweep_report, test_long_folder_refused,
                TU_LOOP(test_text_sweep_words, 0, 3));
