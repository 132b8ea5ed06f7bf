/* temp_names.h: a whole-file write made to fail on purpose, for the tests that check how a
 * command names and survives a file it could not write. Every temporary name atomic_open would
 * try for path in this process (util/whole_write.h: NAME.tmp.PID.K) is taken by a folder, so the
 * write fails with EEXIST at its temporary file, whoever runs the test (root included, whom a
 * read-only folder would not stop). For tests that run the writer in their own process. And the
 * check that a write left no temporary file behind. */
#ifndef SCALEDOT_TESTS_TEMP_NAMES_H
#define SCALEDOT_TESTS_TEMP_NAMES_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "util/whole_write.h"

/* Takes every temporary name of path; last[0..n) gets the last one, the file the error names. */
static inline void temp_names_take(const char *path, char *last, size_t n) {
    for (int k = 0; k < ATOMIC_TEMP_TRIES; k++) {
        ck_assert_int_eq(atomic_temp_name(path, (long)getpid(), k, last, n), 0);
        ck_assert_msg(mkdir(last, 0700) == 0, "cannot take %s", last);
    }
}

/* Gives them back (the folders removed), so the writer can write path again. */
static inline void temp_names_free(const char *path) {
    char name[4200];
    for (int k = 0; k < ATOMIC_TEMP_TRIES; k++)
        if (atomic_temp_name(path, (long)getpid(), k, name, sizeof name) == 0) rmdir(name);
}

/* Fails the test when folder dir holds a temporary file (atomic_is_temp_name: of this version or
 * of one before), naming them. */
static inline void temp_names_assert_none(const char *dir) {
    char *left = tu_list_dir(dir, atomic_is_temp_name);
    ck_assert_msg(!left[0], "temporary files left in %s: %s", dir, left);
    free(left);
}

#endif
