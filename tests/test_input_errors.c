/* test_input_errors.c: the last bad inputs that got through (issue 13), each refused with a
 * message naming where: a section repeated in an INI file (both lines), a --set value over the
 * length limit (its key), a task file's '#' comment after whitespace (a comment, as in the INI
 * files), the same prompt with two answers (both lines), and a checkpoint whose run state is
 * impossible (a negative step) or beyond the run's train.steps; a path with control bytes quoted
 * escaped and a flag given twice refused, by the program itself. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "testutil.h"
#include "train/checkpoint.h"

static char tmpdir[200];

static void setup(void) { tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_input_XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmpdir); }

/* Loads text as an INI file; returns the result, stderr in *err (the caller frees). */
static int load_ini(Config *c, const char *text, char *path, size_t n, char **err) {
    snprintf(path, n, "%s/c.ini", tmpdir);
    tu_write_file(path, text);
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = config_load_file(c, path);
    *err = tu_capture_end(&cap);
    return rc;
}

START_TEST(test_repeated_section) {
    Config c;
    config_defaults(&c);
    char path[300], want[340], *err;
    ck_assert_int_eq(load_ini(&c, "[model]\nd_model = 32\n[optim]\nlr = 0.01\n\n[model]\nn_layers = 3\n",
                              path, sizeof path, &err), -1);
    snprintf(want, sizeof want, "error: %s:6: ", path);
    ck_assert_msg(strstr(err, want) == err && strstr(err, "[model]") && strstr(err, "line 1"), "%s", err);
    free(err);
    /* each section once, in any order, is fine */
    ck_assert_int_eq(load_ini(&c, "[optim]\nlr = 0.01\n[model]\nd_model = 32\n", path, sizeof path, &err), 0);
    free(err);
}
END_TEST

/* An INI file with several errors names every one in one run (it stopped at the first: N typos
 * took N fixes and N runs): two unknown keys, each with its "did you mean", a value out of range
 * between them, and an unknown section whose keys are not reported again; exit 2 before any work:
 * no run folder. */
START_TEST(test_every_error_named) {
    char path[300], runs[300];
    snprintf(path, sizeof path, "%s/typos.ini", tmpdir);
    tu_write_file(path, "[run]\nname = typos\n[model]\nd_modle = 32\nn_heads = 0\n[optim]\n"
                        "learning_rate = 1e-3\n[trian]\nsteps = 5\n");
    ck_assert_int_eq(tu_run_train(tmpdir, "typos.ini"), 2);
    static const char *const LINES[] = {
        "typos.ini:4: unknown key 'model.d_modle'; did you mean 'model.d_model'?\n",
        "typos.ini:5: 'model.n_heads': 0 is out of range; allowed: integer in [1, 1024]\n",
        "typos.ini:7: unknown key 'optim.learning_rate'; the keys of [optim] are name, lr,",
        "typos.ini:8: unknown section [trian]; did you mean [train]?\n"};
    for (size_t i = 0; i < sizeof LINES / sizeof LINES[0]; i++)
        ck_assert_msg(tu_train_output_contains(tmpdir, LINES[i]), "no '%s'", LINES[i]);
    ck_assert(!tu_train_output_contains(tmpdir, "typos.ini:9"));
    snprintf(runs, sizeof runs, "%s/runs", tmpdir);
    ck_assert_int_eq(access(runs, F_OK), -1);
}
END_TEST

/* Several bad --set are all named in one run, each with its argument, as a config file's errors
 * are (it stopped at the first); exit 2 before any work: no run folder. */
START_TEST(test_every_bad_set_named) {
    char runs[300];
    ck_assert_int_eq(tu_run_train(tmpdir, "--set run.name=sets --set optim.lr=abc --set "
                                          "model.d_modle=32 --set train.steps=1"), 2);
    ck_assert(tu_train_output_contains(tmpdir, "--set (argument 4): 'optim.lr': expected a number"));
    ck_assert(tu_train_output_contains(tmpdir, "--set (argument 6): unknown key 'model.d_modle'"));
    snprintf(runs, sizeof runs, "%s/runs", tmpdir);
    ck_assert_int_eq(access(runs, F_OK), -1);
}
END_TEST

/* What ./train printed last (its out.txt), whole; the caller frees. */
static char *train_output(void) {
    char path[300];
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    char *out = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(out);
    return out;
}

/* A config file's errors and the bad --set of one line are named in one run (the file's errors
 * hid the --set ones): the file's first, as it is read first, though it stands after a --set on
 * the line, then each --set at its argument, all in one form ("error: WHERE: ..."), each once;
 * under one cap: 19 errors of a file (lines 2-20), then 3 bad --set, name the first --set as
 * the 20th and count 2 more after it. Exit 2 before any work: no run folder. */
START_TEST(test_file_and_sets_named_together) {
    char path[300], runs[300];
    snprintf(path, sizeof path, "%s/both.ini", tmpdir);
    tu_write_file(path, "[run]\nname = both\n[model]\nd_modle = 32\n");
    ck_assert_int_eq(tu_run_train(tmpdir, "--set optim.lr=abc both.ini --set model.n_layers=0"), 2);
    char *out = train_output();
    ck_assert_str_eq(out, "error: both.ini:4: unknown key 'model.d_modle'; did you mean "
                          "'model.d_model'?\n"
                          "error: --set (argument 2): 'optim.lr': expected a number, got 'abc'\n"
                          "error: --set (argument 5): 'model.n_layers': 0 is out of range; "
                          "allowed: integer in [1, 64]\n");
    free(out);
    snprintf(runs, sizeof runs, "%s/runs", tmpdir);
    ck_assert_int_eq(access(runs, F_OK), -1);
    char text[400] = "[model]\n";
    for (int i = 0; i < 19; i++) strcat(text, "nokey = 1\n");
    tu_write_file(path, text);
    ck_assert_int_eq(tu_run_train(tmpdir, "both.ini --set optim.lr=a --set optim.lr2=b "
                                          "--set train.steps=c"), 2);
    out = train_output();
    int lines = 0;
    for (const char *p = out; *p; p++) lines += *p == '\n';
    ck_assert_int_eq(lines, 21);
    ck_assert_msg(strstr(out, "error: both.ini:20: unknown key 'model.nokey'") &&
                      !strstr(out, "argument 5") && !strstr(out, "argument 7"),
                  "%s", out);
    const char *last = "error: --set (argument 3): 'optim.lr': expected a number, got 'a'\n"
                       "error: --set (argument 3): 20 errors named; 2 more after this one, not "
                       "named\n";
    ck_assert_msg(strlen(out) > strlen(last) && !strcmp(out + strlen(out) - strlen(last), last),
                  "%s", out);
    free(out);
}
END_TEST

/* The checks between keys are named with the file's and the --set errors of the line, in
 * argument order (the file's first; they came only after every value was good, one bad value
 * hid them), and left out where a key they involve holds another value than the one the user
 * gave: a refused value (of the file or a --set), a key given twice in the file, a key under a
 * section header given twice, a file that cannot be read (the defaults: d_model 64, n_heads 1),
 * a key under a refused header (every key of its name), before any header, or misspelled (the
 * key suggested). The file's errors, checks included, in the order of its lines.
 * A value the file refused and a --set gave again is the user's: judged. The whole output;
 * exit 2, no run folder. */
START_TEST(test_checks_between_keys_named_with_the_rest) {
    static const struct {
        const char *ini; /* f.ini's text, NULL: no file written */
        const char *args, *out;
    } CASES[] = {
        {"[model]\nd_model = 65\nn_heads = 2\n[optim]\nlr = fast\n",
         "--set train.steps=x f.ini --set attention.qk_norm=layernorm --set attention.qk_clip=5",
         "error: f.ini:2: 'model.d_model' = 65 is not divisible by 'model.n_heads' = 2 (set at "
         "f.ini:3)\n"
         "error: f.ini:5: 'optim.lr': expected a number, got 'fast'\n"
         "error: --set (argument 2): 'train.steps': expected an integer, got 'x'\n"
         "error: --set (argument 7): 'attention.qk_clip' = 5 cannot bound the logits with "
         "'attention.qk_norm' on (set at --set (argument 5)): qk-norm undoes the shrinking of the "
         "q and k weights; use one of the two\n"},
        /* d_model = 96 under the second [model] is not read: 64 is not the user's */
        {"[model]\nn_heads = 3\n[model]\nd_model = 96\n", "f.ini",
         "error: f.ini:3: section [model] appears twice (first at line 1); put its keys under one "
         "header\n"},
        {"[model]\nn_heads = 3\nn_heads = 4\n", "f.ini",
         "error: f.ini:3: 'model.n_heads': set twice in this file (first at line 2)\n"},
        /* task.file is not empty for the user: no "needs a path in 'task.file'" */
        {"[task]\nname = file\nfile = \"data.txt\n", "f.ini",
         "error: f.ini:3: 'task.file': unterminated double quote\n"},
        {"[model]\nd_model = abc\nn_heads = 2\n", "f.ini --set model.d_model=65",
         "error: f.ini:2: 'model.d_model': expected an integer, got 'abc'\n"
         "error: --set (argument 3): 'model.d_model' = 65 is not divisible by 'model.n_heads' = 2 "
         "(set at f.ini:3)\n"},
        {NULL, "missing.ini --set model.n_heads=3",
         "error: cannot open 'missing.ini': No such file or directory\n"},
        /* lr = 0.01 under a refused header is not read: 0.001 (default) is not the user's, for
         * a header without ']', with text after it, or of an unknown section */
        {"[optim\nlr = 0.01\n", "f.ini --set optim.schedule=cosine --set optim.min_lr=0.005",
         "error: f.ini:1: section header without closing ']'\n"},
        {"[optim]  extra words\nlr = 0.01\n",
         "f.ini --set optim.schedule=cosine --set optim.min_lr=0.005",
         "error: f.ini:1: unexpected text 'extra words' after the section header\n"},
        {"[optm]\nlr = 0.01\n", "f.ini --set optim.schedule=cosine --set optim.min_lr=0.005",
         "error: f.ini:1: unknown section [optm]; did you mean [optim]?\n"},
        {"[task]]\nname = text\nfile = corpus.txt\n", "f.ini --set task.name=text",
         "error: f.ini:1: unexpected text ']' after the section header\n"},
        /* a key before any header, a misspelled one (its suggestion unsure), also by --set */
        {"lr = 0.01\n[optim]\nschedule = cosine\nmin_lr = 0.005\n", "f.ini",
         "error: f.ini:1: key 'lr' appears before any [section] header\n"},
        {"[model]\nd_modle = 48\nn_heads = 3\n", "f.ini",
         "error: f.ini:2: unknown key 'model.d_modle'; did you mean 'model.d_model'?\n"},
        {NULL, "--set model.d_modle=48 --set model.n_heads=3",
         "error: --set (argument 2): unknown key 'model.d_modle'; did you mean 'model.d_model'?\n"},
        {NULL, "--set modle.d_model=48 --set model.n_heads=3",
         "error: --set (argument 2): unknown section [modle]; did you mean [model]?\n"},
        /* the file's errors in the order of its lines: a check between keys at its line */
        {"[model]\nd_model = 48\nn_heads = 5\n[optim]\nlrr = 1\n", "f.ini",
         "error: f.ini:2: 'model.d_model' = 48 is not divisible by 'model.n_heads' = 5 (set at "
         "f.ini:3)\n"
         "error: f.ini:5: unknown key 'optim.lrr'; did you mean 'optim.lr'?\n"},
        {"[optim]\nlrr = 1\n[model]\nd_model = 48\nn_heads = 5\n", "f.ini",
         "error: f.ini:2: unknown key 'optim.lrr'; did you mean 'optim.lr'?\n"
         "error: f.ini:4: 'model.d_model' = 48 is not divisible by 'model.n_heads' = 5 (set at "
         "f.ini:5)\n"},
        /* keys model.param makes the run not read (base_width under standard, q_mult under
         * mup; q_mult under standard is read), and both left out when model.param is refused */
        {"[model]\nbase_width = 64\n", "f.ini --set init.q_mult=2",
         "error: f.ini:2: 'model.base_width' = 64 is set, but 'model.param' is not mup "
         "(default): it is muP's base width, which the standard parametrisation does not read; "
         "set model.param = mup, or remove model.base_width\n"},
        {NULL, "--set model.param=mup --set init.q_mult=2",
         "error: --set (argument 4): 'init.q_mult' = 2 has nothing to multiply with "
         "'model.param' = mup (set at --set (argument 2)): muP starts W_q at 0, whatever its "
         "init factor; its learning-rate factor optim.lr_q_mult still acts. Remove init.q_mult, "
         "or set model.param = standard\n"},
        {"[model]\nparam = mpu\nbase_width = 64\n[init]\nq_mult = 2\n", "f.ini",
         "error: f.ini:2: 'model.param': unknown value 'mpu'; expected one of standard, mup\n"},
    };
    char path[300], runs[300];
    snprintf(path, sizeof path, "%s/f.ini", tmpdir);
    snprintf(runs, sizeof runs, "%s/runs", tmpdir);
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        if (CASES[k].ini) tu_write_file(path, CASES[k].ini);
        ck_assert_int_eq(tu_run_train(tmpdir, CASES[k].args), 2);
        char *out = train_output();
        ck_assert_msg(strcmp(out, CASES[k].out) == 0, "case %zu: output\n%swant\n%s", k, out,
                      CASES[k].out);
        free(out);
        ck_assert_int_eq(access(runs, F_OK), -1);
    }
}
END_TEST

/* The cap counts the checks between keys as the other errors: 19 errors of a file (lines 2-20),
 * then a --set's n_heads that does not divide d_model (argument 3) is the 20th named, and the
 * two bad --set after it are counted. */
START_TEST(test_cap_counts_checks_between_keys) {
    char path[300], text[400] = "[model]\n";
    snprintf(path, sizeof path, "%s/cap.ini", tmpdir);
    for (int i = 0; i < 19; i++) strcat(text, "nokey = 1\n");
    tu_write_file(path, text);
    ck_assert_int_eq(tu_run_train(tmpdir, "cap.ini --set model.n_heads=3 --set optim.lr=a --set "
                                          "train.steps=c"), 2);
    char *out = train_output();
    int lines = 0;
    for (const char *p = out; *p; p++) lines += *p == '\n';
    ck_assert_int_eq(lines, 21);
    const char *last = "error: --set (argument 3): 'model.n_heads' = 3 does not divide "
                       "'model.d_model' = 64 (default)\n"
                       "error: --set (argument 3): 20 errors named; 2 more after this one, not "
                       "named\n";
    ck_assert_msg(strncmp(out, "error: cap.ini:2: unknown key 'model.nokey'", 43) == 0 &&
                      strlen(out) > strlen(last) && !strcmp(out + strlen(out) - strlen(last), last),
                  "%s", out);
    free(out);
}
END_TEST

/* A --set far over the length limit names its key (it used to say only "argument too long"). */
START_TEST(test_long_set_names_key) {
    static const char *const KEYS[] = {"run.name", "task.file", "optim.lr"};
    size_t n = 5000;
    char *arg = malloc(n + 32);
    snprintf(arg, n + 32, "%s=", KEYS[_i]);
    size_t len = strlen(arg);
    memset(arg + len, _i == 2 ? '1' : 'a', n);
    arg[len + n] = '\0';
    Config c, before;
    config_defaults(&c);
    before = c;
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = config_set(&c, arg, 4);
    char *err = tu_capture_end(&cap);
    char want[64];
    snprintf(want, sizeof want, "'%s'", KEYS[_i]);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, want) && strstr(err, "argument 4"), "%.300s", err);
    ck_assert_msg(strlen(err) < 1200, "message of %zu characters", strlen(err));
    /* its settings as they were, the key marked unsure: the checks between keys leave it out */
    ck_assert(memcmp(&c, &before, CONFIG_SETTINGS_SIZE) == 0);
    int k = config_key_index(KEYS[_i]);
    for (int i = 0; i < config_key_count(); i++) ck_assert_int_eq(c.unsure[i], i == k);
    free(err);
    free(arg);
}
END_TEST

/* Builds the file task from text; returns task_init's result, stderr in *err. */
static int file_task(Task *t, const char *text, char *path, size_t n, char **err) {
    snprintf(path, n, "%s/task.txt", tmpdir);
    tu_write_file(path, text);
    Config c;
    config_defaults(&c);
    c.task = TASK_FILE;
    snprintf(c.task_file, sizeof c.task_file, "%s", path);
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = task_init(t, &c);
    *err = tu_capture_end(&cap);
    return rc;
}

START_TEST(test_task_comment_after_whitespace) {
    Task t;
    char path[300], *err;
    /* "#x" after a space is a comment; "a#b" is one symbol */
    ck_assert_int_eq(file_task(&t, "a b | c   # a comment | with a bar\n"
                                   "a#b c | d\t#another\n"
                                   "# a whole-line comment\n"
                                   "c | a b #\n",
                               path, sizeof path, &err), 0);
    free(err);
    ck_assert_int_eq(t.n_symbols, 5); /* a, a#b, b, c, d: nothing of the comments */
    static const char *const NAMES[] = {"a", "a#b", "b", "c", "d"};
    for (int i = 0; i < 5; i++) ck_assert_str_eq(t.symbol_names[i], NAMES[i]);
    task_free(&t);
}
END_TEST

START_TEST(test_task_conflicting_answers) {
    Task t;
    char path[300], want[340], *err;
    ck_assert_int_eq(file_task(&t, "a b | c\nb | a\n\na b | c\nb a | c\na  b | d\n", path,
                               sizeof path, &err), -1);
    snprintf(want, sizeof want, "error: %s:6: ", path);
    ck_assert_msg(strstr(err, want) == err && strstr(err, "line 1") && strstr(err, "task.file"),
                  "%s", err);
    free(err);
    task_free(&t);
    /* the same line twice is a duplicate, not a conflict */
    ck_assert_int_eq(file_task(&t, "a b | c\nb | a\na b | c\nc | b\n", path, sizeof path, &err), 0);
    free(err);
    ck_assert_int_eq(t.n_duplicates, 1);
    task_free(&t);
}
END_TEST

/* A checkpoint written with an impossible state (the hash is valid: the bytes are as written). */
START_TEST(test_checkpoint_impossible_state) {
    static const CheckpointState BAD[] = {
        {-1, 0, 0, {{1, 2, 3, 4}}, 1},
        {-1000000, 0, 0, {{1, 2, 3, 4}}, 1},
        {5, 0, -1, {{1, 2, 3, 4}}, 1},
        {5, 0, 6, {{1, 2, 3, 4}}, 1},
    };
    ModelConfig mc = {.vocab_size = 5, .d_model = 4, .n_heads = 1, .n_layers = 1, .d_ff = 8,
                      .max_seq_len = 3, .ln_eps = 1e-5f, .scale = 0.5f};
    Model m;
    Optimizer o;
    ck_assert_int_eq(model_build(&m, &mc, 1), 0);
    ck_assert_int_eq(optim_init(&o, OPTIMIZER_ADAMW, 0.9, 0.999, 1e-8, 0, 0, m.n_params), 0);
    char path[300];
    snprintf(path, sizeof path, "%s/ck.bin", tmpdir);
    ck_assert_int_eq(checkpoint_save(path, "[run]\n", &m, &o, &BAD[_i]), 0);
    CheckpointState st;
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = checkpoint_load(path, &m, &o, &st);
    char *err = tu_capture_end(&cap);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, path) && strstr(err, "impossible run state"), "%s", err);
    free(err);
    /* the same checkpoint at a possible state loads */
    CheckpointState good = {5, 0, 1, {{1, 2, 3, 4}}, 1};
    ck_assert_int_eq(checkpoint_save(path, "[run]\n", &m, &o, &good), 0);
    ck_assert_int_eq(checkpoint_load(path, &m, &o, &st), 0);
    ck_assert_int_eq(st.step, 5);
    optim_free(&o);
    model_free(&m);
}
END_TEST

/* The program itself, end to end: a path holding an escape sequence, a CR, a C1 CSI and a lone
 * 0x9b (made by the shell's printf) is quoted escaped, and a flag given twice is refused like
 * an option with a value; each whole output spelt by hand (the unit tests: test_cmd_*.c). */
START_TEST(test_paths_escaped_end_to_end) {
    static const struct {
        const char *args, *out;
    } LINES[] = {
        {"--resume \"$(printf 'r\\033[2J\\rx\\302\\233\\233')\"",
         "error: --resume (argument 2): no such run folder 'r\\x1b[2J\\rx\\xc2\\x9b\\x9b'\n"},
        {"--compare \"$(printf 'r\\033[2J\\rx')\"",
         "error: run folder 'r\\x1b[2J\\rx': No such file or directory\n"},
        {"--print-config --where --print-config",
         "error: --print-config (argument 3): given twice (first at argument 1); give it once\n"},
    };
    for (size_t i = 0; i < sizeof LINES / sizeof LINES[0]; i++) {
        ck_assert_int_eq(tu_run_train(tmpdir, LINES[i].args), 2);
        char *out = train_output();
        ck_assert_str_eq(out, LINES[i].out);
        free(out);
    }
}
END_TEST

/* --resume and --eval of a checkpoint beyond the run's train.steps: refused with exit code 2, at
 * the run folder's argument, naming the --set that gave train.steps. */
START_TEST(test_checkpoint_beyond_steps) {
    char args[600];
    snprintf(args, sizeof args,
             "--set task.name=copy --set task.length=2 --set task.symbols=4 --set task.val_size=8 "
             "--set model.d_model=8 --set train.steps=6 --set train.batch_size=2 "
             "--set train.checkpoint_every=3 --set run.threads=1 --set log.progress=0 "
             "--set run.dir=%s --set run.name=r",
             tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    /* the finished run's checkpoint is at step 6; a config.ini that says 4 steps puts it beyond */
    char ini[300];
    snprintf(ini, sizeof ini, "%s/r/config.ini", tmpdir);
    ck_assert(tu_file_contains(ini, "steps = 6"));
    static const struct {
        const char *cmd, *sets; /* the command's folder option, the --set after the folder */
        int set_argn;
    } CASES[] = {{"--resume", "--set train.steps=4", 4},
                 {"--eval", "--set run.threads=1 --set train.steps=4", 6}};
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        snprintf(args, sizeof args, "%s %s/r %s", CASES[k].cmd, tmpdir, CASES[k].sets);
        ck_assert_int_eq(tu_run_train(tmpdir, args), EXIT_CONFIG);
        char want[800];
        snprintf(want, sizeof want,
                 "error: %s (argument 2): checkpoint '%s/r/checkpoint.bin' is at step 6, beyond "
                 "train.steps = 4 (set at --set (argument %d)); set it to 6 or more\n",
                 CASES[k].cmd, tmpdir, CASES[k].set_argn);
        char *out = train_output();
        ck_assert_str_eq(out, want);
        free(out);
    }
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("input_errors", setup, teardown, 60, test_repeated_section,
                        TU_LOOP(test_long_set_names_key, 0, 3), test_task_comment_after_whitespace,
                        test_task_conflicting_answers,
                        TU_LOOP(test_checkpoint_impossible_state, 0, 4),
                        test_checkpoint_beyond_steps, test_every_error_named,
                        test_every_bad_set_named, test_file_and_sets_named_together,
                        test_checks_between_keys_named_with_the_rest,
                        test_cap_counts_checks_between_keys,
                        test_paths_escaped_end_to_end);
