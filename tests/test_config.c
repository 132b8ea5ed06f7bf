/* test_config.c: the INI reader, --set, cross-key checks, the writer and the key table.
 *
 * Fixtures are written on the fly into a mkdtemp directory, so each test shows the exact bytes it
 * feeds the parser (CRLF, BOM, missing newline). Error messages go to stderr; the tests capture
 * file descriptor 2 into a temporary file so they can check the FILE:LINE: 'key' form. */
#include "config/config.h"

#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char g_dir[] = "/tmp/test_config.XXXXXX";
static int g_dir_made;

static void make_dir(void) {
    g_dir_made = mkdtemp(g_dir) != NULL;
    if (!g_dir_made) {
        perror("mkdtemp");
        exit(1);
    }
}

static void remove_dir(void) {
    if (g_dir_made) tu_remove_tree(g_dir);
}

/* ---------------------------------------------------------------- helpers */

/* stderr into a caller's buffer (truncated to n - 1 bytes), on top of tu_capture. */
typedef TuCapture Capture;

static void capture_begin(Capture *cap) { tu_capture_begin(cap, 2); }

static void capture_end(Capture *cap, char *out, size_t n) {
    char *text = tu_capture_end(cap);
    snprintf(out, n, "%s", text);
    free(text);
}

static void fixture_path(const char *name, char *path, size_t n) {
    snprintf(path, n, "%s/%s", g_dir, name);
}

static void write_bytes(const char *path, const char *bytes) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, strlen(bytes), f), strlen(bytes));
    ck_assert_int_eq(fclose(f), 0);
}

/* Writes text to DIR/case.ini, loads it into c, returns the result; stderr goes into err. */
static int load_text(Config *c, const char *text, char *path, size_t pn, char *err, size_t en) {
    fixture_path("case.ini", path, pn);
    write_bytes(path, text);
    Capture cap;
    capture_begin(&cap);
    int rc = config_load_file(c, path);
    capture_end(&cap, err, en);
    return rc;
}

/* config_load_text on len bytes (which may hold NUL), stderr captured. */
static int load_bytes(Config *c, const char *text, size_t len, char *err, size_t en) {
    Capture cap;
    capture_begin(&cap);
    int rc = config_load_text(c, "bytes.ini", text, len);
    capture_end(&cap, err, en);
    return rc;
}

static int set_captured(Config *c, const char *assignment, int argn, char *err, size_t en) {
    Capture cap;
    capture_begin(&cap);
    int rc = config_set(c, assignment, argn);
    capture_end(&cap, err, en);
    return rc;
}

static int validate_captured(const Config *c, char *err, size_t en) {
    Capture cap;
    capture_begin(&cap);
    int rc = config_validate(c);
    capture_end(&cap, err, en);
    return rc;
}

#define assert_contains(hay, needle) \
    ck_assert_msg(strstr((hay), (needle)) != NULL, "expected '%s' in: %s", (needle), (hay))

/* Loads a file that must fail at `line`; checks the return value, FILE:LINE, and one or two
 * further pieces of the message (the 'section.key' and the reason). */
static void expect_load_error(const char *text, int line, const char *piece1, const char *piece2) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX], err[4096], where[PATH_MAX + 32];
    ck_assert_int_eq(load_text(&c, text, path, sizeof path, err, sizeof err), -1);
    snprintf(where, sizeof where, "%s:%d: ", path, line);
    ck_assert_msg(strncmp(err, where, strlen(where)) == 0, "expected '%s' at the start of: %s",
                  where, err);
    if (piece1) assert_contains(err, piece1);
    if (piece2) assert_contains(err, piece2);
    ck_assert_msg(err[strlen(err) - 1] == '\n', "message should end in a newline: %s", err);
}

static void expect_set_error(const char *assignment, int argn, const char *piece1,
                             const char *piece2) {
    Config c;
    config_defaults(&c);
    Config before = c;
    char err[4096], prefix[64];
    ck_assert_int_eq(set_captured(&c, assignment, argn, err, sizeof err), -1);
    snprintf(prefix, sizeof prefix, "--set (argument %d): ", argn);
    ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "expected '%s' at start of: %s",
                  prefix, err);
    if (piece1) assert_contains(err, piece1);
    if (piece2) assert_contains(err, piece2);
    ck_assert_int_eq(memcmp(&before, &c, sizeof c), 0); /* nothing stored */
}

/* Every field; origins are compared separately where they matter. */
static void assert_config_eq(const Config *a, const Config *b) {
    ck_assert_str_eq(a->run_name, b->run_name);
    ck_assert_str_eq(a->run_dir, b->run_dir);
    ck_assert_int_eq(a->seed, b->seed);
    ck_assert_int_eq(a->threads, b->threads);
    ck_assert_int_eq(a->task, b->task);
    ck_assert_int_eq(a->task_length, b->task_length);
    ck_assert_int_eq(a->task_pairs, b->task_pairs);
    ck_assert_int_eq(a->task_symbols, b->task_symbols);
    ck_assert_str_eq(a->task_file, b->task_file);
    ck_assert_int_eq(a->val_size, b->val_size);
    ck_assert_int_eq(a->d_model, b->d_model);
    ck_assert_int_eq(a->n_heads, b->n_heads);
    ck_assert_int_eq(a->n_layers, b->n_layers);
    ck_assert_int_eq(a->d_ff, b->d_ff);
    ck_assert_int_eq(a->max_seq_len, b->max_seq_len);
    ck_assert_msg(a->ln_eps == b->ln_eps, "ln_eps %.17g != %.17g", a->ln_eps, b->ln_eps);
    ck_assert_int_eq(a->scale_mode, b->scale_mode);
    ck_assert_int_eq(a->qk_norm, b->qk_norm);
    ck_assert_msg(a->scale_value == b->scale_value, "scale_value %.17g != %.17g", a->scale_value,
                  b->scale_value);
    ck_assert_int_eq(a->init, b->init);
    ck_assert_msg(a->init_std == b->init_std, "init_std");
    ck_assert_int_eq(a->optim, b->optim);
    ck_assert_msg(a->lr == b->lr, "lr %.17g != %.17g", a->lr, b->lr);
    ck_assert_msg(a->beta1 == b->beta1, "beta1");
    ck_assert_msg(a->beta2 == b->beta2, "beta2");
    ck_assert_msg(a->eps == b->eps, "eps");
    ck_assert_msg(a->weight_decay == b->weight_decay, "weight_decay");
    ck_assert_msg(a->momentum == b->momentum, "momentum");
    ck_assert_msg(a->grad_clip == b->grad_clip, "grad_clip");
    ck_assert_int_eq(a->warmup_steps, b->warmup_steps);
    ck_assert_int_eq(a->schedule, b->schedule);
    ck_assert_msg(a->min_lr == b->min_lr, "min_lr");
    ck_assert_int_eq(a->steps, b->steps);
    ck_assert_int_eq(a->batch_size, b->batch_size);
    ck_assert_int_eq(a->eval_every, b->eval_every);
    ck_assert_int_eq(a->log_every, b->log_every);
    ck_assert_int_eq(a->progress, b->progress);
}

/* Every key set to something other than its default; line numbers are used by the tests. */
static const char *const FULL =
    "[run]\n"                                   /* 1 */
    "name = my-run_1.x\n"                       /* 2 */
    "dir = \"out dir\"\n"                       /* 3 */
    "seed = 123456789012\n"                     /* 4 */
    "threads = 3\n"                             /* 5 */
    "[task]\n"                                  /* 6 */
    "name = file\n"                             /* 7 */
    "length = 17\n"                             /* 8 */
    "pairs = 5\n"                               /* 9 */
    "symbols = 33\n"                            /* 10 */
    "file = \"data/x y.txt\"\n"                 /* 11 */
    "val_size = 77\n"                           /* 12 */
    "[model]\n"                                 /* 13 */
    "d_model = 96\n"                            /* 14 */
    "n_heads = 3\n"                             /* 15 */
    "n_layers = 4\n"                            /* 16 */
    "d_ff = 100\n"                              /* 17 */
    "max_seq_len = 50\n"                        /* 18 */
    "ln_eps = 1.2345678901234567e-7\n"          /* 19 */
    "[attention]\n"                             /* 20 */
    "scale = 0.1\n"                             /* 21 */
    "qk_norm = layernorm\n"                     /* 22 */
    "[init]\n"                                  /* 23 */
    "scheme = gpt2\n"                           /* 24 */
    "std = 0.1\n"                               /* 25 */
    "[optim]\n"                                 /* 26 */
    "name = sgd\n"                              /* 27 */
    "lr = 0.3\n"                                /* 28 */
    "beta1 = 0.1\n"                             /* 29 */
    "beta2 = 0.7\n"                             /* 30 */
    "eps = 3e-9\n"                              /* 31 */
    "weight_decay = 0.01\n"                     /* 32 */
    "momentum = 0.95\n"                         /* 33 */
    "grad_clip = 1.5\n"                         /* 34 */
    "warmup_steps = 11\n"                       /* 35 */
    "schedule = cosine\n"                       /* 36 */
    "min_lr = 1e-5\n"                           /* 37 */
    "[train]\n"                                 /* 38 */
    "steps = 5\n"                               /* 39 */
    "batch_size = 7\n"                          /* 40 */
    "eval_every = 9\n"                          /* 41 */
    "[log]\n"                                   /* 42 */
    "every = 3\n"                               /* 43 */
    "progress = 0\n";                           /* 44 */

static void load_ok(Config *c, const char *text, char *path, size_t pn) {
    char err[4096];
    int rc = load_text(c, text, path, pn, err, sizeof err);
    ck_assert_msg(rc == 0, "load failed: %s", err);
    ck_assert_str_eq(err, "");
}

/* ---------------------------------------------------------------- defaults and good files */

START_TEST(test_defaults_empty_file) {
    Config c, d;
    config_defaults(&d);
    config_defaults(&c);
    char path[PATH_MAX];
    load_ok(&c, "", path, sizeof path);
    assert_config_eq(&c, &d);
    ck_assert_str_eq(c.run_name, "run");
    ck_assert_str_eq(c.run_dir, "runs");
    ck_assert_int_eq(c.seed, 1);
    ck_assert_int_eq(c.threads, 0);
    ck_assert_int_eq(c.task, TASK_RECALL);
    ck_assert_int_eq(c.task_length, 8);
    ck_assert_int_eq(c.task_pairs, 8);
    ck_assert_int_eq(c.task_symbols, 16);
    ck_assert_str_eq(c.task_file, "");
    ck_assert_int_eq(c.val_size, 512);
    ck_assert_int_eq(c.d_model, 64);
    ck_assert_int_eq(c.n_heads, 1);
    ck_assert_int_eq(c.n_layers, 2);
    ck_assert_int_eq(c.d_ff, 0);
    ck_assert_int_eq(c.max_seq_len, 0);
    ck_assert(c.ln_eps == 1e-5);
    ck_assert_int_eq(c.scale_mode, SCALE_SQRT_DK);
    ck_assert_int_eq(c.qk_norm, QK_NORM_NONE);
    ck_assert_int_eq(c.init, INIT_FAN_IN);
    ck_assert(c.init_std == 0.02);
    ck_assert_int_eq(c.optim, OPT_ADAMW);
    ck_assert(c.lr == 1e-3);
    ck_assert(c.beta1 == 0.9);
    ck_assert(c.beta2 == 0.999);
    ck_assert(c.eps == 1e-8);
    ck_assert(c.weight_decay == 0.0);
    ck_assert(c.momentum == 0.9);
    ck_assert(c.grad_clip == 0.0);
    ck_assert_int_eq(c.warmup_steps, 0);
    ck_assert_int_eq(c.schedule, SCHED_CONSTANT);
    ck_assert(c.min_lr == 0.0);
    ck_assert_int_eq(c.steps, 2000);
    ck_assert_int_eq(c.batch_size, 64);
    ck_assert_int_eq(c.eval_every, 100);
    ck_assert_int_eq(c.log_every, 10);
    ck_assert_int_eq(c.progress, 1);
    ck_assert_str_eq(config_origin(&c, "model.d_model"), "default");
    ck_assert_int_eq(config_validate(&c), 0);
}
END_TEST

START_TEST(test_full_file_values_and_origins) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX], want[PATH_MAX + 16];
    load_ok(&c, FULL, path, sizeof path);
    ck_assert_str_eq(c.run_name, "my-run_1.x");
    ck_assert_str_eq(c.run_dir, "out dir");
    ck_assert_int_eq(c.seed, 123456789012L);
    ck_assert_int_eq(c.task, TASK_FILE);
    ck_assert_str_eq(c.task_file, "data/x y.txt");
    ck_assert_int_eq(c.d_model, 96);
    ck_assert(c.ln_eps == 1.2345678901234567e-7);
    ck_assert_int_eq(c.scale_mode, SCALE_VALUE);
    ck_assert(c.scale_value == 0.1);
    ck_assert_int_eq(c.init, INIT_GPT2);
    ck_assert_int_eq(c.optim, OPT_SGD);
    ck_assert_int_eq(c.schedule, SCHED_COSINE);
    ck_assert(c.min_lr == 1e-5);
    ck_assert_int_eq(c.progress, 0);
    snprintf(want, sizeof want, "%s:14", path);
    ck_assert_str_eq(config_origin(&c, "model.d_model"), want);
    snprintf(want, sizeof want, "%s:44", path);
    ck_assert_str_eq(config_origin(&c, "log.progress"), want);
    snprintf(want, sizeof want, "%s:21", path);
    ck_assert_str_eq(config_origin(&c, "attention.scale"), want);
    ck_assert_int_eq(c.qk_norm, QK_NORM_LAYERNORM);
    snprintf(want, sizeof want, "%s:22", path);
    ck_assert_str_eq(config_origin(&c, "attention.qk_norm"), want);
    ck_assert_int_eq(config_validate(&c), 0);
}
END_TEST

START_TEST(test_comments) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX];
    load_ok(&c,
            "; full-line comment\n"
            "# another\n"
            "   ; indented comment\n"
            "\n"
            "[model] ; comment after a header\n"
            "d_model = 32 ; inline semicolon\n"
            "n_heads = 4 # inline hash\n"
            "n_layers = 3\t# after a tab\n"
            "[run] # header comment with hash\n"
            "dir = a#b;c\n"              /* no whitespace before: part of the value */
            "name = \"x\" ; quoted, then a comment\n",
            path, sizeof path);
    ck_assert_int_eq(c.d_model, 32);
    ck_assert_int_eq(c.n_heads, 4);
    ck_assert_int_eq(c.n_layers, 3);
    ck_assert_str_eq(c.run_dir, "a#b;c");
    ck_assert_str_eq(c.run_name, "x");
}
END_TEST

START_TEST(test_crlf) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX];
    load_ok(&c, "; c\r\n[model]\r\nd_model = 48\r\n\r\n[run]\r\nname = crlf\r\n", path,
            sizeof path);
    ck_assert_int_eq(c.d_model, 48);
    ck_assert_str_eq(c.run_name, "crlf"); /* no '\r' left in the string */
}
END_TEST

START_TEST(test_bom) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX], want[PATH_MAX + 16];
    load_ok(&c, "\xEF\xBB\xBF[model]\nd_model = 16\n", path, sizeof path);
    ck_assert_int_eq(c.d_model, 16);
    snprintf(want, sizeof want, "%s:2", path);
    ck_assert_str_eq(config_origin(&c, "model.d_model"), want);
    /* A BOM on a later line is not a BOM but garbage. */
    expect_load_error("[model]\n\xEF\xBB\xBF" "d_model = 16\n", 2, "unknown key", NULL);
}
END_TEST

START_TEST(test_missing_final_newline) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX];
    load_ok(&c, "[train]\nsteps = 77", path, sizeof path);
    ck_assert_int_eq(c.steps, 77);
    config_defaults(&c);
    load_ok(&c, "\xEF\xBB\xBF[run]\r\nname = all3\r\nseed = 9", path, sizeof path);
    ck_assert_str_eq(c.run_name, "all3");
    ck_assert_int_eq(c.seed, 9);
}
END_TEST

START_TEST(test_quoted_strings) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX];
    load_ok(&c,
            "  [ task ]  \n"
            "  file   =   \"  spaced ; not a comment # either  \"   \n"
            "name=sort\n"
            "[ run]\n"
            "dir=\"quoted\"\n"
            "[optim]\n"
            "name = \"sgd\"\n",
            path, sizeof path);
    ck_assert_str_eq(c.task_file, "  spaced ; not a comment # either  ");
    ck_assert_int_eq(c.task, TASK_SORT);
    ck_assert_str_eq(c.run_dir, "quoted");
    ck_assert_int_eq(c.optim, OPT_SGD);
    /* An explicit "" is how an empty text is written. */
    load_ok(&c, "[task]\nfile = \"\"\n", path, sizeof path);
    ck_assert_str_eq(c.task_file, "");
}
END_TEST

START_TEST(test_failed_load_leaves_config_unchanged) {
    Config c, d;
    config_defaults(&c);
    config_defaults(&d);
    char path[PATH_MAX], err[4096];
    ck_assert_int_eq(load_text(&c, "[model]\nd_model = 32\nn_heads = x\n", path, sizeof path, err,
                               sizeof err),
                     -1);
    ck_assert_int_eq(c.d_model, 64);
    ck_assert_int_eq(memcmp(&c, &d, sizeof c), 0);
}
END_TEST

/* ---------------------------------------------------------------- file errors */

START_TEST(test_error_key_outside_section) {
    expect_load_error("; header comes later\nd_model = 3\n[model]\n", 2, "'d_model'",
                      "before any [section]");
}
END_TEST

START_TEST(test_error_bad_line) {
    expect_load_error("[model]\nd_model 64\n", 2, "expected '[section]', 'key = value'",
                      "'d_model 64'");
    expect_load_error("[model\n", 1, "closing ']'", NULL);
    expect_load_error("[model] extra\n", 1, "'extra'", NULL);
    expect_load_error("[]\n", 1, "empty section", NULL);
    expect_load_error("[model]\n = 3\n", 2, "missing key name", NULL);
}
END_TEST

START_TEST(test_error_unknown_section) {
    expect_load_error("[run]\nseed = 2\n[atention]\nscale = none\n", 3,
                      "unknown section [atention]; did you mean [attention]?", NULL);
    expect_load_error("[optimiser]\n", 1, "did you mean [optim]?", NULL);
    /* Far from everything: list the sections instead of a bogus guess. */
    expect_load_error("[foo]\n", 1, "unknown section [foo]; the sections are [run], [task]", NULL);
}
END_TEST

START_TEST(test_error_unknown_key) {
    expect_load_error("[model]\ndmodel = 64\n", 2,
                      "unknown key 'model.dmodel'; did you mean 'model.d_model'?", NULL);
    expect_load_error("[optim]\nwieght_decay = 0\n", 2, "did you mean 'optim.weight_decay'?", NULL);
    /* The right key under the wrong header points to the other section. */
    expect_load_error("[model]\nlr = 0.1\n", 2, "unknown key 'model.lr'; did you mean 'optim.lr'",
                      NULL);
    expect_load_error("[optim]\nwarmup = 10\n", 2, "did you mean 'optim.warmup_steps'?", NULL);
    expect_load_error("[log]\nzzzzzzzz = 1\n", 2,
                      "unknown key 'log.zzzzzzzz'; the keys of [log] are",
                      "every, progress");
}
END_TEST

START_TEST(test_error_duplicate_key) {
    expect_load_error("[model]\nd_model = 32\nn_layers = 3\nd_model = 32\n", 4,
                      "'model.d_model'", "first at line 2");
    /* a section opened again is an error of its own, naming both headers */
    expect_load_error("[model]\nd_model = 32\n[run]\nseed = 3\n[model]\nd_model = 32\n", 5,
                      "[model] appears twice", "first at line 1");
}
END_TEST

START_TEST(test_error_wrong_type) {
    expect_load_error("[model]\nd_model = abc\n", 2, "'model.d_model'",
                      "expected an integer, got 'abc'");
    expect_load_error("[model]\nd_model = 1.5\n", 2, "'model.d_model'", "expected an integer");
    expect_load_error("[optim]\nlr = fast\n", 2, "'optim.lr'", "expected a number, got 'fast'");
}
END_TEST

START_TEST(test_error_trailing_garbage) {
    expect_load_error("[model]\nd_model = 64x\n", 2, "'model.d_model'", "'64x'");
    expect_load_error("[optim]\nlr = 1e-3abc\n", 2, "'optim.lr'", "'1e-3abc'");
    expect_load_error("[model]\nd_model = 0x10\n", 2, "'model.d_model'", "base 10");
    expect_load_error("[optim]\nlr = 0x1p-3\n", 2, "'optim.lr'", "decimal");
    expect_load_error("[model]\nd_model = 6 4\n", 2, "'model.d_model'", "'6 4'");
}
END_TEST

START_TEST(test_error_out_of_range) {
    expect_load_error("[model]\nd_model = 0\n", 2, "'model.d_model'", "[1, 8192]");
    expect_load_error("[task]\nlength = 257\n", 2, "'task.length'", "[1, 256]");
    expect_load_error("[run]\nseed = -1\n", 2, "'run.seed'", ">= 0");
    expect_load_error("[log]\nprogress = 2\n", 2, "'log.progress'", "[0, 1]");
    expect_load_error("[model]\nln_eps = 1\n", 2, "'model.ln_eps'", "(0, 1)");
    expect_load_error("[optim]\nbeta1 = 1.0\n", 2, "'optim.beta1'", "[0, 1)");
    expect_load_error("[optim]\nlr = 0\n", 2, "'optim.lr'", "(0, 10]");
    expect_load_error("[optim]\neps = 0\n", 2, "'optim.eps'", "> 0");
    expect_load_error("[optim]\ngrad_clip = -0.5\n", 2, "'optim.grad_clip'", ">= 0");
    expect_load_error("[train]\nsteps = 100000001\n", 2, "'train.steps'", "[0, 100000000]");
}
END_TEST

START_TEST(test_error_overflow) {
    expect_load_error("[run]\nseed = 99999999999999999999999\n", 2, "'run.seed'", "overflow");
    expect_load_error("[train]\neval_every = 2147483648\n", 2, "'train.eval_every'", "overflow");
    expect_load_error("[optim]\nwarmup_steps = -99999999999999999999\n", 2, "'optim.warmup_steps'",
                      "overflow");
}
END_TEST

START_TEST(test_error_empty_value) {
    expect_load_error("[model]\nd_model =\n", 2, "'model.d_model'", "empty value");
    expect_load_error("[model]\nd_model =   ; comment only\n", 2, "'model.d_model'", "empty value");
    expect_load_error("[run]\ndir =\n", 2, "'run.dir'", "empty value");
    expect_load_error("[model]\nd_model = \"\"\n", 2, "'model.d_model'", "empty value");
    expect_load_error("[run]\nname = \"\"\n", 2, "'run.name'", "must not be empty");
}
END_TEST

START_TEST(test_error_not_finite) {
    expect_load_error("[optim]\nlr = nan\n", 2, "'optim.lr'", "not a finite number");
    expect_load_error("[optim]\nlr = inf\n", 2, "'optim.lr'", "not a finite number");
    expect_load_error("[optim]\ngrad_clip = -inf\n", 2, "'optim.grad_clip'", "not a finite");
    expect_load_error("[optim]\neps = 1e999\n", 2, "'optim.eps'", "not a finite number");
}
END_TEST

START_TEST(test_error_string_too_long) {
    char text[CONFIG_STR + 64], *p = text;
    p += sprintf(p, "[run]\ndir = ");
    memset(p, 'a', CONFIG_STR);
    p[CONFIG_STR] = '\0';
    strcat(text, "\n");
    expect_load_error(text, 2, "'run.dir'", "at most 255");
    /* One shorter fits exactly. */
    Config c;
    config_defaults(&c);
    char path[PATH_MAX];
    text[strlen(text) - 2] = '\n';
    text[strlen(text) - 1] = '\0';
    load_ok(&c, text, path, sizeof path);
    ck_assert_uint_eq(strlen(c.run_dir), CONFIG_STR - 1);
}
END_TEST

START_TEST(test_error_bad_strings) {
    expect_load_error("[run]\nname = a/b\n", 2, "'run.name'", "letters, digits");
    expect_load_error("[run]\nname = \"has space\"\n", 2, "'run.name'", "letters, digits");
    expect_load_error("[run]\nname = ..\n", 2, "'run.name'", NULL);
    expect_load_error("[task]\nfile = \"open\n", 2, "'task.file'", "unterminated double quote");
    expect_load_error("[task]\nfile = a\"b\"c\n", 2, "'task.file'", "double quotes");
}
END_TEST

START_TEST(test_error_unknown_enum) {
    expect_load_error("[optim]\nname = adam\n", 2, "'optim.name'",
                      "unknown value 'adam'; expected one of adamw, sgd");
    expect_load_error("[task]\nname = Sort\n", 2, "'task.name'",
                      "sort, reverse, copy, recall, file");
    expect_load_error("[optim]\nschedule = linear\n", 2, "'optim.schedule'", "constant, cosine");
    expect_load_error("[init]\nscheme = xavier\n", 2, "'init.scheme'", "fan_in, gpt2");
    expect_load_error("[model]\nd_model = 32\n[attention]\nqk_norm = bogus\n", 4,
                      "'attention.qk_norm'", "unknown value 'bogus'; expected one of none, layernorm");
    expect_load_error("[attention]\nqk_norm = 1\n", 2, "'attention.qk_norm'", "none, layernorm");
    expect_set_error("attention.qk_norm=LayerNorm", 3, "'attention.qk_norm'", "none, layernorm");
}
END_TEST

/* A NUL byte would end the line for the parser: "d_model = 1" then silently nothing. */
/* config_assignment_sets reads the key as config_set does. */
START_TEST(test_assignment_sets) {
    ck_assert(config_assignment_sets("train.steps=5", "train.steps"));
    ck_assert(config_assignment_sets("  train . steps = 5", "train.steps"));
    ck_assert(!config_assignment_sets("train.steps_x=5", "train.steps"));
    ck_assert(!config_assignment_sets("train.step=5", "train.steps"));
    ck_assert(!config_assignment_sets("tra.steps=5", "train.steps"));
    ck_assert(!config_assignment_sets("train.steps", "train.steps")); /* no '=' */
    ck_assert(!config_assignment_sets("trainsteps=5", "train.steps"));
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_set(&c, "  train . steps = 5", 1), 0); /* what config_set accepts */
    ck_assert_int_eq(c.steps, 5);
}
END_TEST

START_TEST(test_error_nul_byte) {
    static const char text[] = "[model]\nd_model = 1\0" "28\nn_heads = 2\n";
    Config c;
    config_defaults(&c);
    int before = c.d_model;
    char err[512];
    ck_assert_int_eq(load_bytes(&c, text, sizeof text - 1, err, sizeof err), -1);
    assert_contains(err, "bytes.ini:2: a NUL byte");
    ck_assert_int_eq(c.d_model, before); /* unchanged on error */
}
END_TEST

START_TEST(test_error_attention_scale) {
    const char *accepted = "sqrt_dk, none, inv_dk or a number in [1e-6, 1e6]";
    expect_load_error("[attention]\nscale = 0\n", 2, "'attention.scale'", accepted);
    expect_load_error("[attention]\nscale = -0.5\n", 2, "'attention.scale'", accepted);
    expect_load_error("[attention]\nscale = sqrt\n", 2, "'attention.scale'", "got 'sqrt'");
    expect_load_error("[attention]\nscale = nan\n", 2, "'attention.scale'", accepted);
    expect_load_error("[attention]\nscale = 0.5x\n", 2, "'attention.scale'", accepted);
    expect_load_error("[attention]\nscale = 1e38\n", 2, "'attention.scale'", accepted);
    expect_load_error("[attention]\nscale = 1e-300\n", 2, "'attention.scale'", accepted);
    expect_load_error("[attention]\nscale = 1.0000001e6\n", 2, "'attention.scale'", accepted);
    const char *bounds[] = {"[attention]\nscale = 1e6\n", "[attention]\nscale = 1e-6\n"};
    for (int i = 0; i < 2; i++) { /* the bounds themselves are accepted */
        Config c;
        config_defaults(&c);
        ck_assert_int_eq(config_load_text(&c, "t.ini", bounds[i], strlen(bounds[i])), 0);
        ck_assert(c.scale_value == (i ? 1e-6 : 1e6));
    }
}
END_TEST

START_TEST(test_error_missing_file) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX], err[4096], want[PATH_MAX + 64];
    fixture_path("does-not-exist.ini", path, sizeof path);
    Capture cap;
    capture_begin(&cap);
    int rc = config_load_file(&c, path);
    capture_end(&cap, err, sizeof err);
    ck_assert_int_eq(rc, -1);
    snprintf(want, sizeof want, "cannot open '%s': No such file or directory", path);
    assert_contains(err, want);
}
END_TEST

START_TEST(test_error_unreadable_file) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX], err[4096], want[PATH_MAX + 64];
    fixture_path("a-directory.ini", path, sizeof path);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    Capture cap;
    capture_begin(&cap);
    int rc = config_load_file(&c, path);
    capture_end(&cap, err, sizeof err);
    rmdir(path);
    ck_assert_int_eq(rc, -1);
    snprintf(want, sizeof want, "'%s': ", path);
    assert_contains(err, want);
    assert_contains(err, "cannot");
}
END_TEST

/* ---------------------------------------------------------------- --set */

START_TEST(test_set_overrides_file) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX];
    load_ok(&c, "[model]\nd_model = 32\nn_heads = 2\n", path, sizeof path);
    ck_assert_int_eq(config_set(&c, "model.d_model=128", 3), 0);
    ck_assert_int_eq(c.d_model, 128);
    ck_assert_str_eq(config_origin(&c, "model.d_model"), "--set argument 3");
    ck_assert_int_eq(c.n_heads, 2); /* untouched */
    /* Repeated --set: the last one wins. */
    ck_assert_int_eq(config_set(&c, "model.d_model=256", 5), 0);
    ck_assert_int_eq(config_set(&c, " model . d_model = 512 ", 7), 0);
    ck_assert_int_eq(c.d_model, 512);
    ck_assert_str_eq(config_origin(&c, "model.d_model"), "--set argument 7");
    ck_assert_int_eq(config_set(&c, "run.dir=\"with space\"", 8), 0);
    ck_assert_str_eq(c.run_dir, "with space");
    ck_assert_int_eq(config_set(&c, "run.dir=a ;b", 9), 0); /* no comments in --set */
    ck_assert_str_eq(c.run_dir, "a ;b");
    ck_assert_int_eq(config_set(&c, "attention.scale=inv_dk", 10), 0);
    ck_assert_int_eq(c.scale_mode, SCALE_INV_DK);
}
END_TEST

START_TEST(test_set_errors) {
    expect_set_error("model.d_model", 2, "missing '='", NULL);
    expect_set_error("d_model=3", 4, "missing '.'", NULL);
    expect_set_error("model.d_model=abc", 4, "'model.d_model': expected an integer, got 'abc'",
                     NULL);
    expect_set_error("model.d_model=", 6, "'model.d_model': empty value", NULL);
    expect_set_error("model.d_model=9000", 2, "'model.d_model'", "[1, 8192]");
    expect_set_error("atention.scale=none", 3, "did you mean [attention]?", NULL);
    expect_set_error("model.dmodel=3", 3, "did you mean 'model.d_model'?", NULL);
    expect_set_error("optim.name=adam", 8, "'optim.name'", "adamw, sgd");
    expect_set_error("attention.scale=-1", 1, "'attention.scale'", "a number in [1e-6, 1e6]");
}
END_TEST

/* ---------------------------------------------------------------- validate */

START_TEST(test_validate_heads) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX], err[4096], want[2 * PATH_MAX + 128];
    load_ok(&c, "; x\n[model]\nd_model = 65\nn_heads = 2\n", path, sizeof path);
    ck_assert_int_eq(validate_captured(&c, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s:3: 'model.d_model' = 65 is not divisible by 'model.n_heads' = 2 (set at %s:4)",
             path, path);
    assert_contains(err, want);

    /* d_model left at its default: the message points at n_heads, where the user can act. */
    config_defaults(&c);
    ck_assert_int_eq(config_set(&c, "model.n_heads=3", 2), 0);
    ck_assert_int_eq(validate_captured(&c, err, sizeof err), -1);
    assert_contains(err, "--set argument 2: 'model.n_heads' = 3");
    assert_contains(err, "'model.d_model' = 64 (default)");

    ck_assert_int_eq(config_set(&c, "model.n_heads=4", 3), 0);
    ck_assert_int_eq(validate_captured(&c, err, sizeof err), 0);
    ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(test_validate_task_file) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX], err[4096], want[PATH_MAX + 64];
    load_ok(&c, "[task]\nname = file\n", path, sizeof path);
    ck_assert_int_eq(validate_captured(&c, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: 'task.name' = file", path);
    assert_contains(err, want);
    assert_contains(err, "'task.file'");
    ck_assert_int_eq(config_set(&c, "task.file=data/x.txt", 2), 0);
    ck_assert_int_eq(config_validate(&c), 0);
}
END_TEST

START_TEST(test_validate_min_lr) {
    Config c;
    config_defaults(&c);
    char path[PATH_MAX], err[4096], want[2 * PATH_MAX + 128];
    load_ok(&c, "[optim]\nlr = 0.01\nmin_lr = 0.1\n", path, sizeof path);
    ck_assert_int_eq(config_validate(&c), 0); /* constant schedule ignores min_lr */
    ck_assert_int_eq(config_set(&c, "optim.schedule=cosine", 4), 0);
    ck_assert_int_eq(validate_captured(&c, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s:3: 'optim.min_lr' = 0.1 is larger than 'optim.lr' = 0.01 (set at %s:2)", path,
             path);
    assert_contains(err, want);
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
    ck_assert_int_eq(validate_captured(&c, err, sizeof err), -1);
    assert_contains(err, "'model.n_heads'");
    assert_contains(err, "'task.name'");
}
END_TEST

/* ---------------------------------------------------------------- origin, writer, scale */

START_TEST(test_origin) {
    Config c;
    config_defaults(&c);
    ck_assert_str_eq(config_origin(&c, "optim.lr"), "default");
    ck_assert_str_eq(config_origin(&c, "optim.nope"), "(unknown key)");
    ck_assert_str_eq(config_origin(&c, "nodot"), "(unknown key)");
    ck_assert_int_eq(config_set(&c, "optim.lr=0.5", 12), 0);
    ck_assert_str_eq(config_origin(&c, "optim.lr"), "--set argument 12");
    ck_assert_str_eq(config_origin(&c, "optim.beta1"), "default");
}
END_TEST

/* Writes c, checks every key line is preceded by a comment line, loads it back into fresh
 * defaults and compares. */
static void round_trip(const Config *c) {
    char path[PATH_MAX];
    fixture_path("written.ini", path, sizeof path);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    config_write(c, f);
    ck_assert_int_eq(ferror(f), 0);
    ck_assert_int_eq(fclose(f), 0);

    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024], prev[1024] = "";
    int keys = 0, sections = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '[') sections++;
        else if (line[0] != ';' && line[0] != '\n') {
            keys++;
            ck_assert_msg(prev[0] == ';' && prev[1] == ' ' && prev[2] != '\n',
                          "key line without a help comment: %s", line);
        }
        memcpy(prev, line, sizeof line);
    }
    fclose(f);
    ck_assert_int_eq(keys, config_key_count());
    ck_assert_int_eq(sections, 9);

    Config back;
    config_defaults(&back);
    Capture cap;
    char err[4096];
    capture_begin(&cap);
    int rc = config_load_file(&back, path);
    capture_end(&cap, err, sizeof err);
    ck_assert_msg(rc == 0, "written file does not load: %s", err);
    assert_config_eq(&back, c);
    remove(path);
}

START_TEST(test_write_round_trip) {
    Config c;
    config_defaults(&c);
    round_trip(&c); /* defaults, empty task.file included */
    char path[PATH_MAX];
    load_ok(&c, FULL, path, sizeof path);
    round_trip(&c); /* every key non-default */
    ck_assert_int_eq(config_set(&c, "optim.lr=0.30000000000000004", 1), 0);
    ck_assert_int_eq(config_set(&c, "attention.scale=0.123456789012345678", 2), 0);
    ck_assert_int_eq(config_set(&c, "run.seed=9223372036854775807", 3), 0);
    round_trip(&c);
}
END_TEST

START_TEST(test_write_scale_modes) {
    static const char *const modes[] = {"sqrt_dk", "none", "inv_dk"};
    for (int m = 0; m < 3; m++) {
        Config c;
        config_defaults(&c);
        ck_assert_int_eq(config_set(&c, "attention.scale=2.5", 1), 0);
        char set[64];
        snprintf(set, sizeof set, "attention.scale=%s", modes[m]);
        ck_assert_int_eq(config_set(&c, set, 2), 0);
        ck_assert_int_eq(c.scale_mode, (ScaleMode)m);
        ck_assert(c.scale_value == 0.0); /* a stale number would not survive a round trip */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ck_assert_ptr_nonnull(f);
        config_write(&c, f);
        fclose(f);
        char want[64];
        snprintf(want, sizeof want, "\nscale = %s\n", modes[m]);
        assert_contains(buf, want);
        free(buf);
        round_trip(&c);
    }
}
END_TEST

START_TEST(test_attention_scale) {
    Config c;
    config_defaults(&c);
    ck_assert_double_eq_tol(config_attention_scale(&c, 16), 0.25, 1e-15);
    ck_assert_double_eq_tol(config_attention_scale(&c, 2), 1.0 / sqrt(2.0), 1e-15);
    ck_assert_int_eq(config_set(&c, "attention.scale=none", 1), 0);
    ck_assert_double_eq(config_attention_scale(&c, 16), 1.0);
    ck_assert_int_eq(config_set(&c, "attention.scale=inv_dk", 1), 0);
    ck_assert_double_eq(config_attention_scale(&c, 16), 1.0 / 16.0);
    ck_assert_int_eq(config_set(&c, "attention.scale=0.7", 1), 0);
    ck_assert_int_eq(c.scale_mode, SCALE_VALUE);
    ck_assert_double_eq(config_attention_scale(&c, 16), 0.7);
    ck_assert_double_eq(config_attention_scale(&c, 64), 0.7);
    ck_assert_int_eq(config_set(&c, "attention.scale=3", 1), 0); /* integer-looking numbers too */
    ck_assert_double_eq(config_attention_scale(&c, 64), 3.0);
}
END_TEST

/* ---------------------------------------------------------------- README */

#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

/* Every key has its line in the README's reference table, with the default the code uses. */
START_TEST(test_readme_lists_every_key) {
    FILE *f = fopen(SCALEDOT_SOURCE_DIR "/README.md", "r");
    ck_assert_msg(f != NULL, "cannot open README.md");
    static char text[1 << 18];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    for (int i = 0; i < config_key_count(); i++) {
        ConfigKeyInfo k;
        ck_assert_int_eq(config_key_info(i, &k), 0);
        char want[256];
        snprintf(want, sizeof want, "| `%s.%s` | `%s` |", k.section, k.key,
                 *k.default_text ? k.default_text : "\"\"");
        ck_assert_msg(strstr(text, want) != NULL,
                      "README.md has no reference-table line starting '%s' (regenerate it with "
                      "./train --reference-table)", want);
    }
}
END_TEST

/* ---------------------------------------------------------------- key table */

START_TEST(test_key_table) {
    int n = config_key_count();
    ck_assert_int_eq(n, 44);
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
        assert_config_eq(&c, &d);
        ck_assert_str_eq(config_origin(&c, name), "--set argument 1");
    }
    ck_assert_int_eq(config_key_index("model.nope"), -1);
    ck_assert_int_eq(config_key_index("model"), -1);
    ck_assert_int_eq(config_key_index("mode.d_model"), -1);
}
END_TEST

START_TEST(test_reference_table) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    config_write_reference_table(f);
    fclose(f);
    ck_assert(strncmp(buf, "| key | default | meaning |\n|---|---|---|\n", 42) == 0);
    int rows = 0;
    for (char *p = buf; (p = strchr(p, '\n')); p++) rows++;
    ck_assert_int_eq(rows, 2 + config_key_count());
    assert_contains(buf, "| `model.d_model` | `64` | Width of the residual stream");
    assert_contains(buf, "| `task.file` | `\"\"` |");
    assert_contains(buf, "| `optim.lr` | `1e-3` |");
    assert_contains(buf, "sort, reverse, copy, recall, file");
    free(buf);
}
END_TEST

/* ---------------------------------------------------------------- suite */

/* ---------------------------------------------------------------- found by fuzzing
 * Inputs from fuzz/ (.ci/fuzz.sh) that broke a promise of config.h, kept as regressions. */

/* fuzz_config_set: a --set text value holding a line break was accepted, so config_write (the
 * run's config.ini) wrote a line that config_load_file rejects. */
START_TEST(test_fuzz_set_line_break) {
    expect_set_error("task.file=data/w.txt\ntask.vao_size=8", 2, "'task.file'", "line break");
    expect_set_error("run.dir=\"runs\r\"", 3, "'run.dir'", "line break");
    expect_load_error("[task]\nfile = a\rb\n", 2, "'task.file'", "line break");
    /* Other odd bytes stay allowed and survive the round trip. */
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_set(&c, "task.file=\"\ta b ;#c\t\"", 1), 0);
    round_trip(&c);
}
END_TEST

static Suite *config_suite(void) {
    Suite *s = suite_create("config");
    TCase *good = tcase_create("reading");
    tcase_add_test(good, test_defaults_empty_file);
    tcase_add_test(good, test_full_file_values_and_origins);
    tcase_add_test(good, test_comments);
    tcase_add_test(good, test_crlf);
    tcase_add_test(good, test_bom);
    tcase_add_test(good, test_missing_final_newline);
    tcase_add_test(good, test_quoted_strings);
    tcase_add_test(good, test_failed_load_leaves_config_unchanged);
    suite_add_tcase(s, good);

    TCase *bad = tcase_create("file errors");
    tcase_add_test(bad, test_error_key_outside_section);
    tcase_add_test(bad, test_error_bad_line);
    tcase_add_test(bad, test_error_unknown_section);
    tcase_add_test(bad, test_error_unknown_key);
    tcase_add_test(bad, test_error_duplicate_key);
    tcase_add_test(bad, test_error_wrong_type);
    tcase_add_test(bad, test_error_trailing_garbage);
    tcase_add_test(bad, test_error_out_of_range);
    tcase_add_test(bad, test_error_overflow);
    tcase_add_test(bad, test_error_empty_value);
    tcase_add_test(bad, test_error_not_finite);
    tcase_add_test(bad, test_error_string_too_long);
    tcase_add_test(bad, test_error_bad_strings);
    tcase_add_test(bad, test_error_unknown_enum);
    tcase_add_test(bad, test_error_attention_scale);
    tcase_add_test(bad, test_error_nul_byte);
    tcase_add_test(bad, test_assignment_sets);
    tcase_add_test(bad, test_error_missing_file);
    tcase_add_test(bad, test_error_unreadable_file);
    suite_add_tcase(s, bad);

    TCase *set = tcase_create("set and validate");
    tcase_add_test(set, test_set_overrides_file);
    tcase_add_test(set, test_set_errors);
    tcase_add_test(set, test_validate_heads);
    tcase_add_test(set, test_validate_task_file);
    tcase_add_test(set, test_validate_min_lr);
    tcase_add_test(set, test_validate_reports_all_and_allows_long_warmup);
    tcase_add_test(set, test_origin);
    suite_add_tcase(s, set);

    TCase *out = tcase_create("writing");
    tcase_add_test(out, test_write_round_trip);
    tcase_add_test(out, test_write_scale_modes);
    tcase_add_test(out, test_attention_scale);
    tcase_add_test(out, test_key_table);
    tcase_add_test(out, test_reference_table);
    tcase_add_test(out, test_readme_lists_every_key);
    suite_add_tcase(s, out);

    TCase *fz = tcase_create("found by fuzzing");
    tcase_add_test(fz, test_fuzz_set_line_break);
    suite_add_tcase(s, fz);
    return s;
}

int main(void) {
    make_dir();
    int rc = tu_run(config_suite());
    remove_dir();
    return rc;
}
