/* test_run_setup.c: what src/train/run_setup.c fills from a config: the learning-rate schedule
 * handed to the optimizer (train_lr_schedule). The folder checks and the resume are tested end
 * to end in test_train.c, test_resume.c and test_input_errors.c. */
#include <check.h>

#include "config/config.h"
#include "train/train.h"
#include "testutil.h"

/* Each optim.* key and train.steps lands in its own field; the schedule name picks the shape.
 * Values chosen so that no two fields are equal (a field copied from the wrong key shows). */
START_TEST(test_lr_schedule_from_config) {
    static const struct {
        SchedKind schedule;
        LrShape want;
    } cases[] = {{SCHED_CONSTANT, LR_CONSTANT}, {SCHED_COSINE, LR_COSINE}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Config c;
        config_defaults(&c);
        c.lr = 0.003;
        c.min_lr = 0.0001;
        c.warmup_steps = 7;
        c.steps = 123;
        c.schedule = cases[i].schedule;
        LrSchedule s = train_lr_schedule(&c);
        ck_assert_double_eq(s.lr, 0.003);
        ck_assert_double_eq(s.min_lr, 0.0001);
        ck_assert_int_eq(s.warmup_steps, 7);
        ck_assert_int_eq(s.steps, 123);
        ck_assert_int_eq(s.shape, cases[i].want);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("run_setup");
    TCase *tc = tcase_create("run_setup");
    tcase_add_test(tc, test_lr_schedule_from_config);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
