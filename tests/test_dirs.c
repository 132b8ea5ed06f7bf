/* test_dirs.c: mkdir -p of src/util/dirs.c: every missing parent is made, an existing folder is
 * fine, and a path through or onto a file, or one too long for its buffer, fails with the errno
 * its header promises (moved here from test_runlog.c, which tests the logs); a folder given as,
 * or under, a symbolic link is refused, but for links the user already stands in ($HOME, the
 * current folder). A path's plain spelling and a name joined to a folder, against tables written
 * out by hand. */
#include "util/dirs.h"

#include <check.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* tmpdir/long/xxx...: exactly len bytes, in components of at most 100 (a file system's limit on
 * one name is 255). */
static void long_path(char *out, const char *tmpdir, size_t len) {
    size_t w = (size_t)snprintf(out, len + 1, "%s/long", tmpdir);
    while (w < len) {
        out[w++] = '/';
        for (int k = 0; k < 100 && w < len; k++) out[w++] = 'x';
    }
    if (out[len - 1] == '/') out[len - 1] = 'y';
    out[len] = 0;
}

START_TEST(test_make_dirs) {
    char tmpdir[256];
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_dirs_XXXXXX");
    char path[512];
    snprintf(path, sizeof path, "%s/f", tmpdir);
    tu_write_file(path, "a file\n");
    /* rel: below tmpdir; err: the errno of a failure, 0 for success (then rel must be a folder) */
    static const struct {
        const char *rel;
        int err;
    } cases[] = {
        {"a/b/c", 0},
        {"a/b/c", 0},      /* already there */
        {"a/b", 0},        /* a parent that exists */
        {"x//y/", 0},      /* doubled and trailing '/' */
        {"f", ENOTDIR},    /* the path is a file */
        {"f/g", ENOTDIR},  /* a parent is a file */
        {"a/b/c/f2/../", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, cases[i].rel);
        errno = 0;
        int rc = make_dirs(path);
        if (cases[i].err == 0) {
            ck_assert_msg(rc == 0, "case %zu '%s': %s", i, cases[i].rel, strerror(errno));
            ck_assert_msg(is_dir(path), "case %zu '%s': not a folder", i, cases[i].rel);
        } else {
            ck_assert_msg(rc == -1 && errno == cases[i].err, "case %zu '%s': rc %d, %s", i,
                          cases[i].rel, rc, strerror(errno));
        }
    }
    /* PATH_MAX bytes do not fit the PATH_MAX - 1 the system opens (a run folder's spelled path
     * may be that long), and nothing is created; PATH_MAX - 1 fit */
    static const struct {
        size_t len;
        int err;
    } lens[] = {{PATH_MAX, ENAMETOOLONG}, {PATH_MAX - 1, 0}};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        char longp[PATH_MAX + 8];
        long_path(longp, tmpdir, lens[i].len);
        ck_assert_uint_eq(strlen(longp), lens[i].len);
        errno = 0;
        int rc = make_dirs(longp);
        ck_assert_msg(lens[i].err ? rc == -1 && errno == lens[i].err : rc == 0 && is_dir(longp),
                      "%zu bytes: rc %d, %s", lens[i].len, rc, strerror(errno));
        snprintf(path, sizeof path, "%s/long", tmpdir);
        ck_assert_int_eq(is_dir(path), lens[i].err == 0);
    }
    tu_remove_tree(tmpdir);
}
END_TEST

/* dirs_refuse_link: (path below tmpdir) -> refused, and what the error says. A link to a folder
 * is refused with or without a trailing '/' (lstat of "link/" would follow it), and so is a path
 * under a link (link/sub, link/sub/deeper: the report would be written into the link's target);
 * a folder, a missing path and a path under real folders are not. */
static const struct {
    const char *rel;
    int refused;
    const char *says; /* "is" a symbolic link, or "lies under" one */
} LINKS[] = {
    {"link", 1, "is"}, {"link/", 1, "is"}, {"link//", 1, "is"}, {"dangling", 1, "is"},
    {"real", 0, ""}, {"real/", 0, ""}, {"missing", 0, ""}, {"real/sub/new", 0, ""},
    {"link/sub", 1, "lies under"}, {"link/sub/deeper", 1, "lies under"},
    {"link/missing", 1, "lies under"},
};

START_TEST(test_refuse_link) {
    char tmpdir[256], path[512], target[512];
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_dirs_XXXXXX");
    snprintf(path, sizeof path, "%s/real/sub", tmpdir);
    ck_assert_int_eq(make_dirs(path), 0);
    snprintf(target, sizeof target, "%s/real", tmpdir);
    snprintf(path, sizeof path, "%s/link", tmpdir);
    ck_assert_int_eq(symlink(target, path), 0);
    snprintf(path, sizeof path, "%s/dangling", tmpdir);
    ck_assert_int_eq(symlink("nowhere", path), 0);
    snprintf(path, sizeof path, "%s/%s", tmpdir, LINKS[_i].rel);
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = dirs_refuse_link(path, "--out", NULL);
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, LINKS[_i].refused ? -1 : 0);
    char want[1400];
    if (strcmp(LINKS[_i].says, "is") == 0)
        snprintf(want, sizeof want, "error: --out '%s' is a symbolic link", path);
    else
        snprintf(want, sizeof want, "error: --out '%s' lies under a symbolic link, '%s/link' (to "
                                    "'%s')", path, tmpdir, target);
    ck_assert_msg(LINKS[_i].refused ? strstr(err, want) != NULL : err[0] == 0, "stderr: %s", err);
    free(err);
    tu_remove_tree(tmpdir);
}
END_TEST

/* The links a user already stands in are followed: a link that is $HOME or an ancestor of it (a
 * symlinked home), or the current folder or an ancestor of it as $PWD names it (a project
 * reached through a link), for absolute and relative paths; once $HOME and $PWD no longer go
 * through it, the same link is refused. Runs in a child process: it changes folder and
 * environment. */
START_TEST(test_links_above_the_user_followed) {
    char tmpdir[256], path[512], target[512], home[512];
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_dirs_XXXXXX");
    snprintf(path, sizeof path, "%s/real/proj/sub", tmpdir);
    ck_assert_int_eq(make_dirs(path), 0);
    snprintf(target, sizeof target, "%s/real", tmpdir);
    snprintf(home, sizeof home, "%s/link", tmpdir);
    ck_assert_int_eq(symlink(target, home), 0);
    TuCapture c;
    tu_capture_begin(&c, 2);
    /* $HOME is the link: paths under it pass; $HOME elsewhere: refused */
    setenv("HOME", home, 1);
    snprintf(path, sizeof path, "%s/link/proj/out", tmpdir);
    int home_ok = dirs_refuse_link(path, "--out", NULL);
    setenv("HOME", "/nonexistent-home", 1);
    int home_gone = dirs_refuse_link(path, "--out", NULL);
    /* the current folder reached through the link ($PWD keeps it): relative and absolute */
    snprintf(path, sizeof path, "%s/link/proj", tmpdir);
    ck_assert_int_eq(chdir(path), 0);
    setenv("PWD", path, 1);
    int rel_ok = dirs_refuse_link("sub/out", "--out", NULL);
    snprintf(path, sizeof path, "%s/link/proj/sub/out", tmpdir);
    int abs_ok = dirs_refuse_link(path, "--out", NULL);
    /* a $PWD that is not the current folder (here: its parent, through the link) is not
     * believed */
    setenv("PWD", home, 1);
    int pwd_wrong = dirs_refuse_link(path, "--out", NULL);
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(chdir("/"), 0);
    tu_remove_tree(tmpdir);
    ck_assert_msg(home_ok == 0 && rel_ok == 0 && abs_ok == 0,
                  "home %d, relative %d, absolute %d; stderr: %s", home_ok, rel_ok, abs_ok, err);
    ck_assert_msg(home_gone == -1 && pwd_wrong == -1, "home gone %d, $PWD wrong %d", home_gone,
                  pwd_wrong);
    free(err);
}
END_TEST

/* Each spelling and the plain one, written out by hand: "." parts, repeated and trailing slashes
 * go, ".." parts stay. */
START_TEST(test_normalise) {
    static const struct { const char *path, *plain; } CASES[] = {
        {"./copies/orig", "copies/orig"}, {"copies//orig/", "copies/orig"},
        {"copies/orig", "copies/orig"},   {"runs//s1", "runs/s1"},
        {"runs/./s1/.", "runs/s1"},       {"././x//", "x"},
        {".", "."},                       {"./", "."},
        {".//./", "."},                   {"/", "/"},
        {"//", "/"},                      {"/./a//b/", "/a/b"},
        {"/.", "/"},                      {"..", ".."},
        {"./../a/", "../a"},              {"a/../b", "a/../b"},
        {"a/..", "a/.."},                 {".a/b.", ".a/b."},
        {"", ""},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        char out[64];
        memset(out, 'z', sizeof out);
        ck_assert_msg(dirs_normalise(CASES[k].path, out, sizeof out) == 0, "'%s' refused",
                      CASES[k].path);
        ck_assert_msg(strcmp(out, CASES[k].plain) == 0, "'%s': '%s', want '%s'", CASES[k].path,
                      out, CASES[k].plain);
    }
    char small[6]; /* "abc/de" needs 7 bytes; "abc/d" fits in 6 */
    ck_assert_int_eq(dirs_normalise("./abc//d/", small, sizeof small), 0);
    ck_assert_str_eq(small, "abc/d");
    errno = 0;
    ck_assert_int_eq(dirs_normalise("abc/de", small, sizeof small), -1);
    ck_assert_int_eq(errno, ENAMETOOLONG);
}
END_TEST

START_TEST(test_join) {
    static const struct { const char *dir, *joined; } CASES[] = {
        {"/", "/config.ini"},          {"//", "/config.ini"},
        {"runs/a", "runs/a/config.ini"}, {"runs/a/", "runs/a/config.ini"},
        {"runs/a//", "runs/a/config.ini"}, {".", "./config.ini"},
        {"", "config.ini"},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        char out[64];
        ck_assert_int_eq(dirs_join(out, sizeof out, CASES[k].dir, "config.ini"), 0);
        ck_assert_msg(strcmp(out, CASES[k].joined) == 0, "'%s': '%s', want '%s'", CASES[k].dir,
                      out, CASES[k].joined);
    }
    char small[10];
    ck_assert_int_eq(dirs_join(small, sizeof small, "ab", "config.ini"), -1);
}
END_TEST

TU_MAIN("dirs", test_make_dirs, test_normalise, test_join, TU_LOOP(test_refuse_link, 0, (int)(sizeof LINKS / sizeof LINKS[0])),
        test_links_above_the_user_followed);
