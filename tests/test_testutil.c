/* test_testutil.c: the one-line test programs of tests/testutil.h and its wait for a line.
 * tu_main, run inside a test on a list of inner tests, must register each test once in the order
 * given, each TU_LOOP over its range (Check's "Checks: N" counts one result per loop value), run
 * the checked fixture around every test, and return EXIT_FAILURE exactly when an inner test
 * fails; tu_wait_for_file must see a line another process writes, and give up when the process
 * it watches has ended without writing it. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static int fixture_ran, loop_fail_at = -1;

static void setup(void) { fixture_ran = 1; }
static void teardown(void) {}

/* ------------------------------------------------------------- the inner tests */

START_TEST(inner_pass) { ck_assert(1); }
END_TEST

START_TEST(inner_needs_fixture) { ck_assert_msg(fixture_ran, "the fixture did not run"); }
END_TEST

/* passes for _i in [3, 6) except loop_fail_at */
START_TEST(inner_loop) {
    ck_assert_msg(_i >= 3 && _i < 6, "_i = %d outside [3, 6)", _i);
    ck_assert_msg(_i != loop_fail_at, "planted failure at _i = %d", _i);
}
END_TEST

/* planted failures, to see the order the tests ran in (Check prints failures in that order) */
START_TEST(inner_fail_a) { ck_abort_msg("planted a"); }
END_TEST

START_TEST(inner_fail_b) { ck_abort_msg("planted b"); }
END_TEST

/* where inner_fails_with_a_file notes the file it made (a test's process ends with it) */
static char scratch_note[300];

/* makes a file in the scratch folder, notes its path and fails before it could remove it */
START_TEST(inner_fails_with_a_file) {
    char path[300];
    snprintf(path, sizeof path, "%s/left", tu_scratch());
    tu_write_file(path, "a temporary file\n");
    tu_write_file(scratch_note, path);
    ck_abort_msg("planted: the file is left");
}
END_TEST

/* a child that exits at once without writing: tu_wait_for_file given its pid must give up at once
 * (the wait is 20 s) and fail the test */
START_TEST(inner_wait_for_a_dead_child) {
    char path[300];
    snprintf(path, sizeof path, "%s/never.txt", tu_scratch());
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) _exit(0);
    tu_wait_for_file(path, "never", child, 20);
}
END_TEST

/* tu_main on tests with stdout captured: its exit code and Check's summary line; *all (when
 * all is not NULL) gets the whole output (the caller frees). */
static int run_inner_all(const TTest *const *tests, int with_fixture, char *summary, size_t n,
                         char **all) {
    TuCapture c;
    tu_capture_begin(&c, 1);
    int rc = tu_main("inner", 30, with_fixture ? setup : NULL, with_fixture ? teardown : NULL,
                     tests);
    char *out = tu_capture_end(&c);
    const char *line = strstr(out, "%: Checks:");
    ck_assert_msg(line != NULL, "no summary in:\n%s", out);
    while (line > out && line[-1] != '\n') line--;
    snprintf(summary, n, "%.*s", (int)strcspn(line, "\n"), line);
    if (all)
        *all = out;
    else
        free(out);
    return rc;
}

static int run_inner(const TTest *const *tests, int with_fixture, char *summary, size_t n) {
    return run_inner_all(tests, with_fixture, summary, n, NULL);
}

/* ------------------------------------------------------------- the cases */

START_TEST(test_counts_tests_and_loop_values) {
    /* one plain test, then 3 loop values (3, 4, 5), then the plain test again: 5 results */
    const TTest *tests[] = {inner_pass, TU_LOOP(inner_loop, 3, 6), inner_pass, NULL};
    char summary[200];
    ck_assert_int_eq(run_inner(tests, 0, summary, sizeof summary), EXIT_SUCCESS);
    ck_assert_str_eq(summary, "100%: Checks: 5, Failures: 0, Errors: 0");
}
END_TEST

START_TEST(test_failure_is_exit_failure) {
    loop_fail_at = 4;
    const TTest *tests[] = {TU_LOOP(inner_loop, 3, 6), inner_pass, NULL};
    char summary[200];
    ck_assert_int_eq(run_inner(tests, 0, summary, sizeof summary), EXIT_FAILURE);
    ck_assert_str_eq(summary, "75%: Checks: 4, Failures: 1, Errors: 0");
}
END_TEST

START_TEST(test_fixture_runs_around_each_test) {
    const TTest *tests[] = {inner_needs_fixture, inner_needs_fixture, NULL};
    char summary[200];
    ck_assert_int_eq(run_inner(tests, 1, summary, sizeof summary), EXIT_SUCCESS);
    ck_assert_str_eq(summary, "100%: Checks: 2, Failures: 0, Errors: 0");
    /* and without one, the same tests fail: the check above means something */
    ck_assert_int_eq(run_inner(tests, 0, summary, sizeof summary), EXIT_FAILURE);
    ck_assert_str_eq(summary, "0%: Checks: 2, Failures: 2, Errors: 0");
}
END_TEST

/* The copy TU_LOOP hands out is the same test (name, function, place) at another address. */
START_TEST(test_loop_entry_is_a_copy) {
    const TTest *t = TU_LOOP(inner_loop, 0, 1);
    ck_assert_ptr_ne(t, inner_loop);
    ck_assert_str_eq(t->name, inner_loop->name);
    ck_assert(t->fn == inner_loop->fn);
    ck_assert_str_eq(t->file, inner_loop->file);
    ck_assert_int_eq(t->line, inner_loop->line);
}
END_TEST

/* tu_in_order, against answers worked out by hand: each needle is searched after the end of the
 * one before, so a repeated or overlapping needle needs a second occurrence. */
START_TEST(test_in_order) {
    static const char *const ABC[] = {"a", "b", "c"}, *const CBA[] = {"c", "b", "a"};
    static const char *const AA[] = {"aa", "aa"}, *const NONE[] = {"z"};
    ck_assert_int_eq(tu_in_order("xaybzc", ABC, 3), -1);
    ck_assert_int_eq(tu_in_order("xaybzc", CBA, 3), 1); /* b is not after c */
    ck_assert_int_eq(tu_in_order("aaa", AA, 2), 1);     /* the second aa would overlap the first */
    ck_assert_int_eq(tu_in_order("aaaa", AA, 2), -1);
    ck_assert_int_eq(tu_in_order("abc", NONE, 1), 0);
    ck_assert_int_eq(tu_in_order("abc", NONE, 0), -1);
}
END_TEST

/* SCALEDOT_TEST_FIRST=NAME: the test NAME runs first and every test still runs; the variable is
 * gone afterwards. Without it the same list runs in its order (the check means something). */
START_TEST(test_first_test_runs_first) {
    const TTest *tests[] = {inner_fail_a, inner_pass, inner_fail_b, NULL};
    static const char *const BA[] = {":inner_fail_b:", ":inner_fail_a:"};
    static const char *const AB[] = {":inner_fail_a:", ":inner_fail_b:"};
    char summary[200], *out;
    ck_assert_int_eq(setenv("SCALEDOT_TEST_FIRST", "inner_fail_b", 1), 0);
    ck_assert_int_eq(run_inner_all(tests, 0, summary, sizeof summary, &out), EXIT_FAILURE);
    ck_assert_str_eq(summary, "33%: Checks: 3, Failures: 2, Errors: 0");
    ck_assert_msg(tu_in_order(out, BA, 2) == -1, "inner_fail_b did not run first:\n%s", out);
    free(out);
    ck_assert_ptr_null(getenv("SCALEDOT_TEST_FIRST"));
    ck_assert_int_eq(run_inner_all(tests, 0, summary, sizeof summary, &out), EXIT_FAILURE);
    ck_assert_msg(tu_in_order(out, AB, 2) == -1, "not in the order given:\n%s", out);
    free(out);
}
END_TEST

/* A test that fails after making a temporary file in tu_scratch leaves nothing: the runner's
 * folder is gone with the file once it ends, and the outer runner's folder is still there. */
START_TEST(test_scratch_removed_after_a_failure) {
    char dir[64];
    tu_make_tmp(dir, sizeof dir, "/tmp/test_testutil.XXXXXX");
    snprintf(scratch_note, sizeof scratch_note, "%s/note", dir);
    const TTest *tests[] = {inner_fails_with_a_file, NULL};
    char summary[200];
    ck_assert_int_eq(run_inner(tests, 0, summary, sizeof summary), EXIT_FAILURE);
    ck_assert_str_eq(summary, "0%: Checks: 1, Failures: 1, Errors: 0");
    char *left = tu_read_file(scratch_note, NULL);
    tu_remove_tree(dir);
    /* beside the outer runner's folder: the same TMPDIR */
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%.*s/scaledot_test.",
             (int)(strrchr(tu_scratch(), '/') - tu_scratch()), tu_scratch());
    ck_assert_msg(left && strncmp(left, prefix, strlen(prefix)) == 0, "noted '%s'", left);
    struct stat st;
    ck_assert_msg(lstat(left, &st) != 0 && errno == ENOENT, "%s was left", left);
    *strrchr(left, '/') = 0;
    ck_assert_msg(lstat(left, &st) != 0 && errno == ENOENT, "folder %s was left", left);
    ck_assert_msg(strcmp(left, tu_scratch()) != 0, "the inner runner used the outer's folder");
    ck_assert_int_eq(stat(tu_scratch(), &st), 0);
    free(left);
}
END_TEST

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* tu_wait_for_file returns once another process has written the needle, and fails the test,
 * without waiting out its time, when the process it watches has ended without writing it (the
 * inner test above: a 20-second wait, over well before, "Failures: 1" rather than Check's
 * timeout error). */
START_TEST(test_wait_for_file) {
    char path[300];
    snprintf(path, sizeof path, "%s/late.txt", tu_scratch());
    pid_t writer = fork();
    ck_assert_int_ge(writer, 0);
    if (writer == 0) {
        struct timespec nap = {0, 100000000};
        nanosleep(&nap, NULL);
        FILE *f = fopen(path, "w");
        if (!f) _exit(1);
        fputs("a line\nready\n", f);
        _exit(fclose(f) == 0 ? 0 : 1);
    }
    ck_assert(!tu_file_contains(path, "ready")); /* written 100 ms after the fork */
    tu_wait_for_file(path, "ready", writer, 30);
    int st;
    ck_assert_int_eq(waitpid(writer, &st, 0), writer);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);

    const TTest *tests[] = {inner_wait_for_a_dead_child, NULL};
    char summary[200], *out;
    double t0 = seconds_now();
    ck_assert_int_eq(run_inner_all(tests, 0, summary, sizeof summary, &out), EXIT_FAILURE);
    double took = seconds_now() - t0;
    ck_assert_str_eq(summary, "0%: Checks: 1, Failures: 1, Errors: 0");
    ck_assert_msg(strstr(out, "'never' never appeared in ") != NULL, "output:\n%s", out);
    ck_assert_msg(took < 10, "the wait took %.1f s: the ended child was not noticed", took);
    free(out);
}
END_TEST

TU_MAIN_TIMEOUT("testutil", 60, test_counts_tests_and_loop_values, test_failure_is_exit_failure,
                test_fixture_runs_around_each_test, test_loop_entry_is_a_copy, test_in_order,
                test_first_test_runs_first, test_scratch_removed_after_a_failure,
                test_wait_for_file);
