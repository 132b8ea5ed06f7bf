/* test_error_list.c: error lines and the list of a command line's errors (src/util/error_list.c):
 * each control byte of the text written escaped as the table below spells it by hand; errors
 * written in their order (the argument's number, 0 first) whatever order they came in, equal
 * orders as they came; the cap: the first ERRORS_NAMED in that order named, the rest counted on
 * one line, also when an error of a lower order comes after the list is full (a sweep's config
 * file is read after its 20 bad arguments). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    error_add(&l, 0, "f.ini:2", "first");
    long n;
    char *err = flushed(&l, &n);
    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(err, "error: f.ini:2: first\nerror: a\nerror: --set (argument 7): b\n"
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

TU_MAIN("error_list", TU_LOOP(test_escapes, 0, (int)(sizeof ESCAPES / sizeof ESCAPES[0])),
        test_order, test_cap_keeps_the_first_in_order);
