/* test_log_check.c: --compare on logs with malformed rows: each is skipped with a warning naming
 * file and line, and none becomes a made-up "diverged @N" (a row "12,abc,," used to read as a
 * NaN loss at step 12). Logged nan/inf values (a real divergence) and empty fields (not
 * measured) stay; an attention map's weights outside [0, 1] (nan included) are skipped too. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "runlog/csv_read.h"
#include "report/log_check.h"
#include "cli/cli.h" /* the report through its command line: cli_compare */
#include "testutil.h"

static char tmp[200];

static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/scaledot_test_log_check_XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

#define HEADER \
    "step,train_loss,val_loss,val_token_acc,val_answer_acc,lr,grad_norm,elapsed_s,tokens_per_s," \
    "skipped_steps\n"

/* Table of rows; line numbers below count the header as line 1. */
typedef struct {
    const char *row;
    int keep;
} RowCase;

static const RowCase ROWS[] = {
    {"0,1.4,1.5,0.25,0.0625,0.003,2,0.000,,0\n", 1},            /* line 2 */
    {"10,1.2,,,,0.003,1.5,0.500,5120,0\n", 1},                  /* 3 */
    {"12,abc,,\n", 0},                                          /* 4: not a number, short */
    {"1e999,nan,inf,,,,,,,\n", 0},                              /* 5: step not an integer */
    {"14,1e999,,,,0.003,1.5,0.500,5120,0\n", 0},                /* 6: overflows */
    {"15,1.0,,,,0.003\n", 0},                                   /* 7: missing columns */
    {"16,1.0,,,,0.003,1.5,0.5,5120,0,7\n", 0},                  /* 8: one column too many */
    {"-3,1.0,,,,0.003,1.5,0.5,5120,0\n", 0},                    /* 9: negative step */
    {"18,0x1p3,,,,0.003,1.5,0.5,5120,0\n", 0},                  /* 10: not decimal */
    {"20,1.0,1.1,0.5,0.25,0.003,1.4,1.000,5120,0\n", 1},        /* 11 */
};
enum { N_ROWS = sizeof ROWS / sizeof ROWS[0] };

static void write_run(const char *name, const char *extra_row) {
    char dir[300], path[330];
    snprintf(dir, sizeof dir, "%s/%s", tmp, name);
    char *text = calloc(1, 4096);
    strcat(text, HEADER);
    for (int i = 0; i < N_ROWS; i++) strcat(text, ROWS[i].row);
    if (extra_row) strcat(text, extra_row);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/loss.csv", dir);
    tu_write_file(path, text);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    tu_write_file(path, "[train]\nsteps = 20\n");
    free(text);
}

START_TEST(test_rows_checked) {
    Csv t;
    char text[4096] = HEADER;
    for (int i = 0; i < N_ROWS; i++) strcat(text, ROWS[i].row);
    ck_assert_int_eq(csv_parse(&t, text, strlen(text)), 0);
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int removed = log_check_rows(&t, "x/loss.csv");
    char *err = tu_capture_end(&cap);
    int kept = 0;
    for (int i = 0; i < N_ROWS; i++) {
        char want[64];
        snprintf(want, sizeof want, "warning: x/loss.csv:%d: ", i + 2);
        ck_assert_msg((strstr(err, want) == NULL) == ROWS[i].keep, "line %d (%s): warnings:\n%s", i + 2,
                      ROWS[i].row, err);
        if (ROWS[i].keep) {
            ck_assert_int_eq(t.line[kept + 1], i + 2);
            kept++;
        }
    }
    ck_assert_int_eq(removed, N_ROWS - kept);
    ck_assert_int_eq(t.n_rows, kept);
    ck_assert_str_eq(csv_str(&t, kept - 1, 0), "20");
    free(err);
    csv_free(&t);
}
END_TEST

/* An attention map's weights (k0, k1, ...) must lie in [0, 1]: 1e308 was drawn as weight 1 and
 * nan as a masked cell. Such rows are skipped with a warning naming the cell; 0 and 1, and the
 * index columns, pass. */
static const RowCase MAP_ROWS[] = {
    {"0,0,0,1,0,0\n", 1},             /* line 2 */
    {"0,0,1,0.25,0.75,0\n", 1},       /* 3 */
    {"0,0,2,0.5,1e308,0\n", 0},       /* 4: far above 1 */
    {"0,0,2,0.5,nan,0\n", 0},         /* 5: not a weight, drawn as masked */
    {"0,0,2,-0.01,0.5,0.51\n", 0},    /* 6: below 0 */
    {"0,0,2,inf,0,0\n", 0},           /* 7 */
    {"0,0,2,0.2,0.3,0.5\n", 1},       /* 8 */
};

START_TEST(test_map_weights_checked) {
    Csv t;
    char text[1024] = "layer,head,query,k0,k1,k2\n";
    int n = (int)(sizeof MAP_ROWS / sizeof MAP_ROWS[0]);
    for (int i = 0; i < n; i++) strcat(text, MAP_ROWS[i].row);
    ck_assert_int_eq(csv_parse(&t, text, strlen(text)), 0);
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    log_check_rows(&t, "x/attn_map.csv");
    char *err = tu_capture_end(&cap);
    for (int i = 0; i < n; i++) {
        char want[64];
        snprintf(want, sizeof want, "warning: x/attn_map.csv:%d: ", i + 2);
        ck_assert_msg((strstr(err, want) == NULL) == MAP_ROWS[i].keep, "line %d (%s): warnings:\n%s",
                      i + 2, MAP_ROWS[i].row, err);
    }
    ck_assert_msg(strstr(err, "'k1' = 'nan' is not an attention weight in [0, 1]"), "%s", err);
    ck_assert_int_eq(t.n_rows, 3);
    free(err);
    csv_free(&t);
}
END_TEST

#define compare(...) tu_run_cmd(cli_compare, __VA_ARGS__)

START_TEST(test_compare_skips_malformed_rows) {
    char a[300], b[300], out[300];
    write_run("a", "24,abc,,\n"); /* last: read as a NaN loss it made the run "diverged @24" */
    write_run("b", "22,nan,,,,0.003,inf,1.1,5120,0\n"); /* a real divergence after the bad rows */
    snprintf(a, sizeof a, "%s/a", tmp);
    snprintf(b, sizeof b, "%s/b", tmp);
    snprintf(out, sizeof out, "%s/report", tmp);
    TuResult r = compare(a, b, "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d\n%s", r.rc, r.err);
    ck_assert_msg(strstr(r.err, "a/loss.csv:4: ") && strstr(r.err, "a/loss.csv:10: ") &&
                      strstr(r.err, "row skipped"),
                  "%s", r.err);
    ck_assert_msg(!strstr(r.out, "diverged @24") && strstr(r.out, "finished @20") &&
                      strstr(r.out, "diverged @22"),
                  "%s", r.out);
    tu_result_free(&r);
}
END_TEST

TU_MAIN_FIXTURE("log_check", setup, teardown, test_rows_checked, test_map_weights_checked,
                test_compare_skips_malformed_rows);
