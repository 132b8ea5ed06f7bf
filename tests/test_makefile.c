/* test_makefile.c: properties of the Makefile, asked of make itself in a copy of the Makefile
 * alone (the source tree is left as it is).
 * - `make` with no target builds ./train (docs/manual.md: "make   # builds ./train"). A rule
 *   placed above `all:` becomes make's default goal unless .DEFAULT_GOAL says otherwise: once the
 *   compiler stamp's rule did, and a plain `make` then printed "build/cc-...stamp is up to date"
 *   and built nothing. Read from make's database (-p, with -n: nothing is built or run).
 * - An object depends on the headers its source includes and on no other (DEPFLAGS: the
 *   compiler's .d files), and an object without its .d file on every header: one tiny source
 *   compiled by the Makefile's rule, then make -q asked whether it is up to date. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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

/* make ARGS in dir (a copy of the Makefile there) with gcc, OpenMP and git left out (nothing to
 * probe), its output into dir/make.log; returns its exit code (make -q: 0 up to date, 1 not). */
static int make_in(const char *dir, const char *args) {
    char cmd[PATH_MAX + 300];
    /* MAKEFLAGS and MFLAGS unset: the make that runs this test may pass its jobserver */
    snprintf(cmd, sizeof cmd,
             "cd %s && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make CC=gcc OMP_OK=no GIT_DESC= %s "
             "> make.log 2>&1",
             dir, args);
    int st = system(cmd);
    ck_assert_msg(WIFEXITED(st), "make %s did not exit", args);
    return WEXITSTATUS(st);
}

/* Sets path (below dir) to the given time (seconds since 1970), so that which file is newer does
 * not depend on the file system's clock resolution. */
static void set_time(const char *dir, const char *path, long seconds) {
    char cmd[PATH_MAX + 100];
    snprintf(cmd, sizeof cmd, "touch -d @%ld %s/%s", seconds, dir, path);
    ck_assert_int_eq(system(cmd), 0);
}

#define OBJ "build/gcc/float/x/a.o"

/* A tree in dir of the Makefile and src/x/a.c, which includes x/a.h and not x/b.h, the sources
 * from 2001; OBJ compiled from it by the Makefile, then set to 2017. */
static void tree_with_object(char *dir, size_t n) {
    tu_make_tmp(dir, n, "/tmp/scaledot_test_makefile_XXXXXX");
    char cmd[PATH_MAX * 2 + 100];
    snprintf(cmd, sizeof cmd, "cp %s/Makefile %s/ && mkdir -p %s/src/x", SCALEDOT_SOURCE_DIR, dir,
             dir);
    ck_assert_int_eq(system(cmd), 0);
    const char *files[][2] = {
        {"src/x/a.c", "#include \"x/a.h\"\nint a_value(void) { return A; }\n"},
        {"src/x/a.h", "#define A 1\n"},
        {"src/x/b.h", "#define B 2\n"}};
    for (int i = 0; i < 3; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        tu_write_file(path, files[i][1]);
        set_time(dir, files[i][0], 1000000000);
    }
    ck_assert_msg(make_in(dir, OBJ) == 0, "the object does not build (%s/make.log)", dir);
    set_time(dir, OBJ, 1500000000);
    ck_assert_msg(make_in(dir, "-q " OBJ) == 0, "a fresh object is out of date");
}

START_TEST(test_object_depends_on_its_headers) {
    char dir[64];
    tree_with_object(dir, sizeof dir);
    char dep[PATH_MAX];
    snprintf(dep, sizeof dep, "%s/build/gcc/float/x/a.d", dir);
    ck_assert_msg(tu_file_contains(dep, "src/x/a.h"),
                  "no .d file naming src/x/a.h beside the object");
    ck_assert_msg(!tu_file_contains(dep, "src/x/b.h"), "the .d file names a header not included");
    set_time(dir, "src/x/b.h", 1600000000);
    ck_assert_msg(make_in(dir, "-q " OBJ) == 0, "a header the source does not include rebuilds it");
    set_time(dir, "src/x/a.h", 1600000000);
    ck_assert_msg(make_in(dir, "-q " OBJ) == 1, "a header the source includes does not rebuild it");
    tu_remove_tree(dir);
}
END_TEST

START_TEST(test_object_without_deps_file_depends_on_all) {
    char dir[64];
    tree_with_object(dir, sizeof dir);
    char dep[PATH_MAX];
    snprintf(dep, sizeof dep, "%s/build/gcc/float/x/a.d", dir);
    ck_assert_int_eq(remove(dep), 0);
    set_time(dir, "src/x/b.h", 1600000000);
    ck_assert_msg(make_in(dir, "-q " OBJ) == 1,
                  "an object without its .d file misses a changed header");
    tu_remove_tree(dir);
}
END_TEST

TU_MAIN("makefile", test_default_goal_is_all, test_object_depends_on_its_headers,
         test_object_without_deps_file_depends_on_all);
