/* test_log_check.c: --compare on logs with malformed rows: each is skipped with a warning naming
 * file and line, and none becomes a made-up "diverged @N" (a row "12,abc,," used to read as a
 * NaN loss at step 12). Logged nan/inf values (a real divergence) and empty fields (not
 * measured) stay; an attention map's weights outside [0, 1] (nan included) are skipped too. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "runlog/csv_read.h"
#include "report/read/read.h"
#include "cli/cli.h" /* the report through its command line: cli_compare */
#include "sweepcsv.h"
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

/* ------------------------------------------------------------------ ranges and order */

/* What ./train cannot have written although every field is a number (issue 45): an accuracy
 * outside [0, 1] (nan too), a finite loss below 0 (nan and +-inf are a logged divergence), a
 * negative lr (0 is the end of a cosine schedule, optim.min_lr's default), a negative gradient
 * norm or time, and a step that repeats or goes back (compared with the last row kept). */
static const RowCase RANGE_ROWS[] = {
    {"0,1.4,1.5,0.25,0.0625,0.003,2,0.000,,0\n", 1},       /* line 2 */
    {"10,1.2,,,,0.003,1.5,0.500,5120,0\n", 1},             /* 3 */
    {"10,1.2,,,,0.003,1.5,0.500,5120,0\n", 0},             /* 4: step 10 again */
    {"5,1.1,,,,0.003,1.5,0.600,5120,0\n", 0},              /* 5: back to step 5 */
    {"20,-0.1,,,,0.003,1.5,0.700,5120,0\n", 0},            /* 6: negative loss */
    {"20,1.0,1.1,0.5,1.5,0.003,1.4,1.000,5120,0\n", 0},    /* 7: accuracy 1.5 */
    {"20,1.0,1.1,-0.5,0.5,0.003,1.4,1.000,5120,0\n", 0},   /* 8: accuracy below 0 */
    {"20,1.0,,,,-0.003,1.4,1.000,5120,0\n", 0},            /* 9: negative lr */
    {"20,nan,inf,,,0.003,inf,1.000,5120,1\n", 1},          /* 10: a logged divergence */
    {"30,-1e-9,,,,0.003,1.2,1.100,5120,1\n", 0},          /* 11: below 0, if only just */
    {"30,1.0,nan,0.5,nan,0.003,1.2,1.100,5120,1\n", 0},    /* 12: nan is no accuracy */
    {"30,0.9,,,,0,1.2,1.100,5120,1\n", 1},                 /* 13: lr 0 at a cosine's end */
    {"40,0.9,,,,0.003,-1.2,1.200,5120,1\n", 0},            /* 14: negative gradient norm */
    {"40,0.9,0.8,0,1,0.003,1.2,1.200,5120,1\n", 1},        /* 15: accuracies 0 and 1 */
    {"45.5,0.9,,,,0.003,1.2,1.300,5120,1\n", 0},          /* 16: a step, in order, not whole */
};

/* Checks rows of text (header first) as file `path`; row i (line i + 2) kept when keep[i]. */
static void check_rows(const char *path, const char *header, const RowCase *rows, int n) {
    Csv t;
    char *text = calloc(1, 8192);
    strcat(text, header);
    for (int i = 0; i < n; i++) strcat(text, rows[i].row);
    ck_assert_int_eq(csv_parse(&t, text, strlen(text)), 0);
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    log_check_rows(&t, path);
    char *err = tu_capture_end(&cap);
    int kept = 0;
    for (int i = 0; i < n; i++) {
        char want[128];
        snprintf(want, sizeof want, "warning: %s:%d: ", path, i + 2);
        ck_assert_msg((strstr(err, want) == NULL) == rows[i].keep, "line %d (%s): warnings:\n%s",
                      i + 2, rows[i].row, err);
        kept += rows[i].keep;
    }
    ck_assert_int_eq(t.n_rows, kept);
    free(err);
    free(text);
    csv_free(&t);
}

START_TEST(test_ranges_and_order) {
    check_rows("x/loss.csv", HEADER, RANGE_ROWS, (int)(sizeof RANGE_ROWS / sizeof *RANGE_ROWS));
}
END_TEST

/* attention.csv: rows of a step by layer and head; a (step, layer, head) again or back is
 * skipped, as is a negative layer. */
static const RowCase ATTN_ROWS[] = {
    {"0,0,0,1\n", 1},   /* line 2 */
    {"0,0,1,1\n", 1},   /* 3 */
    {"0,0,1,1\n", 0},   /* 4: again */
    {"0,1,0,1\n", 1},   /* 5 */
    {"10,0,0,1\n", 1},  /* 6 */
    {"0,1,1,1\n", 0},   /* 7: back to step 0 */
    {"10,-1,0,1\n", 0}, /* 8: layer -1 */
    {"10,0,1,1\n", 1},  /* 9 */
};

START_TEST(test_attention_order) {
    check_rows("x/attention.csv", "step,layer,head,logit_std\n", ATTN_ROWS,
               (int)(sizeof ATTN_ROWS / sizeof *ATTN_ROWS));
}
END_TEST

/* A copy of the fixture run `name` in tmp as `as`, `rows` put in its loss.csv in place of line
 * `line` (insert: before it; rows NULL: none); its config's task.name set to task when task is
 * not NULL. */
static void fixture_copy(const char *name, const char *as, int line, const char *rows, int insert,
                         const char *task) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp -r %s/tests/fixtures/runs/%s %s/%s", SCALEDOT_SOURCE_DIR, name,
             tmp, as);
    ck_assert_int_eq(system(cmd), 0);
    char path[400];
    snprintf(path, sizeof path, "%s/%s/loss.csv", tmp, as);
    char *text = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    char *out = calloc(1, strlen(text) + 512), *p = text;
    size_t o = 0;
    for (int l = 1; *p; l++) {
        char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);
        if (l == line && rows) memcpy(out + o, rows, strlen(rows)), o += strlen(rows);
        if (l != line || !rows || insert) memcpy(out + o, p, len), o += len;
        p += len;
    }
    tu_write_file(path, out);
    free(out);
    free(text);
    if (task) {
        snprintf(cmd, sizeof cmd, "sed -i 's/^name = sort$/name = %s/' %s/%s/config.ini", task,
                 tmp, as);
        ck_assert_int_eq(system(cmd), 0);
    }
}

/* --compare of tmp/x and tmp/y into tmp/report; *doc gets the page (the caller frees). */
static TuResult compare_pair(const char *x, const char *y, char **doc) {
    char a[300], b[300], out[300], path[330];
    snprintf(a, sizeof a, "%s/%s", tmp, x);
    snprintf(b, sizeof b, "%s/%s", tmp, y);
    snprintf(out, sizeof out, "%s/report", tmp);
    TuResult r = compare(a, b, "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "rc %d\n%s", r.rc, r.err);
    snprintf(path, sizeof path, "%s/index.html", out);
    *doc = tu_read_file(path, NULL);
    ck_assert_msg(*doc != NULL, "no page %s", path);
    return r;
}

/* issue 45: --compare printed "answer acc 150.0 %" and "first at step 25" for an accuracy of
 * 1.5 (the manual promised a warning). The row is skipped with a warning in the terminal and on
 * the page; so are a step row written twice and a negative loss or lr. */
START_TEST(test_compare_warns_impossible_rows) {
    fixture_copy("scaled", "a", 5, "25,0.628437,0.647129,0.625,1.5,0.003,1.18886,1.250,5120\n", 0,
                 NULL);
    fixture_copy("unscaled", "b", 5,
                 "20,0.7,,,,0.003,1.2,1.0,5120\n"   /* line 5: step 20 again */
                 "22,-0.5,,,,0.003,1.2,1.1,5120\n"  /* 6: a negative loss */
                 "24,0.5,,,,-0.003,1.2,1.2,5120\n", /* 7: a negative lr */
                 1, NULL);
    char *doc;
    TuResult r = compare_pair("a", "b", &doc);
    ck_assert_msg(!strstr(r.out, "150.0"), "%s", r.out);
    static const char *const WANT[] = {"a/loss.csv:5: ", "b/loss.csv:5: ", "b/loss.csv:6: ",
                                       "b/loss.csv:7: "};
    for (int i = 0; i < 4; i++) {
        ck_assert_msg(strstr(r.err, WANT[i]), "terminal lacks %s:\n%s", WANT[i], r.err);
        ck_assert_msg(strstr(doc, WANT[i]), "page lacks %s", WANT[i]);
    }
    ck_assert_msg(strstr(r.err, "'val_answer_acc' = '1.5'") && strstr(r.err, "step 20 again"),
                  "%s", r.err);
    free(doc);
    tu_result_free(&r);
}
END_TEST

/* F7: runs of different tasks compared (a sort run and a text run) get a warning naming both
 * tasks, in the terminal and on the page; two runs of one task get none. */
START_TEST(test_compare_warns_different_tasks) {
    fixture_copy("scaled", "sorted", 0, NULL, 0, NULL);
    fixture_copy("unscaled", "prose", 0, NULL, 0, "text");
    fixture_copy("unscaled", "sorted2", 0, NULL, 0, NULL);
    char *doc;
    TuResult r = compare_pair("sorted", "prose", &doc);
    ck_assert_msg(strstr(r.err, "warning: the runs are of different tasks ('sorted': sort, "
                                "'prose': text)"), "%s", r.err);
    ck_assert_msg(strstr(doc, "different tasks"), "the page does not say so");
    free(doc);
    tu_result_free(&r);
    r = compare_pair("sorted", "sorted2", &doc);
    ck_assert_msg(!strstr(r.err, "different tasks") && !strstr(doc, "different tasks"), "%s",
                  r.err);
    free(doc);
    tu_result_free(&r);
}
END_TEST

/* sweep.csv: a run's row written twice is counted once (the second skipped with a warning
 * naming both lines); a negative lr, loss or steps is skipped; the summary and the page list
 * what was skipped. */
START_TEST(test_sweep_report_warns_impossible_rows) {
    static const char *const rows[] = {
        "a,8,8,1,none,1,0.01,ok,0.5,0.9,,2,1,0.1,",   /* line 2 */
        "b,8,8,1,none,2,0.01,ok,0.7,0.8,,2,1,0.1,",   /* 3 */
        "a,8,8,1,none,1,0.01,ok,0.5,0.9,,2,1,0.1,",   /* 4: run a again */
        "c,8,8,1,none,3,-0.01,ok,0.6,0.7,,2,1,0.1,",  /* 5: negative lr */
        "d,8,8,1,none,4,0.01,ok,-0.6,0.7,,2,1,0.1,",  /* 6: negative loss */
        "e,8,8,1,none,5,0.01,ok,0.6,0.7,,2,1,0.1,",   /* 7: steps -100, below */
    };
    char *text = sc_csv(1, rows, 6);
    char *e = strstr(text, "e,8,8,1,none,5,0.01,100,");
    ck_assert_ptr_nonnull(e);
    e += strlen("e,8,8,1,none,5,0.01,");
    memmove(e + 1, e, strlen(e) + 1); /* sc_csv's buffer has room to spare */
    *e = '-';
    char path[400];
    snprintf(path, sizeof path, "%s/sweep.csv", tmp);
    tu_write_file(path, text);
    free(text);
    TuResult r = tu_run_cmd(cli_sweep_report, tmp, NULL);
    ck_assert_msg(strstr(r.out, "in the statistics: 2 (ok 2"), "%s\n%s", r.out, r.err);
    snprintf(path, sizeof path, "%s/index.html", tmp);
    char *doc = tu_read_file(path, NULL);
    ck_assert_msg(doc != NULL, "no page %s", path);
    static const char *const WANT[] = {"sweep.csv:4: ", "sweep.csv:5: ", "sweep.csv:6: ",
                                       "sweep.csv:7: "};
    for (int i = 0; i < 4; i++) {
        ck_assert_msg(strstr(r.err, WANT[i]), "terminal lacks %s:\n%s", WANT[i], r.err);
        ck_assert_msg(strstr(doc, WANT[i]), "page lacks %s", WANT[i]);
    }
    ck_assert_msg(strstr(r.err, "'a'") && strstr(r.err, "line 2"), "%s", r.err);
    free(doc);
    tu_result_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ no reader beside it */

/* The raw readers, which check nothing: called only where they are made (src/runlog/csv_read.*,
 * log_query.*) and by the checked reader (src/report/read/log_check.c). */
static const char *const RAW[] = {"csv_parse", "csv_load", "log_load"};
static const char *const RAW_HOME[] = {"runlog/csv_read.c", "runlog/csv_read.h",
                                       "runlog/log_query.c", "runlog/log_query.h",
                                       "report/read/log_check.c"};

/* text with its comments and string and character literals blanked (newlines kept). */
static void blank_comments(char *s) {
    for (char *p = s; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            char *stop = e ? e + 2 : p + strlen(p);
            for (; p < stop; p++)
                if (*p != '\n') *p = ' ';
            p--;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++) *p = ' ';
            p--;
        } else if (*p == '"' || *p == '\'') {
            char q = *p++;
            for (; *p && *p != q && *p != '\n'; p++) {
                if (*p == '\\' && p[1]) *p++ = ' ';
                *p = ' ';
            }
        }
    }
}

static int ident(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                  (c >= '0' && c <= '9'); }

/* Appends "src/REL:LINE: NAME" to found for every call of a raw reader in the file. */
static void scan_file(const char *root, const char *rel, char *found, size_t cap) {
    for (size_t i = 0; i < sizeof RAW_HOME / sizeof *RAW_HOME; i++)
        if (strcmp(rel, RAW_HOME[i]) == 0) return;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    char *text = tu_read_file(path, NULL);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    blank_comments(text);
    for (size_t k = 0; k < sizeof RAW / sizeof *RAW; k++)
        for (char *p = text; (p = strstr(p, RAW[k])) != NULL; p++) {
            char *after = p + strlen(RAW[k]);
            while (*after == ' ') after++;
            if ((p > text && ident(p[-1])) || *after != '(') continue;
            int line = 1;
            for (char *q = text; q < p; q++) line += *q == '\n';
            size_t len = strlen(found);
            snprintf(found + len, cap - len, "  src/%s:%d: %s\n", rel, line, RAW[k]);
        }
    free(text);
}

#include <dirent.h>

static void scan_dir(const char *root, const char *sub, char *found, size_t cap, int *files) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", root, sub);
    DIR *d = opendir(path);
    ck_assert_msg(d != NULL, "cannot open %s", path);
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char rel[600];
        snprintf(rel, sizeof rel, "%s%s%s", sub, *sub ? "/" : "", e->d_name);
        size_t len = strlen(e->d_name);
        if (len > 2 && (strcmp(e->d_name + len - 2, ".c") == 0 ||
                        strcmp(e->d_name + len - 2, ".h") == 0)) {
            scan_file(root, rel, found, cap);
            ++*files;
        } else if (!strchr(e->d_name, '.')) {
            snprintf(path, sizeof path, "%s/%s", root, rel);
            DIR *sd = opendir(path);
            if (sd) {
                closedir(sd);
                scan_dir(root, rel, found, cap, files);
            }
        }
    }
    closedir(d);
}

/* Every command reads the logs and sweep.csv through the checked reader: a file of src/ that
 * calls a raw reader itself is named here (issue 45: a new reader must not bypass the checks). */
START_TEST(test_no_reader_bypasses_the_checks) {
    char found[8192] = "";
    int files = 0;
    scan_dir(SCALEDOT_SOURCE_DIR "/src", "", found, sizeof found, &files);
    ck_assert_msg(files > 100, "only %d source files found", files);
    ck_assert_msg(!found[0], "these read a log or sweep.csv without the checks of "
                  "report/read/read.h (use log_read or log_read_sweep):\n%s", found);
}
END_TEST

TU_MAIN_FIXTURE("log_check", setup, teardown, test_rows_checked, test_map_weights_checked,
                test_compare_skips_malformed_rows, test_ranges_and_order, test_attention_order,
                test_compare_warns_impossible_rows, test_compare_warns_different_tasks,
                test_sweep_report_warns_impossible_rows, test_no_reader_bypasses_the_checks);
