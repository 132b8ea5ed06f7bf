/* test_regime_map_lr.c: the regime map over learning rate x width (src/report/map/regime_map_lr.c,
 * regime_map_lr_draw.c) through ./train --regime-map (cmd_regime_map.c): two hand-made sweeps
 * whose cells (medians over seeds, ran_away, the largest lr that learnt per width) are worked
 * out by hand below and checked in regime_map_lr.csv exactly; the SVG well-formed, a cell per
 * trained (d_model, scale, lr), the places not run drawn empty (white, dashed), not as 0 %; a
 * single-scale input; sweeps that do not vary the lr (no lr map); malformed values (exit 1,
 * file, line and column named, no folder made); and the published results/regime_map_lr against
 * the ./train program. An --out refused for the lr map's names: test_cmd_regime_map.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "testutil.h"
#include "xmlcheck.h"

#define regime_map(...) tu_run_cmd(cli_regime_map, __VA_ARGS__)

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_regime_map_lr.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

#define HEAD "run,d_model,scale,seed,optim.lr,status,val_loss,val_answer_acc,logit_std0,logit_std_peak\n"

/* Sweep A: both scales. logit_std0 by seed: 0.02, 0.03, 0.025 scaled (median 0.025), 0.2 unscaled.
 *   sqrt_dk d64 1e-3: acc 1, 1, 0.994 -> median 1 (mean 0.998), min 0.994; every seed >= 0.99;
 *                     peaks 3, 4, 5 -> 4: not ran away
 *   sqrt_dk d64 2e-3: acc 0.999, 0.995, 0.993 -> median 0.995 (mean 0.99567); every seed learnt;
 *                     peaks 10, 40, 35 -> median 35 >= 30: ran away (the mean, 28.3, is not)
 *   sqrt_dk d64 4e-3: acc 0.999, 0.2, 0.99 -> median 0.99, but seed 2 did not learn; peaks 50,
 *                     900, 60 -> 60: ran away.
 *     So the largest lr at which every seed learnt, d64 sqrt_dk, is 2e-3 (with "any seed": 4e-3).
 *   sqrt_dk d128 1e-3: one seed, acc 0.98: not learnt; peak 8
 *   sqrt_dk d128 2e-3: status failed: not trained, so this place is drawn empty
 *   sqrt_dk d128 4e-3: diverged at acc 0.995: a stopped run did not learn (status must be ok);
 *                      peak inf: ran away. d128 sqrt_dk has no largest-learnt cell.
 *   none d64 1e-3: acc 1, 1; peaks 6, 7 -> 6.5; learnt: the largest of d64 none
 *   none d64 2e-3: acc 0.5, 0.7 -> 0.6; peaks 20, 40 -> median exactly 30: ran away (>=)
 *   inv_dk d64 1e-3: another scale: left out (1 run)
 * Sweep B: unscaled d128 only, without logit_std0, its lrs spelled 0.002 and 0.004 (the same
 * columns as 2e-3 and 4e-3, and written with sweep A's spelling):
 *   none d128 2e-3: acc 1, peak not measured -> ran_away empty; learnt: the largest of d128 none
 *                   (and d64 none keeps its own, 1e-3: the largest is per width)
 *   none d128 4e-3: acc 0, peak 5000: ran away
 * Grid: lrs 1e-3, 2e-3, 4e-3 x widths 64, 128 = 6 places per panel. Empty: sqrt_dk (128, 2e-3);
 * none (128, 1e-3) and (64, 4e-3): 3. Runs placed: 9 + 2 + 4 + 2 = 17 in 9 cells. */
static const char SWEEP_A[] =
    HEAD
    "a1,64,sqrt_dk,1,1e-3,ok,0.1,1,0.02,3\n"
    "a2,64,sqrt_dk,2,1e-3,ok,0.1,1,0.03,4\n"
    "a3,64,sqrt_dk,3,1e-3,ok,0.1,0.994,0.025,5\n"
    "a4,64,sqrt_dk,1,2e-3,ok,0.1,0.999,0.02,10\n"
    "a5,64,sqrt_dk,2,2e-3,ok,0.1,0.995,0.03,40\n"
    "a6,64,sqrt_dk,3,2e-3,ok,0.1,0.993,0.025,35\n"
    "a7,64,sqrt_dk,1,4e-3,ok,0.1,0.999,0.02,50\n"
    "a8,64,sqrt_dk,2,4e-3,ok,0.9,0.2,0.03,900\n"
    "a9,64,sqrt_dk,3,4e-3,ok,0.1,0.99,0.025,60\n"
    "b1,128,sqrt_dk,1,1e-3,ok,0.1,0.98,0.05,8\n"
    "b2,128,sqrt_dk,1,2e-3,failed,,,,\n"
    "b3,128,sqrt_dk,1,4e-3,diverged,0.1,0.995,0.05,inf\n"
    "n1,64,none,1,1e-3,ok,0.1,1,0.2,6\n"
    "n2,64,none,2,1e-3,ok,0.1,1,0.2,7\n"
    "n3,64,none,1,2e-3,ok,0.5,0.5,0.2,20\n"
    "n4,64,none,2,2e-3,ok,0.4,0.7,0.2,40\n"
    "i1,64,inv_dk,1,1e-3,ok,0.1,1,0.002,2\n";
static const char SWEEP_B[] =
    "run,d_model,scale,seed,optim.lr,status,val_loss,val_answer_acc,logit_std_peak\n"
    "m1,128,none,1,0.002,ok,0.1,1,\n"
    "m2,128,none,1,0.004,ok,2,0,5000\n";

static const char WANT_CSV[] =
    "d_model,scale,optim.lr,n_seeds,val_answer_acc_median,val_answer_acc_min,val_answer_acc_max,"
    "logit_std_peak_median,logit_std0_median,ran_away,largest_learnt\n"
    "64,sqrt_dk,1e-3,3,1,0.994,1,4,0.025,0,0\n"
    "64,sqrt_dk,2e-3,3,0.995,0.993,0.999,35,0.025,1,1\n"
    "64,sqrt_dk,4e-3,3,0.99,0.2,0.999,60,0.025,1,0\n"
    "128,sqrt_dk,1e-3,1,0.98,0.98,0.98,8,0.05,0,0\n"
    "128,sqrt_dk,4e-3,1,0.995,0.995,0.995,inf,0.05,1,0\n"
    "64,none,1e-3,2,1,1,1,6.5,0.2,0,1\n"
    "64,none,2e-3,2,0.6,0.5,0.7,30,0.2,1,0\n"
    "128,none,2e-3,1,1,1,1,,,,1\n"
    "128,none,4e-3,1,0,0,0,5000,,1,0\n";

/* The attribute name="..." of the element that contains `at` in doc, into out (n bytes). */
static const char *attr(const char *at, const char *name, char *out, size_t n) {
    char key[48];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *end = strchr(at, '>'), *p = strstr(at, key);
    out[0] = '\0';
    if (!p || (end && p > end)) return out;
    p += strlen(key);
    size_t len = strcspn(p, "\"");
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), p);
    return out;
}

/* The element of class cls at (scale, d_model, lr), or NULL. */
static const char *find_rect(const char *svg, const char *cls, const char *scale, int d_model,
                             const char *lr) {
    char key[160];
    snprintf(key, sizeof key, "class=\"%s\" data-scale=\"%s\" data-d-model=\"%d\" data-lr=\"%s\"",
             cls, scale, d_model, lr);
    return strstr(svg, key);
}

START_TEST(test_cells_by_hand) {
    char a[128], b[128], out[160], path[256], buf[32];
    tu_put_file(a, sizeof a, g_tmp, "a", "sweep.csv", SWEEP_A);
    tu_put_file(b, sizeof b, g_tmp, "b", "sweep.csv", SWEEP_B);
    snprintf(out, sizeof out, "%s/out", g_tmp);
    TuResult r = regime_map("--out", out, a, b, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.out, "the sweeps vary optim.lr: map over lr x width of 17 trained runs, "
                                "9 cells (d_model, scale, lr), 3 places of the grid not run (1 run "
                                "left out: no optim.lr or d_model, or a scale other than sqrt_dk "
                                "and none)\n") &&
                      strstr(r.out, "/out/regime_map_lr.svg\n") &&
                      strstr(r.out, "/out/regime_map_lr.csv\n"),
                  "%s", r.out);
    tu_result_free(&r);

    snprintf(path, sizeof path, "%s/regime_map_lr.csv", out);
    char *csv = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(csv);
    ck_assert_str_eq(csv, WANT_CSV);
    free(csv);

    snprintf(path, sizeof path, "%s/regime_map_lr.svg", out);
    char *svg = tu_read_xml(path);
    ck_assert_int_eq(xmlcheck_count(svg, "class=\"cell\""), 9);
    ck_assert_int_eq(xmlcheck_count(svg, "class=\"cell-empty\""), 3);
    ck_assert_int_eq(xmlcheck_count(svg, "class=\"ran-away\""), 5);
    ck_assert_int_eq(xmlcheck_count(svg, "class=\"largest-learnt\""), 3);
    /* a place not run: white and dashed, no accuracy, unlike a cell at 0 % */
    const char *e = find_rect(svg, "cell-empty", "sqrt_dk", 128, "2e-3");
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(attr(e, "data-n", buf, sizeof buf), "0");
    ck_assert_str_eq(attr(e, "fill", buf, sizeof buf), "#ffffff");
    ck_assert_str_eq(attr(e, "stroke-dasharray", buf, sizeof buf), "4 3");
    ck_assert_ptr_null(find_rect(svg, "cell", "sqrt_dk", 128, "2e-3"));
    ck_assert_ptr_nonnull(find_rect(svg, "cell-empty", "none", 64, "4e-3"));
    const char *zero = find_rect(svg, "cell", "none", 128, "4e-3");
    ck_assert_ptr_nonnull(zero);
    ck_assert_str_eq(attr(zero, "data-acc", buf, sizeof buf), "0");
    ck_assert_str_eq(attr(zero, "fill", buf, sizeof buf), "#d73027"); /* the ramp's 0 % */
    const char *c = find_rect(svg, "cell", "sqrt_dk", 64, "2e-3");
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(attr(c, "data-n", buf, sizeof buf), "3");
    ck_assert_str_eq(attr(c, "data-ran-away", buf, sizeof buf), "1");
    ck_assert_str_eq(attr(c, "data-largest-learnt", buf, sizeof buf), "1");
    /* the caption, computed from the runs */
    ck_assert_msg(strstr(svg, "17 trained runs from 2 sweeps in 9 cells: widths 64, 128; seeds "
                              "1, 2, 3 (1-3 runs per cell); step-0 logit std 0.02-0.2"), "caption");
    ck_assert_ptr_nonnull(strstr(svg, "median peak std \xe2\x89\xa5 30"));
    free(svg);
}
END_TEST

/* One sweep of one scale (B): the sqrt_dk panel is all empty (2 places), the CSV has B's two
 * cells, spelled as B spells them. */
START_TEST(test_single_scale) {
    char b[128], out[160], path[256];
    tu_put_file(b, sizeof b, g_tmp, "b", "sweep.csv", SWEEP_B);
    snprintf(out, sizeof out, "%s/out", g_tmp);
    TuResult r = regime_map("--out", out, b, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_msg(strstr(r.out, "map over lr x width of 2 trained runs, 2 cells (d_model, scale, "
                                "lr), 2 places of the grid not run\n"), "%s", r.out);
    tu_result_free(&r);
    snprintf(path, sizeof path, "%s/regime_map_lr.csv", out);
    char *csv = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(csv);
    ck_assert_ptr_nonnull(strstr(csv, "largest_learnt\n128,none,0.002,1,1,1,1,,,,1\n"
                                      "128,none,0.004,1,0,0,0,5000,,1,0\n"));
    free(csv);
    snprintf(path, sizeof path, "%s/regime_map_lr.svg", out);
    char *svg = tu_read_xml(path);
    ck_assert_int_eq(xmlcheck_count(svg, "class=\"cell\""), 2);
    ck_assert_int_eq(xmlcheck_count(svg, "class=\"cell-empty\" data-scale=\"sqrt_dk\""), 2);
    ck_assert_ptr_nonnull(strstr(svg, "seeds 1 (1 run per cell)"));
    free(svg);
}
END_TEST

/* Sweeps that do not vary optim.lr (one lr, or no such column): the regime map alone, as before;
 * nothing said of an lr map, no regime_map_lr file. Sweeps that vary it with no run the map can
 * place (inv_dk only): no lr map either, and a line saying why. */
START_TEST(test_no_lr_variation) {
    static const char *const ONE_LR[] = {
        HEAD "a1,64,sqrt_dk,1,1e-3,ok,0.1,1,0.02,3\na2,64,none,2,1e-3,ok,0.1,1,0.2,4\n",
        "run,scale,seed,status,val_loss,val_answer_acc\ns,sqrt_dk,1,ok,0.1,1\n",
        HEAD "a1,64,inv_dk,1,1e-3,ok,0.1,1,0.02,3\na2,64,inv_dk,2,2e-3,ok,0.1,1,0.2,4\n"};
    for (int i = 0; i < 3; i++) {
        char sw[128], out[160], path[256], sub[8];
        snprintf(sub, sizeof sub, "s%d", i);
        tu_put_file(sw, sizeof sw, g_tmp, sub, "sweep.csv", ONE_LR[i]);
        snprintf(out, sizeof out, "%s/out%d", g_tmp, i);
        TuResult r = regime_map("--out", out, sw, NULL);
        const char *said = i < 2 ? NULL : "the sweeps vary optim.lr, but none of their runs has a "
                                          "d_model and scale sqrt_dk or none: no map over lr x width\n";
        ck_assert_msg(r.rc == 0 && (said ? strstr(r.out, said) != NULL : !strstr(r.out, "optim.lr")) &&
                          !strstr(r.out, "/regime_map_lr."),
                      "case %d: rc %d: %s", i, r.rc, r.out);
        tu_result_free(&r);
        snprintf(path, sizeof path, "%s/regime_map_lr.csv", out);
        ck_assert_msg(access(path, F_OK) != 0, "case %d: an lr map was written", i);
        snprintf(path, sizeof path, "%s/regime_map.csv", out);
        ck_assert_msg(access(path, F_OK) == 0, "case %d: no regime map", i);
    }
}
END_TEST

/* A value of the lr map that is not one: exit 1, file, line and column named, nothing written,
 * no folder made. An lr that is not a number > 0 is one no run trained with: the checked reader
 * of sweep.csv (log_check.c) skips its row with a warning, as every command does, and the map is
 * drawn from the others. */
START_TEST(test_malformed) {
    static const struct {
        const char *row, *err;
        int skipped;
    } CASES[] = {
        {"x,64,none,2,fast,ok,0.1,1,0.2,4\n", "sweep.csv:3: column optim.lr: 'fast' is not a number > 0; row skipped", 1},
        {"x,64,none,2,-1e-3,ok,0.1,1,0.2,4\n", ":3: column optim.lr: '-1e-3' is not a number > 0; row skipped", 1},
        {"x,64,none,2,inf,ok,0.1,1,0.2,4\n", ":3: column optim.lr: 'inf' is not a number > 0; row skipped", 1},
        /* d_model and logit_std_peak that are no numbers: sweep_table_load skips the row (its
         * warning); a number that is no width reaches the map */
        {"x,64.5,none,2,2e-3,ok,0.1,1,0.2,4\n", ":3: column d_model: '64.5' is not a positive whole", 0},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        char sw[128], out[160], text[512], sub[8];
        snprintf(text, sizeof text, HEAD "a,64,none,1,1e-3,ok,0.1,1,0.2,3\n%s", CASES[i].row);
        snprintf(sub, sizeof sub, "m%zu", i);
        tu_put_file(sw, sizeof sw, g_tmp, sub, "sweep.csv", text);
        snprintf(out, sizeof out, "%s/out%zu", g_tmp, i);
        TuResult r = regime_map("--out", out, sw, NULL);
        ck_assert_msg(r.rc == (CASES[i].skipped ? 0 : 1) && strstr(r.err, CASES[i].err),
                      "case %zu: rc %d: %s", i, r.rc, r.err);
        tu_result_free(&r);
        struct stat st;
        ck_assert_msg((stat(out, &st) == 0) == CASES[i].skipped, "case %zu: out folder", i);
    }
}
END_TEST

/* The published figure is what ./train draws over the published sweeps (every results/lr_width/ folder;
 * experiments/lr_width.sh redraws it): redraw results/regime_map_lr after new results. */
START_TEST(test_published_is_current) {
    char args[1024], path[256], pub[512];
    snprintf(args, sizeof args, "--regime-map --out out %s/results/lr_width/*/", SCALEDOT_SOURCE_DIR);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    ck_assert(tu_train_output_contains(g_tmp, "the sweeps vary optim.lr"));
    snprintf(path, sizeof path, "%s/out/regime_map_lr.csv", g_tmp);
    snprintf(pub, sizeof pub, "%s/results/regime_map_lr/regime_map_lr.csv", SCALEDOT_SOURCE_DIR);
    char *want = tu_read_file(pub, NULL);
    ck_assert_ptr_nonnull(want);
    ck_assert_msg(tu_file_holds(path, want), "results/regime_map_lr/regime_map_lr.csv is not what "
                                     "./train --regime-map draws over results/lr_width/*");
    free(want);
    snprintf(path, sizeof path, "%s/out/regime_map_lr.svg", g_tmp);
    snprintf(pub, sizeof pub, "%s/results/regime_map_lr/regime_map_lr.svg", SCALEDOT_SOURCE_DIR);
    want = tu_read_file(pub, NULL);
    ck_assert_ptr_nonnull(want);
    ck_assert_msg(tu_file_holds(path, want), "results/regime_map_lr/regime_map_lr.svg is stale");
    free(want);
}
END_TEST

/* A logit_std_peak that is no std a run measured (nan, negative, or a number too large for a
 * double, which strtod makes inf, while the program spells an overflowed std "inf"): a warning
 * naming file, line and column, the run kept in its cell with its accuracy, its peak left out;
 * the cell then is not framed and says "peak ?". The peaks print in one format (8.7k beside 74k),
 * and the legend's frame is drawn as a cell's frame is, on no fill of its own. */
START_TEST(test_peak_not_a_std) {
    static const char *const BAD[] = {"nan", "-2", "1e400", "-inf"};
    for (int i = 0; i < 4; i++) {
        char sw[128], out[160], path[256], text[512], sub[8], want[160], buf[32];
        snprintf(text, sizeof text, HEAD "a,64,none,1,1e-3,ok,0.1,1,0.2,8651\n"
                                         "b,64,none,1,2e-3,ok,0.1,0.5,0.2,%s\n"
                                         "c,64,none,1,4e-3,ok,0.1,0.5,0.2,74123\n", BAD[i]);
        snprintf(sub, sizeof sub, "p%d", i);
        tu_put_file(sw, sizeof sw, g_tmp, sub, "sweep.csv", text);
        snprintf(out, sizeof out, "%s/pout%d", g_tmp, i);
        TuResult r = regime_map("--out", out, sw, NULL);
        snprintf(want, sizeof want, "sweep.csv:3: column logit_std_peak: '%s' is not a std >= 0",
                 BAD[i]);
        ck_assert_msg(r.rc == 0 && strstr(r.err, want), "case %d: rc %d: %s", i, r.rc, r.err);
        tu_result_free(&r);
        snprintf(path, sizeof path, "%s/regime_map_lr.csv", out);
        ck_assert_msg(tu_file_contains(path, "\n64,none,2e-3,1,0.5,0.5,0.5,,0.2,,0\n"),
                      "case %d: the cell's peak", i);
        snprintf(path, sizeof path, "%s/regime_map_lr.svg", out);
        char *svg = tu_read_xml(path);
        const char *c = find_rect(svg, "cell", "none", 64, "2e-3");
        ck_assert_ptr_nonnull(c);
        ck_assert_str_eq(attr(c, "data-ran-away", buf, sizeof buf), "-1");
        ck_assert_int_eq(xmlcheck_count(svg, "class=\"ran-away\""), 2);
        ck_assert_ptr_nonnull(strstr(svg, ">peak ?<"));
        ck_assert_ptr_nonnull(strstr(svg, ">peak 8.7k<"));
        ck_assert_ptr_nonnull(strstr(svg, ">peak 74k<"));
        ck_assert_ptr_nonnull(strstr(svg, "; peak ?: not recorded for the runs of that cell"));
        ck_assert_ptr_nonnull(strstr(svg, "width=\"26.00\" height=\"16.00\" fill=\"none\" "
                                          "stroke=\"#000000\" stroke-width=\"3\""));
        free(svg);
    }
}
END_TEST

/* Sweeps without a logit_std_peak column: no cell can be framed, and the caption says why
 * instead of explaining a frame that never appears. */
START_TEST(test_no_peak_column) {
    char sw[128], out[160], path[256];
    tu_put_file(sw, sizeof sw, g_tmp, "np", "sweep.csv",
                "run,d_model,scale,seed,optim.lr,status,val_loss,val_answer_acc\n"
                "a,64,none,1,1e-3,ok,0.1,1\nb,64,none,1,2e-3,ok,0.1,0.5\n");
    snprintf(out, sizeof out, "%s/npout", g_tmp);
    TuResult r = regime_map("--out", out, sw, NULL);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tu_result_free(&r);
    snprintf(path, sizeof path, "%s/regime_map_lr.svg", out);
    char *svg = tu_read_xml(path);
    ck_assert_ptr_nonnull(strstr(svg, "no black frames: these sweeps did not record "
                                      "logit_std_peak"));
    ck_assert_ptr_null(strstr(svg, "black frame: the logits ran away"));
    free(svg);
}
END_TEST

TU_MAIN_FIXTURE("regime_map_lr", make_tmp, remove_tmp, test_cells_by_hand, test_single_scale,
                test_no_lr_variation, test_malformed, test_published_is_current,
                test_peak_not_a_std, test_no_peak_column);
