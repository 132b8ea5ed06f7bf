/* test_validate.c: the checks between keys (src/config/validate.c) and config_origin: each
 * message starts where the offending key was set and names where the other key came from. */
#include <check.h>
#include <string.h>

#include "config/config.h"
#include "configcheck.h"
#include "testutil.h"

START_TEST(test_validate_heads) {
    Config c;
    config_defaults(&c);
    char err[4096];
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), 0); /* the defaults pass */
    cc_load_ok(&c, "; x\n[model]\nd_model = 65\nn_heads = 2\n");
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    cc_assert_contains(err, CC_NAME ":3: 'model.d_model' = 65 is not divisible by 'model.n_heads' "
                            "= 2 (set at " CC_NAME ":4)");

    /* d_model left at its default: the message points at n_heads, where the user can act. */
    config_defaults(&c);
    ck_assert_int_eq(config_set(&c, "model.n_heads=3", 2), 0);
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    cc_assert_contains(err, "--set (argument 2): 'model.n_heads' = 3");
    cc_assert_contains(err, "'model.d_model' = 64 (default)");

    ck_assert_int_eq(config_set(&c, "model.n_heads=4", 3), 0);
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), 0);
    ck_assert_str_eq(err, "");
}
END_TEST

/* model.block = llama needs an even d_k (RoPE rotates pairs); the message starts at model.block and
 * names where d_model and n_heads were set (either may be the one to change) */
START_TEST(test_validate_llama_even_dk) {
    Config c;
    config_defaults(&c);
    char err[4096];
    cc_load_ok(&c, "[model]\nblock = llama\nd_model = 66\nn_heads = 2\n");
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    cc_assert_contains(err, CC_NAME ":2: 'model.block' = llama rotates each head's q and k by "
                            "channel pairs (RoPE), so d_k = model.d_model / model.n_heads must be "
                            "even; it is 66 / 2 = 33 ('model.d_model' set at " CC_NAME ":3, "
                            "'model.n_heads' set at " CC_NAME ":4)");
    ck_assert_int_eq(config_set(&c, "model.n_heads=3", 2), 0); /* d_k 22 */
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), 0);
    ck_assert_str_eq(err, "");
    /* the same odd d_k is fine for gpt2, which rotates nothing */
    ck_assert_int_eq(config_set(&c, "model.n_heads=2", 3), 0);
    ck_assert_int_eq(config_set(&c, "model.block=gpt2", 4), 0);
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), 0);
}
END_TEST

START_TEST(test_validate_task_file) {
    Config c;
    config_defaults(&c);
    char err[4096];
    cc_load_ok(&c, "[task]\nname = file\n");
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    cc_assert_contains(err, CC_NAME ":2: 'task.name' = file");
    cc_assert_contains(err, "'task.file'");
    ck_assert_int_eq(config_set(&c, "task.file=data/x.txt", 2), 0);
    ck_assert_int_eq(config_validate(&c), 0);
    /* a task.file that a generated task would silently ignore */
    ck_assert_int_eq(config_set(&c, "task.name=sort", 3), 0);
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    cc_assert_contains(err, "--set (argument 2): 'task.file' = 'data/x.txt' is set, but "
                            "'task.name' is neither file nor text (set at --set (argument 3))");
    /* the text task reads task.file too: with it the config is whole, without it refused */
    ck_assert_int_eq(config_set(&c, "task.name=text", 4), 0);
    ck_assert_int_eq(config_validate(&c), 0);
    ck_assert_int_eq(config_set(&c, "task.file=\"\"", 5), 0);
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    cc_assert_contains(err, "--set (argument 4): 'task.name' = text needs a path in 'task.file', "
                            "which is empty (set at --set (argument 5))");
}
END_TEST

START_TEST(test_validate_min_lr) {
    Config c;
    config_defaults(&c);
    char err[4096];
    cc_load_ok(&c, "[optim]\nlr = 0.01\nmin_lr = 0.1\n");
    ck_assert_int_eq(config_validate(&c), 0); /* constant schedule ignores min_lr */
    ck_assert_int_eq(config_set(&c, "optim.schedule=cosine", 4), 0);
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    cc_assert_contains(err, CC_NAME ":3: 'optim.min_lr' = 0.1 is larger than 'optim.lr' = 0.01 "
                            "(set at " CC_NAME ":2)");
    ck_assert_int_eq(config_set(&c, "optim.min_lr=0.01", 5), 0); /* equal is fine */
    ck_assert_int_eq(config_validate(&c), 0);
}
END_TEST

START_TEST(test_validate_reports_all_and_allows_long_warmup) {
    Config c;
    config_defaults(&c);
    char err[4096];
    ck_assert_int_eq(config_set(&c, "optim.warmup_steps=5000", 1), 0);
    ck_assert_int_eq(config_set(&c, "train.steps=10", 2), 0);
    ck_assert_int_eq(config_validate(&c), 0); /* warm-up longer than training is allowed */
    ck_assert_int_eq(config_set(&c, "model.n_heads=3", 3), 0);
    ck_assert_int_eq(config_set(&c, "task.name=file", 4), 0);
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    cc_assert_contains(err, "'model.n_heads'");
    cc_assert_contains(err, "'task.name'");
}
END_TEST

/* Keys model.param makes the run not read, off their default, are refused as scale_init without
 * learned is (the logs are the same with them and without: model.base_width is read only by
 * mup's width multiplier, and mup zeroes W_q after init.q_mult has scaled it); at their default
 * (config.ini writes every key), or where the run reads them, they pass, and init.k_mult under
 * mup is read (W_k is drawn as under standard). The whole message. */
START_TEST(test_validate_param_keys) {
    Config c;
    config_defaults(&c);
    char err[4096];
    cc_load_ok(&c, "[model]\nparam = standard\nbase_width = 128\n[init]\nq_mult = 3\n");
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), 0);
    ck_assert_int_eq(config_set(&c, "model.base_width=64", 2), 0);
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    ck_assert_str_eq(err, "error: --set (argument 2): 'model.base_width' = 64 is set, but "
                          "'model.param' is not mup (set at " CC_NAME ":2): it is muP's base "
                          "width, which the standard parametrisation does not read; set "
                          "model.param = mup, or remove model.base_width\n");
    ck_assert_int_eq(config_set(&c, "init.q_mult=1", 3), 0);
    ck_assert_int_eq(config_set(&c, "model.param=mup", 4), 0); /* reads base_width */
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), 0);
    ck_assert_str_eq(err, "");

    config_defaults(&c);
    cc_load_ok(&c, "[model]\nparam = mup\n[init]\nq_mult = 0.5\nk_mult = 2\n");
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    ck_assert_str_eq(err, "error: " CC_NAME ":4: 'init.q_mult' = 0.5 has nothing to multiply "
                          "with 'model.param' = mup (set at " CC_NAME ":2): muP starts W_q at 0, "
                          "whatever its init factor; its learning-rate factor optim.lr_q_mult "
                          "still acts. Remove init.q_mult, or set model.param = standard\n");
    /* a value %g would print as 1 is quoted as given (break13: "= 1 has nothing to multiply") */
    ck_assert_int_eq(config_set(&c, "init.q_mult=1.0000000001", 2), 0);
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "'init.q_mult' = 1.0000000001 has nothing to multiply") != NULL, "%s",
                  err);
    ck_assert_int_eq(config_set(&c, "init.q_mult=1", 2), 0); /* k_mult 2 stays: mup reads it */
    ck_assert_int_eq(config_set(&c, "optim.lr_q_mult=0.5", 3), 0);
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), 0);
}
END_TEST

START_TEST(test_origin) {
    Config c;
    config_defaults(&c);
    ck_assert_str_eq(config_origin(&c, "optim.lr"), "default");
    ck_assert_str_eq(config_origin(&c, "optim.nope"), "(unknown key)");
    ck_assert_str_eq(config_origin(&c, "nodot"), "(unknown key)");
    ck_assert_int_eq(config_set(&c, "optim.lr=0.5", 12), 0);
    ck_assert_str_eq(config_origin(&c, "optim.lr"), "--set (argument 12)");
    ck_assert_str_eq(config_origin(&c, "optim.beta1"), "default");
}
END_TEST

TU_MAIN("validate", test_validate_heads, test_validate_llama_even_dk, test_validate_task_file, test_validate_min_lr,
        test_validate_reports_all_and_allows_long_warmup, test_validate_param_keys, test_origin);
