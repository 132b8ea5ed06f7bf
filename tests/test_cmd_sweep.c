/* test_cmd_sweep.c: the command lines of ./train --sweep-run and --sweep-report
 * (src/cli/cmd_sweep.c), table-driven: --help prints the usage on stdout with exit 0, a missing, extra
 * or empty argument is named, then the usage, on stderr with exit 2; paths with control bytes
 * (and --sweep --collect --out's) are quoted escaped, the report's lines too; and --sweep-report on a folder without a
 * sweep.csv, or on a symbolic link to a sweep folder, or on one holding a summary.txt, index.html
 * or SVG of the user's, is a wrong argument (exit 2, the folder or file named) before anything is
 * read or written; a report file made read-only is kept (exit 1). --sweep's own command line is test_sweep_args.c's;
 * the runs and the report are test_sweep.c's (and test_sweep_restart.c's) and
 * test_sweep_report.c's. */
#include "cli/cli.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

typedef struct {
    int report;           /* 1: --sweep-report, 0: --sweep-run, 2: --sweep */
    const char *args[6];  /* NULL-terminated */
    int rc;
    int on_stdout;        /* the needle is looked for on stdout (else stderr) */
    const char *needle;
} LineCase;

static const LineCase LINES[] = {
    /* what is wrong said first (a missing argument printed the usage alone) */
    {0, {NULL}, 2, 0,
     "error: --sweep-run needs a run config of a sweep (OUT/configs/RUN.ini)\n"
     "usage: ./train --sweep-run OUT/configs/RUN.ini"},
    {0, {"a.ini", "b.ini"}, 2, 0,
     "error: --sweep-run takes one run config of a sweep (OUT/configs/RUN.ini), not 2 ('a.ini', "
     "'b.ini'): give them one at a time\nusage: ./train --sweep-run"},
    {0, {""}, 2, 0, "error: --sweep-run: the file name is empty\nusage: ./train --sweep-run"},
    {0, {"--help"}, 0, 1, "usage: ./train --sweep-run"},
    {0, {"-h"}, 0, 1, "usage: ./train --sweep-run"},
    {1, {NULL}, 2, 0, "error: --sweep-report needs a sweep folder\nusage: ./train --sweep-report "
                      "SWEEP_DIR"},
    {1, {"a", "b"}, 2, 0, "error: --sweep-report takes one sweep folder, not 2 ('a', 'b'): give "
                          "them one at a time\nusage: ./train --sweep-report"},
    {1, {""}, 2, 0, "error: --sweep-report: the folder name is empty\nusage: ./train --sweep-report"},
    {1, {"--help"}, 0, 1, "usage: ./train --sweep-report"},
    {1, {"/nonexistent/sweep"}, 2, 0, "error: '/nonexistent/sweep' holds no sweep.csv"},
    {1, {SCALEDOT_SOURCE_DIR "/tests"}, 2, 0, "holds no sweep.csv"},
    /* the user's path quoted escaped (util/error_list.h) */
    {1, {"/nonexistent/s\x1b[2J\r\xc2\x9b\x9b"}, 2, 0,
     "error: '/nonexistent/s\\x1b[2J\\r\\xc2\\x9b\\x9b' holds no sweep.csv"},
    {0, {"/nonexistent/s\x1b[2J\r/configs/r.ini"}, 2, 0,
     "error: cannot open '/nonexistent/s\\x1b[2J\\r/configs/r.ini'"},
    {2, {"--collect", "--out", "/nonexistent/s\xc2\x9b\x9b"}, 2, 0,
     "error: cannot read '/nonexistent/s\\xc2\\x9b\\x9b/plan.txt': No such file or directory"},
    {2, {"--collect", "--out", "/nonexistent/s\x1b[2J\r"}, 2, 0,
     "error: --out (argument 4): the sweep folder's path '/nonexistent/s\\x1b[2J\\r' holds a "
     "control character "
     "(byte 0x1b)"},
    /* a task.file that cannot be read, in the train command's words (cli_sweep's argv[0] is
     * --sweep: the --set of task.file is argument 4) */
    {2, {"--set", "task.name=file", "--set", "task.file=/nonexistent/t.txt", "--plan"}, 2, 0,
     "error: task.file '/nonexistent/t.txt' (--set (argument 5)) cannot be read: No such file or "
     "directory\n"},
};

START_TEST(test_lines) {
    const LineCase *e = &LINES[_i];
    TuResult r = tu_call(e->report == 2 ? cli_sweep : e->report ? cli_sweep_report : cli_sweep_run,
                         e->args);
    ck_assert_msg(r.rc == e->rc, "case %d: rc %d, want %d; stderr:\n%s", _i, r.rc, e->rc, r.err);
    const char *text = e->on_stdout ? r.out : r.err;
    ck_assert_msg(strstr(text, e->needle), "case %d: '%s' not in:\n%s", _i, e->needle, text);
    ck_assert_msg(e->on_stdout || !*r.out, "case %d: refused, yet printed on stdout:\n%s", _i,
                  r.out);
    tu_assert_no_raw_control(r.err, "stderr");
    tu_result_free(&r);
}
END_TEST

/* A copy of a published sweep.csv (45 runs) in dir, made when missing. */
static void put_sweep_csv(const char *dir) {
    char *csv = tu_read_file(SCALEDOT_SOURCE_DIR "/results/sweep/fixed_width/sweep.csv", NULL);
    ck_assert_ptr_nonnull(csv);
    char path[256];
    ck_assert(mkdir(dir, 0755) == 0 || errno == EEXIST);
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    tu_write_file(path, csv);
    free(csv);
}

/* --sweep-report on a link to a folder holding a sweep.csv: refused, nothing written through. */
START_TEST(test_report_through_link_refused) {
    char tmp[64], real[128], link[128], cmd[512];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_cmd_sweep.XXXXXX");
    snprintf(real, sizeof real, "%s/real", tmp);
    snprintf(link, sizeof link, "%s/link", tmp);
    put_sweep_csv(real);
    ck_assert_int_eq(symlink(real, link), 0);
    const char *args[2] = {link, NULL};
    TuResult r = tu_call(cli_sweep_report, args);
    ck_assert_msg(r.rc == 2, "rc %d, stderr:\n%s", r.rc, r.err);
    char want[200];
    snprintf(want, sizeof want, "error: sweep folder '%s' is a symbolic link", link);
    ck_assert_msg(strstr(r.err, want), "not named in:\n%s", r.err);
    tu_result_free(&r);
    snprintf(cmd, sizeof cmd, "[ \"$(ls -A %s)\" = sweep.csv ]", real);
    ck_assert_msg(system(cmd) == 0, "a file was written through the link");
    tu_remove_tree(tmp);
}
END_TEST

/* --sweep-report on a folder holding a sweep.csv and a report file of the user's (not one a
 * sweep report wrote: no mark, or a link): refused with exit 2 naming it, nothing written. */
static const struct {
    const char *name, *text; /* text NULL: a symbolic link to notes.txt, a file of the user's */
    const char *after;       /* the folder's listing afterwards (ls -A, one line) */
} USER_FILES[] = {
    {"summary.txt", "my notes\n", "summary.txt sweep.csv "},
    {"index.html", "<html><title>my page</title></html>\n", "index.html sweep.csv "},
    {"sweep_loss.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n",
     "sweep.csv sweep_loss.svg "},
    {"index.html", NULL, "index.html notes.txt sweep.csv "},
};

START_TEST(test_report_keeps_user_files) {
    char tmp[64], path[256], cmd[512];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_cmd_sweep.XXXXXX");
    put_sweep_csv(tmp);
    snprintf(path, sizeof path, "%s/%s", tmp, USER_FILES[_i].name);
    if (USER_FILES[_i].text) {
        tu_write_file(path, USER_FILES[_i].text);
    } else {
        char target[128];
        snprintf(target, sizeof target, "%s/notes.txt", tmp);
        tu_write_file(target, "my notes\n");
        ck_assert_int_eq(symlink("notes.txt", path), 0);
    }
    const char *args[2] = {tmp, NULL};
    TuResult r = tu_call(cli_sweep_report, args);
    ck_assert_msg(r.rc == 2, "case %d: rc %d, stderr:\n%s", _i, r.rc, r.err);
    char want[400];
    snprintf(want, sizeof want, "error: '%s' is not a file a sweep into this folder wrote", path);
    ck_assert_msg(strstr(r.err, want), "case %d: not named in:\n%s", _i, r.err);
    tu_result_free(&r);
    /* nothing written: sweep.csv, the user's file (and the link's target) alone */
    snprintf(cmd, sizeof cmd, "cd %s && [ \"$(LC_ALL=C ls -A | tr '\\n' ' ')\" = '%s' ]", tmp,
             USER_FILES[_i].after);
    ck_assert_msg(system(cmd) == 0, "case %d: a file was written", _i);
    if (USER_FILES[_i].text) {
        char *text = tu_read_file(path, NULL);
        ck_assert_str_eq(text, USER_FILES[_i].text);
        free(text);
    }
    tu_remove_tree(tmp);
}
END_TEST

/* A report file of a sweep's own that the user made read-only (chmod 444) is kept: the report
 * fails naming it (exit 1), its bytes and mode unchanged; before, it was replaced and came back
 * 0644. */
START_TEST(test_report_keeps_read_only_page) {
    char tmp[64], page[128], cmd[512];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_cmd_sweep.XXXXXX");
    put_sweep_csv(tmp);
    const char *args[2] = {tmp, NULL};
    TuResult r = tu_call(cli_sweep_report, args);
    ck_assert_msg(r.rc == 0, "rc %d, stderr:\n%s", r.rc, r.err);
    tu_result_free(&r);
    snprintf(page, sizeof page, "%s/index.html", tmp);
    ck_assert_int_eq(chmod(page, 0444), 0);
    char *before = tu_read_file(page, NULL);
    snprintf(cmd, sizeof cmd, "cd %s && sed -i 's/ok/diverged/' sweep.csv", tmp);
    ck_assert_int_eq(system(cmd), 0); /* a report that would differ */
    r = tu_call(cli_sweep_report, args);
    ck_assert_msg(r.rc == 1, "rc %d, stderr:\n%s", r.rc, r.err);
    char want[200];
    snprintf(want, sizeof want, "error: cannot write '%s': Permission denied", page);
    ck_assert_msg(strstr(r.err, want), "not named in:\n%s", r.err);
    tu_result_free(&r);
    char *after = tu_read_file(page, NULL);
    ck_assert_str_eq(after, before);
    struct stat sb;
    ck_assert_int_eq(lstat(page, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 07777, 0444);
    free(before);
    free(after);
    tu_remove_tree(tmp);
}
END_TEST

/* A sweep folder whose path holds an escape sequence, a CR, a C1 CSI and a lone 0x9b: the report
 * is written, and every line of it on the terminal names the folder escaped. */
START_TEST(test_report_path_escaped) {
    char tmp[64], dir[128], want[300];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_cmd_sweep.XXXXXX");
    snprintf(dir, sizeof dir, "%s/s\x1b[2J\r\xc2\x9b\x9b", tmp);
    put_sweep_csv(dir);
    const char *args[2] = {dir, NULL};
    TuResult r = tu_call(cli_sweep_report, args);
    ck_assert_msg(r.rc == 0, "rc %d, stderr:\n%s", r.rc, r.err);
    static const char *const LINES_OF[] = {"sweep report of %s/s%s/sweep.csv: 45 runs",
                                           "\nfigures in %s/s%s/:\n", "\nwrote %s/s%s/summary.txt\n",
                                           "\nwrote %s/s%s/index.html\n"};
    for (int i = 0; i < 4; i++) {
        snprintf(want, sizeof want, LINES_OF[i], tmp, "\\x1b[2J\\r\\xc2\\x9b\\x9b");
        ck_assert_msg(strstr(r.out, want), "'%s' not in:\n%s", want, r.out);
    }
    tu_assert_no_raw_control(r.out, "stdout");
    tu_assert_no_raw_control(r.err, "stderr");
    tu_result_free(&r);
    tu_remove_tree(tmp);
}
END_TEST

TU_MAIN("cli_sweep", TU_LOOP(test_lines, 0, (int)(sizeof LINES / sizeof *LINES)),
        test_report_through_link_refused,
        TU_LOOP(test_report_keeps_user_files, 0, (int)(sizeof USER_FILES / sizeof *USER_FILES)),
        test_report_keeps_read_only_page, test_report_path_escaped);
