/* test_csv.c: the CSV reader of the report (src/report/csv.c): fields, empty versus NaN, quoting,
 * line ends, ragged rows, errors, and the fixture logs. */
#include "report/csv.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define FIXTURES SCALEDOT_SOURCE_DIR "/tests/fixtures/runs"

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

/* An empty field is "not measured"; "nan"/"inf" are measured and non-finite. */
START_TEST(test_empty_versus_non_finite) {
    Csv t;
    parse(&t, "a,b,c,d,e,f\n,nan,inf,-inf,abc, 1.5 \n");
    ck_assert(csv_empty(&t, 0, 0));
    ck_assert(isnan(csv_num(&t, 0, 0)));
    ck_assert(!csv_empty(&t, 0, 1));
    ck_assert(isnan(csv_num(&t, 0, 1)));
    ck_assert(isinf(csv_num(&t, 0, 2)) && csv_num(&t, 0, 2) > 0);
    ck_assert(isinf(csv_num(&t, 0, 3)) && csv_num(&t, 0, 3) < 0);
    ck_assert(isnan(csv_num(&t, 0, 4)));
    ck_assert_double_eq(csv_num(&t, 0, 5), 1.5);
    csv_free(&t);
}
END_TEST

/* Integers for steps, layers and heads: never a cast of NaN or of an out-of-range double. */
START_TEST(test_int_fields) {
    Csv t;
    parse(&t, "a,b,c,d,e,f\n12,,nan,1e300,-3.7,x\n");
    ck_assert_int_eq(csv_int(&t, 0, 0, -1), 12);
    ck_assert_int_eq(csv_int(&t, 0, 1, -1), -1);
    ck_assert_int_eq(csv_int(&t, 0, 2, -1), -1);
    ck_assert_int_eq(csv_int(&t, 0, 3, -1), -1);
    ck_assert_int_eq(csv_int(&t, 0, 4, 0), -3);
    ck_assert_int_eq(csv_int(&t, 0, 5, 7), 7);
    ck_assert_int_eq(csv_int(&t, 3, 0, 9), 9);
    csv_free(&t);
}
END_TEST

START_TEST(test_quoted_fields) {
    Csv t;
    parse(&t, "position,token\n0,\"<sep>\"\n1,\"a,b\"\n2,\"say \"\"hi\"\"\"\n3,\"\"\n4,\"two\nlines\"\n");
    ck_assert_int_eq(t.n_rows, 5);
    ck_assert_str_eq(csv_str(&t, 0, 1), "<sep>");
    ck_assert_str_eq(csv_str(&t, 1, 1), "a,b");
    ck_assert_str_eq(csv_str(&t, 2, 1), "say \"hi\"");
    ck_assert_str_eq(csv_str(&t, 3, 1), "");
    ck_assert_str_eq(csv_str(&t, 4, 1), "two\nlines");
    csv_free(&t);
}
END_TEST

START_TEST(test_line_ends_blank_lines_and_bom) {
    Csv t;
    parse(&t, "\xEF\xBB\xBFstep,x\r\n0,1\r\n\r\n\n1,\"2\"\r\n2,3");
    ck_assert_int_eq(t.n_rows, 3);
    ck_assert_int_eq(csv_col(&t, "step"), 0);
    ck_assert_str_eq(csv_str(&t, 0, 1), "1");
    ck_assert_str_eq(csv_str(&t, 1, 1), "2");
    ck_assert_str_eq(csv_str(&t, 2, 1), "3");
    csv_free(&t);
}
END_TEST

START_TEST(test_ragged_rows_and_out_of_range) {
    Csv t;
    parse(&t, "a,b,c\n1\n1,2,3,4,5\n");
    ck_assert_int_eq(t.n_rows, 2);
    ck_assert_str_eq(csv_str(&t, 0, 0), "1");
    ck_assert(csv_empty(&t, 0, 1));
    ck_assert(csv_empty(&t, 0, 2));
    ck_assert_str_eq(csv_str(&t, 1, 2), "3");
    ck_assert_str_eq(csv_str(&t, 1, 3), ""); /* beyond the header: cut */
    ck_assert_str_eq(csv_str(&t, -1, 0), "");
    ck_assert_str_eq(csv_str(&t, 2, 0), "");
    ck_assert(isnan(csv_num(&t, 5, 5)));
    csv_free(&t);
}
END_TEST

START_TEST(test_header_only_and_empty) {
    Csv t;
    parse(&t, "step,x\n");
    ck_assert_int_eq(t.n_rows, 0);
    ck_assert_int_eq(t.n_cols, 2);
    csv_free(&t);
    errno = 0;
    ck_assert_int_eq(csv_parse(&t, "", 0), -1);
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_int_eq(csv_parse(&t, "\n\r\n", 3), -1);
    csv_free(&t);
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

static Suite *csv_suite(void) {
    Suite *s = suite_create("csv");
    TCase *tc = tcase_create("reader");
    tcase_add_test(tc, test_header_and_fields);
    tcase_add_test(tc, test_empty_versus_non_finite);
    tcase_add_test(tc, test_int_fields);
    tcase_add_test(tc, test_quoted_fields);
    tcase_add_test(tc, test_line_ends_blank_lines_and_bom);
    tcase_add_test(tc, test_ragged_rows_and_out_of_range);
    tcase_add_test(tc, test_header_only_and_empty);
    tcase_add_test(tc, test_load_missing_file);
    tcase_add_test(tc, test_load_fixture_logs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(csv_suite()); }
