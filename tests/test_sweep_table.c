/* test_sweep_table.c: reading sweep.csv (src/report/table/sweep_table.c): medians of odd and even
 * counts, the varied columns, groups over seeds with median and min-max, rows that did not train
 * left out, malformed rows (an accuracy outside [0, 1] included) skipped with a warning naming
 * file, line and column, older files
 * without the optional columns, and a file that is not a sweep.csv. */
#include "report/table/table.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/read/read.h"
#include "sweepcsv.h"
#include "testutil.h"

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

/* Parses text as "t/sweep.csv"; what it printed on stderr goes to *err (freed by the caller). */
static int parse(SweepTable *t, const char *text, char **err) {
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = sweep_table_parse(t, "t/sweep.csv", text, strlen(text));
    char *e = tu_capture_end(&c);
    if (err) *err = e;
    else free(e);
    return rc;
}

static void parse_rows(SweepTable *t, int with_lr, const char *const *rows, int n) {
    char *text = sc_csv(with_lr, rows, n);
    ck_assert_int_eq(parse(t, text, NULL), 0);
    free(text);
}

/* ------------------------------------------------------------------ medians */

START_TEST(test_median) {
    static const struct {
        double v[5];
        int n;
        double want;  /* worked out by hand */
    } cases[] = {
        {{3, 1, 2}, 3, 2},              /* odd: the middle one */
        {{4, 1, 3, 2}, 4, 2.5},         /* even: mean of 2 and 3 */
        {{5}, 1, 5},
        {{2, 2, 9, 1}, 4, 2},           /* 1 2 2 9: mean of 2 and 2 */
        {{10, -1, 7, 3, 0}, 5, 3},      /* -1 0 3 7 10 */
        {{1, INFINITY}, 2, INFINITY},   /* a measured inf is ordered, not dropped */
    };
    for (int i = 0; i < N(cases); i++) {
        double v[5];
        memcpy(v, cases[i].v, sizeof v);
        ck_assert_msg(sweep_median(v, cases[i].n) == cases[i].want, "case %d: %g, want %g", i,
                      sweep_median(v, cases[i].n), cases[i].want);
    }
    ck_assert(isnan(sweep_median(NULL, 0)));
}
END_TEST

/* ------------------------------------------------------------------ groups */

/* Two d_k, two scales; sqrt_dk at d_k 8 has 3 seeds (odd), none at d_k 8 has 4 (even), rows
 * interleaved so groups must be found, not assumed contiguous. */
static const char *const GROUP_ROWS[] = {
    "r1,8,8,1,sqrt_dk,1,,ok,0.5,0.90,,2.0,1.0,0.1,",
    "r2,8,8,1,none,1,,ok,0.9,0.10,,2.0,3.0,0.5,",
    "r3,8,8,1,sqrt_dk,2,,ok,0.7,0.50,,2.0,1.1,0.1,",
    "r4,8,8,1,none,2,,ok,0.8,0.40,,2.0,3.1,0.5,",
    "r5,16,16,1,sqrt_dk,1,,ok,0.4,0.99,40,2.0,1.0,0.1,",
    "r6,8,8,1,sqrt_dk,3,,ok,0.6,0.70,,2.0,1.2,0.1,",
    "r7,8,8,1,none,3,,ok,0.7,0.20,,2.0,3.2,0.5,",
    "r8,8,8,1,none,4,,ok,0.6,0.30,,2.0,3.3,0.5,",
};

START_TEST(test_varied_columns) {
    SweepTable t;
    parse_rows(&t, 0, GROUP_ROWS, N(GROUP_ROWS));
    ck_assert_int_eq(t.n_rows, 8);
    ck_assert_int_eq(t.n_keys, 4); /* d_k, d_model, scale, seed; n_heads is always 1 */
    ck_assert_int_eq(sweep_key(&t, "d_k"), 0);
    ck_assert_int_eq(sweep_key(&t, "d_model"), 1);
    ck_assert_int_eq(sweep_key(&t, "n_heads"), -1);
    ck_assert_int_eq(sweep_key(&t, "scale"), 2);
    ck_assert_int_eq(sweep_key(&t, "seed"), 3);
    ck_assert_int_eq(sweep_key(&t, "steps"), -1); /* not a key column even if it varied */
    sweep_table_free(&t);
    /* A section.key column is a key when it varies, not when it is constant. */
    static const char *const lr_rows[] = {
        "a,8,8,1,none,1,0.01,ok,1,0.5,,2,1,0.1,", "b,8,8,1,none,1,0.1,ok,1,0.5,,2,1,0.1,"};
    parse_rows(&t, 1, lr_rows, 2);
    ck_assert_int_eq(t.n_keys, 1);
    ck_assert_str_eq(sweep_key_name(&t, 0), "optim.lr");
    ck_assert_str_eq(sweep_key_value(&t, &t.rows[1], 0), "0.1");
    sweep_table_free(&t);
    static const char *const same_lr[] = {
        "a,8,8,1,none,1,0.01,ok,1,0.5,,2,1,0.1,", "b,8,8,1,none,2,0.01,ok,1,0.5,,2,1,0.1,"};
    parse_rows(&t, 1, same_lr, 2);
    ck_assert_int_eq(sweep_key(&t, "optim.lr"), -1);
    ck_assert_int_eq(sweep_key(&t, "seed"), 0);
    sweep_table_free(&t);
}
END_TEST

START_TEST(test_groups_median_and_range) {
    SweepTable t;
    parse_rows(&t, 0, GROUP_ROWS, N(GROUP_ROWS));
    SweepGroup *g;
    int n = sweep_groups(&t, 1u << sweep_key(&t, "seed"), &g);
    ck_assert_int_eq(n, 3);
    /* In order of first appearance; the label names every compared column. */
    ck_assert_str_eq(g[0].label, "d_k=8 d_model=8 scale=sqrt_dk");
    ck_assert_str_eq(g[1].label, "d_k=8 d_model=8 scale=none");
    ck_assert_str_eq(g[2].label, "d_k=16 d_model=16 scale=sqrt_dk");
    ck_assert_int_eq(g[0].n, 3);
    ck_assert_int_eq(g[1].n, 4);
    ck_assert_int_eq(g[2].n, 1);
    ck_assert_int_eq(g[1].rows[0], 1); /* r2, r4, r7, r8 */
    ck_assert_int_eq(g[1].rows[3], 7);
    static const struct {
        int group;
        SweepMetric m;
        double scale, median, lo, hi;  /* by hand from GROUP_ROWS */
    } want[] = {
        {0, SW_VAL_ACC, 100, 70, 50, 90},      /* 50 70 90 */
        {1, SW_VAL_ACC, 100, 25, 10, 40},      /* 10 20 30 40: (20 + 30) / 2 */
        {0, SW_VAL_LOSS, 1, 0.6, 0.5, 0.7},
        {1, SW_VAL_LOSS, 1, 0.75, 0.6, 0.9},   /* 0.6 0.7 0.8 0.9 */
        {1, SW_STD0, 1, 3.15, 3.0, 3.3},
        {2, SW_FIRST99, 1, 40, 40, 40},
    };
    for (int i = 0; i < N(want); i++) {
        SweepStat s = sweep_stat(&t, &g[want[i].group], want[i].m, want[i].scale);
        ck_assert_msg(fabs(s.median - want[i].median) < 1e-9 && fabs(s.lo - want[i].lo) < 1e-9 &&
                          fabs(s.hi - want[i].hi) < 1e-9,
                      "case %d: %g [%g, %g], want %g [%g, %g]", i, s.median, s.lo, s.hi,
                      want[i].median, want[i].lo, want[i].hi);
    }
    /* Not measured: no statistics (first_step_99 of group 0 is empty in every row). */
    SweepStat s = sweep_stat(&t, &g[0], SW_FIRST99, 1);
    ck_assert_int_eq(s.n, 0);
    ck_assert(isnan(s.median));
    sweep_groups_free(g, n);
    /* Nothing ignored: every row its own group. */
    n = sweep_groups(&t, 0, &g);
    ck_assert_int_eq(n, 8);
    sweep_groups_free(g, n);
    sweep_table_free(&t);
}
END_TEST

/* failed, missing, running, stopped, incomplete and unknown rows are kept (the report lists
 * them) but never grouped: an incomplete run's numbers, were any left, are not its final ones. */
START_TEST(test_rows_that_did_not_train) {
    static const char *const rows[] = {
        "a,8,8,1,none,1,,ok,0.5,0.9,,2,1,0.1,",
        "b,8,8,1,none,2,,failed,,,,,,,",
        "c,8,8,1,none,3,,missing,,,,,,,",
        "d,8,8,1,none,4,,running,,,,,,,",
        "e,8,8,1,none,5,,diverged,nan,0.1,,2,1,0.9,",
        "f,8,8,1,none,6,,guard,0.7,0.3,,2,1,0.9,",
        "g,8,8,1,none,7,,stopped,,,,,,,",
        "h,8,8,1,none,8,,incomplete,0.1,1,,2,1,0.1,",
        "i,8,8,1,none,9,,unknown,,,,,,,",
    };
    SweepTable t;
    parse_rows(&t, 0, rows, N(rows));
    ck_assert_int_eq(t.n_rows, 9);
    static const int in_stats[] = {1, 0, 0, 0, 1, 1, 0, 0, 0}, stopped[] = {0, 0, 0, 0, 1, 1, 0, 0, 0};
    for (int i = 0; i < 9; i++) {
        ck_assert_int_eq(t.rows[i].in_stats, in_stats[i]);
        ck_assert_int_eq(t.rows[i].stopped, stopped[i]);
    }
    ck_assert_str_eq(t.rows[1].status, "failed");
    ck_assert_double_eq(t.rows[1].v[SW_EXIT], 1);
    ck_assert(!t.rows[2].has[SW_EXIT]);
    SweepGroup *g;
    int n = sweep_groups(&t, 1u << sweep_key(&t, "seed"), &g);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(g[0].n, 3);
    /* The diverged run's nan loss is measured, not empty, and stays out of the median. */
    ck_assert(t.rows[4].has[SW_VAL_LOSS] && isnan(t.rows[4].v[SW_VAL_LOSS]));
    SweepStat s = sweep_stat(&t, &g[0], SW_VAL_LOSS, 1);
    ck_assert_int_eq(s.n, 2);
    ck_assert_double_eq_tol(s.median, 0.6, 1e-12);
    sweep_groups_free(g, n);
    sweep_table_free(&t);
}
END_TEST

/* ------------------------------------------------------------------ bad input */

/* One bad field per case: the row is skipped with a warning naming file, line and column, and
 * never read as a made-up number; the rows around it stay. A blank line before it checks that
 * lines of the file are counted, not data rows. */
/* A row with fewer (or more) fields than the header, as a copy cut short leaves it: skipped with a
 * warning naming its line and both counts, never read as a run with empty metrics. */
START_TEST(test_short_or_long_row_skipped) {
    const char *rows[] = {"a,8,8,1,none,1,,ok,0.5,0.9,,2,1,0.1,", "b,8,8,1,none,2,,ok,0.5,0.5,,2,1,0.1,",
                          "c,8,8,1,none,3,,ok,0.25,0.8,,2,1,0.1,"};
    for (int longer = 0; longer < 2; longer++) {
        char *text = sc_csv(0, rows, 3);
        char *row_b = strchr(strchr(text, '\n') + 1, '\n') + 1; /* line 3 */
        char *end = strchr(row_b, '\n');
        size_t tail = strlen(end);
        char *out = malloc(strlen(text) + 8);
        size_t keep = (size_t)(row_b - text);
        if (longer) keep = (size_t)(end - text); /* the whole row, then one field more */
        else for (int commas = 0; commas < 10; keep++) commas += text[keep] == ','; /* 10 fields */
        memcpy(out, text, keep);
        strcpy(out + keep, longer ? ",x" : "");
        strcat(out, end);
        ck_assert_uint_eq(strlen(out), keep + (longer ? 2 : 0) + tail);
        SweepTable t;
        char *err;
        ck_assert_int_eq(parse(&t, out, &err), 0);
        ck_assert_msg(strstr(err, "t/sweep.csv:3: ") && strstr(err, "fields, the header has") &&
                          strstr(err, "row skipped"), "longer %d: '%s'", longer, err);
        ck_assert_int_eq(t.n_rows, 2);
        ck_assert_str_eq(t.rows[1].run, "c");
        sweep_table_free(&t);
        free(err);
        free(out);
        free(text);
    }
}
END_TEST

/* The plan's numeric columns (d_k, d_model, n_heads, seed, steps) are checked like the result
 * columns: a row with a word there is skipped, naming the column; scale is text. */
START_TEST(test_plan_columns_numeric) {
    static const struct {
        const char *col, *bad;
    } cases[] = {{"d_k", "x"}, {"d_model", "wide"}, {"n_heads", "2h"}, {"seed", "one"},
                 {"steps", "many"}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char text[512], want[128];
        snprintf(text, sizeof text,
                 "run,scale,%s,status,val_loss,val_answer_acc\n"
                 "a,none,1,ok,0.5,0.9\nb,none,%s,ok,0.5,0.9\nc,my_scale,2,ok,0.1,1\n",
                 cases[k].col, cases[k].bad);
        snprintf(want, sizeof want, "t/sweep.csv:3: column %s: '%s' is not a number",
                 cases[k].col, cases[k].bad);
        SweepTable t;
        char *err;
        ck_assert_int_eq(parse(&t, text, &err), 0);
        ck_assert_msg(strstr(err, want), "%s: %s", cases[k].col, err);
        ck_assert_int_eq(t.n_rows, 2);
        free(err);
        sweep_table_free(&t);
    }
}
END_TEST

/* The new result columns are read by the names sweep_columns.c spells (the names the engine
 * writes), numbers checked like the others: first_step_50 / _90, last_eval_step,
 * predicted_logit_std, and the plan's steps (the budget). */
START_TEST(test_time_to_learn_columns) {
    const char *text =
        "run,scale,seed,steps,status,val_loss,val_answer_acc,first_step_50,first_step_90,"
        "first_step_99,last_eval_step,predicted_logit_std\n"
        "a,none,1,2000,ok,0.5,0.9,300,,,2000,8\n"
        "b,none,2,2000,ok,0.5,0.9,abc,,,2000,8\n"
        "c,sqrt_dk,1,2000,ok,0.1,1,100,200,400,2000,1\n";
    SweepTable t;
    char *err;
    ck_assert_int_eq(parse(&t, text, &err), 0);
    ck_assert_msg(strstr(err, "t/sweep.csv:3: column first_step_50: 'abc' is not a number"), "%s",
                  err);
    ck_assert_int_eq(t.n_rows, 2);
    const SweepRow *a = &t.rows[0], *c = &t.rows[1];
    ck_assert(a->has[SW_FIRST50] && a->v[SW_FIRST50] == 300 && !a->has[SW_FIRST90]);
    ck_assert(a->has[SW_LAST_EVAL] && a->v[SW_LAST_EVAL] == 2000 && a->v[SW_STEPS] == 2000);
    ck_assert(c->v[SW_FIRST90] == 200 && c->v[SW_FIRST99] == 400 && c->v[SW_PRED_STD] == 1);
    ck_assert(!a->has[SW_STEPS_DONE]);
    for (int m = 0; m < SW_N_METRIC; m++) {
        int found = m == SW_STEPS && strcmp(sweep_metric_name(m), "steps") == 0;
        for (int k = 0; k < SC_N; k++) found |= strcmp(sweep_metric_name(m), SWEEP_COLUMNS[k].name) == 0;
        ck_assert_msg(found, "metric %d '%s' is not a column the engine writes", m,
                      sweep_metric_name(m));
    }
    free(err);
    sweep_table_free(&t);
}
END_TEST

START_TEST(test_malformed_rows_skipped) {
    static const struct {
        const char *row, *warning;
    } cases[] = {
        {"b,8,8,1,none,2,,ok,abc,0.5,,2,1,0.1,", "t/sweep.csv:4: column val_loss: 'abc' is not"},
        {"b,8,8,1,none,2,,ok,0.5,0.5x,,2,1,0.1,", "t/sweep.csv:4: column val_answer_acc: '0.5x'"},
        {"b,8,8,1,none,2,,ok,0.5,0.5,,2,1,0.1,--", "t/sweep.csv:4: column softmax_pass_final:"},
        {"b,x8,8,1,none,2,,ok,0.5,0.5,,2,1,0.1,", "t/sweep.csv:4: column d_k: 'x8'"},
        {"b,8,8,1,none,2,,weird,0.5,0.5,,2,1,0.1,", "t/sweep.csv:4: column status: unknown status"},
        /* an accuracy is a fraction: 1e308, -inf, nan and 1.5 are not (issue 33: --regime-map
         * drew them) */
        {"b,8,8,1,none,2,,ok,0.5,1e308,,2,1,0.1,",
         "t/sweep.csv:4: column val_answer_acc: '1e308' is not a fraction in [0, 1]"},
        {"b,8,8,1,none,2,,ok,0.5,-inf,,2,1,0.1,", "column val_answer_acc: '-inf' is not a fraction"},
        {"b,8,8,1,none,2,,ok,0.5,nan,,2,1,0.1,", "column val_answer_acc: 'nan' is not a fraction"},
        {"b,8,8,1,none,2,,ok,0.5,1.5,,2,1,0.1,", "column val_answer_acc: '1.5' is not a fraction"},
    };
    for (int i = 0; i < N(cases); i++) {
        const char *rows[] = {"a,8,8,1,none,1,,ok,0.5,0.9,,2,1,0.1,", cases[i].row,
                              "c,8,8,1,none,3,,ok,0.25,0.8,,2,1,0.1,"};
        char *text = sc_csv(0, rows, 3);
        /* a blank line after the first data row: the bad row is on line 4 */
        char *nl = strchr(strchr(text, '\n') + 1, '\n');
        size_t at = (size_t)(nl - text) + 1, len = strlen(text);
        char *with_blank = malloc(len + 2);
        memcpy(with_blank, text, at);
        with_blank[at] = '\n';
        memcpy(with_blank + at + 1, text + at, len - at + 1);
        SweepTable t;
        char *err;
        ck_assert_int_eq(parse(&t, with_blank, &err), 0);
        ck_assert_msg(strstr(err, cases[i].warning) != NULL, "case %d: warning '%s'", i, err);
        ck_assert_msg(strstr(err, "row skipped") != NULL, "case %d: '%s'", i, err);
        ck_assert_int_eq(t.n_malformed, 1);
        ck_assert_int_eq(t.n_rows, 2);
        ck_assert_str_eq(t.rows[0].run, "a");
        ck_assert_str_eq(t.rows[1].run, "c");
        ck_assert_int_eq(t.rows[1].line, 5);
        ck_assert_double_eq(t.rows[1].v[SW_VAL_LOSS], 0.25);
        free(err);
        free(with_blank);
        free(text);
        sweep_table_free(&t);
    }
}
END_TEST

/* An older sweep.csv: other names, no run, loss0, first_step_99 or softmax_pass_final. And a new
 * one whose softmax_pass_final is empty (attention.csv had no such column). Both read. */
START_TEST(test_old_style_files) {
    static const char old[] =
        "d_k,scale,seed,steps,status,val_loss,val_answer_acc,val_token_acc,logit_std_step0,"
        "grad_q_final,grad_k_final\n"
        "8,sqrt_dk,1,100,ok,0.5,0.9,0.9,1.0,0.1,0.1\n"
        "8,none,1,100,diverged,nan,0.2,0.2,3.0,0.1,0.1\n";
    SweepTable t;
    ck_assert_int_eq(parse(&t, old, NULL), 0);
    ck_assert_int_eq(t.n_rows, 2);
    ck_assert_int_eq(t.col[SW_LOSS0], -1);
    ck_assert_int_eq(t.col[SW_PASS], -1);
    ck_assert_str_eq(t.rows[0].run, "");
    ck_assert(!t.rows[0].has[SW_PASS] && !t.rows[0].has[SW_LOSS0] && !t.rows[0].has[SW_FIRST99]);
    ck_assert_double_eq(t.rows[0].v[SW_VAL_ACC], 0.9);
    ck_assert_double_eq(t.rows[1].v[SW_STD0], 3.0); /* from logit_std_step0 */
    ck_assert_int_eq(sweep_key(&t, "scale"), 0);
    ck_assert_int_eq(t.rows[1].stopped, 1);
    sweep_table_free(&t);
    static const char *const rows[] = {"a,8,8,1,none,1,,ok,0.5,0.9,,2,1,0.1,"};
    parse_rows(&t, 0, rows, 1);
    ck_assert_int_ge(t.col[SW_PASS], 0);
    ck_assert(!t.rows[0].has[SW_PASS]);
    ck_assert(isnan(t.rows[0].v[SW_PASS]));
    sweep_table_free(&t);
}
END_TEST

START_TEST(test_not_a_sweep_csv) {
    static const struct {
        const char *text, *error;
    } cases[] = {
        {"step,train_loss\n0,1\n", "t/sweep.csv: line 1: no column 'status'"},
        {"status,val_loss\nok,1\n", "t/sweep.csv: line 1: no column 'val_answer_acc'"},
        {"", "t/sweep.csv: no header line"},
    };
    for (int i = 0; i < N(cases); i++) {
        SweepTable t;
        char *err;
        ck_assert_int_eq(parse(&t, cases[i].text, &err), -2); /* bad input, not a failed read */
        ck_assert_msg(strstr(err, cases[i].error) != NULL, "case %d: '%s'", i, err);
        ck_assert_ptr_null(t.rows);
        sweep_table_free(&t);
        free(err);
    }
    SweepTable t;
    TuCapture c;
    tu_capture_begin(&c, 2);
    ck_assert_int_eq(sweep_table_load(&t, "/nonexistent/sweep.csv"), -1);
    char *err = tu_capture_end(&c);
    ck_assert_ptr_nonnull(strstr(err, "cannot read '/nonexistent/sweep.csv'"));
    free(err);
}
END_TEST

TU_MAIN("sweep_table", test_median, test_varied_columns, test_groups_median_and_range,
        test_rows_that_did_not_train, test_malformed_rows_skipped, test_time_to_learn_columns,
        test_plan_columns_numeric, test_short_or_long_row_skipped, test_old_style_files,
        test_not_a_sweep_csv);
