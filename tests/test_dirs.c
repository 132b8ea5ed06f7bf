/* test_dirs.c: mkdir -p of src/util/dirs.c: every missing parent is made, an existing folder is
 * fine, and a path through or onto a file, or one too long for its buffer, fails with the errno
 * its header promises. (Moved here from test_runlog.c, which tests the logs.) */
#include "util/dirs.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
    /* 1024 bytes do not fit the 1023 the buffer holds, and nothing is created; 1023 fit */
    static const struct {
        size_t len;
        int err;
    } lens[] = {{1024, ENAMETOOLONG}, {1023, 0}};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        char longp[1100];
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

TU_MAIN("dirs", test_make_dirs);
