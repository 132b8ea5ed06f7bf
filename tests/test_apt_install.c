/* test_apt_install.c: tools/apt_install.sh while another apt holds a lock, with a stand-in
 * apt-get first on PATH (nothing is installed): it says "Could not get lock" to its first
 * `locked` tries of update or install, then succeeds. A stand-in sleep shortens the script's
 * waits (5 s between tries: 0.05 s; 10 s between its lines: 0.3 s), so that a lock held for 20
 * tries (1 s or more) is waited for over several of its 10 s beats. The script must say at once
 * that it waits, then a line per beat, then that the lock is free, and nothing of a lock that
 * was free; give up after APT_LOCK_TIMEOUT s with apt's message; and pass any other error on
 * without waiting. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static char g_tmp[64];

static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_apt_install.XXXXXX"); }

static void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* The stand-in apt-get: its arguments are -o DPkg::Lock::Timeout=0 COMMAND ...; it counts the
 * tries of COMMAND in g_tmp/COMMAND.n and fails the first g_tmp/COMMAND.locked of them on a
 * lock (a COMMAND.error file: fails every try with its text instead). */
static const char APT_GET[] =
    "#!/bin/sh\n"
    "[ \"$2\" = DPkg::Lock::Timeout=0 ] || { echo \"stand-in: called with $*\" >&2; exit 99; }\n"
    "c=$STUB/$3\n"
    "[ -f \"$c.error\" ] && { cat \"$c.error\" >&2; exit 100; }\n"
    "n=$(cat \"$c.n\" 2>/dev/null || echo 0); echo $((n + 1)) >\"$c.n\"\n"
    "if [ \"$n\" -lt \"$(cat \"$c.locked\" 2>/dev/null || echo 0)\" ]; then\n"
    "  echo 'E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 "
    "(unattended-upgr)' >&2; exit 100\n"
    "fi\n"
    "exit 0\n";

/* Writes file name of g_tmp with text. */
static void put(const char *name, const char *text) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", g_tmp, name);
    tu_write_file(path, text);
}

/* Runs apt_install.sh check with the stand-ins (APT_LOCK_TIMEOUT=timeout; 0: unset); returns its
 * exit code, its stderr in g_tmp/err.txt. */
static int apt_install(int timeout) {
    tu_put_file(NULL, 0, g_tmp, "bin", "apt-get", APT_GET);
    tu_put_file(NULL, 0, g_tmp, "bin", "sleep",
                "#!/bin/sh\ncase $1 in 10) exec /bin/sleep 0.3 ;; *) exec /bin/sleep 0.05 ;; esac\n");
    char cmd[PATH_MAX * 3], env[64] = "";
    if (timeout) snprintf(env, sizeof env, "APT_LOCK_TIMEOUT=%d ", timeout);
    snprintf(cmd, sizeof cmd, "chmod +x %s/bin/* && STUB=%s PATH=%s/bin:$PATH %s%s/tools/"
             "apt_install.sh check >/dev/null 2>%s/err.txt", g_tmp, g_tmp, g_tmp, env,
             SCALEDOT_SOURCE_DIR, g_tmp);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* What apt_install.sh printed on stderr (the caller frees). */
static char *err_text(void) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/err.txt", g_tmp);
    char *t = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(t);
    return t;
}

/* Checks the lines of one wait in text (its stderr, from *at on; *at is moved past them): the
 * first, at least `beats` beat lines, the lock free; returns the number of beat lines. */
static int expect_wait(const char **at, const char *lock, int beats) {
    char first[160], beat[160], free_[160];
    snprintf(first, sizeof first, "apt_install: another apt or dpkg holds %s; waiting for it (up "
                                  "to 600 s)\n", lock);
    snprintf(beat, sizeof beat, "apt_install: still waiting for %s (", lock);
    snprintf(free_, sizeof free_, "apt_install: %s is free after ", lock);
    const char *p = *at;
    ck_assert_msg(strncmp(p, first, strlen(first)) == 0, "want '%s' at\n%s", first, p);
    p += strlen(first);
    int n = 0;
    for (; strncmp(p, beat, strlen(beat)) == 0; n++) p = strchr(p, '\n') + 1;
    ck_assert_msg(n >= beats, "%d lines '%s...', want %d or more, in\n%s", n, beat, beats, *at);
    ck_assert_msg(strncmp(p, free_, strlen(free_)) == 0, "want '%s' at\n%s", free_, p);
    *at = strchr(p, '\n') + 1;
    return n;
}

/* A table of waits: tries locked of update, of install; stderr holds their lines and no more.
 * 20 tries, 0.05 s apart, take 1 s or more: 3 beats of 0.3 s at the least (2 are asked for). */
START_TEST(test_waits_say_so_every_beat) {
    static const struct {
        int update, install;
    } CASES[] = {{0, 0}, {0, 1}, {0, 20}, {20, 0}, {2, 20}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char n[16];
        remove_tmp();
        make_tmp();
        snprintf(n, sizeof n, "%d\n", CASES[i].update);
        put("update.locked", n);
        snprintf(n, sizeof n, "%d\n", CASES[i].install);
        put("install.locked", n);
        ck_assert_int_eq(apt_install(0), 0);
        char *got = err_text();
        const char *at = got;
        if (CASES[i].update)
            expect_wait(&at, "the package lists' lock", CASES[i].update >= 20 ? 2 : 0);
        if (CASES[i].install) expect_wait(&at, "the dpkg lock", CASES[i].install >= 20 ? 2 : 0);
        ck_assert_msg(*at == '\0', "case %zu: more than the waits:\n%s", i, got);
        free(got);
    }
}
END_TEST

/* Locked for good: after APT_LOCK_TIMEOUT = 2 s (more than 1 s by the clock), beat lines, then apt's message and "gave up",
 * exit 1; install never tried. */
START_TEST(test_gives_up) {
    put("update.locked", "100000\n");
    ck_assert_int_eq(apt_install(2), 1);
    char *got = err_text();
    static const char *const ORDER[] = {
        "holds the package lists' lock; waiting for it (up to 2 s)\n",
        "still waiting for the package lists' lock (", "E: Could not get lock",
        "apt_install: still locked after "};
    int miss = tu_in_order(got, ORDER, (int)(sizeof ORDER / sizeof *ORDER));
    ck_assert_msg(miss < 0, "missing or out of order: '%s' in\n%s", miss < 0 ? "" : ORDER[miss], got);
    ck_assert_msg(strstr(got, " s; gave up\n") && strstr(got, " s; gave up\n")[12] == '\0', "%s",
                  got);
    free(got);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/install.n", g_tmp);
    ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

/* Another error: passed on at once, no waiting line. */
START_TEST(test_other_error_at_once) {
    put("install.error", "E: Unable to locate package check\n");
    ck_assert_int_eq(apt_install(0), 1);
    char *got = err_text();
    ck_assert_str_eq(got, "E: Unable to locate package check\n");
    free(got);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("apt_install", make_tmp, remove_tmp, 60, test_waits_say_so_every_beat,
                        test_gives_up, test_other_error_at_once);
