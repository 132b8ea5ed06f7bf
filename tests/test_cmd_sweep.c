/* test_cmd_sweep.c: the command lines of ./train --sweep-run and --sweep-report
 * (src/cli/cmd_sweep.c), table-driven: --help prints the usage on stdout with exit 0, a missing, extra
 * or empty argument prints it on stderr with exit 2, and --sweep-report on a folder without a
 * sweep.csv, or on a symbolic link to a sweep folder, or on one holding a summary.txt, index.html
 * or SVG of the user's, is a wrong argument (exit 2, the folder or file named) before anything is
 * read or written; a report file made read-only is kept (exit 1). --sweep's own command line is test_sweep_args.c's;
 * the runs and the report are test_sweep.c's (and test_sweep_restart.c's) and
 * test_sweep_report.c's. */
#include "cli/cli.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* --sweep-report on a link to a folder holding a sweep.csv: refused, nothing written through. */
START_TEST(test_report_through_link_refused) {
    char tmp[64], real[128], link[128], cmd[512];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_cmd_sweep.XXXXXX");
    snprintf(real, sizeof real, "%s/real", tmp);
    snprintf(link, sizeof link, "%s/link", tmp);
    snprintf(cmd, sizeof cmd, "mkdir %s && cp %s/results/sweep/fixed_width/sweep.csv %s/", real,
             SCALEDOT_SOURCE_DIR, real);
    ck_assert_int_eq(system(cmd), 0);
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
    snprintf(cmd, sizeof cmd, "cp %s/results/sweep/fixed_width/sweep.csv %s/", SCALEDOT_SOURCE_DIR,
             tmp);
    ck_assert_int_eq(system(cmd), 0);
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
    snprintf(cmd, sizeof cmd, "cp %s/results/sweep/fixed_width/sweep.csv %s/", SCALEDOT_SOURCE_DIR,
             tmp);
    ck_assert_int_eq(system(cmd), 0);
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

TU_MAIN("cli_sweep", TU_LOOP(test_lines, 0, (int)(sizeof LINES / sizeof *LINES)),
        test_report_through_link_refused,
        TU_LOOP(test_report_keeps_user_files, 0, (int)(sizeof USER_FILES / sizeof *USER_FILES)),
        test_report_keeps_read_only_page);
