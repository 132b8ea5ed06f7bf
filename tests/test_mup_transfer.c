/* test_mup_transfer.c: experiments/mup_transfer.sh, the transfer slope, the loss lost at the
 * base width's optimum and the exponent alpha of std(q.k), on a made-up map of two widths whose
 * answers are worked out here by hand: the best lr halves from d_model 128 to 256 (slope -1), a
 * diverged run counts as its loss at initialisation, a run that did not end is left out, and the
 * step-1000 logit stds make std(q.k) grow like d_k in layer 0 (alpha 1) and like sqrt(d_k) in
 * layer 1 (alpha 1/2) once divided by the scale 1/sqrt(d_k). */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_mup_transfer.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

static const char *const LR_TEXT[3] = {"1e-3", "2e-3", "4e-3"};
/* bits per byte by width and lr (the seeds at -0.01 and +0.01 of it): 128 has its best at 2e-3
 * (inside the grid), 256 at 1e-3 (its edge) */
static const double BITS[2][3] = {{2.2, 2.0, 2.1}, {1.8, 1.9, 2.3}};
/* the diverged run (d_model 256, lr 2e-3, seed 2): loss0 3.9 bits */
static const double LOSS0_BITS = 3.9;

/* g_tmp/h2_d<width>/sweep.csv and curves/: the logit stds at step 1000 are std(q.k) x 1/sqrt(d_k)
 * with std(q.k) = 16 (d_k 64) and 32 (d_k 128) in layer 0, 8 and 8 sqrt(2) in layer 1. */
static void write_series(int wi, const char *series, int fixed_dk) {
    int width = wi ? 256 : 128, dk = fixed_dk ? fixed_dk : width / 2;
    char dir[PATH_MAX], path[PATH_MAX + 128], row[512];
    snprintf(dir, sizeof dir, "%s/%s_d%d/curves", g_tmp, series, width);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    double qk0 = wi ? 32.0 : 16.0, qk1 = wi ? 8.0 * sqrt(2.0) : 8.0, c = 1.0 / sqrt(dk);
    char csv[4096];
    int n = snprintf(csv, sizeof csv, "run,d_k,d_model,n_heads,scale,seed,model.param,optim.lr,"
                                      "status,val_loss,loss0\n");
    for (int li = 0; li < 3; li++)
        for (int seed = 1; seed <= 2; seed++) {
            char run[64];
            snprintf(run, sizeof run, "dk%d_sqrt_dk_lr-%s_s%d", dk, LR_TEXT[li], seed);
            int diverged = wi == 1 && li == 1 && seed == 2;
            double bits = BITS[wi][li] + (seed == 1 ? -0.01 : 0.01);
            n += snprintf(csv + n, sizeof csv - (size_t)n, "%s,%d,%d,2,sqrt_dk,%d,standard,%s,%s,%.9g,%.9g\n",
                          run, dk, width, seed, LR_TEXT[li], diverged ? "diverged" : "ok",
                          diverged ? NAN : bits * log(2.0), LOSS0_BITS * log(2.0));
            snprintf(path, sizeof path, "%s/%s.csv", dir, run);
            snprintf(row, sizeof row, "step,train_loss,val_loss,logit_std_l0,logit_std_l1\n"
                                      "0,5.5,5.5,0,0\n1000,,%.6g,%.9g,%.9g\n",
                     bits * log(2.0), qk0 * c, qk1 * c);
            tu_write_file(path, row);
        }
    /* a run that did not end (status error) at an lr of its own: it must not appear */
    n += snprintf(csv + n, sizeof csv - (size_t)n, "dk%d_sqrt_dk_lr-8e-3_s1,%d,%d,2,sqrt_dk,1,standard,"
                  "8e-3,error,,%.9g\n", dk, dk, width, LOSS0_BITS * log(2.0));
    snprintf(path, sizeof path, "%s/%s_d%d/sweep.csv", g_tmp, series, width);
    tu_write_file(path, csv);
}
static void write_part(int wi) { write_series(wi, "h2", 0); }

/* mup_transfer.sh's output on dir (the caller frees it); *rc its exit code */
static char *run_script(const char *dir, int *rc) {
    char cmd[PATH_MAX * 3], out[PATH_MAX];
    snprintf(out, sizeof out, "%s.out", g_tmp);
    snprintf(cmd, sizeof cmd, "bash %s/experiments/mup_transfer.sh '%s'", SCALEDOT_SOURCE_DIR, dir);
    return tu_shell_output(cmd, out, rc);
}

/* The first line of text holding every needle (NULL-ended), copied into line; fails if none. */
static void find_line(const char *text, const char *const *needles, char *line, size_t cap) {
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        snprintf(line, cap, "%.*s", (int)len, p);
        int all = 1;
        for (const char *const *n = needles; *n; n++) all = all && strstr(line, *n);
        if (all) return;
        p += len + (e != NULL);
    }
    ck_abort_msg("no line with '%s' ... in:\n%s", needles[0], text);
}

/* the last two numbers of a line */
static void last_two(const char *line, double *a, double *b) {
    const char *p = line + strlen(line);
    int spaces = 0;
    while (p > line && spaces < 2) if (*--p == ' ' && p[1] != ' ') spaces++;
    ck_assert_int_eq(sscanf(p, "%lf %lf", a, b), 2);
}

START_TEST(test_transfer_and_alpha) {
    write_part(0);
    write_part(1);
    int rc;
    char *out = run_script(g_tmp, &rc);
    ck_assert_msg(rc == 0, "exit code %d:\n%s", rc, out);
    char line[1024], want[128];
    /* d_model 128: best 2e-3, the parabola's vertex through (log2 lr, bits) 2.2, 2.0, 2.1 at
     * 2e-3 x 2^(1/6) */
    double vertex = 2e-3 * pow(2.0, 1.0 / 6.0);
    snprintf(want, sizeof want, " %.3g ", vertex);
    find_line(out, (const char *const[]){"h2 standard sqrt_dk", " 128 ", " 2e-3 ", want, " 2.0000 ", NULL},
              line, sizeof line);
    /* d_model 256: best 1e-3 at the grid's edge, 1.8 bits; at 2e-3 the mean of 1.89 and the
     * diverged run's 3.9 = 2.895, 1.095 lost */
    find_line(out, (const char *const[]){"h2 standard sqrt_dk", " 256 ", " 1e-3 ", " edge ", " 1.8000 ",
                                         " 2.8950 ", " 1.0950", NULL}, line, sizeof line);
    /* slope: log2(1e-3 / 2e-3) per doubling of d_model; no vertex at an edge */
    find_line(out, (const char *const[]){"transfer slope", "-1.00 (grid), - (vertex)", NULL}, line,
              sizeof line);
    /* ... and says that d_model 256's optimum is not bracketed */
    ck_assert_msg(strstr(line, "; not bracketed at d_model 256 ("), "%s", line);
    ck_assert_msg(!strstr(out, "seeds per lr"), "an even grid called uneven:\n%s", out);
    /* alpha at the lr both widths ran, 2e-3: log(32/16)/log(2) = 1 and log(8 sqrt 2/8)/log(2) = 1/2 */
    find_line(out, (const char *const[]){"h2 standard sqrt_dk", "  2e-3 ", " 256 ", NULL}, line,
              sizeof line);
    double a0, a1;
    last_two(line, &a0, &a1);
    ck_assert_msg(fabs(a0 - 1.0) < 0.006 && fabs(a1 - 0.5) < 0.006, "alpha %g %g in: %s", a0, a1, line);
    /* std(q.k) itself at d_model 256 in layer 0: 32 */
    ck_assert_msg(strstr(line, " 32 "), "std(q.k) 32 not in: %s", line);
    ck_assert_msg(!strstr(out, "8e-3"), "the run that did not end was read:\n%s", out);
    free(out);
}
END_TEST

/* The d_k 32 control: d_k is the same at both widths, so alpha (a ratio over log d_k) has no
 * value: "-", not the inf or nan of a division by log 1 = 0. */
START_TEST(test_alpha_needs_two_dk) {
    write_series(0, "dk32", 32);
    write_series(1, "dk32", 32);
    int rc;
    char *out = run_script(g_tmp, &rc);
    ck_assert_msg(rc == 0, "exit code %d:\n%s", rc, out);
    char line[1024];
    find_line(out, (const char *const[]){"dk32 standard sqrt_dk", "  2e-3 ", " 256 ", NULL}, line,
              sizeof line);
    size_t n = strlen(line);
    ck_assert_msg(n > 18 && strcmp(line + n - 18, "        -        -") == 0, "alpha not '-' in: %s",
                  line);
    ck_assert_msg(!strstr(out, "inf") && !strstr(out, "nan"), "inf or nan in:\n%s", out);
    free(out);
}
END_TEST

/* mup_transfer.sh's output (it must exit 0; the caller frees it) on both widths' parts once the
 * rows of part's sweep.csv matching the sed address pattern are deleted: a part still training. */
static char *script_without_rows(const char *part, const char *pattern) {
    write_part(0);
    write_part(1);
    char cmd[PATH_MAX + 128];
    snprintf(cmd, sizeof cmd, "sed -i '/%s/d' '%s'/%s/sweep.csv", pattern, g_tmp, part);
    ck_assert_int_eq(system(cmd), 0);
    int rc;
    char *out = run_script(g_tmp, &rc);
    ck_assert_msg(rc == 0, "exit code %d:\n%s", rc, out);
    return out;
}

/* Fails unless line ends with tail. */
static void assert_ends_with(const char *line, const char *tail) {
    size_t n = strlen(line), t = strlen(tail);
    ck_assert_msg(n >= t && strcmp(line + n - t, tail) == 0, "'%s' does not end with '%s'", line,
                  tail);
}

/* A width still being trained (a part published in progress): seed 2 missing at one lr. Its row
 * says how many seeds its lrs had, and the best lr inside the grid is still bracketed. */
START_TEST(test_partial_width) {
    char *out = script_without_rows("h2_d128", "_lr-4e-3_s2,"), line[1024];
    /* 5 runs at d_model 128: 2 + 2 + 1 */
    find_line(out, (const char *const[]){"h2 standard sqrt_dk", " 128 ", "     5 ", NULL}, line,
              sizeof line);
    assert_ends_with(line, "  seeds per lr 1-2");
    /* the full width is not flagged */
    find_line(out, (const char *const[]){"h2 standard sqrt_dk", " 256 ", " edge ", NULL}, line,
              sizeof line);
    ck_assert_msg(!strstr(line, "seeds per lr"), "%s", line);
    free(out);
}
END_TEST

/* A width begun with one lr (a part published after its first runs): its row is printed, but it
 * is left out of the slope and named so, never called "not bracketed" or given a grid slope (with
 * it, its one lr would make the slope whatever lr was run first), nor a loss "lost". */
START_TEST(test_one_lr_width) {
    char *out = script_without_rows("h2_d256", "_lr-[148]e-3_s"), line[1024];
    /* 256 kept only 2e-3, d_model 128's optimum (mean 2.895 with its diverged seed): it is shown
     * at lr*_128, but the best of one lr is no optimum, so nothing is "lost" (not 0.0000) */
    find_line(out,
              (const char *const[]){"h2 standard sqrt_dk", " 256 ", " 2e-3 ", " edge ", " 2.8950 ",
                                    NULL},
              line, sizeof line);
    assert_ends_with(line, " -");
    find_line(out, (const char *const[]){"transfer slope d log2", NULL}, line, sizeof line);
    ck_assert_msg(strstr(line, ": - (grid), - (vertex); left out: d_model 256 (1 lr run)") &&
                      !strstr(line, "not bracketed"),
                  "%s", line);
    free(out);
}
END_TEST

/* Both widths' parts, with the val_loss of d_model 128's run at 1e-3, seed 2, set to loss (text). */
static void write_parts_with_loss(const char *loss) {
    write_part(0);
    write_part(1);
    char cmd[PATH_MAX + 256];
    snprintf(cmd, sizeof cmd, "sed -i 's/^\\(dk64_sqrt_dk_lr-1e-3_s2,\\([^,]*,\\)\\{8\\}\\)[^,]*/\\1%s/' "
             "'%s'/h2_d128/sweep.csv", loss, g_tmp);
    ck_assert_int_eq(system(cmd), 0);
}

/* Whether each best lr beats the runner-up in every seed, seed by seed: at d_model 256 the best
 * (1e-3) is ahead of the runner-up (4e-3; 2e-3's mean holds a diverged seed) by 0.5 bits in both
 * seeds; at d_model 128, seed 2's run at 1e-3 made 1.95 bits, so 2e-3 (mean 2.0) is best by the
 * mean over 1e-3 (2.07) but behind it in seed 2: 2.19 - 1.99 = +0.2 in seed 1, 1.95 - 2.01 = -0.06
 * in seed 2, mean +0.07. */
START_TEST(test_best_lr_by_seed) {
    char loss[32];
    snprintf(loss, sizeof loss, "%.9g", 1.95 * log(2.0));
    write_parts_with_loss(loss);
    int rc;
    char *out = run_script(g_tmp, &rc), line[1024];
    ck_assert_msg(rc == 0, "exit code %d:\n%s", rc, out);
    find_line(out, (const char *const[]){"h2 standard sqrt_dk", " 128 ", " 2e-3 ", " 1e-3 ",
                                         " +0.0700 ", " 1:+0.2000 2:-0.0600 ", NULL},
              line, sizeof line);
    assert_ends_with(line, " no (1 of 2)");
    find_line(out, (const char *const[]){"h2 standard sqrt_dk", " 256 ", " 1e-3 ", " 4e-3 ",
                                         " +0.5000 ", " 1:+0.5000 2:+0.5000 ", NULL},
              line, sizeof line);
    assert_ends_with(line, " yes");
    free(out);
}
END_TEST

/* g_tmp/h2_d256/sweep.csv (its folder made) holding text: a part written by hand */
static void write_d256_csv(const char *text) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/h2_d256", g_tmp);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/h2_d256/sweep.csv", g_tmp);
    tu_write_file(path, text);
}

/* A sweep.csv without a column the readings need: exit 2 naming it, before any table. */
START_TEST(test_missing_column) {
    write_part(0);
    write_d256_csv("run,d_k,d_model,scale,seed,model.param,optim.lr,status,loss0\n"
                   "r1,128,256,sqrt_dk,1,standard,1e-3,ok,3.9\n");
    int rc;
    char *out = run_script(g_tmp, &rc);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(out, "h2_d256/sweep.csv: no column val_loss"), "%s", out);
    ck_assert_msg(!strstr(out, "transfer slope"), "a table printed:\n%s", out);
    free(out);
}
END_TEST

/* A run without its curve: its std is left out, said in a line; a width with none says "-", not 0. */
START_TEST(test_missing_curve) {
    write_part(0);
    write_part(1);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "rm '%s'/h2_d256/curves/*", g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    int rc;
    char *out = run_script(g_tmp, &rc);
    ck_assert_int_eq(rc, 0);
    char line[1024];
    find_line(out, (const char *const[]){"h2 standard sqrt_dk", "  2e-3 ", " 256 ", NULL}, line,
              sizeof line);
    ck_assert_msg(strstr(line, " - ") && !strstr(line, " 0 "), "%s", line);
    /* the 6 runs of d_model 256 */
    ck_assert_msg(strstr(out, "(6 runs had no step-1000 logit std"), "%s", out);
    free(out);
}
END_TEST

/* A part whose sweep.csv has only its header (published before any run ended) says "no runs" and
 * is left out; with no run in any part, exit 2 rather than a table row of zeros. */
START_TEST(test_part_without_runs) {
    write_part(0);
    write_d256_csv("run,d_k,d_model,n_heads,scale,seed,model.param,optim.lr,status,val_loss,loss0\n");
    int rc;
    char *out = run_script(g_tmp, &rc);
    ck_assert_msg(rc == 0, "exit code %d:\n%s", rc, out);
    ck_assert_msg(strstr(out, "h2_d256/sweep.csv: no runs") && !strstr(out, "h2_d128/sweep.csv: no runs"),
                  "%s", out);
    ck_assert_msg(!strstr(out, " 256 "), "the empty part has a row:\n%s", out);
    free(out);
    /* only the empty part */
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -r '%s'/h2_d128", g_tmp);
    ck_assert_int_eq(system(cmd), 0);
    out = run_script(g_tmp, &rc);
    ck_assert_msg(rc == 2 && strstr(out, "no runs in any part") && !strstr(out, "transfer slope"),
                  "exit code %d:\n%s", rc, out);
    free(out);
}
END_TEST

/* An ok run whose val_loss is nan, or 1e999 (a number's spelling past the largest double, read
 * as inf): refused naming the run, before any table (its arm's means would all be nan or inf). */
static const char *const NOT_FINITE[] = {"nan", "1e999"};

START_TEST(test_nan_loss_refused) {
    write_parts_with_loss(NOT_FINITE[_i]);
    int rc;
    char *out = run_script(g_tmp, &rc), want[160];
    ck_assert_msg(rc == 2, "exit code %d:\n%s", rc, out);
    snprintf(want, sizeof want, "h2_d128/sweep.csv: run dk64_sqrt_dk_lr-1e-3_s2 (ok) has val_loss %s, "
             "not a finite number", NOT_FINITE[_i]);
    ck_assert_msg(strstr(out, want), "%s", out);
    ck_assert_msg(!strstr(out, "transfer slope"), "a table printed:\n%s", out);
    free(out);
}
END_TEST

START_TEST(test_no_part) {
    int rc;
    char *out = run_script(g_tmp, &rc);
    ck_assert_int_eq(rc, 2);
    ck_assert_ptr_nonnull(strstr(out, "holds no published part"));
    free(out);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("mup_transfer", make_tmp, remove_tmp, 60, test_transfer_and_alpha,
                        test_alpha_needs_two_dk, test_partial_width, test_one_lr_width,
                        test_best_lr_by_seed,
                        test_missing_column, test_missing_curve, test_part_without_runs,
                        TU_LOOP(test_nan_loss_refused, 0, 2), test_no_part);
