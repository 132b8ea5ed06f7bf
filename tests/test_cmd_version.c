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

TU_MAIN("cmd_version", test_version_names_the_compiler);
