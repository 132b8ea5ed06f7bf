/* test_cmd_compare.c: the command line of ./train --compare (src/cli/cmd_compare.c), table-driven:
 * each bad line is refused with exit code 2 and a message naming the mistake, --help prints the
 * usage on stdout, and both spellings of --out reach the report; --at-equal-loss wants two runs
 * with the gradient logs; every option given twice is refused; paths with control bytes are
 * quoted escaped on stderr and stdout. The report itself is test_compare.c's, the equal-loss table
 * test_equal_loss.c's. */
#include "cli/cli.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define FIX SCALEDOT_SOURCE_DIR "/tests/fixtures/runs"

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_cmd_compare.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

typedef struct {
    const char *args[5];   /* NULL-terminated */
    int rc;
    int on_stdout;      /* the needle is looked for on stdout (else stderr) */
    const char *needle;
} LineCase;

static const LineCase LINES[] = {
    {{NULL}, 2, 0, "error: --compare needs at least one run folder\nusage: ./train --compare"},
    {{FIX "/scaled", "--bogus"}, 2, 0,
     "error: --bogus (argument 3): unknown option for --compare\nusage:"},
    {{FIX "/scaled", "--out"}, 2, 0, "error: --out (argument 3): needs a folder\n"},
    {{FIX "/scaled", "--out="}, 2, 0, "error: --out (argument 3): needs a folder\n"},
    {{FIX "/scaled", "--out", ""}, 2, 0, "error: --out (argument 4): needs a folder\n"},
    /* issue 33: the last --out silently won */
    {{FIX "/scaled", "--out", "a", "--out=b"}, 2, 0,
     "error: --out (argument 5): given twice (first at argument 4); give it once\n"},
    {{"--help"}, 0, 1, "[--log-scale | --linear]"},
    {{FIX "/scaled", "-h"}, 0, 1, "usage: ./train --compare"},
    {{FIX "/nonexistent"}, 2, 0, "nonexistent"}, /* a bad folder is the report's to name */
    {{FIX "/scaled", "--at-equal-loss"}, 2, 0,
     "error: --at-equal-loss (argument 3): needs exactly two run folders, got 1\nusage:"},
    {{FIX "/scaled", FIX "/unscaled", FIX "/scaled", "--at-equal-loss"}, 2, 0,
     "error: --at-equal-loss (argument 5): needs exactly two run folders, got 3\nusage:"},
    {{"--at-equal-loss", FIX "/no_attention", FIX "/scaled"}, 2, 0,
     "no_attention/attention.csv': No such file"},
    {{FIX "/unscaled", FIX "/scaled", "--at-equal-loss"}, 2, 0,
     "unscaled/attention.csv' has no column 'dprob_norm'"},
    {{"--help"}, 0, 1, "--compare RUN_A RUN_B --at-equal-loss"},
    /* a flag without a value given twice, as --out (issue 33's fix, now for every flag) */
    {{FIX "/scaled", FIX "/unscaled", "--at-equal-loss", "--at-equal-loss"}, 2, 0,
     "error: --at-equal-loss (argument 5): given twice (first at argument 4); give it once\n"},
    {{FIX "/scaled", "--log-scale", "--log-scale"}, 2, 0,
     "error: --log-scale (argument 4): given twice (first at argument 3); give it once\n"},
    {{"--linear", FIX "/scaled", "--linear"}, 2, 0,
     "error: --linear (argument 4): given twice (first at argument 2); give it once\n"},
    /* the user's path quoted escaped (util/error_list.h) */
    {{FIX "/sc\x1b[2J\raled\xc2\x9b"}, 2, 0,
     "error: run folder '" FIX "/sc\\x1b[2J\\raled\\xc2\\x9b': No such file or directory\n"},
    {{"--bogus\x1b[2J\r"}, 2, 0,
     "error: --bogus\\x1b[2J\\r (argument 2): unknown option for --compare\n"},
};

START_TEST(test_lines) {
    for (size_t k = 0; k < sizeof LINES / sizeof *LINES; k++) {
        const LineCase *c = &LINES[k];
        TuResult r = tu_call(cli_compare, c->args);
        const char *text = c->on_stdout ? r.out : r.err;
        ck_assert_msg(r.rc == c->rc, "case %zu (%s): rc %d, want %d; stderr:\n%s", k,
                      c->args[0] ? c->args[0] : "", r.rc, c->rc, r.err);
        ck_assert_msg(strstr(text, c->needle), "case %zu: '%s' not in:\n%s", k, c->needle, text);
        tu_assert_no_raw_control(r.err, "stderr");
        tu_result_free(&r);
    }
}
END_TEST

/* "--out DIR" and "--out=DIR" both name the report folder; the options may stand anywhere. */
START_TEST(test_out_spellings) {
    char out[2][128], index[160];
    snprintf(out[0], sizeof out[0], "--out=%s/a", g_tmp);
    snprintf(out[1], sizeof out[1], "%s/b", g_tmp);
    const char *const lines[2][5] = {{out[0], FIX "/scaled", "--linear"},
                                     {FIX "/scaled", "--out", out[1], "--log-scale"}};
    for (int k = 0; k < 2; k++) {
        TuResult r = tu_call(cli_compare, lines[k]);
        ck_assert_msg(r.rc == 0, "line %d: rc %d: %s", k, r.rc, r.err);
        tu_result_free(&r);
    }
    snprintf(index, sizeof index, "%s/a/index.html", g_tmp);
    ck_assert_int_eq(access(index, F_OK), 0);
    snprintf(index, sizeof index, "%s/b/index.html", g_tmp);
    ck_assert_int_eq(access(index, F_OK), 0);
}
END_TEST

/* Run folders and a report folder whose names hold an escape sequence, a CR, a C1 CSI and a
 * lone 0x9b: the report is made, and every line on the terminal quotes them escaped (the
 * summary's run names, the verdict, "report: PATH"; --at-equal-loss's error naming a log; its
 * table's "A = PATH" is test_equal_loss.c's). */
START_TEST(test_paths_escaped) {
    static const char BAD[] = "\x1b[2J\r\xc2\x9b\x9b", SHOWN[] = "\\x1b[2J\\r\\xc2\\x9b\\x9b";
    char a[160], b[160], out[160], want[400];
    snprintf(a, sizeof a, "%s/a%s", g_tmp, BAD);
    snprintf(b, sizeof b, "%s/b%s", g_tmp, BAD);
    snprintf(out, sizeof out, "%s/o%s", g_tmp, BAD);
    ck_assert_int_eq(symlink(FIX "/scaled", a), 0);
    ck_assert_int_eq(symlink(FIX "/unscaled", b), 0);
    const char *const line[] = {a, b, "--out", out, NULL};
    TuResult r = tu_call(cli_compare, line);
    ck_assert_msg(r.rc == 0, "rc %d: %s", r.rc, r.err);
    snprintf(want, sizeof want, "\nreport: %s/o%s/index.html\n", g_tmp, SHOWN);
    ck_assert_msg(strstr(r.out, want), "'%s' not in:\n%s", want, r.out);
    snprintf(want, sizeof want, "\na%s: final answer accuracy", SHOWN); /* the verdict's line */
    ck_assert_msg(strstr(r.out, want), "'%s' not in:\n%s", want, r.out);
    tu_assert_no_raw_control(r.out, "stdout");
    tu_assert_no_raw_control(r.err, "stderr");
    tu_result_free(&r);
    const char *const equal[] = {b, a, "--at-equal-loss", NULL};
    r = tu_call(cli_compare, equal);
    ck_assert_int_eq(r.rc, 2);
    snprintf(want, sizeof want, "error: --compare --at-equal-loss: '%s/b%s/attention.csv' has no "
             "column 'dprob_norm'\n", g_tmp, SHOWN);
    ck_assert_str_eq(r.err, want);
    tu_assert_no_raw_control(r.out, "stdout");
    tu_assert_no_raw_control(r.err, "stderr");
    tu_result_free(&r);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("cli_compare", make_tmp, remove_tmp, 30, test_lines, test_out_spellings,
                        test_paths_escaped);
