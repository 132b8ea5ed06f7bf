/* test_regime_map.c: the regime map's data and figure (src/report/map/regime_map.c): two hand-made
 * sweep.csv files, the points (one per trained run, values from sweep.csv, slowdowns worked out
 * by hand) in regime_map.csv, and the SVG well-formed with one marker per drawable point. */
#include "report/map/map.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runlog/csv_read.h"
#include "testutil.h"
#include "xmlcheck.h"

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_regime_map.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* Sweep a: two seeds of a none / sqrt_dk pair and a failed run (not a trained run: no point).
 *   seed 1: none never reached 90 % (last pass 2000), sqrt_dk at 200: slowdown > 2000/200 = 10×
 *   seed 2: none at 1000, sqrt_dk at 250: 4×
 * Sweep b: an init.scheme column instead of init_scheme; b2 over b1 at 90 %: 400 / 500 = 0.8×;
 * b3 has no predicted_logit_std (a row of an older program): in the CSV, not drawn; no pair. */
static const char SWEEP_A[] =
    "run,scale,seed,status,val_loss,val_answer_acc,first_step_50,first_step_90,first_step_99,"
    "last_eval_step,predicted_logit_std,init_scheme\n"
    "a1,sqrt_dk,1,ok,0.1,1,100,200,400,2000,1,fan_in\n"
    "a2,none,1,ok,0.5,0.6,800,,,2000,8,fan_in\n"
    "a3,sqrt_dk,2,ok,0.1,0.99,100,250,,2000,1,fan_in\n"
    "a4,none,2,ok,0.2,0.95,300,1000,,2000,8,fan_in\n"
    "a5,none,3,failed,,,,,,,8,fan_in\n";
static const char SWEEP_B[] =
    "run,scale,seed,init.scheme,status,val_loss,val_answer_acc,first_step_90,last_eval_step,"
    "predicted_logit_std\n"
    "b1,sqrt_dk,1,gpt2,ok,0.1,0.97,500,2000,0.1024\n"
    "b2,none,1,gpt2,ok,0.1,0.98,400,2000,0.8192\n"
    "b3,sqrt_dk,2,gpt2,ok,0.1,0.9,,2000,\n";

static int count(const char *doc, const char *needle) {
    int n = 0;
    for (const char *p = doc; (p = strstr(p, needle)); p++) n++;
    return n;
}

START_TEST(test_points_and_figure) {
    char a[128], b[128], out[128], path[256];
    tu_put_file(a, sizeof a, g_tmp, "a", "sweep.csv", SWEEP_A);
    tu_put_file(b, sizeof b, g_tmp, "b", "sweep.csv", SWEEP_B);
    snprintf(out, sizeof out, "%s", g_tmp);
    char *dirs[] = {a, b};
    TuCapture c;
    tu_capture_begin(&c, 1);
    int rc = regime_map_write(out, dirs, 2, stdout);
    char *said = tu_capture_end(&c);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(said, "regime map of 7 trained runs from 2 sweeps: 6 drawn by accuracy") &&
                      strstr(said, "3 unscaled runs paired with a scaled one, 3 drawn"),
                  "%s", said);
    /* b3 was left out (no predicted std), so the note saying why is there */
    ck_assert_msg(strstr(said, "6 drawn by accuracy (the rest lack predicted_logit_std"), "%s", said);
    free(said);

    snprintf(path, sizeof path, "%s/regime_map.csv", out);
    char *csv = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(csv);
    char want[8][256];
    snprintf(want[0], sizeof want[0], "sweep,run,scale,init_scheme,predicted_logit_std,"
                                      "val_answer_acc,slowdown_90,slowdown_90_bound\n");
    snprintf(want[1], sizeof want[1], "%s,a1,sqrt_dk,fan_in,1,1,,\n", a);
    snprintf(want[2], sizeof want[2], "%s,a2,none,fan_in,8,0.6,10,lower\n", a);
    snprintf(want[3], sizeof want[3], "%s,a3,sqrt_dk,fan_in,1,0.99,,\n", a);
    snprintf(want[4], sizeof want[4], "%s,a4,none,fan_in,8,0.95,4,exact\n", a);
    snprintf(want[5], sizeof want[5], "%s,b1,sqrt_dk,gpt2,0.1024,0.97,,\n", b);
    snprintf(want[6], sizeof want[6], "%s,b2,none,gpt2,0.8192,0.98,0.8,exact\n", b);
    snprintf(want[7], sizeof want[7], "%s,b3,sqrt_dk,gpt2,,0.9,,\n", b);
    char all[4096] = "";
    for (int i = 0; i < 8; i++) strcat(all, want[i]);
    ck_assert_str_eq(csv, all);
    free(csv);

    snprintf(path, sizeof path, "%s/regime_map.svg", out);
    /* readable like every other output: 0666 less the umask (a mkstemp file would be 0600) */
    mode_t mask = umask(022);
    umask(mask);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0666 & ~mask);
    char *svg = tu_read_xml(path);
    /* panel 1: every run with a predicted std and an accuracy (6); panel 2: the three pairs */
    ck_assert_int_eq(count(svg, "class=\"point\""), 6 + 3);
    ck_assert_int_eq(count(svg, "data-censored=\"1\""), 1);
    ck_assert_int_eq(count(svg, "class=\"censor-arrow\""), 1);
    ck_assert_ptr_nonnull(strstr(svg, "data-run=\"a2\" data-x=\"8\" data-y=\"60\" data-censored=\"0\""));
    ck_assert_ptr_nonnull(strstr(svg, "data-run=\"a2\" data-x=\"8\" data-y=\"10\" data-censored=\"1\""));
    ck_assert_ptr_nonnull(strstr(svg, "data-run=\"b2\" data-x=\"0.8192\" data-y=\"0.8\""));
    ck_assert_ptr_null(strstr(svg, "data-run=\"a5\""));
    ck_assert_ptr_null(strstr(svg, "data-run=\"b3\""));
    /* the censored point (the largest slowdown, 10x) keeps its whole arrow inside the slowdown
     * panel's plot area (its clip rectangle): the y range leaves room above a lower bound */
    const char *clip = strstr(svg, "<clipPath id=\"clip2\"><rect");
    const char *arrow = strstr(svg, "class=\"censor-arrow\" d=\"M");
    ck_assert_ptr_nonnull(clip);
    ck_assert_ptr_nonnull(arrow);
    double cx, cy, cw, ch, ax, ay, av;
    ck_assert_int_eq(sscanf(clip, "<clipPath id=\"clip2\"><rect x=\"%lf\" y=\"%lf\" width=\"%lf\" "
                                  "height=\"%lf\"", &cx, &cy, &cw, &ch), 4);
    ck_assert_int_eq(sscanf(arrow, "class=\"censor-arrow\" d=\"M%lf %lf v%lf", &ax, &ay, &av), 3);
    ck_assert_msg(ay + av >= cy && ay <= cy + ch && ax >= cx && ax <= cx + cw,
                  "arrow from y %g to %g, plot area y %g .. %g", ay, ay + av, cy, cy + ch);
    free(svg);
}
END_TEST

/* Writes text as g_tmp/sub/sweep.csv (its folder into dir, n bytes) and draws the map of that one
 * sweep into g_tmp, which must return want_rc. Returns what it printed on fd (1 stdout, 2
 * stderr; the caller frees it). */
static char *draw_one(char *dir, size_t n, const char *sub, const char *text, int fd, int want_rc) {
    tu_put_file(dir, n, g_tmp, sub, "sweep.csv", text);
    char *dirs[] = {dir};
    TuCapture c;
    tu_capture_begin(&c, fd);
    int rc = regime_map_write(g_tmp, dirs, 1, stdout);
    char *said = tu_capture_end(&c);
    ck_assert_int_eq(rc, want_rc);
    return said;
}

/* A user's own sweep of scaled runs alone, at predicted std 1 and 2 (fan_in init: circles): the
 * log axis's whole ticks are 1 and 2 themselves, so without headroom the points sat on the frame,
 * half cut off. Every marker lies wholly inside its panel's frame, and the note about runs left
 * out is not printed, since none was. The marker's radius, 4.5, is plot_scatter's. */
static const char SWEEP_SCALED[] =
    "run,scale,seed,status,val_loss,val_answer_acc,first_step_90,last_eval_step,"
    "predicted_logit_std,init_scheme\n"
    "s1,sqrt_dk,1,ok,0.1,1,200,2000,1,fan_in\n"
    "s2,sqrt_dk,2,ok,0.1,0.99,250,2000,1,fan_in\n"
    "s3,sqrt_dk,3,ok,0.1,0.98,300,2000,2,fan_in\n";

START_TEST(test_points_inside_frame) {
    char a[128], path[256];
    char *said = draw_one(a, sizeof a, "s", SWEEP_SCALED, 1, 0);
    ck_assert_msg(strstr(said, "regime map of 3 trained runs from 1 sweep: 3 drawn by accuracy; "
                               "0 unscaled runs paired with a scaled one, 0 drawn by slowdown to "
                               "90 %\n"), "%s", said);
    ck_assert_msg(!strstr(said, "the rest lack"), "%s", said);
    free(said);
    snprintf(path, sizeof path, "%s/regime_map.svg", g_tmp);
    char *svg = tu_read_xml(path);
    /* the accuracy panel's frame: its first rect drawn with the frame's stroke */
    const char *frame = strstr(svg, "fill=\"none\" stroke=\"#888888\"/>");
    ck_assert_ptr_nonnull(frame);
    while (frame > svg && strncmp(frame, "<rect ", 6) != 0) frame--;
    double fx, fy, fw, fh;
    ck_assert_int_eq(sscanf(frame, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &fx,
                            &fy, &fw, &fh), 4);
    int n = 0;
    for (const char *p = svg; (p = strstr(p, "class=\"point\"")); p++, n++) {
        const char *d = strstr(p, " d=\"M");
        ck_assert_ptr_nonnull(d);
        double left, cy; /* a circle's path starts at its leftmost point */
        ck_assert_int_eq(sscanf(d, " d=\"M%lf %lf", &left, &cy), 2);
        ck_assert_msg(left > fx + 0.5 && left + 2 * 4.5 < fx + fw - 0.5,
                      "point %d spans x %g .. %g, frame %g .. %g", n, left, left + 9, fx, fx + fw);
    }
    ck_assert_int_eq(n, 3);
    free(svg);
}
END_TEST

/* A sweep.csv that is not one: exit 1 after a message naming it, nothing written. */
START_TEST(test_bad_sweep_csv) {
    char a[128], path[256];
    char *err = draw_one(a, sizeof a, "a", "just,a,table\n1,2,3\n", 2, 1);
    ck_assert_msg(strstr(err, "sweep.csv") && strstr(err, "no column 'status'"), "%s", err);
    free(err);
    snprintf(path, sizeof path, "%s/regime_map.svg", g_tmp);
    ck_assert_int_eq(tu_count_lines(path), -1);
}
END_TEST

/* A sweep folder and run names holding a comma or a quote (a user's names may): each field of
 * regime_map.csv quoted as RFC 4180 says, so the file reads back with the header's 8 columns on
 * every row and the names whole. */
START_TEST(test_csv_fields_quoted) {
    static const char SWEEP[] =
        "run,scale,seed,status,val_loss,val_answer_acc,first_step_90,last_eval_step,"
        "predicted_logit_std,init_scheme\n"
        "\"s,1\",sqrt_dk,1,ok,0.1,1,200,2000,1,fan_in\n"
        "\"say \"\"hi\"\"\",sqrt_dk,2,ok,0.1,0.99,250,2000,1,fan_in\n";
    char a[128], path[256];
    free(draw_one(a, sizeof a, "my,\"sweep\"", SWEEP, 1, 0));
    snprintf(path, sizeof path, "%s/regime_map.csv", g_tmp);
    Csv t;
    ck_assert_int_eq(csv_load(&t, path), 0);
    ck_assert_int_eq(t.n_cols, 8);
    ck_assert_int_eq(t.n_rows, 2);
    static const char *const RUN[] = {"s,1", "say \"hi\""};
    for (int r = 0; r < 2; r++) {
        ck_assert_int_eq(t.width[r + 1], 8);
        ck_assert_str_eq(csv_str(&t, r, csv_col(&t, "sweep")), a);
        ck_assert_str_eq(csv_str(&t, r, csv_col(&t, "run")), RUN[r]);
        ck_assert_str_eq(csv_str(&t, r, csv_col(&t, "val_answer_acc")), r ? "0.99" : "1");
    }
    csv_free(&t);
}
END_TEST

TU_MAIN_FIXTURE("regime_map", make_tmp, remove_tmp, test_points_and_figure, test_points_inside_frame,
                test_bad_sweep_csv, test_csv_fields_quoted);
