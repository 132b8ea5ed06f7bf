/* test_run_tests.c: tests/run_tests.sh, the runner behind make test, on stub programs: one that
 * runs longer than TEST_HEARTBEAT gets "running for N s: <its last line>" lines before its "ok"
 * line (its output is held until it ends, so without them make test showed nothing for the
 * minutes test_model took), one that ends at once gets none, and the closing count follows.
 * With TEST_JOBS=2 a long program does not hold up the others: the next program starts as soon
 * as a slot is free (the old runner started program K+2 only once program K had ended, so a long
 * program left the second core idle), and the lines still come in the order given. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "testutil.h"

#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_run_tests.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

static void stub(const char *name, const char *body) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", g_tmp, name);
    tu_write_file(path, body);
    ck_assert_int_eq(chmod(path, 0755), 0);
}

/* run_tests.sh's whole output for these programs, `jobs` at once, with a heartbeat of 1 s; *rc
 * its exit code. */
static char *run_jobs(const char *programs, int jobs, int *rc) {
    char cmd[PATH_MAX * 2], out[PATH_MAX];
    snprintf(out, sizeof out, "%s/out.txt", g_tmp);
    snprintf(cmd, sizeof cmd, "TEST_HEARTBEAT=1 TEST_JOBS=%d V=0 %s/tests/run_tests.sh '' %s %s",
             jobs, SCALEDOT_SOURCE_DIR, g_tmp, programs);
    return tu_shell_output(cmd, out, rc);
}

static char *run(const char *programs, int *rc) { return run_jobs(programs, 1, rc); }

/* Fails the test unless the n lines of order are in out, in that order. */
static void assert_in_order(const char *out, const char *const *order, int n) {
    int missing = tu_in_order(out, order, n);
    ck_assert_msg(missing < 0, "no '%s' (in this order) in:\n%s", missing < 0 ? "" : order[missing],
                  out);
}

START_TEST(test_heartbeat_while_running) {
    /* 3 s: a heartbeat at about 1 and 2 s, however busy the machine, before the summary */
    stub("slow", "#!/bin/sh\necho 'Running suite(s): slow'\necho 'phase 1 of 1'\nsleep 3\n"
                 "echo '100%: Checks: 1, Failures: 0, Errors: 0'\n");
    stub("fast", "#!/bin/sh\necho '100%: Checks: 2, Failures: 0, Errors: 0'\n");
    int rc;
    char *out = run("fast slow fast", &rc);
    ck_assert_msg(rc == 0, "rc %d:\n%s", rc, out);
    static const char *const ORDER[] = {
        "  ok    fast                       100%: Checks: 2, Failures: 0, Errors: 0\n",
        "  ..    slow                       running for ",
        "s: phase 1 of 1\n",
        "  ok    slow                       100%: Checks: 1, Failures: 0, Errors: 0\n",
        "  ok    fast                       100%: Checks: 2, Failures: 0, Errors: 0\n",
        "tests: 3 passed, 0 failed\n",
    };
    assert_in_order(out, ORDER, (int)(sizeof ORDER / sizeof ORDER[0]));
    /* every heartbeat names the slow program: none for a program that ended at once */
    int beats = 0;
    for (const char *p = out; (p = strstr(p, "  ..    ")); p++, beats++)
        ck_assert_msg(strncmp(p, "  ..    slow ", 13) == 0, "a heartbeat of another program:\n%s",
                      out);
    ck_assert_msg(beats >= 1 && beats <= 3, "%d heartbeats for a 3 s program:\n%s", beats, out);
    free(out);
}
END_TEST

/* A failing slow program: its heartbeat, then its whole output, and the run fails. */
START_TEST(test_heartbeat_then_failure) {
    stub("bad", "#!/bin/sh\necho 'broken on purpose'\nsleep 2\nexit 3\n");
    int rc;
    char *out = run("bad", &rc);
    ck_assert_int_eq(rc, 1);
    static const char *const ORDER[] = {
        "  ..    bad                        running for ", "s: broken on purpose\n",
        "FAIL  bad (exit code 3); its output:\n    broken on purpose\n", "failed: bad\n",
        "tests: 0 passed, 1 failed\n",
    };
    assert_in_order(out, ORDER, (int)(sizeof ORDER / sizeof ORDER[0]));
    free(out);
}
END_TEST

/* Two slots, a long program first: the three short ones after it must all start while it runs.
 * "long" waits (up to 10 s) until each of them has left its mark, and fails if one has not. */
START_TEST(test_free_slot_starts_the_next_program) {
    char body[PATH_MAX * 2];
    snprintf(body, sizeof body,
             "#!/bin/sh\nfor i in $(seq 100); do\n"
             "  [ -e %s/m1 ] && [ -e %s/m2 ] && [ -e %s/m3 ] && "
             "{ echo '100%%: Checks: 1, Failures: 0, Errors: 0'; exit 0; }\n"
             "  sleep 0.1\ndone\necho 'the short programs did not all run beside me'\nexit 1\n",
             g_tmp, g_tmp, g_tmp);
    stub("long", body);
    for (int i = 1; i <= 3; i++) {
        char name[8];
        snprintf(name, sizeof name, "mark%d", i);
        snprintf(body, sizeof body,
                 "#!/bin/sh\ntouch %s/m%d\necho '100%%: Checks: %d, Failures: 0, Errors: 0'\n",
                 g_tmp, i, i);
        stub(name, body);
    }
    int rc;
    char *out = run_jobs("long mark1 mark2 mark3", 2, &rc);
    ck_assert_msg(rc == 0, "rc %d:\n%s", rc, out);
    static const char *const ORDER[] = {
        "  ok    long                       100%: Checks: 1, Failures: 0, Errors: 0\n",
        "  ok    mark1                      100%: Checks: 1, Failures: 0, Errors: 0\n",
        "  ok    mark2                      100%: Checks: 2, Failures: 0, Errors: 0\n",
        "  ok    mark3                      100%: Checks: 3, Failures: 0, Errors: 0\n",
        "tests: 4 passed, 0 failed\n",
    };
    assert_in_order(out, ORDER, (int)(sizeof ORDER / sizeof ORDER[0]));
    free(out);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("run_tests", make_tmp, remove_tmp, 30, test_heartbeat_while_running,
                        test_heartbeat_then_failure, test_free_slot_starts_the_next_program);
