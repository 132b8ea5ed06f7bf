/* test_set.c: the --set section.key=value overrides (src/config/set.c): they override the file
 * and each other (the last wins), take the value literally, name their argument in errors, and
 * config_assignment_sets reads the key the same way. */
#include <check.h>

#include "config/config.h"
#include "configcheck.h"
#include "testutil.h"

START_TEST(test_set_overrides_file) {
    Config c;
    config_defaults(&c);
    cc_load_ok(&c, "[model]\nd_model = 32\nn_heads = 2\n");
    ck_assert_int_eq(config_set(&c, "model.d_model=128", 3), 0);
    ck_assert_int_eq(c.d_model, 128);
    ck_assert_str_eq(config_origin(&c, "model.d_model"), "--set (argument 3)");
    ck_assert_int_eq(c.n_heads, 2); /* untouched */
    /* Repeated --set: the last one wins. */
    ck_assert_int_eq(config_set(&c, "model.d_model=256", 5), 0);
    ck_assert_int_eq(config_set(&c, " model . d_model = 512 ", 7), 0);
    ck_assert_int_eq(c.d_model, 512);
    ck_assert_str_eq(config_origin(&c, "model.d_model"), "--set (argument 7)");
    ck_assert_int_eq(config_set(&c, "run.dir=\"with space\"", 8), 0);
    ck_assert_str_eq(c.run_dir, "with space");
    ck_assert_int_eq(config_set(&c, "run.dir=a ;b", 9), 0); /* no comments in --set */
    ck_assert_str_eq(c.run_dir, "a ;b");
    ck_assert_int_eq(config_set(&c, "attention.scale=inv_dk", 10), 0);
    ck_assert_int_eq(c.scale_mode, SCALE_INV_DK);
}
END_TEST

/* The shape of the assignment; the value's own errors are test_value's. */
static const CcErrorCase SET_ERRORS[] = {
    {"no =", "model.d_model", 2, 0, "missing '='", "got 'model.d_model'", 0},
    {"no section", "d_model=3", 4, 0, "missing '.'", NULL, 0},
    {"value error names the key", "model.d_model=abc", 4, 0,
     "'model.d_model': expected an integer, got 'abc'", NULL, 0},
    {"unknown key", "model.nope=1", 5, 0, "unknown key 'model.nope'", NULL, 0},
};

START_TEST(test_set_errors) { cc_check_error(&SET_ERRORS[_i]); }
END_TEST

/* A long --set without '=' is quoted to 200 bytes, cut after a whole character: "x" and 150
 * "é" (2 bytes each) show "x" and 99 of them (199 bytes; one more would be 201), then "...". */
START_TEST(test_long_set_cut_whole) {
    char arg[400] = "x";
    char want[400] = "error: --set (argument 2): expected section.key=value, got 'x";
    for (int i = 0; i < 150; i++) strcat(arg, "\xc3\xa9");
    for (int i = 0; i < 99; i++) strcat(want, "\xc3\xa9");
    strcat(want, "...' (missing '=')\n");
    Config c;
    config_defaults(&c);
    char err[1024];
    ck_assert_int_eq(cc_set(&c, arg, 2, err, sizeof err), -1);
    ck_assert_str_eq(err, want);
}
END_TEST

/* config_assignment_sets reads the key as config_set does. */
START_TEST(test_assignment_sets) {
    static const struct {
        const char *assignment;
        int sets; /* names train.steps */
    } cases[] = {
        {"train.steps=5", 1},
        {"  train . steps = 5", 1},
        {"train.steps_x=5", 0},
        {"train.step=5", 0},
        {"tra.steps=5", 0},
        {"train.steps", 0}, /* no '=' */
        {"trainsteps=5", 0},
    };
    for (int i = 0; i < CC_COUNT(cases); i++)
        ck_assert_msg(!config_assignment_sets(cases[i].assignment, "train.steps") == !cases[i].sets,
                      "'%s' %s train.steps", cases[i].assignment,
                      cases[i].sets ? "does not set" : "sets");
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_set(&c, "  train . steps = 5", 1), 0); /* what config_set accepts */
    ck_assert_int_eq(c.steps, 5);
}
END_TEST

TU_MAIN("set", test_set_overrides_file, TU_LOOP(test_set_errors, 0, CC_COUNT(SET_ERRORS)),
        test_assignment_sets, test_long_set_cut_whole);
