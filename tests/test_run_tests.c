/* test_run_tests.c: tests/run_tests.sh, the runner behind make test, on stub programs: one that
 * runs longer than TEST_HEARTBEAT gets "running for N s: <its last line>" lines before its "ok"
 * line (its output is held until it ends, so without them make test showed nothing for the
 * minutes test_model takes), one that ends at once gets none, and the closing count follows. */
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

/* run_tests.sh's whole output for these programs with a heartbeat of 1 s; *rc its exit code. */
static char *run(const char *programs, int *rc) {
    char cmd[PATH_MAX * 2], out[PATH_MAX];
    snprintf(out, sizeof out, "%s/out.txt", g_tmp);
    snprintf(cmd, sizeof cmd, "TEST_HEARTBEAT=1 TEST_JOBS=1 V=0 %s/tests/run_tests.sh '' %s %s "
             "> %s 2>&1 < /dev/null", SCALEDOT_SOURCE_DIR, g_tmp, programs, out);
    int status = system(cmd);
    ck_assert(WIFEXITED(status));
    *rc = WEXITSTATUS(status);
    char *text = tu_read_file(out, NULL);
    ck_assert_ptr_nonnull(text);
    return text;
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
    int missing = tu_in_order(out, ORDER, (int)(sizeof ORDER / sizeof ORDER[0]));
    ck_assert_msg(missing < 0, "no '%s' (in this order) in:\n%s", missing < 0 ? "" : ORDER[missing],
                  out);
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
    int missing = tu_in_order(out, ORDER, (int)(sizeof ORDER / sizeof ORDER[0]));
    ck_assert_msg(missing < 0, "no '%s' (in this order) in:\n%s", missing < 0 ? "" : ORDER[missing],
                  out);
    free(out);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("run_tests", make_tmp, remove_tmp, 30, test_heartbeat_while_running,
                        test_heartbeat_then_failure);
