/* test_error_list.c: error lines and the list of a command line's errors (src/util/error_list.c):
 * each control byte of the text written escaped as the table below spells it by hand (C0, DEL, the
 * C1 controls, the bidi controls and line separators, and every byte that is not valid UTF-8;
 * valid UTF-8 kept), the same by error_shown, which cuts a long text after a whole piece; errors
 * written in their order (the argument's number, 0 first; then the file's line) whatever order
 * they came in, equal ones as they came; the cap: the first ERRORS_NAMED in that order named, the
 * rest counted on
 * one line, also when an error of a lower order comes after the list is full (a sweep's config
 * file is read after its 20 bad arguments); errno kept across a line. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "util/error_list.h"

static const struct {
    const char *text, *shown;
} ESCAPES[] = {
    {"plain 'text' \\r stays", "plain 'text' \\r stays"}, /* a backslash is itself */
    {"a\rb", "a\\rb"},
    {"a\tb\n", "a\\tb\\n"},
    {"\x1b[2J", "\\x1b[2J"},
    {"\x01\x1f\x7f", "\\x01\\x1f\\x7f"},
    {"caf\xc3\xa9", "caf\xc3\xa9"}, /* UTF-8 as it is */
    {"donn\xc3\xa9""es/\xc4\x81.ini", "donn\xc3\xa9""es/\xc4\x81.ini"}, /* données/ā.ini */
    {"\xe2\x82\xac \xf0\x9f\x98\x80", "\xe2\x82\xac \xf0\x9f\x98\x80"}, /* € 😀 */
    /* the ends of the valid ranges: U+00A0, U+0800, U+FFFF, U+10FFFF */
    {"\xc2\xa0\xe0\xa0\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf",
     "\xc2\xa0\xe0\xa0\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf"},
    /* C1 controls U+0080, U+009B (CSI), U+009F: their two bytes escaped */
    {"a\xc2\x80" "b\xc2\x9b" "2J\xc2\x9f", "a\\xc2\\x80b\\xc2\\x9b" "2J\\xc2\\x9f"},
    {"\x9b" "2J", "\\x9b" "2J"},                 /* a lone 0x9b: CSI to an 8-bit terminal */
    {"\x80\xbf", "\\x80\\xbf"},                 /* continuation bytes without a lead */
    {"caf\xc3", "caf\\xc3"},                     /* a sequence cut by the end */
    {"\xe2\x82x", "\\xe2\\x82x"},                /* ... or by an ASCII byte */
    {"\xc0\x80", "\\xc0\\x80"},                 /* overlong NUL */
    {"\xc1\xbf\xe0\x80\x80\xf0\x8f\xbf\xbf", /* overlong 2-, 3- and 4-byte forms */
     "\\xc1\\xbf\\xe0\\x80\\x80\\xf0\\x8f\\xbf\\xbf"},
    {"\xed\xa0\x80", "\\xed\\xa0\\x80"},           /* a surrogate, U+D800 */
    {"\xf4\x90\x80\x80\xf5\x80", "\\xf4\\x90\\x80\\x80\\xf5\\x80"}, /* above U+10FFFF */
    {"\xff\xfe", "\\xff\\xfe"},
    /* the invisible characters that reorder or break a line: U+200E, U+200F, U+202A, U+202E
     * (the rest reversed), U+2066, U+2069, U+2028, U+2029; their neighbours U+200D, U+2030,
     * U+2065, U+206A as they are */
    {"evil\xe2\x80\xaeini.txt", "evil\\xe2\\x80\\xaeini.txt"},
    {"\xe2\x80\x8e\xe2\x80\x8f\xe2\x80\xaa", "\\xe2\\x80\\x8e\\xe2\\x80\\x8f\\xe2\\x80\\xaa"},
    {"\xe2\x81\xa6\xe2\x81\xa9", "\\xe2\\x81\\xa6\\xe2\\x81\\xa9"},
    {"\xe2\x80\xa8\xe2\x80\xa9", "\\xe2\\x80\\xa8\\xe2\\x80\\xa9"},
    {"\xe2\x80\x8d\xe2\x80\xb0\xe2\x81\xa5\xe2\x81\xaa",
     "\xe2\x80\x8d\xe2\x80\xb0\xe2\x81\xa5\xe2\x81\xaa"},
};

START_TEST(test_escapes) {
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    error_add(NULL, 0, "w\rhere", "%s", ESCAPES[_i].text);
    char *err = tu_capture_end(&cap);
    char want[128];
    snprintf(want, sizeof want, "error: w\\rhere: %s\n", ESCAPES[_i].shown);
    ck_assert_str_eq(err, want);
    free(err);
    /* error_shown, the "%s" of every other line, by the same rule */
    char buf[128];
    ck_assert_str_eq(error_shown(buf, sizeof buf, ESCAPES[_i].text), ESCAPES[_i].shown);
}
END_TEST

/* error_shown cuts a text that does not fit after a whole piece (an escape or a UTF-8
 * character is never split), leaving room for "..."; one that fits exactly is whole. */
START_TEST(test_shown_cut) {
    static const struct {
        size_t n;
        const char *text, *shown;
    } CUTS[] = {
        {8, "abcdefg", "abcdefg"},          /* 7 bytes and the NUL: whole */
        {8, "abcdefgh", "abcd..."},         /* "abcd" + "..." + NUL = 8 */
        {8, "ab\x1b" "cdef", "ab..."},       /* "\x1b" (4) would leave no room for "..." */
        {9, "a\x1b" "bcdef", "a\\x1b..."},    /* 1 + 4 + 3 + NUL = 9 */
        {8, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", "\xc3\xa9\xc3\xa9..."}, /* éééé: "éé..." */
        {4, "abcd", "..."},
    };
    for (size_t k = 0; k < sizeof CUTS / sizeof CUTS[0]; k++) {
        char buf[16];
        memset(buf, 'x', sizeof buf);
        ck_assert_str_eq(error_shown(buf, CUTS[k].n, CUTS[k].text), CUTS[k].shown);
        ck_assert_msg(buf[CUTS[k].n] == 'x', "case %zu: wrote past n", k); /* nothing beyond */
    }
}
END_TEST

/* Flushes l; returns what it wrote (the caller frees) and its count in *n. */
static char *flushed(ErrorList *l, long *n) {
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    *n = error_flush(l);
    return tu_capture_end(&cap);
}

START_TEST(test_order) {
    ErrorList l = {0};
    error_add(&l, 7, "--set (argument 7)", "b");
    error_add(&l, 3, NULL, "a");
    error_add(&l, 7, "--set (argument 7)", "c");
    error_add_line(&l, 0, 5, "f.ini:5", "fifth");
    error_add_line(&l, 0, 2, "f.ini:2", "first");
    error_add_line(&l, 0, 5, "f.ini:5", "fifth again");
    long n;
    char *err = flushed(&l, &n);
    ck_assert_int_eq(n, 6);
    ck_assert_str_eq(err, "error: f.ini:2: first\nerror: f.ini:5: fifth\n"
                          "error: f.ini:5: fifth again\nerror: a\nerror: --set (argument 7): b\n"
                          "error: --set (argument 7): c\n");
    free(err);
    ck_assert_int_eq(error_count(&l), 0); /* emptied: a second flush writes nothing */
    err = flushed(&l, &n);
    ck_assert_int_eq(n, 0);
    ck_assert_str_eq(err, "");
    free(err);
}
END_TEST

/* 21 arguments' errors (orders 1..21), then 2 of the file (order 0): the file's 2 and the
 * arguments 1..18 are named (20), 3 counted after argument 18's. */
START_TEST(test_cap_keeps_the_first_in_order) {
    ErrorList l = {0};
    char where[32];
    for (int i = 1; i <= 21; i++) {
        snprintf(where, sizeof where, "arg %d", i);
        error_add(&l, i, where, "x");
    }
    error_add(&l, 0, "f.ini:1", "y");
    error_add(&l, 0, "f.ini:2", "y");
    ck_assert_int_eq(error_count(&l), 23);
    long n;
    char *err = flushed(&l, &n);
    ck_assert_int_eq(n, 23);
    char want[1024] = "error: f.ini:1: y\nerror: f.ini:2: y\n";
    for (int i = 1; i <= 18; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "error: arg %d: x\n", i);
    strcat(want, "error: arg 18: 20 errors named; 3 more after this one, not named\n");
    ck_assert_str_eq(err, want);
    free(err);
    /* exactly ERRORS_NAMED: no count line */
    for (int i = 0; i < ERRORS_NAMED; i++) error_add(&l, 1, NULL, "z");
    err = flushed(&l, &n);
    ck_assert_int_eq(n, ERRORS_NAMED);
    ck_assert(!strstr(err, "errors named"));
    free(err);
}
END_TEST

/* A caller may read errno after the line (cmd_regime_map.c: ENOMEM or not): writing it keeps
 * errno, also when the write itself fails (stderr closed: EBADF). */
START_TEST(test_errno_kept) {
    fflush(stderr);
    int saved = dup(2);
    ck_assert_int_ge(saved, 0);
    close(2);
    errno = ENOMEM;
    error_add(NULL, 0, "w", "%s", "text");
    int after = errno;
    fflush(stderr);
    clearerr(stderr);
    ck_assert_int_eq(dup2(saved, 2), 2);
    close(saved);
    ck_assert_int_eq(after, ENOMEM);
}
END_TEST

TU_MAIN("error_list", TU_LOOP(test_escapes, 0, (int)(sizeof ESCAPES / sizeof ESCAPES[0])),
        test_shown_cut, test_errno_kept, test_order, test_cap_keeps_the_first_in_order);
