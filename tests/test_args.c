/* test_args.c: the argument helpers every subcommand shares (src/cli/args.c), table-driven:
 * --help, an option and its '=' spelling, an option's value in both spellings (and where the
 * index moves), the next argument, decimal counts against hand-made limits, and the error line
 * with its exit code 2. */
#include "cli/args.h"

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

TU_MAIN("args", test_is_help_and_is_flag, test_flag_value, test_next, test_parse_count, test_fail);
