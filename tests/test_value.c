/* test_value.c: one value's text into its key's field (src/config/value.c): every way a value is
 * refused (type, trailing text, range, overflow, empty, not finite, too long, quotes, unknown
 * name, attention scale, line break), read from a file or --set, and the values at the edges
 * that must still be accepted. The messages' FILE:LINE form is checked by cc_check_error. */
#include <check.h>
#include <string.h>

#include "config/config.h"
#include "configcheck.h"
#include "testutil.h"

#define SCALE_ACCEPTED "sqrt_dk, none, inv_dk, learned, C/d_k with C in [1e-6, 1e6], or a number in [1e-6, 1e6]"

static const CcErrorCase ERRORS[] = {
    /* wrong type */
    {"word for an integer", "[model]\nd_model = abc\n", 0, 2, "'model.d_model'",
     "expected an integer, got 'abc'", 0},
    {"fraction for an integer", "[model]\nd_model = 1.5\n", 0, 2, "'model.d_model'",
     "expected an integer", 0},
    {"word for a number", "[optim]\nlr = fast\n", 0, 2, "'optim.lr'",
     "expected a number, got 'fast'", 0},
    /* trailing garbage */
    {"integer with a letter", "[model]\nd_model = 64x\n", 0, 2, "'model.d_model'", "'64x'", 0},
    {"number with letters", "[optim]\nlr = 1e-3abc\n", 0, 2, "'optim.lr'", "'1e-3abc'", 0},
    {"hex integer", "[model]\nd_model = 0x10\n", 0, 2, "'model.d_model'", "base 10", 0},
    {"hex number", "[optim]\nlr = 0x1p-3\n", 0, 2, "'optim.lr'", "decimal", 0},
    {"two integers", "[model]\nd_model = 6 4\n", 0, 2, "'model.d_model'", "'6 4'", 0},
    /* out of range */
    {"d_model 0", "[model]\nd_model = 0\n", 0, 2, "'model.d_model'", "[1, 8192]", 0},
    {"length 257", "[task]\nlength = 257\n", 0, 2, "'task.length'", "[1, 256]", 0},
    {"seed -1", "[run]\nseed = -1\n", 0, 2, "'run.seed'", ">= 0", 0},
    {"progress 2", "[log]\nprogress = 2\n", 0, 2, "'log.progress'", "[0, 1]", 0},
    {"ln_eps 1", "[model]\nln_eps = 1\n", 0, 2, "'model.ln_eps'", "(0, 1)", 0},
    {"beta1 1", "[optim]\nbeta1 = 1.0\n", 0, 2, "'optim.beta1'", "[0, 1)", 0},
    {"lr 0", "[optim]\nlr = 0\n", 0, 2, "'optim.lr'", "(0, 10]", 0},
    {"eps 0", "[optim]\neps = 0\n", 0, 2, "'optim.eps'", "> 0", 0},
    {"grad_clip negative", "[optim]\ngrad_clip = -0.5\n", 0, 2, "'optim.grad_clip'", ">= 0", 0},
    {"steps too many", "[train]\nsteps = 100000001\n", 0, 2, "'train.steps'", "[0, 100000000]",
     0},
    {"d_model 9000 by --set", "model.d_model=9000", 2, 0, "'model.d_model'", "[1, 8192]", 0},
    /* overflow */
    {"seed past 64 bits", "[run]\nseed = 99999999999999999999999\n", 0, 2, "'run.seed'",
     "overflow", 0},
    {"eval_every past int", "[train]\neval_every = 2147483648\n", 0, 2, "'train.eval_every'",
     "overflow", 0},
    {"warmup below 64 bits", "[optim]\nwarmup_steps = -99999999999999999999\n", 0, 2,
     "'optim.warmup_steps'", "overflow", 0},
    /* empty */
    {"nothing after =", "[model]\nd_model =\n", 0, 2, "'model.d_model'", "empty value", 0},
    {"only a comment after =", "[model]\nd_model =   ; comment only\n", 0, 2, "'model.d_model'",
     "empty value", 0},
    {"empty text", "[run]\ndir =\n", 0, 2, "'run.dir'", "empty value", 0},
    {"quoted empty integer", "[model]\nd_model = \"\"\n", 0, 2, "'model.d_model'", "empty value",
     0},
    {"empty by --set", "model.d_model=", 6, 0, "'model.d_model': empty value", NULL, 0},
    /* not finite */
    {"nan", "[optim]\nlr = nan\n", 0, 2, "'optim.lr'", "not a finite number", 0},
    {"inf", "[optim]\nlr = inf\n", 0, 2, "'optim.lr'", "not a finite number", 0},
    {"-inf", "[optim]\ngrad_clip = -inf\n", 0, 2, "'optim.grad_clip'", "not a finite", 0},
    {"1e999", "[optim]\neps = 1e999\n", 0, 2, "'optim.eps'", "not a finite number", 0},
    /* in range for a double, but 0 or subnormal in float32 (the model's precision): ln_eps
     * 1e-300 gave NaN at step 0, init.std 1e-300 all-zero weights; FLT_MIN = 2^-126 ~ 1.1755e-38 */
    {"ln_eps 1e-300", "[model]\nln_eps = 1e-300\n", 0, 2, "'model.ln_eps'", "subnormal in float32", 0},
    {"init.std 1e-300", "[init]\nstd = 1e-300\n", 0, 2, "'init.std'", "subnormal in float32", 0},
    {"weight_decay 1e-40", "[optim]\nweight_decay = 1e-40\n", 0, 2, "'optim.weight_decay'",
     "subnormal in float32", 0},
    {"eps 1e-39 by --set", "optim.eps=1e-39", 2, 0, "'optim.eps'", "subnormal in float32", 0},
    /* quotes */
    {"quotes inside a value", "[task]\nfile = a\"b\"c\n", 0, 2, "'task.file'", "double quotes", 0},
    /* names */
    {"optimiser adam", "[optim]\nname = adam\n", 0, 2, "'optim.name'",
     "unknown value 'adam'; expected one of adamw, sgd", 0},
    {"task Sort", "[task]\nname = Sort\n", 0, 2, "'task.name'", "sort, reverse, copy, recall, file",
     0},
    {"schedule linear", "[optim]\nschedule = linear\n", 0, 2, "'optim.schedule'",
     "constant, cosine", 0},
    {"init xavier", "[init]\nscheme = xavier\n", 0, 2, "'init.scheme'", "fan_in, gpt2", 0},
    {"qk_norm bogus", "[model]\nd_model = 32\n[attention]\nqk_norm = bogus\n", 0, 4,
     "'attention.qk_norm'", "unknown value 'bogus'; expected one of none, layernorm", 0},
    {"qk_norm 1", "[attention]\nqk_norm = 1\n", 0, 2, "'attention.qk_norm'", "none, layernorm",
     0},
    {"qk_norm LayerNorm by --set", "attention.qk_norm=LayerNorm", 3, 0, "'attention.qk_norm'",
     "none, layernorm", 0},
    {"optim.name adam by --set", "optim.name=adam", 8, 0, "'optim.name'", "adamw, sgd", 0},
    /* attention.scale */
    {"scale 0", "[attention]\nscale = 0\n", 0, 2, "'attention.scale'", SCALE_ACCEPTED, 0},
    {"scale -0.5", "[attention]\nscale = -0.5\n", 0, 2, "'attention.scale'", SCALE_ACCEPTED, 0},
    {"scale sqrt", "[attention]\nscale = sqrt\n", 0, 2, "'attention.scale'", "got 'sqrt'", 0},
    {"scale nan", "[attention]\nscale = nan\n", 0, 2, "'attention.scale'", SCALE_ACCEPTED, 0},
    {"scale 0.5x", "[attention]\nscale = 0.5x\n", 0, 2, "'attention.scale'", SCALE_ACCEPTED, 0},
    {"scale 1e38", "[attention]\nscale = 1e38\n", 0, 2, "'attention.scale'", SCALE_ACCEPTED, 0},
    {"scale 1e-300", "[attention]\nscale = 1e-300\n", 0, 2, "'attention.scale'", SCALE_ACCEPTED,
     0},
    {"scale just over 1e6", "[attention]\nscale = 1.0000001e6\n", 0, 2, "'attention.scale'",
     SCALE_ACCEPTED, 0},
    {"scale -1 by --set", "attention.scale=-1", 1, 0, "'attention.scale'",
     "a number in [1e-6, 1e6]", 0},
    /* the C/d_k form (muP's 8/d_k): C a number in [1e-6, 1e6], the suffix exactly "/d_k" */
    {"scale 8/dk", "[attention]\nscale = 8/dk\n", 0, 2, "'attention.scale'", "got '8/dk'", 0},
    {"scale 8/d_k/d_k", "[attention]\nscale = 8/d_k/d_k\n", 0, 2, "'attention.scale'",
     SCALE_ACCEPTED, 0},
    {"scale /d_k", "[attention]\nscale = /d_k\n", 0, 2, "'attention.scale'", "got '/d_k'", 0},
    {"scale x/d_k", "[attention]\nscale = x/d_k\n", 0, 2, "'attention.scale'", SCALE_ACCEPTED, 0},
    {"scale 0/d_k", "[attention]\nscale = 0/d_k\n", 0, 2, "'attention.scale'", SCALE_ACCEPTED, 0},
    {"scale -8/d_k", "[attention]\nscale = -8/d_k\n", 0, 2, "'attention.scale'", SCALE_ACCEPTED,
     0},
    {"scale 2e6/d_k", "[attention]\nscale = 2e6/d_k\n", 0, 2, "'attention.scale'",
     "C/d_k with C in [1e-6, 1e6]", 0},
    {"scale 8 / d_k", "[attention]\nscale = 8 / d_k\n", 0, 2, "'attention.scale'", SCALE_ACCEPTED,
     0},
    {"scale sqrt_dk/d_k by --set", "attention.scale=sqrt_dk/d_k", 4, 0, "'attention.scale'",
     "got 'sqrt_dk/d_k'", 0},
    /* found by fuzzing (fuzz_config_set): a text value holding a line break was accepted, so
     * config_write (the run's config.ini) wrote a line that config_load_file rejects */
    {"LF in a --set text", "task.file=data/w.txt\ntask.vao_size=8", 2, 0, "'task.file'",
     "line break", 0},
    {"CR in a quoted --set text", "run.dir=\"runs\r\"", 3, 0, "'run.dir'", "line break", 0},
    {"CR in a file's text", "[task]\nfile = a\rb\n", 0, 2, "'task.file'", "line break", 0},
    /* no control byte in any text: --print-config and config.ini would write it raw */
    {"ESC in a --set text", "run.dir=x\x1by", 3, 0, "'run.dir'", "control byte 0x1b", 0},
    {"DEL in a file's text", "[task]\nfile = a\x7f\n", 0, 2, "'task.file'", "control byte 0x7f",
     0},
    {"tab in a quoted file's text", "[run]\nname = \"a\tb\"\n", 0, 2, "'run.name'",
     "control byte 0x09", 0},
};

START_TEST(test_value_errors) { cc_check_error(&ERRORS[_i]); }
END_TEST

/* CONFIG_STR - 1 characters fit; one more is refused, naming the limit. */
START_TEST(test_string_length_limit) {
    char text[CONFIG_STR + 64], *p = text;
    p += sprintf(p, "[run]\ndir = ");
    memset(p, 'a', CONFIG_STR);
    p[CONFIG_STR] = '\0';
    strcat(text, "\n");
    CcErrorCase e = {"run.dir of CONFIG_STR characters", text, 0, 2, "'run.dir'", "at most 255", 0};
    cc_check_error(&e);
    text[strlen(text) - 2] = '\n';
    text[strlen(text) - 1] = '\0';
    Config c;
    config_defaults(&c);
    cc_load_ok(&c, text);
    ck_assert_uint_eq(strlen(c.run_dir), CONFIG_STR - 1);
}
END_TEST

/* Issue 45: a long value (300 digits) is quoted shortened, its first 40 and last 16 characters
 * around "...", so the message keeps its reason (before, it was cut inside the value, at 512
 * bytes). Each row: key, what comes before and after 300 copies of digit, and the reason. */
static const struct {
    const char *key, *before, *after;
    char digit;
    const char *reason;
} LONG_VALUES[] = {
    {"optim.lr", "", "", '1', " is out of range; allowed: number in (0, 10]"},
    {"optim.lr", "0.", "1", '0', " is 0 or subnormal in float32"},
    {"optim.lr", "", "x", '1', "expected a number, got '"},
    {"optim.lr", "1e", "", '1', "' is not a finite number"},
    {"model.d_model", "", "", '1', "' does not fit in 64 bits; allowed: integer in [1, 8192]"},
    {"model.d_model", "", "x", '1', "expected an integer in base 10, got '"},
    {"optim.name", "", "", 'a', "unknown value '"},
    {"attention.scale", "", "", '9', "or a number in [1e-6, 1e6], got '"},
};

START_TEST(test_long_value_keeps_reason) {
    int i = _i;
    char set[600], head[64], tail[32], shown[128];
    int n = snprintf(set, sizeof set, "%s=%s", LONG_VALUES[i].key, LONG_VALUES[i].before);
    memset(set + n, LONG_VALUES[i].digit, 300);
    snprintf(set + n + 300, sizeof set - (size_t)n - 300, "%s", LONG_VALUES[i].after);
    /* the value shown: its first 40 characters, "...", its last 16 */
    const char *value = strchr(set, '=') + 1;
    snprintf(head, sizeof head, "%.40s", value);
    snprintf(tail, sizeof tail, "%s", value + strlen(value) - 16);
    snprintf(shown, sizeof shown, "%s...%s", head, tail);
    CcErrorCase e = {set, set, 2, 0, LONG_VALUES[i].reason, shown, 0};
    cc_check_error(&e);
}
END_TEST

/* The bounds of attention.scale themselves are accepted, as numbers and as C of C/d_k. */
START_TEST(test_scale_bounds) {
    const char *bounds[] = {"[attention]\nscale = 1e6\n", "[attention]\nscale = 1e-6\n",
                            "[attention]\nscale = 1e6/d_k\n", "[attention]\nscale = 1e-6/d_k\n"};
    for (int i = 0; i < 4; i++) {
        Config c;
        config_defaults(&c);
        cc_load_ok(&c, bounds[i]);
        ck_assert_int_eq(c.scale_mode, i < 2 ? SCALE_VALUE : SCALE_OVER_DK);
        ck_assert(c.scale_value == (i % 2 ? 1e-6 : 1e6));
    }
}
END_TEST

/* the float32 check's edges: 0 where allowed and the smallest normal float32 (2^-126, written
 * out by hand) still pass */
START_TEST(test_float32_edges_accepted) {
    const char *ok[] = {"[optim]\nweight_decay = 0\n", "[model]\nln_eps = 1.1754944e-38\n",
                        "[init]\nstd = 2e-38\n"};
    for (int i = 0; i < 3; i++) {
        Config c;
        config_defaults(&c);
        cc_load_ok(&c, ok[i]);
    }
}
END_TEST

/* A value that is 0 or subnormal in float32: the advice offers 0 only where the key's range
 * holds it (docs/configuration.md's ranges: weight_decay [0, 10], grad_clip >= 0 do; the
 * multipliers (0, 1e6], lr (0, 10], eps > 0, ln_eps (0, 1), init.std (0, 10] do not). The whole
 * message; FLT_MIN = 2^-126 printed by %g is 1.17549e-38. */
static const struct {
    const char *set, *message;
} FLOAT32_ADVICE[] = {
    {"init.q_mult=1e-39", "'init.q_mult': 1e-39"},
    {"init.k_mult=1e-39", "'init.k_mult': 1e-39"},
    {"optim.lr_q_mult=1e-39", "'optim.lr_q_mult': 1e-39"},
    {"optim.lr=1e-39", "'optim.lr': 1e-39"},
    {"optim.eps=1e-40", "'optim.eps': 1e-40"},
    {"model.ln_eps=1e-45", "'model.ln_eps': 1e-45"},
    {"init.std=1e-39", "'init.std': 1e-39"},
    {"optim.weight_decay=1e-39", "'optim.weight_decay': 1e-39"},
    {"optim.grad_clip=1e-39", "'optim.grad_clip': 1e-39"},
};

START_TEST(test_float32_advice) {
    int i = _i;
    /* the last two keys allow 0 */
    const char *advice = i >= CC_COUNT(FLOAT32_ADVICE) - 2 ? "use 0 or a larger magnitude"
                                                           : "use a larger magnitude";
    char want[512], err[4096];
    snprintf(want, sizeof want, "error: --set (argument 3): %s is 0 or subnormal in float32, in "
                                "which training computes (the smallest normal float32 is "
                                "1.17549e-38); %s\n",
             FLOAT32_ADVICE[i].message, advice);
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(cc_set(&c, FLOAT32_ADVICE[i].set, 3, err, sizeof err), -1);
    ck_assert_str_eq(err, want);
}
END_TEST

TU_MAIN("value", TU_LOOP(test_value_errors, 0, CC_COUNT(ERRORS)), test_string_length_limit,
        TU_LOOP(test_long_value_keeps_reason, 0, CC_COUNT(LONG_VALUES)),
        test_scale_bounds, test_float32_edges_accepted,
        TU_LOOP(test_float32_advice, 0, CC_COUNT(FLOAT32_ADVICE)));
