/* test_layout_check.c: tools/layout_check.sh, the layout rules of docs/source_layout.md, on
 * small made-up trees (each rule caught when broken, quiet when kept, its line naming the files or
 * the function) and on this checkout, which must keep every rule: a circle, an upward include or a long function added to src/ fails make test here. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"

#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_layout_check.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* Writes text to g_tmp/path, making its folders. */
static void put(const char *path, const char *text) {
    char full[PATH_MAX], cmd[PATH_MAX + 32];
    snprintf(full, sizeof full, "%s/%s", g_tmp, path);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", full);
    ck_assert_int_eq(system(cmd), 0);
    tu_write_file(full, text);
}

/* layout_check.sh's whole output on root; *rc its exit code (the caller frees the text). */
static char *check_tree(const char *root, int *rc) {
    char cmd[PATH_MAX * 3], out[PATH_MAX];
    snprintf(out, sizeof out, "%s.out", g_tmp);
    snprintf(cmd, sizeof cmd, "%s/tools/layout_check.sh '%s'", SCALEDOT_SOURCE_DIR, root);
    return tu_shell_output(cmd, out, rc);
}

/* Checks g_tmp: wants exit code want_rc and each needle (NULL-ended) in the output. */
static void expect(int want_rc, const char *const *needles) {
    int rc;
    char *out = check_tree(g_tmp, &rc);
    ck_assert_msg(rc == want_rc, "exit code %d, want %d; output:\n%s", rc, want_rc, out);
    for (; *needles; needles++)
        ck_assert_msg(strstr(out, *needles), "no '%s' in:\n%s", *needles, out);
    free(out);
}

/* Two modules: a/x.c includes b/y.h and calls y_run; b/y.c includes a/x.h and calls x_run when
 * y_calls_x, else neither. */
static void two_modules(int y_calls_x) {
    put("src/a/x.h", "/* x */\n#ifndef X_H\n#define X_H\nint x_run(int n);\n#endif\n");
    put("src/a/x.c", "#include \"a/x.h\"\n#include \"b/y.h\"\nint x_run(int n) {\n"
                     "    return n ? y_run(n - 1) : 0;\n}\n");
    put("src/b/y.h", "int y_run(int n);\n");
    put("src/b/y.c", y_calls_x ? "#include \"b/y.h\"\n#include \"a/x.h\"\n"
                                 "int y_run(int n) { return x_run(n); }\n"
                               : "#include \"b/y.h\"\nint y_run(int n) { return n; }\n");
}

START_TEST(test_circle_through_calls) {
    two_modules(1);
    expect(1, (const char *const[]){"error: circle between files: src/a/x src/b/y",
                                    "src/a/x -> src/b/y: uses y_run (src/b/y.h)",
                                    "src/b/y -> src/a/x: uses x_run (src/a/x.h)", NULL});
}
END_TEST

/* Fails the test unless the tree at root keeps every rule: exit code 0, no error line, the
 * closing line. */
static void expect_kept(const char *root) {
    int rc;
    char *out = check_tree(root, &rc);
    ck_assert_msg(rc == 0 && !strstr(out, "error:"), "exit code %d; output:\n%s", rc, out);
    ck_assert_ptr_nonnull(strstr(out, "layout: no circle between files"));
    free(out);
}

START_TEST(test_no_circle) {
    two_modules(0);
    expect_kept(g_tmp);
}
END_TEST

/* A header shared by a folder's files (no .c of its name): a file that includes it depends only
 * on the files whose names it uses; p.c and q.c call each other only when q uses p_only. */
static void shared_header(int q_calls_p) {
    put("src/t/shared.h", "int p_only(void);\nint q_only(void);\n");
    put("src/t/p.c", "#include \"t/shared.h\"\nint p_only(void) { return q_only(); }\n");
    put("src/t/q.c", q_calls_p ? "#include \"t/shared.h\"\nint q_only(void) { return p_only(); }\n"
                               : "#include \"t/shared.h\"\nint q_only(void) { return 1; }\n");
}

START_TEST(test_shared_header_circle) {
    shared_header(1);
    expect(1, (const char *const[]){"circle between files: src/t/p src/t/q",
                                    "src/t/q -> src/t/p: uses p_only (src/t/shared.h)", NULL});
}
END_TEST

START_TEST(test_shared_header_no_circle) {
    shared_header(0);
    expect(0, (const char *const[]){"layout: no circle", NULL});
}
END_TEST

/* report/ (any depth) reaching up: an include of train/ is an error, one of runlog/ is not. */
START_TEST(test_report_reaches_up) {
    put("src/train/loop.h", "int loop_step(void);\n");
    put("src/train/loop.c", "#include \"train/loop.h\"\nint loop_step(void) { return 0; }\n");
    put("src/runlog/row.h", "int row_read(void);\n");
    put("src/runlog/row.c", "#include \"runlog/row.h\"\nint row_read(void) { return 0; }\n");
    put("src/report/pages/page.c", "#include \"runlog/row.h\"\n#include \"train/loop.h\"\n"
                                   "int page(void) { return row_read(); }\n");
    expect(1, (const char *const[]){"error: src/report/pages/page -> src/train/loop: includes "
                                    "src/train/loop.h (src/report/ may not reach", NULL});
    int rc;
    char *out = check_tree(g_tmp, &rc);
    ck_assert_msg(!strstr(out, "src/runlog/row"), "runlog/ named:\n%s", out);
    free(out);
}
END_TEST

/* A function of `lines` lines from its head to its closing brace (not counted), with braces in a
 * string, a character constant and comments that must not end it early. */
static void function_of(const char *path, const char *name, int lines) {
    char text[8192];
    int n = snprintf(text, sizeof text, "static const char *%s(int k)\n{\n"
                                        "    const char *s = \"}}\"; char c = '}'; /* } */\n", name);
    for (int i = 3; i < lines - 1; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "    k += %d; // }\n", i);
    snprintf(text + n, sizeof text - (size_t)n, "    return k ? s : &c;\n}\n");
    put(path, text);
}

START_TEST(test_long_function) {
    function_of("src/a/long.c", "seventy_one", 71);
    function_of("src/a/fine.c", "seventy", 70);
    expect(1, (const char *const[]){"error: src/a/long.c: seventy_one is 71 lines (at most 70)",
                                    "1 error(s)", NULL});
}
END_TEST

/* The kernel files of the allow-list may hold long functions. */
START_TEST(test_long_kernel_allowed) {
    function_of("src/model/matmul.c", "tiled", 200);
    expect(0, (const char *const[]){"layout: no circle", NULL});
}
END_TEST

START_TEST(test_bad_root) {
    int rc;
    char *out = check_tree(g_tmp, &rc);
    ck_assert_int_eq(rc, 2);
    ck_assert_ptr_nonnull(strstr(out, "has no src/ folder"));
    free(out);
}
END_TEST

/* This checkout keeps every rule: no error line, exit code 0 (layout_check.sh's pending list
 * is empty). */
START_TEST(test_this_tree) { expect_kept(SCALEDOT_SOURCE_DIR); }
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("layout_check", make_tmp, remove_tmp, 60, test_this_tree,
                        test_circle_through_calls,
                        test_no_circle, test_shared_header_circle, test_shared_header_no_circle,
                        test_report_reaches_up, test_long_function, test_long_kernel_allowed,
                        test_bad_root);
