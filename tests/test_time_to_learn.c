/* test_time_to_learn.c: the first evaluated steps at 50 / 90 / 99 % answer accuracy from a
 * loss.csv (src/report/table/time_to_learn.c). Each case's expected steps are read off its text by
 * hand. */
#include "report/table/table.h"

#include <check.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_cases) {
    static const struct {
        const char *what, *csv;
        int has_eval, last, step[TTL_N]; /* -1: never */
    } CASES[] = {
        {"thresholds met in turn; a training-only row skipped; >= not >",
         "step,val_answer_acc\n0,0.1\n10,\n20,0.5\n30,0.95\n40,0.989\n50,0.99\n", 1, 50,
         {20, 30, 50}},
        {"never: censored at the last pass",
         "step,train_loss,val_answer_acc\n0,1,0.2\n50,1,\n100,1,0.4\n120,1,\n", 1, 100,
         {-1, -1, -1}},
        {"a NaN pass reaches nothing but is a pass",
         "step,val_answer_acc\n0,nan\n10,0.6\n20,nan\n", 1, 20, {10, -1, -1}},
        {"the first pass counts, a later dip does not undo it",
         "step,val_answer_acc\n0,0.95\n10,0.3\n20,1\n", 1, 20, {0, 0, 20}},
        {"no column: not measured", "step,val_loss\n0,1\n", 0, -1, {-1, -1, -1}},
        {"no value: not measured", "step,val_answer_acc\n0,\n", 0, -1, {-1, -1, -1}},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        Csv t;
        ck_assert_int_eq(csv_parse(&t, CASES[i].csv, strlen(CASES[i].csv)), 0);
        TimeToLearn r = time_to_learn(&t);
        ck_assert_msg(r.has_eval == CASES[i].has_eval && r.last_eval_step == CASES[i].last,
                      "%s: has_eval %d last %d", CASES[i].what, r.has_eval, r.last_eval_step);
        for (int k = 0; k < TTL_N; k++) {
            ck_assert_msg(r.step[k] == CASES[i].step[k] && r.reached[k] == (CASES[i].step[k] >= 0),
                          "%s: %s %%: step %d reached %d, want %d", CASES[i].what, TTL_NAME[k],
                          r.step[k], r.reached[k], CASES[i].step[k]);
        }
        csv_free(&t);
    }
}
END_TEST

START_TEST(test_thresholds) {
    ck_assert(TTL_THRESHOLD[0] == 0.5 && TTL_THRESHOLD[1] == 0.9 && TTL_THRESHOLD[2] == 0.99);
    ck_assert_str_eq(TTL_NAME[0], "50");
    ck_assert_str_eq(TTL_NAME[2], "99");
}
END_TEST

TU_MAIN("time_to_learn", test_cases, test_thresholds);
