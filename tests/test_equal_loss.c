/* test_equal_loss.c: src/report/table/equal_loss.c, two runs' gradient readings at equal validation
 * loss. equal_loss_step on a table of series; then report_equal_loss on two synthetic run
 * folders whose every expected number is worked out by hand in the comments; a ratio 0 / 0 and
 * an overlap that holds none of A's levels; run folders named escaped. */
#include "report/table/table.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_equal_loss_step) {
    static const struct {
        double steps[4], losses[4];
        int n;
        double level, want; /* NAN: never reached */
    } cases[] = {
        /* falls 3 -> 2 over steps 0 -> 100: 2.5 is half way */
        {{0, 100, 200}, {3, 2, 1}, 3, 2.5, 50},
        /* exactly at an evaluation: that step */
        {{0, 100, 200}, {3, 2, 1}, 3, 2.0, 100},
        /* ... the first of two at the level: it FIRST fell to 2 at step 100 */
        {{0, 100, 200, 300}, {3, 2, 2, 1}, 4, 2.0, 100},
        /* already at or below at the first evaluation: its step */
        {{0, 100, 200}, {3, 2, 1}, 3, 3.5, 0},
        {{0, 100, 200}, {3, 2, 1}, 3, 3.0, 0},
        /* never reached */
        {{0, 100, 200}, {3, 2, 1}, 3, 0.5, NAN},
        /* a NaN evaluation is skipped: 3 at 0 to 1 at 200, level 2 is half way */
        {{0, 100, 200}, {3, NAN, 1}, 3, 2.0, 100},
        /* the FIRST fall: 3 -> 1 over 0 -> 100, 1.5 is 3/4 of the way; the later rise ignored */
        {{0, 100, 200, 300}, {3, 1, 2, 0.5}, 4, 1.5, 75},
        /* uneven steps: 4 at 10, 2 at 50: level 3 at 30 */
        {{10, 50}, {4, 2}, 2, 3.0, 30},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double got = equal_loss_step(cases[c].steps, cases[c].losses, cases[c].n, cases[c].level);
        if (isnan(cases[c].want))
            ck_assert_msg(isnan(got), "case %zu: %g, want NAN", c, got);
        else
            ck_assert_msg(fabs(got - cases[c].want) < 1e-12, "case %zu: %.17g, want %g", c, got,
                          cases[c].want);
    }
}
END_TEST

/* Two one-layer runs, evaluations at steps 0, 100, 200; gradients logged every 20 steps.
 *   A (levels): val_loss 3.0, 2.0, 1.5. W_q grad 2 + s/1000. attention, heads 0 and 1:
 *     dlogit_norm s/100 + 2h (head mean s/100 + 1), dprob_norm 0.28, softmax_pass 0.05,
 *     blocked_rows 0.8.
 *   B: val_loss 3.2, 1.0, 0.5. W_q grad 1 + s/1000. dlogit_norm s/100 + h (mean s/100 + 0.5),
 *     dprob_norm 0.2 + s/1000, softmax_pass 0.1, blocked_rows 0.
 * Ranges A [1.5, 3], B [0.5, 3.2]: overlap [1.5, 3], all three of A's levels. B's steps: level 3
 * at 100·(3.2 − 3)/(3.2 − 1) = 9.0909, level 2 at 100·1.2/2.2 = 54.545, level 1.5 at 100·1.7/2.2
 * = 77.273; the logged steps nearest: 0, 60, 80.
 * Medians over the levels:
 *   W_q grad  A (2.0, 2.1, 2.2) 2.1; B at equal loss (1.0, 1.06, 1.08) 1.06, A/B 1.981; B at
 *             equal step (1.0, 1.1, 1.2) 1.1, A/B 1.909: A above B both ways, survives.
 *   dlogit    A (1, 2, 3) 2; B equal loss (0.5, 1.1, 1.3) 1.1, A/B 1.818; equal step (0.5, 1.5,
 *             2.5) 1.5, A/B 1.333: survives.
 *   dprob     A 0.28; B equal loss (0.2, 0.26, 0.28) 0.26, A/B 1.077; equal step (0.2, 0.3, 0.4)
 *             0.3, A/B 0.9333: A above at equal loss, below at equal step: reverses.
 *   pass      A 0.05, B 0.1 both ways, A/B 0.5: survives.
 *   blocked   A 0.8, B 0 both ways: A/B inf, A above both ways: survives.
 * With A's blocked_rows 0 too (_i = 1), both medians are 0: a ratio 0 / 0 that printed "-nan". It
 * reads "—" (right-aligned in the 7 columns of a ratio), as the sweep summary marks pairs where
 * neither run got there, with a line below saying what it means; the other readings as above. */
static void write_run(const char *base, const char *name, const double loss[3], double wq0,
                      double dz_head, double dp_slope, double dp0, double pass,
                      double blocked) {
    char buf[8192], dir[512];
    int len = snprintf(buf, sizeof buf, "step,train_loss,val_loss\n");
    for (int s = 0; s <= 200; s += 20) {
        if (s % 100 == 0)
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%d,1,%.17g\n", s, loss[s / 100]);
        else
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%d,1,\n", s);
    }
    tu_put_file(dir, sizeof dir, base, name, "loss.csv", buf);
    len = snprintf(buf, sizeof buf, "step,blocks.0.attn.qkv.weight,blocks.0.attn.qkv.weight.q\n");
    for (int s = 0; s <= 200; s += 20)
        len += snprintf(buf + len, sizeof buf - (size_t)len, "%d,9,%.17g\n", s, wq0 + s / 1000.0);
    tu_put_file(NULL, 0, base, name, "grad_norms.csv", buf);
    len = snprintf(buf, sizeof buf, "step,layer,head,dlogit_norm,dprob_norm,softmax_pass,"
                                    "blocked_rows\n");
    for (int s = 0; s <= 200; s += 20)
        for (int h = 0; h < 2; h++)
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%d,0,%d,%.17g,%.17g,%g,%g\n", s,
                            h, s / 100.0 + dz_head * h, dp0 + dp_slope * s, pass, blocked);
    tu_put_file(NULL, 0, base, name, "attention.csv", buf);
}

/* report_equal_loss's output (malloc'd) and exit code. */
static char *run_report(const char *a, const char *b, int *rc) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    *rc = report_equal_loss(f, a, b);
    fclose(f);
    return text;
}

/* The runs A and B of the comment above, in tmp/name_a and tmp/name_b (their paths into a and b,
 * 256 bytes each), A's blocked_rows blocked_a; report_equal_loss's output (the caller frees),
 * which must have succeeded. */
static char *report_a_b(const char *tmp, const char *name_a, const char *name_b, double blocked_a,
                        char *a, char *b) {
    write_run(tmp, name_a, (const double[]){3.0, 2.0, 1.5}, 2.0, 2.0, 0.0, 0.28, 0.05, blocked_a);
    write_run(tmp, name_b, (const double[]){3.2, 1.0, 0.5}, 1.0, 1.0, 0.001, 0.2, 0.1, 0.0);
    snprintf(a, 256, "%s/%s", tmp, name_a);
    snprintf(b, 256, "%s/%s", tmp, name_b);
    int rc;
    char *out = run_report(a, b, &rc);
    ck_assert_msg(rc == 0, "rc %d\n%s", rc, out);
    return out;
}

START_TEST(test_two_runs_by_hand) {
    char tmp[64], a[256], b[256];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_equal_loss.XXXXXX");
    char *out = report_a_b(tmp, "A", "B", _i ? 0 : 0.8, a, b);
    int rc;
    ck_assert_msg(strstr(out, "overlap [1.5, 3]: 3 of A's 3 evaluations."), "%s", out);
    /* the level rows: level, A's step, B's interpolated step, then W_q grad of A and B */
    static const char *const ROWS[] = {
        "        3      0      9.1 |                     2        1 |",
        "        2    100     54.5 |                   2.1     1.06 |",
        "      1.5    200     77.3 |                   2.2     1.08 |",
    };
    for (int i = 0; i < 3; i++)
        ck_assert_msg(strstr(out, ROWS[i]), "no row\n%s\nin\n%s", ROWS[i], out);
    char want[256];
    static const struct {
        const char *name;
        double a, b_loss, b_step;
        const char *verdict;
    } SUM[] = {
        {"|dL/dW_q|", 2.1, 1.06, 1.1, "survives"},
        {"|dL/dZ|", 2.0, 1.1, 1.5, "survives"},
        {"|dL/dP|", 0.28, 0.26, 0.3, "reverses"},
        {"softmax_pass", 0.05, 0.1, 0.1, "survives"},
        {"blocked_rows", 0.8, 0.0, 0.0, "survives"},
    };
    for (size_t k = 0; k < sizeof SUM / sizeof SUM[0] - (size_t)_i; k++) {
        snprintf(want, sizeof want, "layer 0 %-12s A %8.4g | equal loss: B %8.4g, A/B %7.3g | "
                 "equal step: B %8.4g, A/B %7.3g | %s\n", SUM[k].name, SUM[k].a, SUM[k].b_loss,
                 SUM[k].a / SUM[k].b_loss, SUM[k].b_step, SUM[k].a / SUM[k].b_step,
                 SUM[k].verdict);
        ck_assert_msg(strstr(out, want), "no line\n%s\nin\n%s", want, out);
    }
    const char *zero = "layer 0 blocked_rows A        0 | equal loss: B        0, A/B       — | "
                       "equal step: B        0, A/B       — | cannot tell\n";
    const char *note = "\n\"—\": A and B are both 0 there (0/0): no ratio";
    ck_assert_msg(!strstr(out, zero) == !_i && !strstr(out, note) == !_i, "%s", out);
    ck_assert_msg(!strstr(out, "nan"), "%s", out);
    free(out);

    /* A never gets down to B: B's evaluations all below A's lowest */
    write_run(tmp, "C", (const double[]){1.2, 1.0, 0.5}, 1.0, 1.0, 0.001, 0.2, 0.1, 0.0);
    snprintf(b, sizeof b, "%s/C", tmp);
    out = run_report(a, b, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(out, "val_loss range: A [1.5, 3], B [0.5, 1.2]: they do not overlap (A "
                              "never gets down to B); no reading is compared at equal loss."),
                  "%s", out);
    ck_assert_ptr_null(strstr(out, "Median"));
    free(out);

    /* B's evaluations 2.9, 2.5, 2.1: the overlap [2.1, 2.9] holds none of A's levels (3, 2, 1.5):
     * said in a line, and no table of medians of nothing (it printed nan throughout) */
    write_run(tmp, "D", (const double[]){2.9, 2.5, 2.1}, 1.0, 1.0, 0.001, 0.2, 0.1, 0.0);
    snprintf(b, sizeof b, "%s/D", tmp);
    out = run_report(a, b, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(out, "overlap [2.1, 2.9]: 0 of A's 3 evaluations (A goes lower than B: "
                              "only the overlap is compared).\nNo evaluation of A lies in the "
                              "overlap: no reading is compared at equal loss"), "%s", out);
    ck_assert_msg(!strstr(out, "Median") && !strstr(out, "layer 0") && !strstr(out, "nan"), "%s",
                  out);
    free(out);
    tu_remove_tree(tmp);
}
END_TEST

/* Run folders whose names hold an escape sequence, a CR, a C1 CSI and a lone 0x9b: the table's
 * first line names them escaped (util/error_list.h), nothing raw in the output. */
START_TEST(test_paths_escaped) {
    char tmp[64], a[256], b[256], want[600];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_equal_loss.XXXXXX");
    char *out = report_a_b(tmp, "A\x1b[2J\r\xc2\x9b\x9b", "B\x1b", 0.8, a, b);
    snprintf(want, sizeof want, "At equal validation loss: A = %s/A\\x1b[2J\\r\\xc2\\x9b\\x9b "
             "(its evaluations are the levels), B = %s/B\\x1b.\n", tmp, tmp);
    ck_assert_msg(strstr(out, want) == out, "'%s' does not start:\n%s", want, out);
    tu_assert_no_raw_control(out, "the table");
    free(out);
    tu_remove_tree(tmp);
}
END_TEST

/* A log without a column the table reads: exit 2, the file and the column named. */
START_TEST(test_missing_column) {
    char tmp[64], a[256], dir[512];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_equal_loss.XXXXXX");
    write_run(tmp, "A", (const double[]){3.0, 2.0, 1.5}, 2.0, 2.0, 0.0, 0.28, 0.05, 0.8);
    tu_put_file(dir, sizeof dir, tmp, "B", "loss.csv", "step,val_loss\n0,3\n");
    tu_put_file(NULL, 0, tmp, "B", "grad_norms.csv", "step,blocks.0.attn.qkv.weight.q\n0,1\n");
    tu_put_file(NULL, 0, tmp, "B", "attention.csv", "step,layer,head,dlogit_norm,dprob_norm,"
                                                    "blocked_rows\n0,0,0,1,1,0\n");
    snprintf(a, sizeof a, "%s/A", tmp);
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc;
    char *out = run_report(a, dir, &rc);
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(err, "B/attention.csv' has no column 'softmax_pass'"), "%s", err);
    free(out);
    free(err);
    tu_remove_tree(tmp);
}
END_TEST

/* A run without a finite val_loss (a header only, empty cells, nan / inf), as A or as B: exit 2,
 * the run named, nothing printed (it said "A [inf, -inf] ... they do not overlap"). */
START_TEST(test_no_validation_evaluation) {
    char tmp[64], a[256], z[256];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_equal_loss.XXXXXX");
    write_run(tmp, "A", (const double[]){3.0, 2.0, 1.5}, 2.0, 2.0, 0.0, 0.28, 0.05, 0.8);
    write_run(tmp, "Z", (const double[]){3.0, 2.0, 1.5}, 2.0, 2.0, 0.0, 0.28, 0.05, 0.8);
    snprintf(a, sizeof a, "%s/A", tmp);
    snprintf(z, sizeof z, "%s/Z", tmp);
    static const char *const LOSS[] = {
        "step,train_loss,val_loss\n",
        "step,train_loss,val_loss\n0,1,\n20,1,\n",
        "step,train_loss,val_loss\n0,1,nan\n20,1,inf\n40,1,\n",
    };
    for (size_t i = 0; i < sizeof LOSS / sizeof *LOSS; i++)
        for (int z_is_a = 0; z_is_a < 2; z_is_a++) {
            tu_put_file(NULL, 0, tmp, "Z", "loss.csv", LOSS[i]);
            TuCapture c;
            tu_capture_begin(&c, 2);
            int rc;
            char *out = z_is_a ? run_report(z, a, &rc) : run_report(a, z, &rc);
            char *err = tu_capture_end(&c);
            char want[320];
            snprintf(want, sizeof want, "run '%s' has no validation evaluation", z);
            ck_assert_msg(rc == 2 && strstr(err, want), "case %zu/%d: rc %d, stderr: %s", i,
                          z_is_a, rc, err);
            ck_assert_msg(!out || !*out, "case %zu/%d printed:\n%s", i, z_is_a, out);
            free(out);
            free(err);
        }
    tu_remove_tree(tmp);
}
END_TEST

TU_MAIN("equal_loss", test_equal_loss_step, TU_LOOP(test_two_runs_by_hand, 0, 2),
        test_paths_escaped, test_missing_column, test_no_validation_evaluation);
