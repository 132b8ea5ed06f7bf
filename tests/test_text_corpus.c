/* test_text_corpus.c: experiments/text_corpus.sh, run in a scratch copy with a stand-in `bible`
 * first on PATH (the real one needs Debian's bible-kjv): a text whose SHA-256 is not the stored
 * one is never written (nor its temporary file left), the verse labels are stripped before the
 * check, a user's data/kjv.txt that is not the corpus is left as it was, a symbolic link there
 * is refused, and a bad argument is a usage error. The second corpus (fortunes) is made from a
 * stand-in fortune folder (FORTUNE_DIR): its files in byte order of their names, without the
 * .dat indexes, ascii-art and the "%" lines. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

static char tmpdir[256];

/* The scratch tree: experiments/text_corpus.sh, data/, and bin/bible printing two labelled
 * verses (and the arguments it got, to bin/args). */
static void setup(void) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/test_text_corpus.XXXXXX");
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/experiments %s/data %s/bin && cp %s/experiments/text_corpus.sh "
             "%s/experiments/",
             tmpdir, tmpdir, tmpdir, SCALEDOT_SOURCE_DIR, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/bin/bible", tmpdir);
    char script[PATH_MAX + 200];
    snprintf(script, sizeof script,
             "#!/bin/sh\necho \"$@\" > %s/bin/args\nprintf 'Ge1:1 In the beginning.\\n"
             "SSol2:10 Rise up, my love.\\n1Cor13:4 Charity suffereth long.\\n'\n", tmpdir);
    tu_write_file(path, script);
    ck_assert_int_eq(chmod(path, 0755), 0);
}

static void teardown(void) { tu_remove_tree(tmpdir); }

/* Runs the script with args, the stand-in first on PATH; returns its exit code. */
static int corpus(const char *args) {
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, "cd / && PATH=%s/bin:$PATH %s/experiments/text_corpus.sh %s "
             ">%s/out.txt 2>&1", tmpdir, tmpdir, args, tmpdir);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static int said(const char *needle) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    return tu_file_contains(path, needle);
}

/* Files in data/ (the temporary file of a refused text must not stay). */
static int data_files(void) {
    char cmd[PATH_MAX * 2 + 64], path[PATH_MAX];
    snprintf(path, sizeof path, "%s/count.txt", tmpdir);
    snprintf(cmd, sizeof cmd, "ls -A %s/data | wc -l > %s", tmpdir, path);
    ck_assert_int_eq(system(cmd), 0);
    char *s = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(s);
    int n = atoi(s);
    free(s);
    return n;
}

/* The SHA-256 the script names for a text it refused must be that of `want` (computed here by
 * sha256sum on the text written by hand). */
static void said_sha_of(const char *want_text) {
    char path[PATH_MAX], cmd[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/want_text.txt", tmpdir);
    tu_write_file(path, want_text);
    snprintf(cmd, sizeof cmd, "sha256sum %s/want_text.txt | cut -d' ' -f1 > %s/want.txt", tmpdir,
             tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/want.txt", tmpdir);
    char *want = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(want);
    want[strcspn(want, "\n")] = 0;
    char needle[200];
    snprintf(needle, sizeof needle, "the text has SHA-256 %s,", want);
    ck_assert_msg(said(needle), "expected '%s'", needle);
    free(want);
}

START_TEST(test_wrong_text_not_written) {
    ck_assert_int_eq(corpus(""), 1);
    /* the labels were stripped before the check: the SHA-256 named is that of the bare text */
    ck_assert_msg(said("the text has SHA-256 "), "no SHA-256 message");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/bin/args", tmpdir);
    ck_assert(tu_file_contains(path, "-f Gen1:1-Rev22:21"));
    ck_assert_int_eq(data_files(), 0);
    /* the SHA-256 it printed is that of the three verses without their labels */
    said_sha_of("In the beginning.\nRise up, my love.\nCharity suffereth long.\n");
    ck_assert_int_eq(corpus("--check"), 1);
}
END_TEST

/* A user's data/NAME that is not the corpus: running the script with args refuses (exit 1),
 * says so, and leaves the file's text as it was. */
static void users_file_kept(const char *args, const char *name, const char *mine) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/data/%s", tmpdir, name);
    tu_write_file(path, mine);
    ck_assert_int_eq(corpus(args), 1);
    ck_assert(said("is not overwritten"));
    char *s = tu_read_file(path, NULL);
    ck_assert_str_eq(s, mine);
    free(s);
}

START_TEST(test_users_file_kept) {
    users_file_kept("", "kjv.txt", "my own notes\n");
    ck_assert_int_eq(data_files(), 1);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/data/kjv.txt", tmpdir);
    /* a symbolic link is refused, and its target untouched */
    ck_assert_int_eq(unlink(path), 0);
    char target[PATH_MAX];
    snprintf(target, sizeof target, "%s/target.txt", tmpdir);
    tu_write_file(target, "target\n");
    ck_assert_int_eq(symlink(target, path), 0);
    ck_assert_int_eq(corpus(""), 1);
    ck_assert(said("symbolic link"));
    char *s = tu_read_file(target, NULL);
    ck_assert_str_eq(s, "target\n");
    free(s);
    ck_assert_int_eq(corpus("--bogus"), 2);
    ck_assert(said("usage: experiments/text_corpus.sh [kjv|fortunes] [--check]"));
}
END_TEST

START_TEST(test_fortunes_text) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/fortunes", tmpdir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    static const char *const files[][2] = {
        {"fortunes", "Fortune one.\n%\nFortune two,\n\tindented.\n%\n"},
        {"art", "Art is long.\n%\n"},
        {"Zen", "Upper case sorts first in byte order.\n%\n"},
        {"fortunes.dat", "INDEX\n"},
        {"ascii-art", "  /\\_/\\\n%\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/fortunes/%s", tmpdir, files[i][0]);
        tu_write_file(path, files[i][1]);
    }
    snprintf(path, sizeof path, "%s/fortunes", tmpdir);
    ck_assert_int_eq(setenv("FORTUNE_DIR", path, 1), 0);
    ck_assert_int_eq(corpus("fortunes"), 1);
    said_sha_of("Upper case sorts first in byte order.\nArt is long.\nFortune one.\n"
                "Fortune two,\n\tindented.\n");
    ck_assert_int_eq(data_files(), 0);
    ck_assert_int_eq(corpus("fortunes --check"), 1);
    ck_assert(said("data/fortunes.txt is missing"));
    users_file_kept("fortunes", "fortunes.txt", "mine\n");
    ck_assert_int_eq(corpus("fortunes --bogus"), 2);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("text_corpus", setup, teardown, 60, test_wrong_text_not_written,
                        test_users_file_kept, test_fortunes_text);
