/* testutil.h: helpers shared by the test programs: the Check runner, scratch folders, whole
 * files, and capturing what code under test prints. Compiled into every test program (float and
 * double builds); it needs libc and Check only, no object of the product.
 *
 * Helpers that end in a ck_assert fail the current test when something outside the code under
 * test (a temporary file, a dup2, memory) goes wrong; the others return NULL or -1. */
#ifndef SCALEDOT_TESTUTIL_H
#define SCALEDOT_TESTUTIL_H

#include <check.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Runs every test of s (srunner_run_all, CK_NORMAL output) and returns EXIT_SUCCESS, or
 * EXIT_FAILURE when any test failed: the main() of a program with several TCases ends with
 * `return tu_run(suite);` (one TCase: TU_MAIN below). With SCALEDOT_TEST_LOG=FILE set, Check's
 * log (a line per test as it ends) goes to FILE: make mutation stops a program at its first
 * failing test. */
int tu_run(Suite *s);

/* The scratch folder of the test program: made by tu_run before the first test
 * ($TMPDIR/scaledot_test.XXXXXX, /tmp without TMPDIR) and removed with everything in it after
 * the last, whatever each test's outcome. A failed ck_assert ends the test's process at once
 * (Check forks one per test), so a test's own unlink after it never runs: a temporary file made
 * here outlives the program only when the program itself is killed (.ci/mutation.sh kills one at
 * its first failure, and points TMPDIR into its scratch copy). Fails the test when called outside
 * tu_run (no folder). */
const char *tu_scratch(void);

/* ------------------------------------------------------------- assertions in long loops */

/* ck_assert, ck_assert_msg and ck_assert_int_eq for loops over many elements. Check records every
 * assertion that passes (one write to its message file, so that a crash can name the last point
 * passed): a per-element ck_assert over millions of elements was most of some tests' time
 * (test_determinism: 29 of 30 s, 138 s under ASan). These record nothing when the condition holds
 * and, when it fails, run Check's own assertion on it (the condition is evaluated again, so it
 * must have no side effects), with the same message. */
#define TU_CHECK(expr)                                                                            \
    do {                                                                                          \
        if (!(expr)) ck_assert(expr);                                                             \
    } while (0)
#define TU_CHECK_MSG(expr, ...)                                                                   \
    do {                                                                                          \
        if (!(expr)) ck_assert_msg(expr, __VA_ARGS__);                                            \
    } while (0)
#define TU_CHECK_INT_EQ(a, b)                                                                     \
    do {                                                                                          \
        if ((a) != (b)) ck_assert_int_eq(a, b);                                                   \
    } while (0)

/* 1 in a build under AddressSanitizer (make test-sanitize: gcc defines __SANITIZE_ADDRESS__,
 * clang's __has_feature says it), else 0. For a loop that repeats one check on the same code with
 * other numbers only: the sanitizers look at memory and undefined behaviour, not at the values, so
 * one repetition there sees what all of them would (make test and make test-clang run them all). */
#if defined(__SANITIZE_ADDRESS__)
#define TU_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_SANITIZED 1
#endif
#endif
#ifndef TU_SANITIZED
#define TU_SANITIZED 0
#endif

/* ------------------------------------------------------------- a test program in one line */

/* The main() of a test program of one TCase, after its START_TEST ... END_TEST cases:
 *     TU_MAIN("rng", test_seed, test_draws, TU_LOOP(test_rows, 0, N_OF(ROWS)));
 * runs the tests in the order given (TU_LOOP: Check's loop test, _i from start to end - 1) in a
 * suite and a TCase both called name, through tu_run, with Check's default time limit (4 s, times
 * CK_TIMEOUT_MULTIPLIER). TU_MAIN_TIMEOUT gives the TCase `seconds` instead; TU_MAIN_FIXTURE and
 * TU_MAIN_FIXTURE_TIMEOUT add a checked fixture (setup before and teardown after each test, in
 * the test's own process). Needs Check >= 0.13 (a START_TEST name is a `const TTest *`). */
#define TU_MAIN(name, ...) TU_MAIN_(name, 0, NULL, NULL, __VA_ARGS__)
#define TU_MAIN_TIMEOUT(name, seconds, ...) TU_MAIN_(name, seconds, NULL, NULL, __VA_ARGS__)
#define TU_MAIN_FIXTURE(name, setup, teardown, ...) TU_MAIN_(name, 0, setup, teardown, __VA_ARGS__)
#define TU_MAIN_FIXTURE_TIMEOUT(name, setup, teardown, seconds, ...)                              \
    TU_MAIN_(name, seconds, setup, teardown, __VA_ARGS__)
#define TU_LOOP(test, start, end) tu_loop(test, start, end)

/* What the macros expand to: main() calls tu_main with the tests in a NULL-terminated list (the
 * closing redeclaration of main takes the `;` after the macro). */
#define TU_MAIN_(name, seconds, setup, teardown, ...)                                            \
    int main(void) {                                                                           \
        return tu_main(name, seconds, setup, teardown, (const TTest *const[]){__VA_ARGS__, NULL}); \
    }                                                                                          \
    extern int main(void)

/* Builds the suite `name` of one TCase `name` holding tests (up to a NULL; entries made by
 * tu_loop become loop tests), with a time limit of `seconds` when it is > 0 (else Check's
 * default) and the checked fixture setup/teardown when either is not NULL; returns tu_run's
 * exit code. With SCALEDOT_TEST_FIRST=NAME in the environment (make mutation) the tests called
 * NAME run first, the others after them in the order given (every test still runs); the variable
 * is removed, so that a runner started inside a test does not see it. */
int tu_main(const char *name, double seconds, void (*setup)(void), void (*teardown)(void),
            const TTest *const *tests);

/* test as a loop test over _i = start .. end - 1, for tu_main's list: a copy of *test that
 * tu_main recognises (at most 64 per program; more stops the program with a message). */
const TTest *tu_loop(const TTest *test, int start, int end);

/* ------------------------------------------------------------- files and folders */

/* Creates a fresh folder from template (mkdtemp: it must end in XXXXXX, e.g.
 * "/tmp/test_compare.XXXXXX"), copied into dir (n bytes): its last part in the program's scratch
 * folder (tu_scratch: removed after the last test, so a test that fails leaves nothing either),
 * or the template as given outside tu_run or when that path does not fit in n. Fails the test
 * when it cannot. Returns dir. */
char *tu_make_tmp(char *dir, size_t n, const char *template_path);

/* Removes path and, for a folder, everything below it (symbolic links are removed, never
 * followed). Quiet when path does not exist; asserts nothing. */
void tu_remove_tree(const char *path);

/* The whole file as a malloc'd, NUL-terminated string (the caller frees); *len (when len is not
 * NULL) gets its size in bytes. NULL when it cannot be opened or read, or memory runs out. */
char *tu_read_file(const char *path, size_t *len);

/* The first n_cols comma-separated columns of every line of text from line `from_line` on (0 =
 * the first), each line ended by '\n', as a malloc'd string (the caller frees); lines that
 * start with skip_prefix (NULL: none) are left out. For comparing two runs' logs without their
 * timing columns. NULL when memory runs out. */
char *tu_csv_columns(const char *text, int n_cols, int from_line, const char *skip_prefix);

/* True when the file at path contains needle; false when it does not or cannot be read. */
int tu_file_contains(const char *path, const char *needle);

/* Waits until the file at path contains needle, polling every 2 ms for up to seconds; fails the
 * test when it never does. When pid > 0 the wait also ends once that child has exited (it is left
 * unreaped for the caller's waitpid), so a process that will never write the needle fails the test
 * at once rather than after the whole wait (the mutation check runs such processes). 2 ms because
 * some callers must catch a line inside a window of a few milliseconds (a validation pass). */
void tu_wait_for_file(const char *path, const char *needle, pid_t pid, int seconds);

/* True when the file at path holds exactly text, byte for byte; false when it does not or cannot
 * be read. */
int tu_file_holds(const char *path, const char *text);

/* Each of the n needles found in doc in the given order (each searched after the end of the one
 * before); returns the index of the first one missing, or -1 when all are there. */
int tu_in_order(const char *doc, const char *const *needles, int n);

/* Writes text to path (created or truncated). Fails the test when it cannot. */
void tu_write_file(const char *path, const char *text);

/* Writes text to base/sub/file, creating the folder base/sub when it is not there (base must
 * exist), e.g. a run folder's log: tu_put_file(dir, sizeof dir, tmp, "run", "loss.csv", "...").
 * Copies base/sub into dir (n bytes) unless dir is NULL; returns dir. Fails the test when it
 * cannot. */
const char *tu_put_file(char *dir, size_t n, const char *base, const char *sub, const char *file,
                        const char *text);

/* Number of '\n' in the file at path; -1 when it cannot be opened. */
int tu_count_lines(const char *path);

/* The names in folder dir (not "." and ".."), sorted (strcmp) and joined by single spaces, as a
 * malloc'd string (the caller frees): what a write left there, compared whole. Only names for
 * which match(name) is nonzero, or every name when match is NULL (e.g. util/whole_write.h's
 * atomic_is_temp_name: the temporary files left). Fails the test when dir cannot be read. */
char *tu_list_dir(const char *dir, int (*match)(const char *name));

/* ------------------------------------------------------------- the ./train program */

/* The program end-to-end tests run: $SCALEDOT_TRAIN_BIN when set (`make test-sanitize` points it
 * at the sanitizer build), else ./train of the source tree (SCALEDOT_SOURCE_DIR). */
const char *tu_train_bin(void);

/* Runs `tu_train_bin() args` through the shell with dir as its working folder and its stdout and
 * stderr in dir/out.txt; returns its exit code. Fails the test when it did not exit normally. */
int tu_run_train(const char *dir, const char *args);

/* tu_run_train stopped after `seconds` (coreutils timeout: exit code 124) when seconds > 0: for a
 * command that must answer at once, so that a wrong program that waits instead (for a lock,
 * say) fails the test in seconds rather than at the test's own time limit. */
int tu_run_train_within(const char *dir, int seconds, const char *args);

/* True when what tu_run_train(dir, ...) printed last contains needle. */
int tu_train_output_contains(const char *dir, const char *needle);

/* ------------------------------------------------------------- XML (xmlcheck.h) */

/* Fails the test unless doc is well-formed XML, naming `what` (a file name, say), the problem
 * and the text around it. */
void tu_assert_well_formed(const char *doc, const char *what);

/* tu_read_file of path, then tu_assert_well_formed; fails the test when the file is missing.
 * Returns the text (the caller frees). */
char *tu_read_xml(const char *path);

/* The verdict paragraph of a --compare index.html (doc) as the terminal prints it: a line per
 * <br/>, the entities read back, each line ending with '\n' (malloc'd; the caller frees). Fails
 * the test when the page has none. */
char *tu_page_verdict(const char *doc);

/* Fails the test unless out, what --compare (or ./train.sh) printed, ends with "verdict:", the
 * verdict of the page at page_path (tu_page_verdict) and "report: " shown; shown is page_path as
 * the command names it. Returns the verdict lines (malloc'd; the caller frees). */
char *tu_expect_verdict_last(const char *out, const char *page_path, const char *shown);

/* The data-points value of the <path class="series"> element of run `run` measuring `name` in a
 * chart drawn by plot_lines (report/plot/plot.h), or -1 when there is no such element. */
int tu_series_points(const char *doc, const char *run, const char *name);

/* Runs cmd with sh (stdin from /dev/null), its stdout and stderr into out_path (removed after);
 * returns what it printed (malloc'd; the caller frees) and sets *rc to its exit code. Fails the
 * test when it did not exit normally. For tests of the project's scripts. */
char *tu_shell_output(const char *cmd, const char *out_path, int *rc);

/* The line of a printed table whose label (after the two-space indent) starts with label,
 * copied into buf (n bytes) and returned; fails the test when there is none. */
const char *tu_table_line(const char *out, const char *label, char *buf, size_t n);

/* Fails the test (naming what) when text holds a byte a terminal may act on: a C0 control but
 * '\n', DEL, a C1 control (C2 80 - C2 9F) or a byte 0x80-0xff outside a sequence of a lead
 * byte and its continuation bytes (a lone 0x9b is a CSI to an 8-bit terminal). */
void tu_assert_no_raw_control(const char *text, const char *what);

/* ------------------------------------------------------------- captured output */

/* Redirects file descriptor fd (1: stdout, 2: stderr) into a temporary file, at the level of
 * the descriptor, so output of printf, fprintf(stderr) and child processes is caught alike. */
typedef struct {
    int fd, saved;
    FILE *tmp;
} TuCapture;

/* Flushes stdout and stderr and starts capturing fd. Fails the test when it cannot. */
void tu_capture_begin(TuCapture *c, int fd);

/* Flushes, puts fd back and returns what was written to it meanwhile (malloc'd, NUL-terminated;
 * the caller frees). Fails the test when it cannot. */
char *tu_capture_end(TuCapture *c);

/* What a command printed: its exit code and its stdout and stderr text. */
typedef struct {
    int rc;
    char *out, *err;
} TuResult;

/* Calls cmd(argc, argv) with stdout and stderr captured. The arguments are first and then those
 * in more, up to a NULL (at most TU_MAX_ARGS in all; first NULL: none). For a test's own variadic
 * wrapper, e.g. compare("runs/a", "runs/b", NULL). */
#define TU_MAX_ARGS 47
TuResult tu_vcall(int (*cmd)(int argc, char **argv), const char *first, va_list more);
/* tu_vcall with the arguments in the call itself, up to a NULL: a test's command in one line,
 * e.g. #define compare(...) tu_run_cmd(cli_compare, __VA_ARGS__). */
TuResult tu_run_cmd(int (*cmd)(int argc, char **argv), const char *first, ...);
/* The same for a NULL-terminated array of arguments (a row of a table of command lines). */
TuResult tu_call(int (*cmd)(int argc, char **argv), const char *const *args);
void tu_result_free(TuResult *r);

#endif
