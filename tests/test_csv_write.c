/* test_csv_write.c: the CSV log writer (src/runlog/csv_write.c): a field spelled the way the
 * reader (csv_read.c) reads it back (empty, nan, inf, -inf, a number in the row's format), a row
 * never overrunning its buffer, a resumed log cut back to the rows before the checkpoint (a torn
 * last line dropped, no temporary file left), a log that is not a regular file refused with the path in the
 * message, a log whose header is not the one of the rows the caller appends refused naming the
 * first column that differs, a header compared whole, a new log never written through a link.
 * Expected texts are written out by hand. */
#include "runlog/csv_write.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runlog/csv_read.h"
#include "temp_names.h"
#include "testutil.h"

static char tmp[200];

static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/test_csv_write.XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

/* One field appended to "7": (present, value, format) -> the row's text. */
static const struct {
    int present;
    double v;
    const char *fmt, *want;
} FIELDS[] = {
    {0, 1.5, "%.6g", "7,"},             /* not measured: empty */
    {1, NAN, "%.6g", "7,nan"},          /* a measured NaN stays visible */
    {1, INFINITY, "%.6g", "7,inf"},
    {1, -INFINITY, "%.6g", "7,-inf"},
    {1, 0.5, "%.6g", "7,0.5"},
    {1, 2.0 / 3.0, "%.6g", "7,0.666667"},
    {1, 1234.5678, "%.3f", "7,1234.568"},
    {1, 12345.4, "%.0f", "7,12345"},
    {0, NAN, "%.6g", "7,"},             /* not measured wins over NaN */
};

START_TEST(test_field) {
    char buf[64] = "7";
    size_t len = csv_log_field(buf, sizeof buf, 1, FIELDS[_i].present, FIELDS[_i].v, FIELDS[_i].fmt);
    ck_assert_str_eq(buf, FIELDS[_i].want);
    ck_assert_uint_eq(len, strlen(FIELDS[_i].want));
}
END_TEST

/* A row too long for its buffer is cut there, never overrun; once full nothing is added. */
START_TEST(test_field_never_overruns) {
    char buf[16];
    memset(buf, 'x', sizeof buf);
    size_t len = (size_t)snprintf(buf, 8, "1");
    for (int i = 0; i < 10; i++) len = csv_log_field(buf, 8, len, 1, 123.0, "%.6g");
    ck_assert_str_eq(buf, "1,123,1");  /* 7 characters and the NUL: 8 bytes */
    ck_assert_uint_ge(len, 8);
    for (int i = 8; i < 16; i++) ck_assert_int_eq(buf[i], 'x');
}
END_TEST

/* Written by the writer, read by the reader: empty, nan, inf, -inf and numbers come back. */
START_TEST(test_round_trip) {
    char path[300];
    snprintf(path, sizeof path, "%s/loss.csv", tmp);
    FILE *f = csv_log_create(path);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(csv_log_row(f, path, "step,a,b,c,d\n"), 0);
    char row[128];
    size_t len = (size_t)snprintf(row, sizeof row, "%d", 3);
    len = csv_log_field(row, sizeof row, len, 0, 1.0, "%.6g");
    len = csv_log_field(row, sizeof row, len, 1, NAN, "%.6g");
    len = csv_log_field(row, sizeof row, len, 1, -INFINITY, "%.6g");
    len = csv_log_field(row, sizeof row, len, 1, 0.25, "%.6g");
    snprintf(row + len, sizeof row - len, "\n");
    ck_assert_int_eq(csv_log_row(f, path, row), 0);
    fclose(f);
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "step,a,b,c,d\n3,,nan,-inf,0.25\n");
    free(text);
    Csv t;
    ck_assert_int_eq(csv_load(&t, path), 0);
    ck_assert_int_eq(t.n_rows, 1);
    ck_assert(csv_empty(&t, 0, 1));
    ck_assert(isnan(csv_num(&t, 0, 2)) && !csv_empty(&t, 0, 2));
    ck_assert(isinf(csv_num(&t, 0, 3)) && csv_num(&t, 0, 3) < 0);
    ck_assert_double_eq(csv_num(&t, 0, 4), 0.25);
    csv_free(&t);
}
END_TEST

/* Resuming at a step: (resume_step) -> the rows kept; the torn last line and the blank lines
 * (one at the end, as `printf '\n' >> loss.csv` leaves it) are always dropped. */
static const struct {
    long step;
    const char *want;
} KEEP[] = {
    {0, "step,x\n"},
    {10, "step,x\n0,a\n5,b\n"},
    {11, "step,x\n0,a\n5,b\n10,c\n"},
    {100, "step,x\n0,a\n5,b\n10,c\n15,d\n"},
};

START_TEST(test_keep_before) {
    char path[300];
    snprintf(path, sizeof path, "%s/loss.csv", tmp);
    /* blank lines among the rows; the last row killed mid-write */
    static const char LOG[] = "step,x\n0,a\n\n5,b\n10,c\n \r\n15,d\n\n20,e";
    tu_write_file(path, LOG);
    AtomicFile out;
    ck_assert_int_eq(csv_log_keep_before(path, KEEP[_i].step, "step,x\n", &out), 0);
    char *before = tu_read_file(path, NULL); /* not touched until the commit */
    ck_assert_str_eq(before, LOG);
    free(before);
    FILE *f = csv_log_keep_commit(path, &out);
    ck_assert_ptr_nonnull(f);
    temp_names_assert_none(tmp);
    ck_assert_int_eq(csv_log_row(f, path, "99,z\n"), 0);
    fclose(f);
    char want[128], *text = tu_read_file(path, NULL);
    snprintf(want, sizeof want, "%s99,z\n", KEEP[_i].want);
    ck_assert_str_eq(text, want);
    free(text);
}
END_TEST

/* A log to resume that is missing (-1) or not a regular file (-2): refused with its path, no
 * temporary file made. */
START_TEST(test_keep_before_refuses) {
    char path[300], fifo[300], msg[700];
    snprintf(path, sizeof path, "%s/missing.csv", tmp);
    snprintf(fifo, sizeof fifo, "%s/fifo.csv", tmp);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    const char *paths[2] = {path, fifo};
    const int want[2] = {-1, -2};
    for (int i = 0; i < 2; i++) {
        AtomicFile out;
        TuCapture c;
        tu_capture_begin(&c, 2);
        int rc = csv_log_keep_before(paths[i], 0, NULL, &out);
        char *err = tu_capture_end(&c);
        ck_assert_int_eq(rc, want[i]);
        snprintf(msg, sizeof msg, "error: cannot resume: '%s': ", paths[i]);
        ck_assert_msg(strstr(err, msg), "message: %s", err);
        free(err);
        temp_names_assert_none(tmp);
    }
}
END_TEST

/* A log whose header is missing or torn: resuming it would append rows no reader can name, so
 * it is refused (-2) with its path and the word "header", and nothing is made or changed. */
static const struct {
    const char *text, *says;
} NO_HEADER[] = {
    {"", "missing"},                 /* empty: killed before the header was written */
    {"step,train_lo", "torn"},       /* killed in the middle of the header */
    {"0,a\n5,b\n", "not a header"}, /* rows without a header */
    {"\n0,a\n", "not a header"},
};

START_TEST(test_keep_before_refuses_headerless) {
    char path[300], want[400];
    snprintf(path, sizeof path, "%s/loss.csv", tmp);
    tu_write_file(path, NO_HEADER[_i].text);
    AtomicFile out;
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = csv_log_keep_before(path, 100, NULL, &out);
    char *err = tu_capture_end(&c);
    ck_assert_int_eq(rc, -2);
    snprintf(want, sizeof want, "error: cannot resume: '%s': its header line is %s", path,
             NO_HEADER[_i].says);
    ck_assert_msg(strstr(err, want), "message: %s", err);
    free(err);
    temp_names_assert_none(tmp);
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, NO_HEADER[_i].text);
    free(text);
}
END_TEST

/* A whole header, but not the one of the rows the caller appends (want): refused (-2) by the
 * check and by the resume's rewrite alike, naming the log and the first column that differs (a
 * '\r' shown escaped), the log unchanged and no temporary file made. (log's text, want) -> the
 * message's reason. */
static const struct {
    const char *text, *want, *says;
} OTHER_HEADER[] = {
    {"step,foo\n0,1\n", "step,train_loss,val_loss\n",
     "column 2 is 'foo' where this run writes 'train_loss'; 2 columns, this run writes 3"},
    {"step,a\n0,1\n", "step,a,b\n", "it ends after 2 columns, before this run's 'b'"},
    {"step,a,b,c\n", "step,a,b\n", "column 4 is 'c', past this run's last of 3"},
    {"step,a,b\r\n", "step,a,b\n",
     "column 3 is 'b\\r' where this run writes 'b'; 3 columns, this run writes 3"},
    {"step,,b\n", "step,,c\n",
     "column 3 is 'b' where this run writes 'c'; 3 columns, this run writes 3"},
};

START_TEST(test_other_header_refused) {
    char path[300], want[700];
    snprintf(path, sizeof path, "%s/loss.csv", tmp);
    tu_write_file(path, OTHER_HEADER[_i].text);
    for (int rewrite = 0; rewrite < 2; rewrite++) {
        /* the rewrite's message has no place: the check's, at its place, comes first in a resume */
        snprintf(want, sizeof want, "error: %scannot resume: '%s': its header is not the one this "
                 "run writes (%s): ", rewrite ? "" : "--resume (argument 2): ", path,
                 OTHER_HEADER[_i].says);
        AtomicFile out;
        TuCapture c;
        tu_capture_begin(&c, 2);
        int rc = rewrite ? csv_log_keep_before(path, 100, OTHER_HEADER[_i].want, &out)
                         : csv_log_check_header(path, OTHER_HEADER[_i].want,
                                                "--resume (argument 2)");
        char *err = tu_capture_end(&c);
        ck_assert_int_eq(rc, -2);
        ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "'%s' not said: %s", want, err);
        free(err);
        temp_names_assert_none(tmp);
        ck_assert(tu_file_holds(path, OTHER_HEADER[_i].text));
    }
    /* the log's own header passes both */
    char *own = strndup(OTHER_HEADER[_i].text, strcspn(OTHER_HEADER[_i].text, "\n") + 1);
    ck_assert_int_eq(csv_log_check_header(path, own, "--resume (argument 2)"), 0);
    free(own);
}
END_TEST

/* (log's text, want) -> its first line, '\n' included, is want; a log that is not there is none */
static const struct {
    const char *text, *want;
    int same;
} HEADER_IS[] = {
    {"step,a,b\n1,2,3\n", "step,a,b\n", 1},
    {"step,a,b\r\n", "step,a,b\n", 0},
    {"step,a\n", "step,a,b\n", 0},
    {"step,a,b,c\n", "step,a,b\n", 0},
    {"step,a,b", "step,a,b\n", 0}, /* torn */
    {"", "step\n", 0},
    {"1,a,b\nstep,a,b\n", "step,a,b\n", 0}, /* only the first line counts */
};

START_TEST(test_header_is) {
    char path[300];
    snprintf(path, sizeof path, "%s/attention.csv", tmp);
    tu_write_file(path, HEADER_IS[_i].text);
    ck_assert_int_eq(csv_log_header_is(path, HEADER_IS[_i].want), HEADER_IS[_i].same);
    snprintf(path, sizeof path, "%s/none.csv", tmp);
    ck_assert_int_eq(csv_log_header_is(path, HEADER_IS[_i].want), 0);
}
END_TEST

/* A new log replaces a link at its path; the file linked to keeps its bytes. Appending through a
 * link is refused with the path in the message. */
START_TEST(test_never_through_a_link) {
    char target[300], path[300];
    snprintf(target, sizeof target, "%s/precious.txt", tmp);
    snprintf(path, sizeof path, "%s/loss.csv", tmp);
    tu_write_file(target, "keep me\n");
    ck_assert_int_eq(symlink(target, path), 0);
    TuCapture c;
    tu_capture_begin(&c, 2);
    FILE *f = csv_log_append(path);
    char *err = tu_capture_end(&c);
    ck_assert_ptr_null(f);
    char msg[400];
    snprintf(msg, sizeof msg, "error: cannot append to '%s': a symbolic link: not written through", path);
    ck_assert_msg(strstr(err, msg), "message: %s", err);
    free(err);
    f = csv_log_create(path);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(csv_log_row(f, path, "step\n"), 0);
    fclose(f);
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISREG(st.st_mode));
    char *text = tu_read_file(target, NULL);
    ck_assert_str_eq(text, "keep me\n");
    free(text);
}
END_TEST

TU_MAIN_FIXTURE("csv_write", setup, teardown,
                TU_LOOP(test_field, 0, (int)(sizeof FIELDS / sizeof FIELDS[0])),
                test_field_never_overruns, test_round_trip,
                TU_LOOP(test_keep_before, 0, (int)(sizeof KEEP / sizeof KEEP[0])),
                test_keep_before_refuses,
                TU_LOOP(test_keep_before_refuses_headerless, 0,
                        (int)(sizeof NO_HEADER / sizeof NO_HEADER[0])),
                TU_LOOP(test_other_header_refused, 0,
                        (int)(sizeof OTHER_HEADER / sizeof OTHER_HEADER[0])),
                TU_LOOP(test_header_is, 0, (int)(sizeof HEADER_IS / sizeof HEADER_IS[0])),
                test_never_through_a_link);
