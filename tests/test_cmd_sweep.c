/* test_cmd_sweep.c: the command lines of ./train --sweep-run and --sweep-report
 * (src/cli/cmd_sweep.c), table-driven: --help prints the usage on stdout with exit 0, a missing, extra
 * or empty argument prints it on stderr with exit 2, and --sweep-report on a folder without a
 * sweep.csv is a wrong argument (exit 2, the folder named) before anything is read. --sweep's own
 * command line is test_sweep_args.c's; the runs and the report are test_sweep.c's (and
 * test_sweep_restart.c's) and test_sweep_report.c's. */
#include "cli/cli.h"

#include <check.h>
#include <string.h>

#include "testutil.h"

typedef struct {
    int report;           /* 1: --sweep-report, 0: --sweep-run */
    const char *args[3];  /* NULL-terminated */
    int rc;
    int on_stdout;        /* the needle is looked for on stdout (else stderr) */
    const char *needle;
} LineCase;

static const LineCase LINES[] = {
    {0, {NULL}, 2, 0, "usage: ./train --sweep-run OUT/configs/RUN.ini"},
    {0, {"a.ini", "b.ini"}, 2, 0, "usage: ./train --sweep-run"},
    {0, {""}, 2, 0, "usage: ./train --sweep-run"},
    {0, {"--help"}, 0, 1, "usage: ./train --sweep-run"},
    {0, {"-h"}, 0, 1, "usage: ./train --sweep-run"},
    {1, {NULL}, 2, 0, "usage: ./train --sweep-report SWEEP_DIR"},
    {1, {"a", "b"}, 2, 0, "usage: ./train --sweep-report"},
    {1, {""}, 2, 0, "usage: ./train --sweep-report"},
    {1, {"--help"}, 0, 1, "usage: ./train --sweep-report"},
    {1, {"/nonexistent/sweep"}, 2, 0, "error: '/nonexistent/sweep' holds no sweep.csv"},
    {1, {SCALEDOT_SOURCE_DIR "/tests"}, 2, 0, "holds no sweep.csv"},
};

START_TEST(test_lines) {
    const LineCase *e = &LINES[_i];
    TuResult r = tu_call(e->report ? cli_sweep_report : cli_sweep_run, e->args);
    ck_assert_msg(r.rc == e->rc, "case %d: rc %d, want %d; stderr:\n%s", _i, r.rc, e->rc, r.err);
    const char *text = e->on_stdout ? r.out : r.err;
    ck_assert_msg(strstr(text, e->needle), "case %d: '%s' not in:\n%s", _i, e->needle, text);
    ck_assert_msg(e->on_stdout || !*r.out, "case %d: refused, yet printed on stdout:\n%s", _i,
                  r.out);
    tu_result_free(&r);
}
END_TEST

TU_MAIN("cli_sweep", TU_LOOP(test_lines, 0, (int)(sizeof LINES / sizeof *LINES)));
