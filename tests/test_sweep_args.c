/* test_sweep_args.c: the command line of ./train --sweep read into SweepArgs
 * (src/cli/sweep_args.c, its checks of the whole line in src/cli/sweep_args_check.c): every
 * mistake it refuses on its own, table-driven (return -1, a message naming the argument), all of
 * a line's named at once, its config file's first; what a well-formed line fills in, with the
 * argument numbers counted by hand on the whole command line (argv[i] after --sweep is argument
 * i + 2); and --help. Flags given twice are refused; the user's text is quoted escaped. Values
 * only a config can judge are test_plan.c's. */
#include "cli/sweep_args.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* sweep_args_parse as a command (for tu_call): its return value, a freed. */
static int parse_cmd(int argc, char **argv) {
    SweepArgs a;
    int rc = sweep_args_parse(&a, argc, argv);
    sweep_args_free(&a);
    return rc;
}

typedef struct {
    const char *needle;
    const char *args[9]; /* NULL-terminated */
} RefusedCase;

static const RefusedCase REFUSED[] = {
    {"'attention.scale' is also set by --scales", {"--scales", "none", "--grid", "attention.scale=none"}},
    {"'run.seed' is also set by --seeds", {"--seeds", "2", "--grid", "run.seed=1,2"}},
    {"'train.steps' is also set by --steps", {"--steps", "5", "--grid", "train.steps=1,2"}},
    {"--grid (argument 5): 'model.d_model' is also set by --dk", {"--dk", "8", "--grid", "model.d_model=8"}},
    {"--grid (argument 3): 'optim.lrr' is not a config key", {"--grid", "optim.lrr=1"}},
    {"'run.name' is set by the sweep", {"--grid", "run.name=a,b"}},
    {"'run.dir' is set by the sweep", {"--grid", "run.dir=a"}},
    {"is not section.key=v1,v2", {"--grid", "optim.lr"}},
    {"'1e-3' is listed twice", {"--grid", "optim.lr=1e-3,1e-3"}},
    {"bad entry ' 2e-3'", {"--grid", "optim.lr=1e-3, 2e-3"}},
    {"bad entry ''", {"--grid", "optim.lr=1e-3,,2e-3"}},
    {"bad entry ''", {"--scales", "none,"}},
    {"(argument 5): 'optim.lr' is already varied by --grid (argument 3)",
     {"--grid", "optim.lr=1", "--grid", "optim.lr=2"}},
    {"--set (argument 3): 'optim.lr' is set by the sweep for every run; use --grid",
     {"--set", "optim.lr=1", "--grid", "optim.lr=1e-3"}},
    {"use --dk", {"--set", "model.d_model=32"}},
    {"use --dk", {"--set=model.n_heads=2"}},
    {"use --scales", {"--set", "attention.scale=none"}},
    {"use --seeds", {"--set", " run . seed = 3"}},
    {"use --steps", {"--steps", "3", "--set", "train.steps=4"}},
    {"'run.name' is set by the sweep", {"--set", "run.name=mine"}},
    {"use the sweep (--out)", {"--set", "run.dir=x"}},
    {"error: --d-model (argument 3): shapes the d_k axis", {"--d-model", "64", "--grid", "optim.lr=1e-3"}},
    {"error: --one-head (argument 4): shapes the d_k axis", {"--grid", "optim.lr=1e-3", "--one-head"}},
    /* two that exclude each other: at the later one, naming the earlier */
    {"error: --one-head (argument 6): excludes --d-model (argument 5); give one (with "
     "--one-head, d_model = d_k)\n",
     {"--dk", "8", "--d-model", "8", "--one-head"}},
    {"error: --d-model (argument 6): excludes --one-head (argument 4); give one (with "
     "--one-head, d_model = d_k)\n",
     {"--dk", "8", "--one-head", "--d-model", "8"}},
    {"error: --collect (argument 3): excludes --plan (argument 2); give one\n",
     {"--plan", "--collect"}},
    {"error: --plan (argument 5): excludes --collect (argument 2); give one\n",
     {"--collect", "--out", "x", "--plan"}},
    {"error: --collect (argument 2): reads the plan stored in OUT/plan.txt; give only --out "
     "DIR (and no config, axes, --set or --steps)\n",
     {"--collect", "--dk", "8", "--out", "x"}},
    {"error: --collect (argument 3): reads the plan", {"cfg.ini", "--collect"}},
    {"--jobs (argument 3): '0' is not a number of parallel runs from 1 to 256", {"--jobs", "0"}},
    {"--jobs (argument 2): '257'", {"--jobs=257"}},
    {"--seeds (argument 3): 'two' is not a count from 1 to 1000", {"--seeds", "two"}},
    {"--seeds (argument 3): '0' is not a count", {"--seeds", "0"}},
    {"--seeds (argument 3): 'x' is not a seed", {"--seeds", "3,x"}},
    {"--steps (argument 3): '-1' is not a number of steps", {"--steps", "-1"}},
    {"--d-model (argument 5): '+8' is not a model width", {"--dk", "8", "--d-model", "+8"}},
    {"--dk (argument 3): 'x' is not a positive integer", {"--dk", "8,x"}},
    {"--dk (argument 3): '0' is not a positive integer", {"--dk", "0"}},
    {"--dk (argument 3): '8' is listed twice", {"--dk", "8,16,8"}},
    /* the place once, in front (error_place), as every other line */
    {"error: --dk (argument 2): needs a value\n", {"--dk="}},
    {"error: --out (argument 2): needs a value\n", {"--out"}},
    {"error: --set (argument 3): needs a value\n", {"--set", ""}},
    {"error: --bogus (argument 2): unknown option for --sweep (see ./train --sweep --help)\n",
     {"--bogus"}},
    {"error: --dkk (argument 2): unknown option for --sweep", {"--dkk", "8"}},
    {"error: other.ini (argument 3): --sweep takes one config file (the first: 'a.ini', "
     "argument 2); give one\n",
     {"a.ini", "other.ini"}},
    /* issue 21 item 10: an option given twice (the last one silently won), both named */
    {"--steps (argument 5): given twice (first at argument 3)", {"--steps", "3", "--steps", "4"}},
    {"--out (argument 5): given twice (first at argument 3)", {"--out", "a", "--out", "b"}},
    {"--jobs (argument 4): given twice (first at argument 3)", {"--jobs", "1", "--jobs=2"}},
    {"--seeds (argument 5): given twice (first at argument 3)", {"--seeds", "1", "--seeds", "2,3"}},
    {"--dk (argument 5): given twice (first at argument 3)", {"--dk", "8", "--dk", "16"}},
    {"--scales (argument 5): given twice (first at argument 3)",
     {"--scales", "none", "--scales", "sqrt_dk"}},
    {"--d-model (argument 7): given twice (first at argument 5)",
     {"--dk", "8", "--d-model", "8", "--d-model", "16"}},
    {"error: --set (argument 5): 'optim.eps' is already set by --set (argument 3); give it "
     "once\n",
     {"--set", "optim.eps=1e-8", "--set", "optim.eps=1e-6"}},
    {"--set (argument 5): 'optim.eps' is already set by --set (argument 3)",
     {"--set", "optim.eps=1e-8", "--set", " optim.eps = 1e-6"}},
    /* a flag without a value given twice, as one with (the second --plan was taken silently) */
    {"error: --plan (argument 5): given twice (first at argument 2); give it once\n",
     {"--plan", "--out", "x", "--plan"}},
    {"error: --collect (argument 5): given twice (first at argument 4); give it once\n",
     {"--out", "x", "--collect", "--collect"}},
    {"error: --one-head (argument 5): given twice (first at argument 4); give it once\n",
     {"--dk", "8", "--one-head", "--one-head"}},
    /* the user's text quoted escaped (util/error_list.h) */
    {"error: --bogus\\x1b[2J\\r\\xc2\\x9b (argument 2): unknown option for --sweep",
     {"--bogus\x1b[2J\r\xc2\x9b"}},
    {"error: b\\r.ini (argument 3): --sweep takes one config file (the first: 'a\\x1b.ini', "
     "argument 2); give one\n",
     {"a\x1b.ini", "b\r.ini"}},
};

START_TEST(test_refused) {
    for (size_t k = 0; k < sizeof REFUSED / sizeof *REFUSED; k++) {
        TuResult r = tu_call(parse_cmd, REFUSED[k].args);
        ck_assert_msg(r.rc == -1, "case %zu (%s): rc %d, stderr:\n%s", k, REFUSED[k].args[0], r.rc,
                      r.err);
        ck_assert_msg(strstr(r.err, REFUSED[k].needle), "case %zu: '%s' not in:\n%s", k,
                      REFUSED[k].needle, r.err);
        ck_assert_msg(strncmp(r.err, "error: ", 7) == 0, "case %zu: '%s'", k, r.err);
        tu_assert_no_raw_control(r.err, REFUSED[k].needle);
        tu_result_free(&r);
    }
}
END_TEST

static const char *value(const Axis *ax, int i) { return i < ax->n ? ax->values[i] : "(none)"; }

/* The d_k preset: --dk sorted ascending, the default scales and seed 1; the numbers of --steps
 * and --set values (argv: 0 --dk, 1 16,8, 2 --steps, 3 5, 4 --jobs=3, 5 --set, 6 optim.lr=1,
 * 7 --set=train.batch_size=4). */
START_TEST(test_preset_line) {
    char *argv[] = {"--dk", "16,8", "--steps", "5", "--jobs=3", "--set", "optim.lr=1",
                    "--set=train.batch_size=4"};
    SweepArgs a;
    ck_assert_int_eq(sweep_args_parse(&a, 8, argv), 0);
    ck_assert_int_eq(a.n_axes, 3);
    ck_assert_int_eq(a.axes[0].kind, AXIS_DK);
    ck_assert_int_eq(a.axes[0].n, 2);
    ck_assert_str_eq(value(&a.axes[0], 0), "8");
    ck_assert_str_eq(value(&a.axes[0], 1), "16");
    ck_assert_int_eq(a.axes[0].argn, 3);
    ck_assert_str_eq(a.axes[1].key, "attention.scale");
    ck_assert_int_eq(a.axes[1].n, 3);
    ck_assert_str_eq(value(&a.axes[1], 2), "inv_dk");
    ck_assert_str_eq(a.axes[2].key, "run.seed");
    ck_assert_int_eq(a.axes[2].n, 1);
    ck_assert_int_eq(a.steps, 5);
    ck_assert_int_eq(a.steps_argn, 5);
    ck_assert_int_eq(a.jobs, 3);
    ck_assert_int_eq(a.d_model, 128);
    ck_assert_int_eq(a.n_sets, 2);
    ck_assert_str_eq(a.sets[0], "optim.lr=1");
    ck_assert_int_eq(a.set_argn[0], 8);
    ck_assert_str_eq(a.sets[1], "train.batch_size=4");
    ck_assert_int_eq(a.set_argn[1], 9);
    ck_assert_int_eq(a.mode, MODE_RUN);
    ck_assert_ptr_null(a.config_path);
    sweep_args_free(&a);
}
END_TEST

/* With --grid only the named axes vary: the grid key (its own column, named after the key
 * without its section), then --seeds N as 1..N; the config file (read for its own checks) and
 * --out are kept. */
START_TEST(test_grid_line) {
    char dir[200], ini[260];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_test_sweep_args_XXXXXX");
    snprintf(ini, sizeof ini, "%s/c.ini", dir);
    tu_write_file(ini, "[model]\nn_layers = 1\n");
    char *argv[] = {"--seeds", "3", ini, "--grid", "optim.lr=1e-3,3e-3", "--out", "o", "--plan"};
    SweepArgs a;
    ck_assert_int_eq(sweep_args_parse(&a, 8, argv), 0);
    ck_assert_int_eq(a.n_axes, 2);
    ck_assert_str_eq(a.axes[0].key, "optim.lr");
    ck_assert_str_eq(a.axes[0].label, "lr-");
    ck_assert_int_eq(a.axes[0].column, 1);
    ck_assert_int_eq(a.axes[0].n, 2);
    ck_assert_str_eq(value(&a.axes[0], 1), "3e-3");
    ck_assert_str_eq(a.axes[1].key, "run.seed");
    ck_assert_int_eq(a.axes[1].n, 3);
    ck_assert_str_eq(value(&a.axes[1], 0), "1");
    ck_assert_str_eq(value(&a.axes[1], 2), "3");
    ck_assert_str_eq(a.config_path, ini);
    ck_assert_str_eq(a.out, "o");
    ck_assert_int_eq(a.out_argn, 8);
    ck_assert_int_eq(a.mode, MODE_PLAN);
    ck_assert_int_eq(a.steps, -1);
    ck_assert_int_eq(a.jobs, 1);
    sweep_args_free(&a);
    tu_remove_tree(dir);
}
END_TEST

/* Every bad argument is named in one run (it stopped at the first: N typos took N runs, and
 * --seeds 0 hid the --grid errors), in argument order, each once, as a config file's errors
 * are: an unknown --grid key, a --grid value its key refuses (one line: it was followed by
 * "value '2' of 'optim.beta2' is refused (see above)"), two bad --set (a value, a key), a bad
 * --seeds, a --set of a key a --grid varies, named though that --grid's value is bad too
 * (it was hidden by it), and an --out holding a control byte (which no run config can hold).
 * Each names its argument (counted by hand: argv[i] is argument i + 2); the whole of stderr is
 * compared. */
START_TEST(test_every_bad_argument) {
    const char *args[] = {"--set",  "optim.lr=abc",      "--grid", "optim.lrr=1",
                          "--set",  "model.d_modle=32",  "--grid", "optim.beta2=0.9,2",
                          "--seeds", "0",                "--grid", "attention.softcap=x",
                          "--set",  "attention.softcap=5", "--out", "o\x1b[2J\"", NULL};
    TuResult r = tu_call(parse_cmd, args);
    ck_assert_int_eq(r.rc, -1);
    ck_assert_str_eq(
        r.err,
        "error: --set (argument 3): 'optim.lr': expected a number, got 'abc'\n"
        "error: --grid (argument 5): 'optim.lrr' is not a config key (see ./train "
        "--reference-table)\n"
        "error: --set (argument 7): unknown key 'model.d_modle'; did you mean 'model.d_model'?\n"
        "error: --grid (argument 9): 'optim.beta2': 2 is out of range; allowed: number in [0, 1)\n"
        "error: --seeds (argument 11): '0' is not a count from 1 to 1000 (or a list of seeds: "
        "3,7)\n"
        "error: --grid (argument 13): 'attention.softcap': expected a number, got 'x'\n"
        "error: --set (argument 15): 'attention.softcap' is set by the sweep for every run; use "
        "--grid (or drop the --set)\n"
        "error: --out (argument 17): the sweep folder's path 'o\\x1b[2J\"' holds a control "
        "character (byte 0x1b), which the run configs and jobs.txt cannot hold; choose another "
        "folder\n");
    tu_result_free(&r);
}
END_TEST

/* A line with mistakes names its config file's own errors too, first (the file is read first),
 * wherever the file stands on the line; the file was not read (a bad --set hid its errors). */
START_TEST(test_config_errors_first) {
    char dir[200], ini[260];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_test_sweep_args_XXXXXX");
    snprintf(ini, sizeof ini, "%s/c.ini", dir);
    tu_write_file(ini, "[optim]\nlr = fast\n");
    const char *args[] = {"--set", "model.n_layers=0", ini, "--grid", "optim.lr=x", NULL};
    TuResult r = tu_call(parse_cmd, args);
    char want[1024];
    snprintf(want, sizeof want,
             "error: %s:2: 'optim.lr': expected a number, got 'fast'\n"
             "error: --set (argument 3): 'model.n_layers': 0 is out of range; allowed: integer in "
             "[1, 64]\n"
             "error: --grid (argument 6): 'optim.lr': expected a number, got 'x'\n",
             ini);
    ck_assert_int_eq(r.rc, -1);
    ck_assert_str_eq(r.err, want);
    tu_result_free(&r);
    tu_remove_tree(dir);
}
END_TEST

/* What was found only when the plan was built, one at a time, each with a "run 1 of N cannot be
 * built" line, is named with the other mistakes of the line, in argument order, each once: a bad
 * --scales value (beside a bad --grid value); the d_k values that do not divide the width, in one
 * line at their --dk (the preset's at --d-model; 8 does not divide 12, 16 to 128 are larger),
 * none against the default width when --d-model's own value is refused; and the checks between
 * keys of the config every run starts from (the file, each --set), but those an axis takes part
 * in (--dk sets n_heads = 16 / 8 = 2 for every run: the file's 3 is no run's). The whole of
 * stderr. */
START_TEST(test_plan_errors_named_with_the_line) {
    char dir[200], ini[260];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_test_sweep_args_XXXXXX");
    snprintf(ini, sizeof ini, "%s/c.ini", dir);
    tu_write_file(ini, "[optim]\nschedule = cosine\nmin_lr = 1\n[model]\nn_heads = 3\n");
    char min_lr[500];
    snprintf(min_lr, sizeof min_lr,
             "error: %s:3: 'optim.min_lr' = 1 is larger than 'optim.lr' = 0.001 (default); the "
             "cosine schedule decays from optim.lr down to optim.min_lr\n", ini);
    char with_seeds[800];
    snprintf(with_seeds, sizeof with_seeds, "%s"
             "error: --seeds (argument 8): '0' is not a count from 1 to 1000 (or a list of seeds: "
             "3,7)\n", min_lr);
    const struct {
        const char *args[10];
        const char *err;
    } CASES[] = {
        {{"--scales", "none,bogus", "--grid", "optim.lr=1,x"},
         "error: --scales (argument 3): 'attention.scale': expected sqrt_dk, none, inv_dk, "
         "learned, C/d_k with C in [1e-6, 1e6], or a number in [1e-6, 1e6], got 'bogus'\n"
         "error: --grid (argument 5): 'optim.lr': expected a number, got 'x'\n"},
        {{"--dk", "8,48,256", "--d-model", "64", "--seeds", "0"},
         "error: --dk (argument 3): d_k = 48, 256 do not divide d_model = 64 (--d-model (argument "
         "5)): n_heads = d_model / d_k must be a whole number\n"
         "error: --seeds (argument 7): '0' is not a count from 1 to 1000 (or a list of seeds: "
         "3,7)\n"},
        {{"--d-model", "12"},
         "error: --dk (default): d_k = 8, 16, 32, 64, 128 do not divide d_model = 12 (--d-model "
         "(argument 3)): n_heads = d_model / d_k must be a whole number\n"},
        {{"--dk", "8,5", "--d-model", "abc"},
         "error: --d-model (argument 5): 'abc' is not a model width (a positive integer)\n"},
        {{ini, "--dk", "8", "--d-model", "16", "--seeds", "0"}, with_seeds},
        {{ini, "--dk", "8", "--d-model", "16"}, min_lr},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        TuResult r = tu_call(parse_cmd, CASES[k].args);
        ck_assert_msg(r.rc == -1, "case %zu: rc %d", k, r.rc);
        ck_assert_msg(strcmp(r.err, CASES[k].err) == 0, "case %zu: stderr\n%swant\n%s", k, r.err,
                      CASES[k].err);
        tu_result_free(&r);
    }
    /* the file's n_heads = 3 with --dk: every run's is the axis', the line is good */
    const char *good[] = {ini, "--dk", "8", "--d-model", "16", "--set", "optim.lr=2", NULL};
    TuResult r = tu_call(parse_cmd, good);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tu_result_free(&r);
    tu_remove_tree(dir);
}
END_TEST

/* A value or key too long for the plan's cells: the message gives that reason and the limit
 * (PLAN_CELL - 1 = 255 characters a value, 63 a key: counted by hand from plan.h's CONFIG_STR
 * and the key buffer) and names the key, before the value (issue 45: a 300-character --grid
 * value was called a "bad entry", a long key "not section.key=v1,v2"). The longest value kept
 * is 255 characters. */
START_TEST(test_too_long) {
    static char val300[301], val255[256], val256[257], key[320], list[400], grid[400];
    memset(val300, '1', 300);
    memset(val255, '1', 255);
    memset(val256, '7', 256);
    snprintf(key, sizeof key, "optim.%0300d=1", 0);
    snprintf(list, sizeof list, "optim.lr=1e-3,%s,2e-3", val256);
    snprintf(grid, sizeof grid, "optim.lr=%s", val300);
    static const struct { const char *arg, *flag, *needle; } CASES[] = {
        {grid, "--grid", "error: --grid (argument 3): a value of 'optim.lr' is too long (300 "
                         "characters, at most 255): '1111"},
        {list, "--grid", "error: --grid (argument 3): a value of 'optim.lr' is too long (256 "
                         "characters, at most 255): '7777"},
        {key, "--grid", "error: --grid (argument 3): the key 'optim.0000"},
        {key, "--grid", "is too long (306 characters, at most 63; see ./train --reference-table)"},
        {val300, "--scales", "error: --scales (argument 3): a value of 'attention.scale' is too "
                             "long (300 characters, at most 255)"},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        const char *args[] = {CASES[k].flag, CASES[k].arg, NULL};
        TuResult r = tu_call(parse_cmd, args);
        ck_assert_msg(r.rc == -1, "case %zu: rc %d", k, r.rc);
        ck_assert_msg(strstr(r.err, CASES[k].needle), "case %zu: '%s' not in:\n%s", k,
                      CASES[k].needle, r.err);
        tu_result_free(&r);
    }
    snprintf(grid, sizeof grid, "task.file=%s", val255); /* a value task.file takes */
    char *argv[] = {"--grid", grid};
    SweepArgs a;
    ck_assert_int_eq(sweep_args_parse(&a, 2, argv), 0);
    ck_assert_int_eq((int)strlen(a.axes[0].values[0]), 255);
    sweep_args_free(&a);
    /* the command: exit 2 with the message, nothing made */
    char dir[200], cmd[900], out[300];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_test_sweep_args_XXXXXX");
    snprintf(cmd, sizeof cmd, "%s --sweep --grid optim.lr=%s --plan --out %s/sw 2> %s/err.txt",
             tu_train_bin(), val300, dir, dir);
    int st = system(cmd);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "exit %d", WEXITSTATUS(st));
    snprintf(out, sizeof out, "%s/err.txt", dir);
    ck_assert(tu_file_contains(out, "a value of 'optim.lr' is too long (300 characters"));
    snprintf(out, sizeof out, "%s/sw", dir);
    ck_assert_int_ne(access(out, F_OK), 0);
    tu_remove_tree(dir);
}
END_TEST

/* --help: usage on stdout, return 1 (the command then exits 0), whatever else is on the line. */
START_TEST(test_help) {
    static const char *const lines[][4] = {{"--help"}, {"--dk", "8", "-h"}};
    for (size_t k = 0; k < 2; k++) {
        TuResult r = tu_call(parse_cmd, lines[k]);
        ck_assert_int_eq(r.rc, 1);
        ck_assert_msg(strstr(r.out, "usage: ./train --sweep") && strstr(r.out, "--grid") &&
                          strstr(r.out, "Without --grid, the d_k preset"), "case %zu: %s", k, r.out);
        /* the scale names come from the key table, in both places; the preset keeps the fixed
         * factors (a learned scale is no preset's question) */
        ck_assert_msg(strstr(r.out, "attention.scale values (sqrt_dk, none, inv_dk, learned,\n"
                                    "                  C/d_k or a positive number)\n") &&
                          strstr(r.out, "--scales sqrt_dk,none,inv_dk,\n--seeds 1 unless given"),
                      "case %zu: %s", k, r.out);
        ck_assert_str_eq(r.err, "");
        tu_result_free(&r);
    }
}
END_TEST

TU_MAIN("sweep_args", test_refused, test_every_bad_argument, test_config_errors_first,
        test_plan_errors_named_with_the_line,
        test_too_long, test_preset_line, test_grid_line, test_help);
