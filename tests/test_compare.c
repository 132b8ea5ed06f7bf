/* test_compare.c: ./train --compare (src/report/page/compare.c) on the hand-written fixture runs in
 * tests/fixtures/runs: scaled and unscaled (complete), diverged (NaN/inf at step 30, then stops)
 * and no_attention (no attention.csv, stopped at step 50 of 100).
 *
 * Each test calls the command (cli_compare, which reads the arguments and calls report_compare)
 * with stdout and stderr captured into temporary files and the report written into a fresh
 * mkdtemp folder, then checks the table, the files, the number of series per figure and that
 * every SVG and the index page are well-formed XML. What repeats is written as tables: lines of
 * the printed table (expect_lines), points of a series (expect_points) and series per figure
 * (expect_figures); the argument errors are in test_cmd_compare.c, the report folder's (default,
 * unwritable, a link or the user's) in test_compare_out.c. */
#include "cli/cli.h" /* the report through its command line: cli_compare */

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "xmlcheck.h"

#define FIX SCALEDOT_SOURCE_DIR "/tests/fixtures/runs"

static char g_tmp[64];

static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_compare.XXXXXX"); }

static void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* Runs ./train --compare (cli_compare) on a NULL-terminated argument list with stdout and stderr captured. */
#define compare(...) tu_run_cmd(cli_compare, __VA_ARGS__)

static char *out_path(char *buf, size_t n, const char *file) {
    snprintf(buf, n, "%s/rep/%s", g_tmp, file);
    return buf;
}

/* Reads a report file, checks that it is well-formed XML and returns its text (caller frees). */
static char *read_well_formed(const char *file) {
    char path[PATH_MAX];
    return tu_read_xml(out_path(path, sizeof path, file));
}

static int series_count(const char *doc) { return xmlcheck_count(doc, "<path class=\"series\""); }

/* Number of separate pieces ("M" commands) of that series' line. */
static int series_pieces(const char *doc, const char *run, const char *name) {
    char key[256];
    snprintf(key, sizeof key, "<path class=\"series\" data-run=\"%s\" data-series=\"%s\"", run, name);
    const char *p = strstr(doc, key);
    if (!p || !(p = strstr(p, " d=\""))) return -1;
    int n = 0;
    for (p += 4; *p && *p != '"'; p++) n += *p == 'M';
    return n;
}

static void write_file(const char *dir, const char *name, const char *text) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    tu_write_file(path, text);
}

/* The line-chart figures, then the heatmaps (attn_maps.svg) last. */
static const char *const FIGURES[] = {"loss.svg",      "accuracy.svg", "grad_norms.svg",
                                      "attention.svg", "passthru.svg", "attn_maps.svg"};
enum { N_FIGURES = sizeof FIGURES / sizeof FIGURES[0], N_CHARTS = N_FIGURES - 1 };

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A line of the printed table: its label, and one or two texts it holds (b may be NULL); with
 * ordered, a stands before b (the runs' order). */
typedef struct {
    const char *label, *a, *b;
    int ordered;
} LineWant;

static void expect_lines(const char *out, const LineWant *w, int n) {
    char line[512];
    for (int i = 0; i < n; i++) {
        tu_table_line(out, w[i].label, line, sizeof line);
        const char *a = strstr(line, w[i].a), *b = w[i].b ? strstr(line, w[i].b) : NULL;
        ck_assert_msg(a && (!w[i].b || b) && (!w[i].ordered || a < b),
                      "'%s': want '%s'%s%s%s, line: %s", w[i].label, w[i].a,
                      w[i].b ? (w[i].ordered ? " before '" : " and '") : "", w[i].b ? w[i].b : "",
                      w[i].b ? "'" : "", line);
    }
}

/* The points drawn of one series of a figure of the report. */
typedef struct {
    const char *figure, *run, *series;
    int points;
} PointsWant;

static void expect_points(const PointsWant *w, int n) {
    for (int i = 0; i < n; i++) {
        char *doc = read_well_formed(w[i].figure);
        int got = tu_series_points(doc, w[i].run, w[i].series);
        ck_assert_msg(got == w[i].points, "%s: %s '%s': %d points, want %d", w[i].figure, w[i].run,
                      w[i].series, got, w[i].points);
        free(doc);
    }
}

/* Every figure of the report well-formed, with series[i] series in line chart i and heatmaps
 * heatmaps in attn_maps.svg. */
static void expect_figures(const int series[N_CHARTS], int heatmaps) {
    for (int i = 0; i < N_FIGURES; i++) {
        char *doc = read_well_formed(FIGURES[i]);
        int got = i < N_CHARTS ? series_count(doc) : xmlcheck_count(doc, "<g class=\"heatmap\"");
        int want = i < N_CHARTS ? series[i] : heatmaps;
        ck_assert_msg(got == want, "%s: %d %s, want %d", FIGURES[i], got,
                      i < N_CHARTS ? "series" : "heatmaps", want);
        free(doc);
    }
}

/* ------------------------------------------------------------------ tests */

START_TEST(test_two_runs_table) {
    char out[256];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(FIX "/scaled", FIX "/unscaled", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "scaled"));
    ck_assert_ptr_nonnull(strstr(r.out, "unscaled"));
    static const LineWant LINES[] = {
        {"answer acc, final", "100.0%", "43.8%", 1},  /* run order kept */
        {"token acc, final", "100.0%", "62.5%", 1},
        {"answer acc >= 50% first at step", "50", "never (by 100)", 1}, /* 0.875; 0.4375 */
        {"answer acc >= 90% first at step", "75", "never (by 100)", 1}, /* 0.992 */
        {"answer acc >= 99% first at step", "75", "never (by 100)", 1},
        {"attention.scale", "sqrt_dk", "none", 1},
        {"init.scheme", "fan_in", NULL, 0},
        {"task.name", "sort", NULL, 0},
        {"val loss @ step 50", "0.2982", "1.2400", 1},
        {"layer 1 W_k", "0.111", "5.68e-05", 1},
        {"layer 0 logit std @ step 0", "1.02", "4.10", 1},
        {"status", "finished @100", NULL, 0},
    };
    expect_lines(r.out, LINES, N_OF(LINES));
    char want[PATH_MAX + 16];
    snprintf(want, sizeof want, "report: %s/index.html\n", out);
    ck_assert_msg(strstr(r.out, want) != NULL, "no '%s' in output", want);
    tu_result_free(&r);
}
END_TEST

START_TEST(test_two_runs_files) {
    char out[256];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(FIX "/scaled", FIX "/unscaled", "--out", out, NULL);
    ck_assert_int_eq(r.rc, 0);
    /* runs x series per figure: loss (train, val), accuracy (answer, token), gradient norms
     * (global + q and k of 2 layers), attention (entropy and logit std of 2 layers), passthru
     * (softmax_pass, empty in these logs from before it, and saturated fraction of 2 layers);
     * accuracy also has the chance line of the token panel (sort, 4 symbols: 25%; the whole
     * answer's 4^-4 = 0.4% is not drawn); heatmaps: 2 runs x 2 layers x 2 heads */
    static const int SERIES[N_CHARTS] = {2 * 2, 2 * 2 + 1, 2 * 5, 2 * 4, 2 * 4};
    expect_figures(SERIES, 8);
    static const PointsWant POINTS[] = {
        {"loss.svg", "scaled", "train loss", 12},
        {"loss.svg", "scaled", "val loss", 5},
    };
    expect_points(POINTS, N_OF(POINTS));
    char *doc = read_well_formed("loss.svg");
    ck_assert_ptr_nonnull(strstr(doc, "loss (nats/token)"));
    free(doc);
    doc = read_well_formed("attn_maps.svg");
    ck_assert_ptr_nonnull(strstr(doc, "&lt;sep&gt;"));       /* tokens on the axes, escaped */
    free(doc);
    doc = read_well_formed("index.html");
    for (int i = 0; i < N_FIGURES; i++) {
        char fig[64]; /* inline, under the file's stem (test_html.c checks the inlining) */
        snprintf(fig, sizeof fig, "<figure id=\"%.*s\">\n<svg ", (int)strcspn(FIGURES[i], "."),
                 FIGURES[i]);
        ck_assert_msg(strstr(doc, fig) != NULL, "index.html lacks %s", fig);
    }
    ck_assert_int_eq(xmlcheck_count(doc, "<figcaption>"), N_FIGURES);
    ck_assert_ptr_nonnull(strstr(doc, "<tr class=\"diff\"><td><code>attention.scale</code>"));
    ck_assert_ptr_nonnull(strstr(doc, "<td>100.0%</td><td>43.8%</td>"));
    free(doc);
    tu_result_free(&r);
}
END_TEST

/* All four fixtures at once: every figure well-formed, series only for runs that have the data. */
START_TEST(test_all_fixtures) {
    char out[256];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(FIX "/scaled", FIX "/unscaled", FIX "/diverged", FIX "/no_attention",
                         "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    /* no_attention has no attention.csv (and no attention maps); one chance line, as above */
    static const int SERIES[N_CHARTS] = {4 * 2, 4 * 2 + 1, 4 * 5, 3 * 4, 3 * 4};
    expect_figures(SERIES, 8);
    char *doc = read_well_formed("index.html");
    free(doc);
    tu_result_free(&r);
}
END_TEST

/* The diverged run is drawn up to its last finite point: steps 0, 10, 20, 25 of train loss and
 * gradient norms (step 30 is NaN/inf), steps 0 and 25 of validation loss. */
START_TEST(test_diverged_run) {
    char out[256];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(FIX "/scaled", FIX "/diverged", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    static const PointsWant POINTS[] = {
        {"loss.svg", "diverged", "train loss", 4},
        {"loss.svg", "diverged", "val loss", 2},
        {"grad_norms.svg", "diverged", "global", 4},
        {"grad_norms.svg", "diverged", "blocks.0.attn.qkv.weight.q", 4},
        {"grad_norms.svg", "scaled", "global", 12},
    };
    expect_points(POINTS, N_OF(POINTS));
    char *doc = read_well_formed("loss.svg");
    ck_assert_int_ge(xmlcheck_count(doc, "<path class=\"diverged\" data-run=\"diverged\""), 1);
    ck_assert_int_eq(xmlcheck_count(doc, "<path class=\"diverged\" data-run=\"scaled\""), 0);
    free(doc);
    static const LineWant LINES[] = {
        {"status", "diverged @30", NULL, 0},
        {"train loss, final", "nan (@30)", NULL, 0},
        {"global", "inf (@30)", NULL, 0},
        {"val loss @ step 50", " -", NULL, 0},  /* a step the run never reached */
    };
    expect_lines(r.out, LINES, N_OF(LINES));
    tu_result_free(&r);
}
END_TEST

/* A run that skipped a non-finite update and went on (train.on_divergence = skip): its line
 * breaks at the NaN and goes on, it is not called diverged, and without grad_norms.csv it is
 * left out of the gradient figure only. */
START_TEST(test_skipped_nan_breaks_line) {
    char out[256], run[256];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    snprintf(run, sizeof run, "%s/skipper", g_tmp);
    ck_assert_int_eq(mkdir(run, 0777), 0);
    write_file(run, "config.ini", "[attention]\nscale = none ; unscaled\n[train]\nsteps = 40\n");
    write_file(run, "loss.csv",
               "step,train_loss,val_loss,val_token_acc,val_answer_acc,lr,grad_norm,elapsed_s,"
               "tokens_per_s,skipped_steps\n"
               "0,2.0,2.1,0.1,0.0,0.001,1.0,0.0,,0\n"
               "10,1.5,,,,0.001,0.9,0.5,100,0\n"
               "20,nan,,,,0.001,nan,1.0,100,1\n"
               "30,1.2,,,,0.001,0.8,1.5,100,1\n"
               "40,,1.1,0.5,0.25,,,2.0,100,1\n");
    TuResult r = compare(FIX "/scaled", run, "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "grad_norms.csv"));
    static const LineWant LINES[] = {
        {"status", "finished @40, 1 skipped", NULL, 0},
        {"attention.scale", " none", NULL, 0},  /* the inline comment stripped */
    };
    expect_lines(r.out, LINES, N_OF(LINES));
    char *doc = read_well_formed("loss.svg");
    ck_assert_int_eq(tu_series_points(doc, "skipper", "train loss"), 3);
    ck_assert_int_eq(series_pieces(doc, "skipper", "train loss"), 2);
    ck_assert_int_eq(series_pieces(doc, "scaled", "train loss"), 1);
    ck_assert_int_eq(xmlcheck_count(doc, "<path class=\"diverged\" data-run=\"skipper\""), 0);
    free(doc);
    doc = read_well_formed("grad_norms.svg");
    ck_assert_int_eq(series_count(doc), 5);
    ck_assert_ptr_null(strstr(doc, "data-run=\"skipper\""));
    free(doc);
    tu_result_free(&r);
}
END_TEST

START_TEST(test_missing_attention_csv) {
    char out[256];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(FIX "/scaled", FIX "/no_attention", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    char *doc = read_well_formed("attention.svg");
    ck_assert_int_eq(series_count(doc), 4);
    ck_assert_ptr_null(strstr(doc, "data-run=\"no_attention\""));
    free(doc);
    doc = read_well_formed("attn_maps.svg");
    ck_assert_int_eq(xmlcheck_count(doc, "<g class=\"heatmap\""), 4);
    free(doc);
    static const LineWant LINES[] = {
        {"layer 0 logit std, final", "n/a", NULL, 0},
        {"status", "stopped @50", NULL, 0},
        {"answer acc, final", "81.2% (@50)", NULL, 0},
    };
    expect_lines(r.out, LINES, N_OF(LINES));
    tu_result_free(&r);
}
END_TEST

/* Without attention.csv anywhere there is no attention figure, and the page does not link one. */
START_TEST(test_no_attention_figures) {
    char out[256], path[PATH_MAX];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare(FIX "/no_attention", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    ck_assert_int_ne(access(out_path(path, sizeof path, "attention.svg"), F_OK), 0);
    ck_assert_int_ne(access(out_path(path, sizeof path, "passthru.svg"), F_OK), 0);
    ck_assert_int_ne(access(out_path(path, sizeof path, "attn_maps.svg"), F_OK), 0);
    char *doc = read_well_formed("index.html");
    ck_assert_ptr_null(strstr(doc, "attention.svg"));
    ck_assert_ptr_null(strstr(doc, "passthru.svg"));
    free(doc);
    tu_result_free(&r);
}
END_TEST

START_TEST(test_missing_run_folder) {
    char out[256], missing[256], path[PATH_MAX];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    snprintf(missing, sizeof missing, "%s/no_such_run", g_tmp);
    TuResult r = compare(FIX "/scaled", missing, "--out", out, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_msg(strstr(r.err, missing) != NULL, "stderr does not name the path: %s", r.err);
    ck_assert_str_eq(r.out, "");
    ck_assert_int_ne(access(out_path(path, sizeof path, "index.html"), F_OK), 0);
    tu_result_free(&r);
}
END_TEST

START_TEST(test_folder_without_loss_csv) {
    char out[256], empty[256], want[PATH_MAX];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    snprintf(empty, sizeof empty, "%s/empty_run", g_tmp);
    ck_assert_int_eq(mkdir(empty, 0777), 0);
    TuResult r = compare(empty, FIX "/scaled", "--out", out, NULL);
    ck_assert_int_eq(r.rc, 2);
    snprintf(want, sizeof want, "%s/loss.csv", empty);
    ck_assert_msg(strstr(r.err, want) != NULL, "stderr does not name %s: %s", want, r.err);
    tu_result_free(&r);
}
END_TEST

/* A run folder named a<&>b: every file stays well-formed and shows the name escaped. */
START_TEST(test_run_name_escaped) {
    char out[256], link[256];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    snprintf(link, sizeof link, "%s/a<&>b", g_tmp);
    ck_assert_int_eq(symlink(FIX "/scaled", link), 0);
    TuResult r = compare(link, FIX "/unscaled", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "a<&>b")); /* the terminal shows it as it is */
    for (int i = 0; i < N_FIGURES; i++) {
        char *doc = read_well_formed(FIGURES[i]);
        ck_assert_msg(strstr(doc, "a<&>b") == NULL, "%s has the raw name", FIGURES[i]);
        ck_assert_msg(strstr(doc, "a&lt;&amp;&gt;b") != NULL, "%s lacks the escaped name", FIGURES[i]);
        free(doc);
    }
    char *doc = read_well_formed("loss.svg");
    ck_assert_int_eq(tu_series_points(doc, "a&lt;&amp;&gt;b", "train loss"), 12);
    free(doc);
    doc = read_well_formed("index.html");
    ck_assert_ptr_null(strstr(doc, "a<&>b"));
    ck_assert_ptr_nonnull(strstr(doc, "a&lt;&amp;&gt;b"));
    free(doc);
    tu_result_free(&r);
}
END_TEST

/* Two folders with the same name get distinct labels, so the legend tells them apart. */
START_TEST(test_duplicate_names) {
    char out[256], dir[256], link[256];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    snprintf(dir, sizeof dir, "%s/other", g_tmp);
    snprintf(link, sizeof link, "%s/other/scaled", g_tmp);
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    ck_assert_int_eq(symlink(FIX "/unscaled", link), 0);
    TuResult r = compare(FIX "/scaled", link, "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "scaled (2)"));
    static const LineWant LINES[] = {{"answer acc, final", "100.0%", "43.8%", 1}};
    expect_lines(r.out, LINES, N_OF(LINES));
    static const PointsWant POINTS[] = {{"loss.svg", "scaled (2)", "val loss", 5}};
    expect_points(POINTS, N_OF(POINTS));
    tu_result_free(&r);
}
END_TEST

START_TEST(test_log_scale) {
    char out[256];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    TuResult r = compare("--log-scale", FIX "/scaled", FIX "/unscaled", "--out", out, NULL);
    ck_assert_int_eq(r.rc, 0);
    char *doc = read_well_formed("loss.svg");
    ck_assert_ptr_nonnull(strstr(doc, "loss (nats/token, log scale)"));
    ck_assert_int_eq(series_count(doc), 4);
    ck_assert_ptr_nonnull(strstr(doc, ">0.1</text>")); /* the losses span 0.08 .. 1.45 */
    ck_assert_ptr_nonnull(strstr(doc, ">1</text>"));
    free(doc);
    tu_result_free(&r);
}
END_TEST

static Suite *compare_suite(void) {
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("fixtures");
    tcase_add_checked_fixture(tc, make_tmp, remove_tmp);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_two_runs_table);
    tcase_add_test(tc, test_two_runs_files);
    tcase_add_test(tc, test_all_fixtures);
    tcase_add_test(tc, test_diverged_run);
    tcase_add_test(tc, test_skipped_nan_breaks_line);
    tcase_add_test(tc, test_missing_attention_csv);
    tcase_add_test(tc, test_no_attention_figures);
    tcase_add_test(tc, test_run_name_escaped);
    tcase_add_test(tc, test_duplicate_names);
    tcase_add_test(tc, test_log_scale);
    suite_add_tcase(s, tc);
    TCase *err = tcase_create("errors");
    tcase_add_checked_fixture(err, make_tmp, remove_tmp);
    tcase_add_test(err, test_missing_run_folder);
    tcase_add_test(err, test_folder_without_loss_csv);
    suite_add_tcase(s, err);
    return s;
}

int main(void) { return tu_run(compare_suite()); }
