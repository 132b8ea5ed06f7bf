/* test_figure_passthru.c: the softmax pass-through in ./train --compare: passthru.svg
 * (src/report/figure/figure_passthru.c) and its rows of the summary table (src/report/table/summary.c), on
 * hand-written runs whose attention.csv has dprob_norm, softmax_pass and blocked_rows, next to a
 * fixture logged before those columns existed (tests/fixtures/runs/scaled). Expected values are
 * the means over heads (and steps) of the numbers written here, worked out by hand. */
#include "cli/cli.h" /* the report through its command line: cli_compare */

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "xmlcheck.h"

#define FIX SCALEDOT_SOURCE_DIR "/tests/fixtures/runs"

static char g_tmp[64];

static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_figure_passthru.XXXXXX"); }

static void remove_tmp(void) { tu_remove_tree(g_tmp); }

#define compare(...) tu_run_cmd(cli_compare, __VA_ARGS__)

enum { STEPS = 3, LAYERS = 2, HEADS = 2 };
static const int STEP[STEPS] = {0, 50, 100};

/* A run folder g_tmp/name with loss.csv (steps 0, 50, 100) and an attention.csv of 2 layers and
 * 2 heads whose softmax_pass and blocked_rows are pass[step][layer][head], blocked[...]. */
static void write_run(const char *name, const double pass[STEPS][LAYERS][HEADS],
                      const double blocked[STEPS][LAYERS][HEADS]) {
    char dir[256], path[320], text[8192];
    snprintf(dir, sizeof dir, "%s/%s", g_tmp, name);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    snprintf(path, sizeof path, "%s/loss.csv", dir);
    tu_write_file(path, "step,train_loss,val_loss,val_token_acc,val_answer_acc,lr,grad_norm,"
                        "elapsed_s,tokens_per_s,skipped_steps\n"
                        "0,2.0,2.0,0.1,0,0.001,1,0,,0\n50,1.0,1.0,0.5,0.2,0.001,1,1,100,0\n"
                        "100,,0.5,0.8,0.5,,,2,,0\n");
    size_t len = (size_t)snprintf(text, sizeof text, "step,layer,head,logit_mean,logit_std,"
                                  "logit_absmax,entropy,entropy_norm,max_weight,saturated_frac,"
                                  "dlogit_norm,dprob_norm,softmax_pass,blocked_rows\n");
    for (int s = 0; s < STEPS; s++)
        for (int l = 0; l < LAYERS; l++)
            for (int h = 0; h < HEADS; h++) /* dlogit_norm = softmax_pass · dprob_norm (0.5) */
                len += (size_t)snprintf(text + len, sizeof text - len,
                                        "%d,%d,%d,0,1,3,1,0.9,0.3,0.25,%.9g,0.5,%.9g,%.9g\n",
                                        STEP[s], l, h, 0.5 * pass[s][l][h], pass[s][l][h],
                                        blocked[s][l][h]);
    snprintf(path, sizeof path, "%s/attention.csv", dir);
    tu_write_file(path, text);
}

/* softmax_pass means over heads: scaled 0.15, 0.13, 0.25 (layer 0) and 0.09, 0.2, 0.3 (layer 1);
 * unscaled 0.05, 0.015, 0.005 and 0.06, 0.02, 0.004. Together they span 0.004 .. 0.3 = 75x. */
static const double PASS_SCALED[STEPS][LAYERS][HEADS] = {
    {{0.1, 0.2}, {0.08, 0.1}}, {{0.12, 0.14}, {0.15, 0.25}}, {{0.2, 0.3}, {0.4, 0.2}}};
static const double PASS_UNSCALED[STEPS][LAYERS][HEADS] = {
    {{0.06, 0.04}, {0.07, 0.05}}, {{0.01, 0.02}, {0.03, 0.01}}, {{0.004, 0.006}, {0.003, 0.005}}};
/* blocked_rows, mean over the 6 (step, head) values: scaled layer 0 0.3/6 = 5.0 %, layer 1 0;
 * unscaled layer 0 3.8/6 = 63.3 %, layer 1 5.4/6 = 90.0 % */
static const double BLOCKED_SCALED[STEPS][LAYERS][HEADS] = {
    {{0, 0}, {0, 0}}, {{0.1, 0}, {0, 0}}, {{0, 0.2}, {0, 0}}};
static const double BLOCKED_UNSCALED[STEPS][LAYERS][HEADS] = {
    {{0.5, 0.3}, {0.8, 0.8}}, {{0.8, 0.6}, {0.9, 0.9}}, {{0.9, 0.7}, {1, 1}}};

START_TEST(test_summary_rows) {
    write_run("new_scaled", PASS_SCALED, BLOCKED_SCALED);
    write_run("new_unscaled", PASS_UNSCALED, BLOCKED_UNSCALED);
    char out[256], a[256], b[256], line[512];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    snprintf(a, sizeof a, "%s/new_scaled", g_tmp);
    snprintf(b, sizeof b, "%s/new_unscaled", g_tmp);
    TuResult r = compare(a, b, FIX "/scaled", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    static const struct {
        const char *label, *want[3]; /* new_scaled, new_unscaled, the old fixture */
    } rows[] = {
        {"layer 0 softmax_pass @ step 0", {"0.150", "0.0500", "n/a"}},
        {"layer 0 softmax_pass, final", {"0.250", "0.00500", "n/a"}},
        {"layer 1 softmax_pass @ step 0", {"0.0900", "0.0600", "n/a"}},
        {"layer 1 softmax_pass, final", {"0.300", "0.00400", "n/a"}},
        {"layer 0 blocked rows (pass < 1%), mean over steps", {"5.0%", "63.3%", "n/a"}},
        {"layer 1 blocked rows (pass < 1%), mean over steps", {"0.0%", "90.0%", "n/a"}},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        tu_table_line(r.out, rows[k].label, line, sizeof line);
        /* the cells in run order, each a whole space-separated word ("5.0%" is not "25.0%") */
        char *save = NULL, *cells = strstr(line, rows[k].label) + strlen(rows[k].label);
        char *cell = strtok_r(cells, " ", &save);
        for (int i = 0; i < 3; i++, cell = strtok_r(NULL, " ", &save))
            ck_assert_msg(cell && strcmp(cell, rows[k].want[i]) == 0, "row '%s': run %d shows "
                          "'%s', want '%s'", rows[k].label, i, cell ? cell : "", rows[k].want[i]);
        ck_assert_ptr_null(cell);
    }
    tu_result_free(&r);
    /* runs logged before the columns: no pass-through section at all */
    r = compare(FIX "/scaled", FIX "/unscaled", "--out", out, NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_msg(strstr(r.out, "softmax_pass") == NULL, "table:\n%s", r.out);
    tu_result_free(&r);
}
END_TEST

/* passthru.svg: 4 panels (pass-through and saturated fraction of 2 layers), a line per run in
 * each, 3 points per line, none in the pass-through panels for the old fixture's logs; the
 * pass-through axis turns logarithmic when the values span more than 30x, and only then. */
START_TEST(test_figure) {
    write_run("new_scaled", PASS_SCALED, BLOCKED_SCALED);
    write_run("new_unscaled", PASS_UNSCALED, BLOCKED_UNSCALED);
    char out[256], a[256], b[256], path[PATH_MAX];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    snprintf(a, sizeof a, "%s/new_scaled", g_tmp);
    snprintf(b, sizeof b, "%s/new_unscaled", g_tmp);
    TuResult r = compare(a, b, FIX "/scaled", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    snprintf(path, sizeof path, "%s/passthru.svg", out);
    char *doc = tu_read_xml(path);
    ck_assert_int_eq(xmlcheck_count(doc, "<path class=\"series\""), 3 * 4);
    ck_assert_int_eq(xmlcheck_count(doc, "data-series=\"softmax pass\""), 3 * 2);
    ck_assert_int_eq(tu_series_points(doc, "new_scaled", "softmax pass"), 3);
    ck_assert_int_eq(tu_series_points(doc, "new_unscaled", "saturated frac"), 3);
    ck_assert_int_eq(tu_series_points(doc, "scaled", "softmax pass"), 0);
    ck_assert_int_eq(tu_series_points(doc, "scaled", "saturated frac"), 5);
    ck_assert_ptr_nonnull(strstr(doc, "softmax_pass (log scale)")); /* 0.004 .. 0.3: 75x */
    free(doc);
    snprintf(path, sizeof path, "%s/index.html", out);
    char *page = tu_read_xml(path);
    ck_assert_ptr_nonnull(strstr(page, "<figure id=\"passthru\">\n<svg "));
    free(page);
    tu_result_free(&r);

    r = compare(a, "--out", out, NULL); /* 0.09 .. 0.3: 3.3x, a linear axis */
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    snprintf(path, sizeof path, "%s/passthru.svg", out);
    doc = tu_read_xml(path);
    ck_assert_ptr_null(strstr(doc, "(log scale)"));
    ck_assert_ptr_nonnull(strstr(doc, ">softmax_pass<"));
    free(doc);
    tu_result_free(&r);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("figure_passthru", make_tmp, remove_tmp, 30, test_summary_rows,
                        test_figure);
