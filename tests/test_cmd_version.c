/* test_cmd_version.c: ./train --version (src/cli/cmd_version.c) names the compiler that built it
 * beside its version: "gcc 12.2.0" (gcc's __VERSION__ is the number alone), or clang's own
 * "... Clang 14.0.6". */
#include "cli/cli.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_version_names_the_compiler) {
    TuResult r = tu_run_cmd(cli_version, NULL);
    ck_assert_int_eq(r.rc, 0);
    char want[256];
#if defined(__clang__)
    snprintf(want, sizeof want, "built with %s, flags ", __VERSION__);
    ck_assert_ptr_nonnull(strstr(__VERSION__, "lang")); /* clang's string names it */
#else
    snprintf(want, sizeof want, "built with gcc %d.%d.%d, flags ", __GNUC__, __GNUC_MINOR__,
             __GNUC_PATCHLEVEL__);
#endif
    ck_assert_msg(strstr(r.out, want) != NULL, "'%s' not in '%s'", want, r.out);
    ck_assert_ptr_nonnull(strstr(r.out, "scaledot "));
    tu_result_free(&r);
}
END_TEST

/* No arguments: one is refused with exit code 2 naming it, nothing else printed; --help and -h
 * print the usage line, exit 0. */
START_TEST(test_version_arguments) {
    static const struct {
        const char *args[3];
        int rc;
        const char *out, *err;
    } cases[] = {
        {{"garbage"}, 2, "", "error: --version takes no arguments, got 'garbage'\n"},
        {{"--json", "x"}, 2, "", "error: --version takes no arguments, got '--json'\n"},
        {{"--help"}, 0, "usage: ./train --version\nthe version, git commit, compiler and flags of "
                        "this build\n", ""},
        {{"-h"}, 0, "usage: ./train --version\nthe version, git commit, compiler and flags of "
                    "this build\n", ""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        TuResult r = tu_call(cli_version, cases[k].args);
        ck_assert_msg(r.rc == cases[k].rc, "case %zu: rc %d", k, r.rc);
        ck_assert_msg(strcmp(r.out, cases[k].out) == 0, "case %zu: stdout '%s'", k, r.out);
        ck_assert_msg(strcmp(r.err, cases[k].err) == 0, "case %zu: stderr '%s'", k, r.err);
        tu_result_free(&r);
    }
}
END_TEST

TU_MAIN("cmd_version", test_version_names_the_compiler, test_version_arguments);
