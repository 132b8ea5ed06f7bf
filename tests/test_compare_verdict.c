/* test_compare_verdict.c: the last lines ./train --compare (src/report/page/compare.c) prints are the
 * page's verdict and the page's path: after "verdict:", exactly the lines of index.html's verdict
 * paragraph (its <br/> lines, the entities read back), then "report: DIR/index.html" and nothing
 * more. The numbers in them are checked against the runs' loss.csv, read here: the final
 * validation answer accuracy of each sort fixture (tests/fixtures/runs), and the final bits per
 * byte (val_loss / ln 2) of a pair of hand-made text runs. The verdict's other numbers (steps to
 * the levels, the slowdown) are worked out by hand in test_verdict.c. */
#include "cli/cli.h" /* the report through its command line: cli_compare */

#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define FIX SCALEDOT_SOURCE_DIR "/tests/fixtures/runs"

static char g_tmp[64];

static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_compare_verdict.XXXXXX"); }

static void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* The last value of column col in the loss.csv of run folder dir (the test's own reading). */
static double last_logged(const char *dir, const char *col) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/loss.csv", dir);
    char *text = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    int c = -1, i = 0;
    double v = NAN;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), i = 0) {
        for (char *f = line, *e; f; f = e ? e + 1 : NULL, i++) {
            e = strchr(f, ',');
            size_t len = e ? (size_t)(e - f) : strlen(f);
            if (c < 0 && strlen(col) == len && strncmp(f, col, len) == 0) c = i;
            else if (c >= 0 && i == c && len > 0) v = strtod(f, NULL);
        }
    }
    free(text);
    ck_assert_msg(c >= 0, "%s has no column %s", path, col);
    return v;
}

/* Runs --compare on dirs[0..n) into g_tmp/rep; checks that its output ends with "verdict:", the
 * page's verdict lines and the page's path, and that the line of run i holds want[i]. */
static void expect_terminal_verdict(const char *const *dirs, int n, char want[][64]) {
    char out[256], page[PATH_MAX];
    snprintf(out, sizeof out, "%s/rep", g_tmp);
    const char *args[8];
    ck_assert_int_le(n + 3, 8);
    for (int i = 0; i < n; i++) args[i] = dirs[i];
    args[n] = "--out", args[n + 1] = out, args[n + 2] = NULL;
    TuResult r = tu_call(cli_compare, args);
    ck_assert_msg(r.rc == 0, "rc %d, stderr: %s", r.rc, r.err);
    snprintf(page, sizeof page, "%s/index.html", out);
    char *lines = tu_expect_verdict_last(r.out, page, page);
    const char *line = lines;
    for (int i = 0; i < n; i++, line = strchr(line, '\n') + 1) {
        char one[512];
        snprintf(one, sizeof one, "%.*s", (int)strcspn(line, "\n"), line);
        ck_assert_msg(strstr(one, want[i]), "line %d '%s' lacks '%s'", i, one, want[i]);
    }
    free(lines);
    tu_result_free(&r);
}

/* The sort pair: each run's final answer accuracy as loss.csv ends it. */
START_TEST(test_sort_pair) {
    const char *const dirs[] = {FIX "/scaled", FIX "/unscaled"};
    char want[2][64];
    for (int i = 0; i < 2; i++)
        snprintf(want[i], sizeof want[i], "final answer accuracy %.1f %%",
                 100 * last_logged(dirs[i], "val_answer_acc"));
    expect_terminal_verdict(dirs, 2, want);
}
END_TEST

/* A text pair: each run's final val_loss in bits per byte. */
START_TEST(test_text_pair) {
    static const char *const LOSS[] = {
        "step,train_loss,val_loss,val_answer_acc\n0,5.5,5.5,0.01\n100,2.1,2.0794,0.41\n",
        "step,train_loss,val_loss,val_answer_acc\n0,5.5,5.5,0.01\n100,2.6,2.5,0.33\n"};
    static const char *const CONFIG[] = {
        "[task]\nname = text\n[attention]\nscale = sqrt_dk\n[train]\nsteps = 100\n",
        "[task]\nname = text\n[attention]\nscale = none\n[train]\nsteps = 100\n"};
    char dirs[2][256], want[2][64];
    for (int i = 0; i < 2; i++) {
        tu_put_file(dirs[i], sizeof dirs[i], g_tmp, i ? "text_unscaled" : "text_scaled",
                    "loss.csv", LOSS[i]);
        tu_put_file(NULL, 0, g_tmp, i ? "text_unscaled" : "text_scaled", "config.ini", CONFIG[i]);
        snprintf(want[i], sizeof want[i], "%.3f bits per byte",
                 last_logged(dirs[i], "val_loss") / log(2.0));
    }
    expect_terminal_verdict((const char *const[]){dirs[0], dirs[1]}, 2, want);
}
END_TEST

/* One run: its line alone, then the path. */
START_TEST(test_one_run) {
    const char *const dirs[] = {FIX "/no_attention"};
    char want[1][64];
    snprintf(want[0], sizeof want[0], "final answer accuracy %.1f %%",
             100 * last_logged(dirs[0], "val_answer_acc"));
    expect_terminal_verdict(dirs, 1, want);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("compare_verdict", make_tmp, remove_tmp, 30, test_sort_pair, test_text_pair,
                        test_one_run);
