/* test_ini.c: reading INI files (src/config/ini.c): comments, CRLF, a byte-order mark, a missing
 * final newline, quoting and spaces, where each value came from, and the errors of the file's
 * shape (no section, a malformed line or header, a key or section twice, a NUL byte, a missing or
 * unreadable file), each naming FILE:LINE.
 *
 * Most tests hand the exact bytes to config_load_text, so each shows what it feeds the parser;
 * the file tests write into a mkdtemp folder. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "configcheck.h"
#include "testutil.h"

static char g_dir[] = "/tmp/test_ini.XXXXXX";

/* ---------------------------------------------------------------- good files */

/* Through a real file: the origins name its path. */
START_TEST(test_full_file_values_and_origins) {
    char path[PATH_MAX + 16], want[PATH_MAX + 32], err[4096];
    snprintf(path, sizeof path, "%s/full.ini", g_dir);
    tu_write_file(path, CC_FULL);
    Config c;
    config_defaults(&c);
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = config_load_file(&c, path);
    cc_capture_end(&cap, err, sizeof err);
    ck_assert_msg(rc == 0, "load failed: %s", err);
    ck_assert_str_eq(err, "");
    ck_assert_str_eq(c.run_name, "my-run_1.x");
    ck_assert_str_eq(c.run_dir, "out dir");
    ck_assert_int_eq(c.seed, 123456789012L);
    ck_assert_int_eq(c.task, TASK_FILE);
    ck_assert_str_eq(c.task_file, "data/x y.txt");
    ck_assert_int_eq(c.task_separator, SEPARATOR_FALSE);
    ck_assert_int_eq(c.d_model, 96);
    ck_assert(c.ln_eps == 1.2345678901234567e-7);
    ck_assert_int_eq(c.scale_mode, SCALE_VALUE);
    ck_assert(c.scale_value == 0.1);
    ck_assert_int_eq(c.qk_norm, QK_NORM_LAYERNORM);
    ck_assert(c.softcap == 30);
    ck_assert_int_eq(c.window, 5);
    ck_assert_int_eq(c.block, BLOCK_LLAMA);
    ck_assert_int_eq(c.matmul, MATMUL_BF16);
    ck_assert_int_eq(c.init, INIT_GPT2);
    ck_assert_int_eq(c.optim, OPT_SGD);
    ck_assert_int_eq(c.schedule, SCHED_COSINE);
    ck_assert(c.min_lr == 1e-5);
    ck_assert_int_eq(c.on_divergence, DIVERGENCE_SKIP);
    ck_assert_int_eq(c.progress, 0);
    ck_assert(c.guard_max_weight_max == 0.875);
    ck_assert_int_eq(c.guard_action, GUARD_STOP);
    static const struct {
        const char *key;
        int line;
    } origins[] = {{"model.d_model", 15}, {"model.block", 21}, {"model.matmul", 22},
                   {"log.progress", 51}, {"attention.scale", 24}, {"attention.qk_norm", 25},
                   {"attention.softcap", 26}, {"attention.window", 27}, {"guard.action", 57}};
    for (int i = 0; i < CC_COUNT(origins); i++) {
        snprintf(want, sizeof want, "%s:%d", path, origins[i].line);
        ck_assert_str_eq(config_origin(&c, origins[i].key), want);
    }
    ck_assert_int_eq(config_validate(&c), 0);
}
END_TEST

/* A file and the --set assignments that must give the same Config: --set has no comments, no
 * sections and no line ends, so the expected values do not go through the lexer under test. */
typedef struct {
    const char *name, *text;
    const char *sets[6]; /* up to a NULL */
} GoodCase;

static const GoodCase GOOD[] = {
    {"empty file", "", {NULL}},
    {"comments",
     "; full-line comment\n"
     "# another\n"
     "   ; indented comment\n"
     "\n"
     "[model] ; comment after a header\n"
     "d_model = 32 ; inline semicolon\n"
     "n_heads = 4 # inline hash\n"
     "n_layers = 3\t# after a tab\n"
     "[run] # header comment with hash\n"
     "dir = a#b;c\n"              /* no whitespace before: part of the value */
     "name = \"x\" ; quoted, then a comment\n",
     {"model.d_model=32", "model.n_heads=4", "model.n_layers=3", "run.dir=a#b;c", "run.name=x",
      NULL}},
    /* no '\r' left in the string */
    {"CRLF", "; c\r\n[model]\r\nd_model = 48\r\n\r\n[run]\r\nname = crlf\r\n",
     {"model.d_model=48", "run.name=crlf", NULL}},
    {"byte-order mark", "\xEF\xBB\xBF[model]\nd_model = 16\n", {"model.d_model=16", NULL}},
    {"no final newline", "[train]\nsteps = 77", {"train.steps=77", NULL}},
    {"BOM, CRLF, no final newline", "\xEF\xBB\xBF[run]\r\nname = all3\r\nseed = 9",
     {"run.name=all3", "run.seed=9", NULL}},
    {"spaces and quotes",
     "  [ task ]  \n"
     "  file   =   \"  spaced ; not a comment # either  \"   \n"
     "name=sort\n"
     "[ run]\n"
     "dir=\"quoted\"\n"
     "[optim]\n"
     "name = \"sgd\"\n",
     {"task.file=\"  spaced ; not a comment # either  \"", "task.name=sort", "run.dir=quoted",
      "optim.name=sgd", NULL}},
    /* An explicit "" is how an empty text is written. */
    {"empty text", "[task]\nfile = \"\"\n", {"task.file=\"\"", NULL}},
};

START_TEST(test_good_files) {
    const GoodCase *g = &GOOD[_i];
    Config got, want;
    config_defaults(&got);
    config_defaults(&want);
    cc_load_ok(&got, g->text);
    for (int i = 0; g->sets[i]; i++)
        ck_assert_msg(config_set(&want, g->sets[i], 1) == 0, "%s: --set %s", g->name, g->sets[i]);
    cc_assert_config_eq(&got, &want, g->name);
}
END_TEST

/* Origins: the file's name and the key's line; "default" for the rest. */
START_TEST(test_origins) {
    Config c;
    config_defaults(&c);
    cc_load_ok(&c, "\xEF\xBB\xBF[model]\nd_model = 16\n");
    ck_assert_str_eq(config_origin(&c, "model.d_model"), CC_NAME ":2");
    ck_assert_str_eq(config_origin(&c, "model.n_heads"), "default");
}
END_TEST

START_TEST(test_failed_load_leaves_config_unchanged) {
    Config c, d;
    config_defaults(&c);
    config_defaults(&d);
    char err[4096];
    /* a good key first: it must not survive the error two lines below */
    ck_assert_int_eq(cc_load(&c, "[model]\nd_model = 32\nn_heads = x\n", 0, err, sizeof err), -1);
    ck_assert_int_eq(c.d_model, 64);
    ck_assert_int_eq(memcmp(&c, &d, sizeof c), 0);
}
END_TEST

/* ---------------------------------------------------------------- errors of the file's shape */

static const char NUL_TEXT[] = "[model]\nd_model = 1\0" "28\nn_heads = 2\n";

static const CcErrorCase SHAPE_ERRORS[] = {
    {"key before any section", "; header comes later\nd_model = 3\n[model]\n", 0, 2, "'d_model'",
     "before any [section]", 0},
    {"line without =", "[model]\nd_model 64\n", 0, 2, "expected '[section]', 'key = value'",
     "'d_model 64'", 0},
    {"header without ]", "[model\n", 0, 1, "closing ']'", NULL, 0},
    {"text after a header", "[model] extra\n", 0, 1, "'extra'", NULL, 0},
    {"empty section name", "[]\n", 0, 1, "empty section", NULL, 0},
    {"no key before =", "[model]\n = 3\n", 0, 2, "missing key name", NULL, 0},
    {"key twice", "[model]\nd_model = 32\nn_layers = 3\nd_model = 32\n", 0, 4, "'model.d_model'",
     "first at line 2", 0},
    /* a section opened again is an error of its own, naming both headers */
    {"section twice", "[model]\nd_model = 32\n[run]\nseed = 3\n[model]\nd_model = 32\n", 0, 5,
     "[model] appears twice", "first at line 1", 0},
    /* A BOM on a later line is not a BOM but garbage. */
    {"BOM on line 2", "[model]\n\xEF\xBB\xBF" "d_model = 16\n", 0, 2, "unknown key", NULL, 0},
    {"unterminated quote", "[task]\nfile = \"open\n", 0, 2, "'task.file'",
     "unterminated double quote", 0},
    /* A NUL byte would end the line for the parser: "d_model = 1" then silently nothing. */
    {"NUL byte", NUL_TEXT, 0, 2, "a NUL byte", NULL, sizeof NUL_TEXT - 1},
    /* a control byte of the quoted text is written escaped (a raw CR would send the cursor back
     * and the quote would read '5', a raw ESC [2J clear the screen): cc_check_error also finds
     * no raw control byte in the message */
    {"CR inside a value", "[model]\nd_model = 32\r5\n", 0, 2, "got '32\\r5'", NULL, 0},
    {"escape in --set", "model.d_model=3\x1b[2J\t4", 2, 0, "got '3\\x1b[2J\\t4'", NULL, 0},
    {"tab inside a name", "[mo\tdel]\n", 0, 1, "unknown section [mo\\tdel]", NULL, 0},
};

START_TEST(test_shape_errors) { cc_check_error(&SHAPE_ERRORS[_i]); }
END_TEST

/* Every error of a file is reported (test_input_errors: end to end), up to CONFIG_MAX_ERRORS, then
 * one line that says how many more there are, only when there are: 25 unknown keys (then a blank
 * line and a comment) give lines 2-21's messages and "5 more" at line 21, 21 lines in all; 21
 * give "1 more"; exactly 20 give their 20 lines and no such line, though a blank line and a
 * comment follow the last (it said "the rest of the file was not read" of them). */
START_TEST(test_errors_capped) {
    static const struct { int keys, lines; const char *last; } CASES[] = {
        {25, 21, "error: " CC_NAME ":21: 20 errors named; 5 more after this one, not named\n"},
        {21, 21, "error: " CC_NAME ":21: 20 errors named; 1 more after this one, not named\n"},
        {20, 20, NULL},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        char text[1024] = "[model]\n", err[8192];
        for (int i = 0; i < CASES[k].keys; i++) strcat(text, "nokey = 1\n");
        strcat(text, "\n; the end\n");
        Config c;
        config_defaults(&c);
        ck_assert_int_eq(cc_load(&c, text, 0, err, sizeof err), -1);
        int lines = 0;
        for (const char *p = err; *p; p++) lines += *p == '\n';
        ck_assert_msg(lines == CASES[k].lines, "%d lines:\n%s", lines, err);
        ck_assert_msg(strstr(err, CC_NAME ":21: unknown key 'model.nokey'"), "%s", err);
        ck_assert_msg(CASES[k].last ? strstr(err, CASES[k].last) != NULL : !strstr(err, "errors"),
                      "case %zu:\n%s", k, err);
        ck_assert(!strstr(err, CC_NAME ":22:"));
    }
}
END_TEST

/* config_load_file on a path that cannot be read as a file: "cannot open 'PATH': reason". */
static void expect_cannot_open(const char *path, const char *reason) {
    Config c;
    config_defaults(&c);
    char err[4096], want[PATH_MAX + 96];
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = config_load_file(&c, path);
    cc_capture_end(&cap, err, sizeof err);
    ck_assert_int_eq(rc, -1);
    snprintf(want, sizeof want, "cannot open '%s': %s", path, reason);
    cc_assert_contains(err, want);
}

START_TEST(test_error_missing_file) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/does-not-exist.ini", g_dir);
    expect_cannot_open(path, "No such file or directory");
}
END_TEST

START_TEST(test_error_unreadable_file) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/a-directory.ini", g_dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    expect_cannot_open(path, ""); /* the reason is file_check's */
    rmdir(path);
}
END_TEST

/* A place too long for Config.origin (288 bytes) keeps its end, the file and its line, after
 * "...", cut after a whole character: of "/" + 200 "ā" (2 bytes each) + "/ff.ini:3", the 284
 * bytes after "..." hold "/ff.ini:3" (9) and 137 "ā" (274; 138 would be 285); a check's message
 * names that place. */
START_TEST(test_long_origin_keeps_end) {
    char name[600] = "/", want[400] = "...", text[] = "[model]\nn_heads = 5\nd_model = 48\n";
    for (int i = 0; i < 200; i++) strcat(name, "\xc4\x81");
    strcat(name, "/ff.ini");
    for (int i = 0; i < 137; i++) strcat(want, "\xc4\x81");
    strcat(want, "/ff.ini:3");
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_load_text(&c, name, text, strlen(text)), 0);
    ck_assert_str_eq(config_origin(&c, "model.d_model"), want);
    char err[2048], line[1024];
    ck_assert_int_eq(cc_validate(&c, err, sizeof err), -1);
    snprintf(line, sizeof line, "error: %s: 'model.d_model' = 48 is not divisible by "
             "'model.n_heads' = 5 (set at %.*s2)\n", want, (int)strlen(want) - 1, want);
    ck_assert_str_eq(err, line);
}
END_TEST

/* A line that is no assignment is quoted to 200 bytes, cut after a whole character: "x" and 150
 * "é" show "x" and 99 of them (199 bytes; one more would be 201), then "...". */
START_TEST(test_long_line_cut_whole) {
    char text[400] = "[model]\nx", want[400] =
        "error: " CC_NAME ":2: expected '[section]', 'key = value' or a comment, got 'x";
    for (int i = 0; i < 150; i++) strcat(text, "\xc3\xa9");
    for (int i = 0; i < 99; i++) strcat(want, "\xc3\xa9");
    strcat(want, "...'\n");
    Config c;
    config_defaults(&c);
    char err[1024];
    ck_assert_int_eq(cc_load(&c, text, 0, err, sizeof err), -1);
    ck_assert_str_eq(err, want);
}
END_TEST

int main(void) {
    if (!mkdtemp(g_dir)) { /* before any test: no ck_assert outside one */
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("ini");
    TCase *good = tcase_create("reading");
    tcase_add_loop_test(good, test_good_files, 0, CC_COUNT(GOOD));
    tcase_add_test(good, test_origins);
    tcase_add_test(good, test_full_file_values_and_origins);
    tcase_add_test(good, test_failed_load_leaves_config_unchanged);
    suite_add_tcase(s, good);
    TCase *bad = tcase_create("file errors");
    tcase_add_loop_test(bad, test_shape_errors, 0, CC_COUNT(SHAPE_ERRORS));
    tcase_add_test(bad, test_errors_capped);
    tcase_add_test(bad, test_error_missing_file);
    tcase_add_test(bad, test_error_unreadable_file);
    tcase_add_test(bad, test_long_origin_keeps_end);
    tcase_add_test(bad, test_long_line_cut_whole);
    suite_add_tcase(s, bad);
    int rc = tu_run(s);
    tu_remove_tree(g_dir);
    return rc;
}
