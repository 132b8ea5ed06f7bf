/* test_args.c: the argument helpers every subcommand shares (src/cli/args.c), table-driven:
 * --help, an option and its '=' spelling, an option's value in both spellings (and where the
 * index moves), the next argument, decimal counts against hand-made limits, the error line
 * with its exit code 2 (with its place: cli_fail_at), a key set twice by --set (cli_set_twice),
 * and the once-only options of every command (cli_once): each refused when
 * given twice, with one message naming both arguments. */
#include "cli/args.h"

#include "cli/cli.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_is_help_and_is_flag) {
    static const struct { const char *arg, *flag; int help, is; } CASES[] = {
        {"--help", "--help", 1, 1},  {"-h", "--dk", 1, 0},       {"--help=x", "--help", 0, 1},
        {"-help", "--help", 0, 0},   {"--dk", "--dk", 0, 1},     {"--dk=8", "--dk", 0, 1},
        {"--dk=", "--dk", 0, 1},     {"--dkk", "--dk", 0, 0},    {"--d", "--dk", 0, 0},
        {"dk", "--dk", 0, 0},        {"", "--dk", 0, 0},         {"--out", "--out", 0, 1},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        ck_assert_msg(cli_is_help(CASES[k].arg) == CASES[k].help, "case %zu: is_help(%s)", k,
                      CASES[k].arg);
        ck_assert_msg(cli_is_flag(CASES[k].arg, CASES[k].flag) == CASES[k].is,
                      "case %zu: is_flag(%s, %s)", k, CASES[k].arg, CASES[k].flag);
    }
}
END_TEST

/* argv: the option at index 0, then what follows it; value NULL: refused. next_i: where the
 * index stands afterwards (on the argument a message should number). */
START_TEST(test_flag_value) {
    static const struct { const char *argv[3]; int argc; const char *value; int next_i; } CASES[] = {
        {{"--out", "dir"}, 2, "dir", 1},
        {{"--out=dir", "x"}, 2, "dir", 0},
        {{"--out=a=b"}, 1, "a=b", 0},
        {{"--out", "--log-scale"}, 2, NULL, 0}, /* an option is not a value: --out has none */
        {{"--out", "-1"}, 2, "-1", 1},           /* a negative number is (its range is checked) */
        {{"--out=--plan"}, 1, "--plan", 0},      /* the "=" spelling takes anything */
        {{"--out"}, 1, NULL, 0},
        {{"--out="}, 1, NULL, 0},
        {{"--out=", "dir"}, 2, NULL, 0}, /* "=" says the value is empty: dir is not taken */
        {{"--out", ""}, 2, NULL, 1},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        int i = 0;
        const char *v = cli_flag_value(CASES[k].argc, (char **)CASES[k].argv, &i, "--out");
        if (CASES[k].value) ck_assert_msg(v && strcmp(v, CASES[k].value) == 0, "case %zu: %s", k, v);
        else ck_assert_msg(v == NULL, "case %zu: got '%s'", k, v);
        ck_assert_msg(i == CASES[k].next_i, "case %zu: index %d, want %d", k, i, CASES[k].next_i);
    }
}
END_TEST

START_TEST(test_next) {
    char *argv[] = {"--resume", "runs/a", "--eval"};
    int i = 0;
    ck_assert_str_eq(cli_next(3, argv, &i), "runs/a");
    ck_assert_int_eq(i, 1);
    i = 2;
    ck_assert_ptr_null(cli_next(3, argv, &i));
    ck_assert_int_eq(i, 2);
}
END_TEST

START_TEST(test_parse_count) {
    static const struct { const char *s; long lo, hi; int ok; long v; } CASES[] = {
        {"0", 0, 10, 1, 0},          {"7", 1, 256, 1, 7},        {"256", 1, 256, 1, 256},
        {"257", 1, 256, 0, 0},       {"0", 1, 256, 0, 0},        {"007", 1, 10, 1, 7},
        {"", 0, 10, 0, 0},           {"-1", -5, 10, 0, 0},       {"+3", 0, 10, 0, 0},
        {" 3", 0, 10, 0, 0},         {"3 ", 0, 10, 0, 0},        {"1e3", 0, 100000, 0, 0},
        {"3.0", 0, 10, 0, 0},        {"999999999999", 0, 1000000000000L, 1, 999999999999L},
        {"1000000000000", 0, 1000000000000L, 0, 0}, /* 13 digits: over the length limit */
        {"100000000", 0, 100000000, 1, 100000000},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        long v = -42;
        int rc = cli_parse_count(CASES[k].s, strlen(CASES[k].s), CASES[k].lo, CASES[k].hi, &v);
        ck_assert_msg(rc == (CASES[k].ok ? 0 : -1), "case %zu ('%s'): rc %d", k, CASES[k].s, rc);
        ck_assert_msg(v == (CASES[k].ok ? CASES[k].v : -42), "case %zu ('%s'): %ld", k, CASES[k].s, v);
    }
    long v = 0; /* only len bytes are read: "12" of "123" */
    ck_assert_int_eq(cli_parse_count("123", 2, 0, 100, &v), 0);
    ck_assert_int_eq(v, 12);
}
END_TEST

static void fake_usage(FILE *f) { fputs("usage: fake\n", f); }

START_TEST(test_fail) {
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = cli_fail(fake_usage, "--%s needs %d things", "x", 3);
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, 2);
    ck_assert_str_eq(err, "error: --x needs 3 things\nusage: fake\n");
    free(err);
    tu_capture_begin(&c, 2);
    rc = cli_fail(NULL, "plain");
    err = tu_capture_end(&c);
    ck_assert_int_eq(rc, 2);
    ck_assert_str_eq(err, "error: plain\n");
    free(err);
}
END_TEST

/* cli_fail_at: the argument at fault in front, as error_place writes it (escaped), then the
 * usage. */
START_TEST(test_fail_at) {
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = cli_fail_at(fake_usage, "--bogus", 3, "unknown option for --%s", "x");
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, 2);
    ck_assert_str_eq(err, "error: --bogus (argument 3): unknown option for --x\nusage: fake\n");
    free(err);
    tu_capture_begin(&c, 2);
    rc = cli_fail_at(NULL, "b\r.ini", 12, "plain");
    err = tu_capture_end(&c);
    ck_assert_int_eq(rc, 2);
    ck_assert_str_eq(err, "error: b\\r.ini (argument 12): plain\n");
    free(err);
}
END_TEST

/* cli_set_twice: the one message of a key set twice by --set, at the later --set; added to a
 * list (sorted by argument with the others) or printed at once. */
START_TEST(test_set_twice) {
    ErrorList l = {0};
    cli_set_twice(&l, 9, "optim.lr", 4);
    cli_set_twice(&l, 5, "run.seed", 2);
    TuCapture c;
    tu_capture_begin(&c, 2);
    ck_assert_int_eq(error_flush(&l), 2);
    char *err = tu_capture_end(&c);
    ck_assert_str_eq(err,
                     "error: --set (argument 5): 'run.seed' is already set by --set (argument 2); "
                     "give it once\n"
                     "error: --set (argument 9): 'optim.lr' is already set by --set (argument 4); "
                     "give it once\n");
    free(err);
    tu_capture_begin(&c, 2);
    cli_set_twice(NULL, 3, "a.b", 1);
    err = tu_capture_end(&c);
    ck_assert_str_eq(err, "error: --set (argument 3): 'a.b' is already set by --set (argument 1); "
                          "give it once\n");
    free(err);
}
END_TEST

/* cli_once alone: the first of each flag passes, a second of the same one names both places. */
START_TEST(test_once) {
    CliOnce o = {0};
    ck_assert_int_eq(cli_once(&o, "--out", 2), -1);
    ck_assert_int_eq(cli_once(&o, "--seed", 4), -1);
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = cli_once(&o, "--out", 7);
    char *err = tu_capture_end(&cap);
    ck_assert_int_eq(rc, 2);
    ck_assert_str_eq(err,
                     "error: --out (argument 7): given twice (first at argument 2); give it once\n");
    free(err);
}
END_TEST

static void no_usage(FILE *f) { (void)f; }
static int train_cmd(int argc, char **argv) { return cli_train(argc, argv, no_usage); }

/* issue 33: a single-valued option given twice silently took the last value (--softmax-table's
 * --seed, --samples, --keys) or was refused in words of its own per command. Every command's
 * once-only options, each given twice: exit 2, one message, nothing run. The arguments named are
 * those holding the values, numbered on the whole command line (./train is 0; a subcommand's
 * name is 1), counted here by hand. */
START_TEST(test_every_command_refuses_an_option_twice) {
    static const struct {
        int (*cmd)(int, char **);
        const char *args[10];
        const char *err;
    } CASES[] = {
        {train_cmd, {"./train", "--seed", "1", "--seed", "2"},
         "--seed (argument 4): given twice (first at argument 2)"},
        {train_cmd, {"./train", "--eval", "r", "--prompt", "a", "--generate", "2", "--generate", "3"},
         "--generate (argument 8): given twice (first at argument 6)"},
        {train_cmd, {"./train", "--temperature", "1", "--top-k", "2", "--temperature", "0"},
         "--temperature (argument 6): given twice (first at argument 2)"},
        {train_cmd, {"./train", "--top-k", "1", "--top-k", "1"},
         "--top-k (argument 4): given twice (first at argument 2)"},
        {train_cmd, {"./train", "--prompt", "a", "--prompt", "b"},
         "--prompt (argument 4): given twice (first at argument 2)"},
        {train_cmd, {"./train", "--resume", "r", "--resume", "r"},
         "--resume (argument 4): given twice (first at argument 2)"},
        {train_cmd, {"./train", "--eval", "r", "--eval", "s"},
         "--eval (argument 4): given twice (first at argument 2)"},
        {cli_compare, {"r", "--out", "a", "--out=b"},
         "--out (argument 5): given twice (first at argument 4)"},
        {cli_compare, {"r", "--log-scale", "--linear"},
         "--linear (argument 4): excludes --log-scale (argument 3)"},
        {cli_export, {"r", "f.safetensors", "--val", "v", "--val=w"},
         "--val (argument 6): given twice (first at argument 5)"},
        {cli_regime_map, {"--out", "a", "sw", "--out", "b"},
         "--out (argument 6): given twice (first at argument 3)"},
        /* --samples 1: a table let through by mistake takes a moment, not seconds */
        {cli_softmax_table, {"--samples", "1", "--seed", "1", "--seed", "2"},
         "--seed (argument 7): given twice (first at argument 5)"},
        {cli_softmax_table, {"--samples", "1", "--keys", "2", "--samples", "1"},
         "--samples (argument 7): given twice (first at argument 3)"},
        {cli_softmax_table, {"--samples", "1", "--keys", "2", "--keys", "3"},
         "--keys (argument 7): given twice (first at argument 5)"},
        /* no config file: a line with a mistake names the file's own errors too */
        {cli_sweep, {"--jobs", "1", "--jobs=2"},
         "--jobs (argument 4): given twice (first at argument 3)"},
        {cli_sweep, {"--out", "a", "--steps", "3", "--out", "b"},
         "--out (argument 7): given twice (first at argument 3)"},
    };
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; c++) {
        TuResult r = tu_call(CASES[c].cmd, CASES[c].args);
        char want[160];
        snprintf(want, sizeof want, "error: %s; give %s\n", CASES[c].err,
                 strstr(CASES[c].err, "excludes") ? "one" : "it once");
        ck_assert_msg(r.rc == 2, "case %zu: exit %d: %s", c, r.rc, r.err);
        ck_assert_msg(strcmp(r.err, want) == 0, "case %zu: '%s', want '%s'", c, r.err, want);
        ck_assert_msg(!*r.out, "case %zu printed '%s'", c, r.out);
        tu_result_free(&r);
    }
}
END_TEST

TU_MAIN("args", test_is_help_and_is_flag, test_flag_value, test_next, test_parse_count, test_fail,
        test_fail_at, test_set_twice, test_once, test_every_command_refuses_an_option_twice);
