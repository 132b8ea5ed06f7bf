/* test_makefile.c: `make` with no target builds ./train (docs/manual.md: "make   # builds
 * ./train"). A rule placed above `all:` becomes make's default goal unless .DEFAULT_GOAL says
 * otherwise: once the compiler stamp's rule did, and a plain `make` then printed "build/cc-...stamp
 * is up to date" and built nothing. Asked of make itself (its database, -p, with -n: nothing is
 * built or run), in a copy of the Makefile alone, so the source tree is left as it is. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_default_goal_is_all) {
    char dir[64];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_test_makefile_XXXXXX");
    char cmd[PATH_MAX * 2 + 200];
    /* MAKEFLAGS and MFLAGS unset: the make that runs this test may pass its jobserver */
    snprintf(cmd, sizeof cmd,
             "cp %s/Makefile %s/ && cd %s && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -pn "
             "2>/dev/null | grep -m1 '^\\.DEFAULT_GOAL' > goal.txt",
             SCALEDOT_SOURCE_DIR, dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/goal.txt", dir);
    char *goal = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(goal);
    ck_assert_msg(strcmp(goal, ".DEFAULT_GOAL := all\n") == 0, "make's default goal: '%s'", goal);
    free(goal);
    tu_remove_tree(dir);
}
END_TEST

TU_MAIN("makefile", test_default_goal_is_all);
