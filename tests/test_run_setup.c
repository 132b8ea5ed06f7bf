/* test_run_setup.c: what src/train/run_setup.c fills from a config: the learning-rate schedule
 * handed to the optimizer (train_lr_schedule) and the optimizer itself (train_optim_init). The
 * folder checks and the resume are tested end to end in test_train.c, test_resume.c and
 * test_input_errors.c. */
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

/* optim.name picks the update rule (SGD keeps one state buffer, AdamW two); every constant lands
 * in its own field. Values distinct so that a swapped field shows. */
START_TEST(test_optimizer_from_config) {
    static const struct {
        OptimKind name;
        OptimizerKind want;
        int has_v;
    } cases[] = {{OPT_ADAMW, OPTIMIZER_ADAMW, 1}, {OPT_SGD, OPTIMIZER_SGD, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Config c;
        config_defaults(&c);
        c.optim = cases[i].name;
        c.beta1 = 0.8;
        c.beta2 = 0.95;
        c.eps = 1e-7;
        c.weight_decay = 0.05;
        c.momentum = 0.7;
        Optimizer o;
        ck_assert_int_eq(train_optim_init(&o, &c, 10), 0);
        ck_assert_int_eq(o.kind, cases[i].want);
        ck_assert_int_eq(o.v != NULL, cases[i].has_v);
        ck_assert_double_eq(o.beta1, 0.8);
        ck_assert_double_eq(o.beta2, 0.95);
        ck_assert_double_eq(o.eps, 1e-7);
        ck_assert_double_eq(o.weight_decay, 0.05);
        ck_assert_double_eq(o.momentum, 0.7);
        ck_assert_uint_eq(o.n, 10);
        ck_assert_int_eq(o.t, 0);
        optim_free(&o);
    }
}
END_TEST

TU_MAIN("run_setup", test_lr_schedule_from_config, test_optimizer_from_config);
