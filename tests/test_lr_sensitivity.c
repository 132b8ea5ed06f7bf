/* test_lr_sensitivity.c: the LR sensitivity of Wortsman et al. 2023, sec. 2.2
 * (src/report/table/lr_sensitivity.c): the formula on bare curves, then on a hand-made sweep.csv with
 * two scale modes, three learning rates, two seeds and one diverged run, worked out by hand; l*
 * per group, the min() cap, rows without a loss, a file without loss0, and the printed table. */
#include "report/table/table.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweepcsv.h"
#include "testutil.h"

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

START_TEST(test_formula) {
    static const struct {
        double loss[4];
        int n;
        double l0, want;  /* by hand */
        int best;
    } cases[] = {
        /* (0.8 + 0 + 1.65) / 3 */
        {{1.1, 0.3, 1.95}, 3, 2.1, 2.45 / 3, 1},
        /* 3.0 is capped at l0 = 2: (0 + (2 - 0.5)) / 2; without the cap it would be 1.25 */
        {{0.5, 3.0}, 2, 2, 0.75, 0},
        /* as good at every lr */
        {{0.2, 0.2, 0.2}, 3, 2, 0, 0},
        /* learns at one lr only: the rest sit at l0 = 2.3 */
        {{2.3, 0.3, 2.3, 2.3}, 4, 2.3, 6.0 / 4, 1},
        /* one lr: nothing to be sensitive to */
        {{0.7}, 1, 2, 0, 0},
    };
    for (int i = 0; i < N(cases); i++) {
        int best = -1;
        double s = lr_sensitivity(cases[i].loss, cases[i].n, cases[i].l0, &best);
        ck_assert_msg(fabs(s - cases[i].want) < 1e-12, "case %d: %.15g, want %.15g", i, s,
                      cases[i].want);
        ck_assert_int_eq(best, cases[i].best);
    }
    double l[] = {1, NAN};
    ck_assert(isnan(lr_sensitivity(l, 0, 2, NULL)));
    ck_assert(isnan(lr_sensitivity(l, 1, NAN, NULL)));
    ck_assert(isnan(lr_sensitivity(l, 2, 2, NULL)));
}
END_TEST

/* Two scale modes x three lrs x two seeds; rows out of lr order; seed 1 of sqrt_dk at lr 0.1
 * diverged (val_loss nan).
 *   sqrt_dk: l0 = mean(2.0, 2.2, ...) = 2.1; l(0.001) = (1.0 + 1.2) / 2 = 1.1,
 *            l(0.01) = (0.2 + 0.4) / 2 = 0.3, l(0.1) = (2.1 [diverged: l0] + 1.8) / 2 = 1.95;
 *            l* = 0.3; sensitivity = (0.8 + 0 + 1.65) / 3 = 0.816667.
 *   none:    l0 = 2.3; l(0.001) = 0.2, l(0.01) = 0.6, l(0.1) = 3.0 -> capped at 2.3;
 *            l* = 0.2; sensitivity = (0 + 0.4 + 2.1) / 3 = 0.833333.
 * With l* taken over the whole sweep (0.2) sqrt_dk would read (0.9 + 0.1 + 1.75) / 3 = 0.916667. */
static const char *const LR_ROWS[] = {
    "s1,16,16,1,sqrt_dk,1,0.01,ok,0.2,0.99,50,2.0,1,0.1,",
    "s2,16,16,1,sqrt_dk,2,0.01,ok,0.4,0.97,,2.2,1,0.1,",
    "s3,16,16,1,sqrt_dk,1,0.001,ok,1.0,0.50,,2.0,1,0.1,",
    "s4,16,16,1,sqrt_dk,2,0.001,ok,1.2,0.60,,2.2,1,0.1,",
    "s5,16,16,1,sqrt_dk,1,0.1,diverged,nan,0.10,,2.0,1,0.1,",
    "s6,16,16,1,sqrt_dk,2,0.1,ok,1.8,0.20,,2.2,1,0.1,",
    "n1,16,16,1,none,1,0.01,ok,0.5,0.90,,2.3,3,0.5,",
    "n2,16,16,1,none,2,0.01,ok,0.7,0.80,,2.3,3,0.5,",
    "n3,16,16,1,none,1,0.001,ok,0.1,0.99,80,2.3,3,0.5,",
    "n4,16,16,1,none,2,0.001,ok,0.3,0.95,,2.3,3,0.5,",
    "n5,16,16,1,none,1,0.1,ok,2.9,0.05,,2.3,3,0.5,",
    "n6,16,16,1,none,2,0.1,ok,3.1,0.05,,2.3,3,0.5,",
};

static int analyse(const char *const *rows, int n, int with_lr, SweepTable *t, LrGroup **g) {
    char *text = sc_csv(with_lr, rows, n);
    ck_assert_int_eq(sweep_table_parse(t, "t/sweep.csv", text, strlen(text)), 0);
    free(text);
    return lr_analyse(t, g);
}

START_TEST(test_hand_made_sweep) {
    SweepTable t;
    LrGroup *g;
    ck_assert_int_eq(analyse(LR_ROWS, N(LR_ROWS), 1, &t, &g), 2);
    ck_assert_str_eq(g[0].label, "scale=sqrt_dk");
    ck_assert_str_eq(g[1].label, "scale=none");
    static const struct {
        double l0, sens, l_star;
        const char *best;
        double loss[3];
        int diverged[3];
    } want[] = {
        {2.1, 2.45 / 3, 0.3, "0.01", {1.1, 0.3, 1.95}, {0, 0, 1}},
        {2.3, 2.5 / 3, 0.2, "0.001", {0.2, 0.6, 3.0}, {0, 0, 0}},
    };
    for (int k = 0; k < 2; k++) {
        ck_assert_double_eq_tol(g[k].l0, want[k].l0, 1e-12);
        ck_assert_msg(fabs(g[k].sensitivity - want[k].sens) < 1e-12, "group %d: %.15g, want %.15g",
                      k, g[k].sensitivity, want[k].sens);
        ck_assert_double_eq_tol(g[k].l_star, want[k].l_star, 1e-12);
        ck_assert_str_eq(g[k].pt[g[k].best].text, want[k].best);
        ck_assert_int_eq(g[k].n, 3);
        ck_assert_int_eq(g[k].skipped, 0);
        static const char *const lrs[] = {"0.001", "0.01", "0.1"}; /* ascending */
        for (int p = 0; p < 3; p++) {
            ck_assert_str_eq(g[k].pt[p].text, lrs[p]);
            ck_assert_double_eq_tol(g[k].pt[p].loss, want[k].loss[p], 1e-12);
            ck_assert_int_eq(g[k].pt[p].runs, 2);
            ck_assert_int_eq(g[k].pt[p].diverged, want[k].diverged[p]);
        }
    }
    /* The figure's median at sqrt_dk, lr 0.1 counts the diverged seed as l0 too: (2.1 + 1.8) / 2,
     * range 1.8 to 2.1; accuracy median (10 + 20) / 2. */
    ck_assert_double_eq_tol(g[0].pt[2].loss_median, 1.95, 1e-12);
    ck_assert_double_eq_tol(g[0].pt[2].loss_lo, 1.8, 1e-12);
    ck_assert_double_eq_tol(g[0].pt[2].loss_hi, 2.1, 1e-12);
    ck_assert_double_eq_tol(g[0].pt[2].acc_median, 15, 1e-9);
    free(g);
    sweep_table_free(&t);
}
END_TEST

/* Rows that did not train are not runs of the grid; a trained run without a loss that did not
 * diverge is left out and counted; an lr whose every run is left out leaves the grid. */
START_TEST(test_rows_left_out) {
    static const char *const rows[] = {
        "a,8,8,1,none,1,0.01,ok,0.5,0.9,,2,1,0.1,",
        "b,8,8,1,none,2,0.01,failed,,,,,,,",
        "c,8,8,1,none,1,0.1,ok,1.5,0.5,,2,1,0.1,",
        "d,8,8,1,none,2,0.1,ok,,0.5,,2,1,0.1,",
        "e,8,8,1,none,1,1,ok,,0.5,,2,1,0.1,",
    };
    SweepTable t;
    LrGroup *g;
    ck_assert_int_eq(analyse(rows, N(rows), 1, &t, &g), 1);
    ck_assert_str_eq(g[0].label, "all runs");
    ck_assert_int_eq(g[0].n, 2); /* lr 1 had no loss */
    ck_assert_int_eq(g[0].skipped, 2);
    ck_assert_int_eq(g[0].pt[0].runs, 1);
    ck_assert_int_eq(g[0].pt[1].runs, 1);
    /* l0 = 2; l = 0.5, 1.5; (0 + 1) / 2 */
    ck_assert_double_eq_tol(g[0].sensitivity, 0.5, 1e-12);
    free(g);
    sweep_table_free(&t);
}
END_TEST

START_TEST(test_no_loss0_or_no_lr) {
    static const char *const rows[] = {
        "a,8,8,1,none,1,0.01,ok,0.5,0.9,,,1,0.1,",
        "b,8,8,1,none,1,0.1,ok,0.25,0.9,,,1,0.1,",
    };
    SweepTable t;
    LrGroup *g;
    ck_assert_int_eq(analyse(rows, N(rows), 1, &t, &g), 1);
    ck_assert(isnan(g[0].l0));
    ck_assert(isnan(g[0].sensitivity));
    ck_assert_str_eq(g[0].pt[g[0].best].text, "0.1"); /* the best lr is still known */
    free(g);
    sweep_table_free(&t);
    ck_assert_int_eq(analyse(rows, N(rows), 0, &t, &g), 0); /* no optim.lr column */
    ck_assert_ptr_null(g);
    sweep_table_free(&t);
}
END_TEST

START_TEST(test_printed_table) {
    SweepTable t;
    LrGroup *g;
    int n = analyse(LR_ROWS, N(LR_ROWS), 1, &t, &g);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    lr_print(f, g, n);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "arXiv 2309.14322"));
    ck_assert_ptr_nonnull(strstr(text, "  scale=sqrt_dk     0.8167       0.01        0.3        2.1"));
    ck_assert_ptr_nonnull(strstr(text, "  scale=none        0.8333      0.001        0.2        2.3"));
    /* one line per lr: l(lr), its gap to l*, median accuracy, seeds (diverged) */
    ck_assert_ptr_nonnull(strstr(text, "         0.1        1.95         1.6500          15.0  2 (1)"));
    ck_assert_ptr_nonnull(strstr(text, "         0.1           3         2.1000           5.0  2 (0)"));
    free(text);
    free(g);
    sweep_table_free(&t);
}
END_TEST

TU_MAIN("lr_sensitivity", test_formula, test_hand_made_sweep, test_rows_left_out,
        test_no_loss0_or_no_lr, test_printed_table);
