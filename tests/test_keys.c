/* test_keys.c: the key table (src/config/keys.c): the defaults, the table's accessors, the rules
 * of run.name and run.dir, and the number attention.scale stands for. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "config/config.h"
#include "configcheck.h"
#include "testutil.h"

/* ---------------------------------------------------------------- defaults */

/* The documented defaults (docs/configuration.md), typed in by hand. */
START_TEST(test_defaults) {
    Config c;
    config_defaults(&c);
    const struct {
        const char *name;
        double got, want;
    } nums[] = {
        {"run.seed", (double)c.seed, 1},          {"run.threads", c.threads, 0},
        {"task.name", c.task, TASK_RECALL},       {"task.length", c.task_length, 8},
        {"task.pairs", c.task_pairs, 8},          {"task.symbols", c.task_symbols, 16},
        {"task.val_size", c.val_size, 512},       {"task.separator", c.task_separator, SEPARATOR_AUTO},
        {"model.d_model", c.d_model, 64},         {"model.n_heads", c.n_heads, 1},
        {"model.n_layers", c.n_layers, 2},       {"model.d_ff", c.d_ff, 0},
        {"model.max_seq_len", c.max_seq_len, 0}, {"model.ln_eps", c.ln_eps, 1e-5},
        {"model.block", c.block, BLOCK_GPT2},     {"model.matmul", c.matmul, MATMUL_FLOAT32},
        {"model.param", c.param, PARAM_STANDARD}, {"model.base_width", c.base_width, 128},
        {"attention.v_norm", c.v_norm, V_NORM_NONE},
        {"attention.scale", c.scale_mode, SCALE_SQRT_DK},
        {"scale_value", c.scale_value, 0},
        {"attention.qk_norm", c.qk_norm, QK_NORM_NONE},
        {"attention.scale_init", c.scale_init, 1}, {"attention.softcap", c.softcap, 0},
        {"attention.qk_clip", c.qk_clip, 0},       {"attention.window", c.window, 0},
        {"init.scheme", c.init, INIT_FAN_IN},     {"init.std", c.init_std, 0.02},
        {"init.q_mult", c.init_q_mult, 1},        {"init.k_mult", c.init_k_mult, 1},
        {"optim.name", c.optim, OPT_ADAMW},       {"optim.lr", c.lr, 1e-3},
        {"optim.beta1", c.beta1, 0.9},            {"optim.beta2", c.beta2, 0.999},
        {"optim.eps", c.eps, 1e-8},               {"optim.weight_decay", c.weight_decay, 0},
        {"optim.momentum", c.momentum, 0.9},      {"optim.grad_clip", c.grad_clip, 0},
        {"optim.warmup_steps", c.warmup_steps, 0},
        {"optim.schedule", c.schedule, SCHED_CONSTANT},
        {"optim.min_lr", c.min_lr, 0},
        {"optim.lr_q_mult", c.lr_q_mult, 1},      {"optim.lr_k_mult", c.lr_k_mult, 1},
        {"train.steps", c.steps, 2000},
        {"train.batch_size", c.batch_size, 64},   {"train.eval_every", c.eval_every, 100},
        {"train.checkpoint_every", c.checkpoint_every, 500},
        {"train.on_divergence", c.on_divergence, DIVERGENCE_STOP},
        {"log.every", c.log_every, 10},           {"log.progress", c.progress, 1},
        {"guard.logit_std_max", c.guard_logit_std_max, 0},
        {"guard.max_weight_max", c.guard_max_weight_max, 0},
        {"guard.grad_norm_min", c.guard_grad_norm_min, 0},
        {"guard.grad_norm_max", c.guard_grad_norm_max, 0},
        {"guard.action", c.guard_action, GUARD_WARN},
    };
    for (int i = 0; i < CC_COUNT(nums); i++)
        ck_assert_msg(nums[i].got == nums[i].want, "default of %s: %.17g, expected %.17g",
                      nums[i].name, nums[i].got, nums[i].want);
    ck_assert_str_eq(c.run_name, "run");
    ck_assert_str_eq(c.run_dir, "runs");
    ck_assert_str_eq(c.task_file, "");
    for (int i = 0; i < config_key_count(); i++) ck_assert_str_eq(c.origin[i], "");
}
END_TEST

/* ---------------------------------------------------------------- the table */

START_TEST(test_key_table) {
    int n = config_key_count();
    ck_assert_int_eq(n, 59);
    ck_assert_int_le(n, CONFIG_MAX_KEYS);
    ConfigKeyInfo info = {0};
    ck_assert_int_eq(config_key_info(-1, &info), -1);
    ck_assert_int_eq(config_key_info(n, &info), -1);
    ck_assert_ptr_null(info.key);
    Config d;
    config_defaults(&d);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(config_key_info(i, &info), 0);
        ck_assert(info.section && *info.section && info.key && *info.key);
        ck_assert_msg(info.help && strlen(info.help) > 5, "no help for %s.%s", info.section,
                      info.key);
        ck_assert_ptr_nonnull(info.default_text);
        char name[128], set[512];
        snprintf(name, sizeof name, "%s.%s", info.section, info.key);
        ck_assert_int_eq(config_key_index(name), i);
        /* Setting each key to its documented default changes nothing. */
        Config c = d;
        snprintf(set, sizeof set, "%s=\"%s\"", name, info.default_text);
        ck_assert_msg(config_set(&c, set, 1) == 0, "default of %s does not parse", name);
        cc_assert_config_eq(&c, &d, name);
        ck_assert_str_eq(config_origin(&c, name), "--set (argument 1)");
    }
    ck_assert_int_eq(config_key_index("model.nope"), -1);
    ck_assert_int_eq(config_key_index("model"), -1);
    ck_assert_int_eq(config_key_index("mode.d_model"), -1);
}
END_TEST

/* ---------------------------------------------------------------- run.name, run.dir */

static const CcErrorCase NAME_ERRORS[] = {
    {"slash in run.name", "[run]\nname = a/b\n", 0, 2, "'run.name'", "letters, digits", 0},
    {"space in run.name", "[run]\nname = \"has space\"\n", 0, 2, "'run.name'", "letters, digits", 0},
    {"run.name ..", "[run]\nname = ..\n", 0, 2, "'run.name'", "must not be '.' or '..'", 0},
    {"run.name .", "[run]\nname = .\n", 0, 2, "'run.name'", "must not be '.' or '..'", 0},
    {"empty run.name", "[run]\nname = \"\"\n", 0, 2, "'run.name'", "must not be empty", 0},
    {"empty run.dir", "run.dir=\"\"", 3, 0, "'run.dir'", "must not be empty", 0},
};

START_TEST(test_name_rules) { cc_check_error(&NAME_ERRORS[_i]); }
END_TEST

/* ---------------------------------------------------------------- attention.scale */

START_TEST(test_attention_scale) {
    /* want: 1/sqrt(d_k), 1, 1/d_k or the number, worked out by hand */
    static const struct {
        const char *set; /* NULL: the default */
        int d_k;
        double want;
    } cases[] = {
        {NULL, 16, 0.25},
        {NULL, 2, 0.70710678118654752},
        {NULL, 64, 0.125},
        {"attention.scale=none", 16, 1.0},
        {"attention.scale=inv_dk", 16, 0.0625},
        {"attention.scale=0.7", 16, 0.7},
        {"attention.scale=0.7", 64, 0.7},
        {"attention.scale=3", 64, 3.0}, /* integer-looking numbers too */
        {"attention.scale=learned", 64, 1.0}, /* the learned factor's start, scale_init = 1 */
        {"attention.scale=8/d_k", 64, 0.125}, /* muP's 8/d_k: 1/sqrt(64) at d_k 64 */
        {"attention.scale=8/d_k", 16, 0.5},
        {"attention.scale=0.5/d_k", 2, 0.25},
        {"attention.scale=\"1/d_k\"", 16, 0.0625}, /* inv_dk spelt as C/d_k, quoted */
    };
    for (int i = 0; i < CC_COUNT(cases); i++) {
        Config c;
        config_defaults(&c);
        if (cases[i].set) ck_assert_int_eq(config_set(&c, cases[i].set, 1), 0);
        double got = config_attention_scale(&c, cases[i].d_k);
        ck_assert_msg(fabs(got - cases[i].want) <= 1e-15, "%s, d_k %d: %.17g, expected %.17g",
                      cases[i].set ? cases[i].set : "default", cases[i].d_k, got, cases[i].want);
    }
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_set(&c, "attention.scale=0.7", 1), 0);
    ck_assert_int_eq(c.scale_mode, SCALE_VALUE);
    ck_assert_int_eq(config_set(&c, "attention.scale=8/d_k", 1), 0);
    ck_assert_int_eq(c.scale_mode, SCALE_OVER_DK);
    ck_assert(c.scale_value == 8.0);
}
END_TEST

/* The scale names the sweep and the messages take from the key table: each names its mode (the
 * parser agrees), SCALE_VALUE has none, and the joined list is the one the usage text shows. */
START_TEST(test_scale_names) {
    static const struct {
        ScaleMode mode;
        const char *name;
    } cases[] = {{SCALE_SQRT_DK, "sqrt_dk"}, {SCALE_NONE, "none"}, {SCALE_INV_DK, "inv_dk"},
                 {SCALE_LEARNED, "learned"}, {SCALE_VALUE, NULL}, {SCALE_OVER_DK, NULL}};
    for (int i = 0; i < CC_COUNT(cases); i++) {
        const char *got = config_scale_name(cases[i].mode);
        if (!cases[i].name) {
            ck_assert_ptr_null(got);
            continue;
        }
        ck_assert_str_eq(got, cases[i].name);
        char set[64];
        snprintf(set, sizeof set, "attention.scale=%s", got);
        Config c;
        config_defaults(&c);
        c.scale_mode = SCALE_VALUE;
        ck_assert_int_eq(config_set(&c, set, 1), 0);
        ck_assert_int_eq(c.scale_mode, cases[i].mode);
    }
    static const struct {
        const char *sep;
        size_t n;
        const char *want;
    } joins[] = {{",", 64, "sqrt_dk,none,inv_dk,learned"},
                 {", ", 64, "sqrt_dk, none, inv_dk, learned"},
                 {",", 5, "sqrt"}, {",", 9, "sqrt_dk,"}};
    for (int i = 0; i < CC_COUNT(joins); i++) {
        char buf[64];
        memset(buf, 'x', sizeof buf);
        config_scale_names(buf, joins[i].n, joins[i].sep);
        ck_assert_str_eq(buf, joins[i].want);
    }
}
END_TEST

TU_MAIN("keys", test_defaults, test_key_table, TU_LOOP(test_name_rules, 0, CC_COUNT(NAME_ERRORS)),
        test_attention_scale, test_scale_names);
