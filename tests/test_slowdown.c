/* test_slowdown.c: unscaled over scaled steps to a threshold, censored (src/report/table/slowdown.c):
 * one pair, the censored median and the sweep summary's section, every expected value worked out
 * by hand from the inputs. */
#include "report/table/table.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

START_TEST(test_pair) {
    static const struct {
        int rn;
        double sn, cn;
        int rs;
        double ss, cs;
        SlowKind kind;
        double ratio;
        const char *text;
    } CASES[] = {
        {1, 6500, 20000, 1, 200, 20000, SD_EXACT, 32.5, "32.5×"},   /* 6500 / 200 */
        {0, -1, 20000, 1, 900, 20000, SD_MORE, 20000.0 / 900, "> 22.2×"},
        {1, 100, 2000, 0, -1, 2000, SD_LESS, 0.05, "< 0.05×"},      /* 100 / 2000 */
        {0, -1, 2000, 0, -1, 2000, SD_NEITHER, NAN, "—"},
        {1, 0, 2000, 1, 0, 2000, SD_UNKNOWN, NAN, "n/a"},           /* 0 / 0 */
        {1, 300, 2000, 1, 300, 2000, SD_EXACT, 1, "1×"},
    };
    for (int i = 0; i < N(CASES); i++) {
        Slowdown s = slowdown_pair(CASES[i].rn, CASES[i].sn, CASES[i].cn, CASES[i].rs,
                                   CASES[i].ss, CASES[i].cs);
        ck_assert_msg(s.kind == CASES[i].kind, "case %d: kind %d", i, s.kind);
        if (!isnan(CASES[i].ratio))
            ck_assert_msg(fabs(s.ratio - CASES[i].ratio) < 1e-12, "case %d: %g", i, s.ratio);
        char text[32];
        slowdown_format(text, sizeof text, s);
        ck_assert_msg(strcmp(text, CASES[i].text) == 0, "case %d: '%s'", i, text);
    }
}
END_TEST

/* Medians by hand: lo sorts the bounds of ">" and 0 for "<"; hi +inf for ">" and the bounds of
 * "<". */
START_TEST(test_median) {
    const Slowdown E2 = {SD_EXACT, 2}, E4 = {SD_EXACT, 4}, E10 = {SD_EXACT, 10},
                   M5 = {SD_MORE, 5}, M20 = {SD_MORE, 20}, L3 = {SD_LESS, 3},
                   NO = {SD_NEITHER, NAN}, UN = {SD_UNKNOWN, NAN};
    static struct {
        Slowdown v[5];
        int n, used, neither;
        double lo, hi;
        const char *text;
    } CASES[] = {
        {{{0}}, 3, 3, 0, 4, 4, "4×"},                  /* 2 4 10: exact */
        {{{0}}, 3, 3, 0, 5, 10, "5–10×"},              /* 2, >5, 10: lo 2 5 10, hi 2 10 inf */
        {{{0}}, 3, 3, 0, 5, INFINITY, "> 5×"},         /* 2, >5, >20: lo 2 5 20, hi 2 inf inf */
        {{{0}}, 3, 3, 0, 0, 3, "< 3×"},                /* <3, <3, 4: lo 0 0 4, hi 3 3 4 */
        {{{0}}, 4, 2, 1, 3, 7, "3–7×"},                /* 2, 4, neither, unknown: even (2+4)/2
                                                        * = 3 both ... see below */
        {{{0}}, 2, 0, 2, NAN, NAN, "—"},
        {{{0}}, 1, 0, 0, NAN, NAN, "n/a"},
    };
    Slowdown in[][5] = {{E2, E4, E10}, {E2, M5, E10}, {E2, M5, M20}, {L3, L3, E4},
                        {E2, M5, NO, UN}, {NO, NO}, {UN}};
    /* case 4 by hand: used 2 and >5 (neither and unknown left out): lo (2 + 5) / 2 = 3.5,
     * hi (2 + inf) / 2 = inf: "> 3.5×" */
    CASES[4].lo = 3.5, CASES[4].hi = INFINITY, CASES[4].text = "> 3.5×";
    for (int i = 0; i < N(CASES); i++) {
        SlowMedian m = slowdown_median(in[i], CASES[i].n);
        ck_assert_msg(m.n_used == (i == 4 ? 2 : CASES[i].used) && m.n_neither == CASES[i].neither,
                      "case %d: used %d neither %d", i, m.n_used, m.n_neither);
        if (m.n_used) {
            ck_assert_msg(m.lo == CASES[i].lo && m.hi == CASES[i].hi, "case %d: lo %g hi %g", i,
                          m.lo, m.hi);
        }
        char text[48];
        slowdown_median_format(text, sizeof text, m);
        ck_assert_msg(strcmp(text, CASES[i].text) == 0, "case %d: '%s'", i, text);
    }
}
END_TEST

/* The section of the sweep summary: two seeds of one d_model, each a none / sqrt_dk pair, and a
 * third seed whose unscaled run never reached 50 %. By hand:
 *   seed 1: none 600/1300/never@2000, sqrt 200/400/1000: 3×, 3.25×, > 2×
 *   seed 2: none 800/never/never@2000, sqrt 100/200/400:  8×, > 10×, > 5×
 *   seed 3: none never@2000 (all),     sqrt 200/300/never@2000: > 10×, > 6.67×, —
 *   medians: 50 %: 3, 8, >10: lo 3 8 10 -> 8, hi 3 8 inf -> 8: "8×";
 *            90 %: 3.25, >10, >6.67: lo 3.25 6.67 10 -> 6.67, hi inf: "> 6.67×";
 *            99 %: >2, >5 (seed 3: neither): lo (2 + 5) / 2 = 3.5, hi inf: "> 3.5×". */
START_TEST(test_section) {
    const char *text =
        "run,d_model,scale,seed,steps,status,val_loss,val_answer_acc,first_step_50,first_step_90,"
        "first_step_99,last_eval_step\n"
        "a,64,sqrt_dk,1,2000,ok,0.1,1,200,400,1000,2000\n"
        "b,64,none,1,2000,ok,0.1,0.95,600,1300,,2000\n"
        "c,64,sqrt_dk,2,2000,ok,0.1,1,100,200,400,2000\n"
        "d,64,none,2,2000,ok,0.1,0.6,800,,,2000\n"
        "e,64,sqrt_dk,3,2000,ok,0.1,0.95,200,300,,2000\n"
        "f,64,none,3,2000,ok,0.1,0.2,,,,2000\n"
        "g,128,none,1,2000,failed,,,,,,\n";
    SweepTable t;
    ck_assert_int_eq(sweep_table_parse(&t, "t.csv", text, strlen(text)), 0);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ck_assert_int_eq(slowdown_print(f, &t), 0);
    fclose(f);
    static const char *const WANT[] = {
        "600/1300/never@2000", "200/400/1000", "3×", "3.25×", "> 2×",
        "800/never@2000/never@2000", "8×", "> 10×", "> 5×",
        "never@2000/never@2000/never@2000", "> 6.67×",
    };
    for (int i = 0; i < N(WANT); i++)
        ck_assert_msg(strstr(out, WANT[i]) != NULL, "no '%s' in\n%s", WANT[i], out);
    char line[512];
    const char *med = strstr(out, "median over seeds");
    const char *m = med ? strstr(med, "\n  d_model=64 ") : NULL;
    ck_assert_msg(m != NULL, "no median line in\n%s", out);
    snprintf(line, sizeof line, "%.*s", (int)strcspn(m + 1, "\n"), m + 1);
    ck_assert_msg(strstr(line, "  3  0/0/1") && strstr(line, "8×") && strstr(line, "> 6.67×") &&
                      strstr(line, "> 3.5×"),
                  "median line: '%s'", line);
    ck_assert_msg(strstr(out, "seed=1") && strstr(out, "d_model=64 seed=3"), "%s", out);
    free(out);
    sweep_table_free(&t);
}
END_TEST

/* No scale column, or scale not over none and sqrt_dk: nothing printed. */
START_TEST(test_no_pairs) {
    const char *texts[] = {
        "run,seed,status,val_loss,val_answer_acc\na,1,ok,1,0.5\nb,2,ok,1,0.5\n",
        "run,scale,seed,status,val_loss,val_answer_acc\na,inv_dk,1,ok,1,0.5\nb,sqrt_dk,1,ok,1,0.5\n",
    };
    for (int i = 0; i < N(texts); i++) {
        SweepTable t;
        ck_assert_int_eq(sweep_table_parse(&t, "t.csv", texts[i], strlen(texts[i])), 0);
        char *out = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&out, &len);
        ck_assert_int_eq(slowdown_print(f, &t), 0);
        fclose(f);
        ck_assert_msg(len == 0, "case %d: '%s'", i, out);
        free(out);
        sweep_table_free(&t);
    }
}
END_TEST

TU_MAIN("slowdown", test_pair, test_median, test_section, test_no_pairs);
