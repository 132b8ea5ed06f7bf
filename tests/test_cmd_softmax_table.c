/* test_cmd_softmax_table.c: the command line of ./train --softmax-table
 * (src/cli/cmd_softmax_table.c), table-driven: every bad option or value is refused with exit code
 * 2 and a message naming it, --help prints the usage, and the values given reach the table. */
#include "cli/cli.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_bad_arguments_exit_2) {
    static const struct {
        const char *args[4]; /* NULL-terminated */
        const char *names; /* the flag or value the message must mention */
    } cases[] = {
        {{"--bogus"}, "error: --bogus (argument 2): unknown option for --softmax-table\n"},
        {{"--keys", "8", "--seed=3"},
         "error: --seed=3 (argument 4): unknown option for --softmax-table\n"},
        {{"--samples", "0"}, "error: --samples (argument 3): needs an integer in [1, 1000000], "
                             "got '0'\n"},
        {{"--samples", "-5"}, "--samples"},
        {{"--samples", "abc"}, "--samples"},
        {{"--samples", "12x"}, "--samples"},
        {{"--samples", ""}, "--samples"},
        {{"--samples", "99999999999999999999"}, "--samples"},
        {{"--samples", "1000001"}, "--samples"},
        {{"--keys", "1"}, "error: --keys (argument 3): needs an integer in [2, 4096], got '1'\n"},
        {{"--keys", "100000"}, "--keys"},
        {{"--keys", "2.5"}, "--keys"},
        {{"--seed", "-1"}, "error: --seed (argument 3): needs an integer in [0, 2^64-1], got "
                           "'-1'\n"},
        {{"--seed", "18446744073709551616"}, "--seed"}, /* 2^64 */
        {{"--seed", " 7"}, "--seed"},
        {{"--seed"}, "error: --seed (argument 2): needs a value\n"},
        {{"--keys", "8", "--samples"}, "error: --samples (argument 4): needs a value\n"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        TuResult r = tu_call(cli_softmax_table, cases[c].args);
        ck_assert_msg(r.rc == 2, "case %zu (%s): exit %d, want 2", c, cases[c].args[0], r.rc);
        ck_assert_msg(strstr(r.err, cases[c].names) != NULL, "case %zu: message '%s' lacks '%s'", c,
                      r.err, cases[c].names);
        /* the place in front: the argument at fault, numbered on the whole line */
        ck_assert_msg(strncmp(r.err, "error: --", 9) == 0 && strstr(r.err, " (argument "),
                      "case %zu: '%s'", c, r.err);
        ck_assert_msg(!*r.out, "case %zu printed a table", c);
        tu_result_free(&r);
    }
}
END_TEST

/* --help prints the usage on stdout and nothing else; the limits in it are the ones enforced. */
START_TEST(test_help) {
    static const char *const line[] = {"--samples", "5", "-h", NULL};
    TuResult r = tu_call(cli_softmax_table, line);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "usage: ./train --softmax-table"));
    ck_assert_ptr_nonnull(strstr(r.out, "1 .. 1000000 (default 2000)"));
    ck_assert_ptr_nonnull(strstr(r.out, "2 .. 4096 (default 16)"));
    ck_assert_ptr_null(strstr(r.out, "1. Softmax"));
    tu_result_free(&r);
}
END_TEST

/* The values reach the table: its part 2 header names them ("+3": a sign is allowed). */
START_TEST(test_values_reach_the_table) {
    static const char *const line[] = {"--keys", "+3", "--seed", "18446744073709551615",
                                       "--samples", "2", NULL};
    TuResult r = tu_call(cli_softmax_table, line);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "over rows of n = 3 keys"));
    ck_assert_ptr_nonnull(strstr(r.out, "2 rows per d_k; seed 18446744073709551615."));
    tu_result_free(&r);
}
END_TEST

TU_MAIN("cli_softmax_table", test_bad_arguments_exit_2, test_help, test_values_reach_the_table);
