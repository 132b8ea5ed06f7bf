/* test_csv_read.c: the CSV log reader (src/runlog/csv_read.c): fields, empty versus NaN, quoting,
 * line ends, ragged rows, errors, and the fixture logs. The same-shape checks are tables: cells of
 * small documents as text (empty exactly when the text is ""), fields as numbers and as ints,
 * texts without a header line, and texts refused (a NUL byte, a column named twice). */
#include "runlog/csv_read.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define FIXTURES SCALEDOT_SOURCE_DIR "/tests/fixtures/runs"
#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void parse(Csv *t, const char *text) { ck_assert_int_eq(csv_parse(t, text, strlen(text)), 0); }

START_TEST(test_header_and_fields) {
    Csv t;
    parse(&t, "step,train_loss,val_loss\n0,1.5,2.25\n10,1.25,\n");
    ck_assert_int_eq(t.n_cols, 3);
    ck_assert_int_eq(t.n_rows, 2);
    ck_assert_int_eq(csv_col(&t, "step"), 0);
    ck_assert_int_eq(csv_col(&t, "val_loss"), 2);
    ck_assert_int_eq(csv_col(&t, "nope"), -1);
    ck_assert_str_eq(csv_str(&t, 0, 1), "1.5");
    ck_assert_double_eq(csv_num(&t, 0, 2), 2.25);
    ck_assert_double_eq(csv_num(&t, 1, 0), 10);
    ck_assert(csv_empty(&t, 1, 2));
    ck_assert(!csv_empty(&t, 1, 1));
    csv_free(&t);
    ck_assert_ptr_null(t.text);
    csv_free(&t); /* twice is harmless */
}
END_TEST

/* ---- cells as text ------------------------------------------------------------------------- */

typedef struct {
    int row, col;
    const char *want;  /* csv_str; csv_empty is true exactly when this is "" */
} CellWant;

typedef struct {
    const char *name, *text;
    int n_rows;
    const char *col0;  /* the header's first field (csv_col finds it at 0) */
    CellWant cells[8];
    int n_cells;
} DocCase;

static const DocCase RESULTS[] = {
    {"quoted fields",
     "position,token\n0,\"<sep>\"\n1,\"a,b\"\n2,\"say \"\"hi\"\"\"\n3,\"\"\n4,\"two\nlines\"\n", 5,
     "position",
     {{0, 1, "<sep>"}, {1, 1, "a,b"}, {2, 1, "say \"hi\""}, {3, 1, ""}, {4, 1, "two\nlines"},
      {4, 0, "4"}},
     6},
    /* CRLF, blank lines skipped, a quoted number, no final newline, the BOM not in the name */
    {"line ends, blank lines and BOM", "\xEF\xBB\xBFstep,x\r\n0,1\r\n\r\n\n1,\"2\"\r\n2,3", 3, "step",
     {{0, 0, "0"}, {0, 1, "1"}, {1, 1, "2"}, {2, 1, "3"}},
     4},
    /* short rows padded with empty fields, long ones cut to the header; out of range is "" */
    {"ragged rows and out of range", "a,b,c\n1\n1,2,3,4,5\n", 2, "a",
     {{0, 0, "1"}, {0, 1, ""}, {0, 2, ""}, {1, 2, "3"}, {1, 3, ""}, {-1, 0, ""}, {2, 0, ""},
      {0, -1, ""}},
     8},
};

START_TEST(test_cells) {
    const DocCase *d = &RESULTS[_i];
    Csv t;
    parse(&t, d->text);
    ck_assert_msg(t.n_rows == d->n_rows, "%s: %d rows, want %d", d->name, t.n_rows, d->n_rows);
    ck_assert_msg(csv_col(&t, d->col0) == 0, "%s: column '%s' not first", d->name, d->col0);
    for (int i = 0; i < d->n_cells; i++) {
        const CellWant *c = &d->cells[i];
        const char *got = csv_str(&t, c->row, c->col);
        ck_assert_msg(strcmp(got, c->want) == 0, "%s: cell (%d, %d) is '%s', want '%s'", d->name,
                      c->row, c->col, got, c->want);
        ck_assert_msg(csv_empty(&t, c->row, c->col) == (c->want[0] == '\0'),
                      "%s: cell (%d, %d): csv_empty %d", d->name, c->row, c->col,
                      csv_empty(&t, c->row, c->col));
    }
    csv_free(&t);
}
END_TEST

/* ---- fields as numbers ---------------------------------------------------------------------- */

/* An empty field is "not measured"; "nan"/"inf" are measured and non-finite. */
static const char NUM_DOC[] = "a,b,c,d,e,f,g\n,nan,inf,-inf,abc, 1.5 ,-2e-3\n";

typedef struct {
    int row, col;
    int empty;
    double want;  /* NAN, +-INFINITY or the value */
} NumCase;

static const NumCase NUMS[] = {
    {0, 0, 1, NAN},      {0, 1, 0, NAN},  {0, 2, 0, INFINITY}, {0, 3, 0, -INFINITY},
    {0, 4, 0, NAN},      {0, 5, 0, 1.5},  {0, 6, 0, -0.002},
    {0, 7, 1, NAN},      /* beyond the header */
    {5, 5, 1, NAN},      /* beyond the last row */
};

START_TEST(test_numbers) {
    const NumCase *e = &NUMS[_i];
    Csv t;
    parse(&t, NUM_DOC);
    double got = csv_num(&t, e->row, e->col);
    ck_assert_msg(csv_empty(&t, e->row, e->col) == e->empty, "(%d, %d): csv_empty", e->row,
                  e->col);
    ck_assert_msg(isnan(e->want) ? isnan(got) : got == e->want, "(%d, %d): %g, want %g", e->row,
                  e->col, got, e->want);
    csv_free(&t);
}
END_TEST

/* Integers for steps, layers and heads: never a cast of NaN or of an out-of-range double. */
static const char INT_DOC[] = "a,b,c,d,e,f\n12,,nan,1e300,-3.7,x\n";

typedef struct {
    int row, col, fallback, want;
} IntCase;

static const IntCase INTS[] = {
    {0, 0, -1, 12}, {0, 1, -1, -1}, /* empty */  {0, 2, -1, -1}, /* nan */
    {0, 3, -1, -1}, /* out of int range */      {0, 4, 0, -3},  /* truncated */
    {0, 5, 7, 7},   /* not a number */          {3, 0, 9, 9},   /* no such row */
};

START_TEST(test_ints) {
    const IntCase *e = &INTS[_i];
    Csv t;
    parse(&t, INT_DOC);
    int got = csv_int(&t, e->row, e->col, e->fallback);
    ck_assert_msg(got == e->want, "(%d, %d) fallback %d: %d, want %d", e->row, e->col, e->fallback,
                  got, e->want);
    csv_free(&t);
}
END_TEST

/* ---- texts without a header ---------------------------------------------------------------- */

START_TEST(test_header_only) {
    Csv t;
    parse(&t, "step,x\n");
    ck_assert_int_eq(t.n_rows, 0);
    ck_assert_int_eq(t.n_cols, 2);
    csv_free(&t);
}
END_TEST

typedef struct {
    const char *name, *text;
    size_t len;
} NoHeaderCase;

static const NoHeaderCase NO_HEADER[] = {
    {"empty", "", 0},
    {"blank lines only", "\n\r\n", 3},
    {"a byte-order mark only", "\xEF\xBB\xBF", 3},
};

START_TEST(test_no_header) {
    const NoHeaderCase *e = &NO_HEADER[_i];
    Csv t;
    errno = 0;
    ck_assert_msg(csv_parse(&t, e->text, e->len) == -1, "%s: accepted", e->name);
    ck_assert_msg(errno == EINVAL, "%s: errno %d", e->name, errno);
    ck_assert_ptr_null(t.cell);
    csv_free(&t);
}
END_TEST

/* Texts no log of ours can be, refused rather than read wrong (issue 33): a NUL inside a cell
 * (strtod would stop at it: "3.1\0 0281" read as 3.1), anywhere in the file, and a header naming
 * a column twice (csv_col would silently give the first); the problem names the line. Empty
 * header names may repeat (they name nothing). */
typedef struct {
    const char *name, *text;
    size_t len;
    int err;             /* 0: accepted */
    const char *problem; /* t.problem starts so */
} RefusedCase;

static const RefusedCase REFUSED[] = {
    {"NUL in a cell", "step,train_loss\n1,3.1\0 0281\n", 28, EILSEQ, "line 2: a NUL byte"},
    {"NUL in the header", "step,tr\0ain_loss\n1,3\n", 21, EILSEQ, "line 1: a NUL byte"},
    {"NUL on a later line", "a\n1\n2\n\0\n", 8, EILSEQ, "line 4: a NUL byte"},
    {"a column twice", "step,train_loss,train_loss\n1,2,3\n", 33, ENOTUNIQ,
     "line 1: column 'train_loss' named twice (fields 2 and 3)"},
    {"a column twice, apart", "\na,b,c,a\n", 9, ENOTUNIQ, "line 2: column 'a' named twice (fields 1 and 4)"},
    {"empty names twice", "a,,\n1,2,3\n", 10, 0, ""},
};

START_TEST(test_refused) {
    const RefusedCase *e = &REFUSED[_i];
    Csv t;
    errno = 0;
    int rc = csv_parse(&t, e->text, e->len);
    if (!e->err) {
        ck_assert_msg(rc == 0, "%s: refused: %s", e->name, t.problem);
        csv_free(&t);
        return;
    }
    ck_assert_msg(rc == -1, "%s: accepted", e->name);
    ck_assert_msg(errno == e->err, "%s: errno %d", e->name, errno);
    ck_assert_msg(strncmp(t.problem, e->problem, strlen(e->problem)) == 0, "%s: '%s'", e->name,
                  t.problem);
    ck_assert_ptr_null(t.cell);
    csv_free(&t);
}
END_TEST

/* csv_load names the file and the problem, and reports it as refused (ECANCELED). */
START_TEST(test_load_refused_named) {
    char dir[128], path[200];
    tu_make_tmp(dir, sizeof dir, "/tmp/test_csv_read.XXXXXX");
    snprintf(path, sizeof path, "%s/loss.csv", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fwrite("step,train_loss\n1,3.1\0 0281\n", 1, 28, f);
    fclose(f);
    TuCapture c;
    tu_capture_begin(&c, 2);
    Csv t;
    errno = 0;
    int rc = csv_load(&t, path);
    int err = errno;
    char *out = tu_capture_end(&c);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(err, ECANCELED);
    char want[300];
    snprintf(want, sizeof want, "error: '%s': line 2: a NUL byte", path);
    ck_assert_msg(strstr(out, want), "stderr: %s", out);
    free(out);
    csv_free(&t);
    tu_remove_tree(dir);
}
END_TEST

START_TEST(test_load_missing_file) {
    Csv t;
    errno = 0;
    ck_assert_int_eq(csv_load(&t, FIXTURES "/no_such_run/loss.csv"), -1);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_ptr_null(t.cell);
    csv_free(&t);
}
END_TEST

/* The hand-written fixture logs read as the trainer's formats describe them. */
START_TEST(test_load_fixture_logs) {
    Csv t;
    ck_assert_int_eq(csv_load(&t, FIXTURES "/scaled/loss.csv"), 0);
    ck_assert_int_eq(t.n_cols, 9);
    ck_assert_int_eq(t.n_rows, 13);
    int step = csv_col(&t, "step"), train = csv_col(&t, "train_loss"), ans = csv_col(&t, "val_answer_acc");
    ck_assert_double_eq(csv_num(&t, t.n_rows - 1, step), 100);
    ck_assert(csv_empty(&t, t.n_rows - 1, train)); /* the final row has no training step */
    ck_assert_double_eq(csv_num(&t, t.n_rows - 1, ans), 1);
    ck_assert(csv_empty(&t, 1, ans));               /* validation only every eval_every steps */
    csv_free(&t);

    ck_assert_int_eq(csv_load(&t, FIXTURES "/diverged/loss.csv"), 0);
    ck_assert(isnan(csv_num(&t, t.n_rows - 1, csv_col(&t, "train_loss"))));
    ck_assert(isinf(csv_num(&t, t.n_rows - 1, csv_col(&t, "grad_norm"))));
    csv_free(&t);

    ck_assert_int_eq(csv_load(&t, FIXTURES "/scaled/grad_norms.csv"), 0);
    ck_assert_int_ge(csv_col(&t, "blocks.1.attn.qkv.weight.k"), 0);
    ck_assert_int_eq(csv_col(&t, "global"), t.n_cols - 1);
    csv_free(&t);

    ck_assert_int_eq(csv_load(&t, FIXTURES "/scaled/attn_map_tokens.csv"), 0);
    ck_assert_str_eq(csv_str(&t, 4, csv_col(&t, "token")), "<sep>");
    csv_free(&t);
}
END_TEST

TU_MAIN("csv_read", test_header_and_fields, TU_LOOP(test_cells, 0, N_OF(RESULTS)),
        TU_LOOP(test_numbers, 0, N_OF(NUMS)), TU_LOOP(test_ints, 0, N_OF(INTS)), test_header_only,
        TU_LOOP(test_no_header, 0, N_OF(NO_HEADER)), TU_LOOP(test_refused, 0, N_OF(REFUSED)),
        test_load_refused_named, test_load_missing_file,
        test_load_fixture_logs);
