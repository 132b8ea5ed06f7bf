/* test_tasks_separator.c: task.separator across the task files. Every generated task's rows with
 * and without the separator token (recall without one by default: k1 v1 .. kn vn q a, the answer
 * predicted at the query), each row checked against a layout rebuilt here from its prompt; the
 * file task both ways, with the text form of its rows; and the config errors for a bad value.
 * Two lines that differ only in where the answer starts are in test_valset.c, the text form of
 * hand-made rows in test_format.c, and the checkpoint side (old checkpoints keep their
 * separator) in test_checkpoint.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "testutil.h"

#define MAXT 64

static Config base_config(TaskKind kind, SeparatorMode mode) {
    Config c;
    config_defaults(&c);
    c.task = kind;
    c.task_length = 5;
    c.task_pairs = 4;
    c.task_symbols = 9;
    c.val_size = 40;
    c.seed = 77;
    c.task_separator = mode;
    return c;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The answer of a generated task's prompt, computed from the task's definition. */
static int expected_answer(TaskKind kind, const int *prompt, int p, int *ans) {
    if (kind == TASK_RECALL) {
        int n = (p - 1) / 2, q = prompt[p - 1], hits = 0;
        for (int i = 0; i < n; i++)
            if (prompt[2 * i] == q) {
                ans[0] = prompt[2 * i + 1];
                hits++;
            }
        ck_assert_int_eq(hits, 1);  /* keys are distinct and the query is one of them */
        return 1;
    }
    for (int i = 0; i < p; i++) ans[i] = kind == TASK_REVERSE ? prompt[p - 1 - i] : prompt[i];
    if (kind == TASK_SORT) qsort(ans, (size_t)p, sizeof(int), cmp_int);
    return p;
}

/* Checks one row against the layout built from seq = prompt [SEP] answer: tokens seq[0..L-1),
 * targets seq[1..L), mask 1 exactly where the target is an answer token, and SEP exactly once
 * (right after the prompt) or nowhere. */
static void check_row(const Task *t, const int *tok, const int *tgt, const float *m,
                      const int *prompt, int p, const int *ans, int na, int sep) {
    int seq[MAXT + 1], L = 0;
    for (int i = 0; i < p; i++) seq[L++] = prompt[i];
    if (sep) seq[L++] = t->sep;
    for (int i = 0; i < na; i++) seq[L++] = ans[i];
    ck_assert_int_le(L - 1, t->seq_len);
    int n_sep = 0;
    for (int i = 0; i < t->seq_len; i++) {
        int real = i < L - 1;
        TU_CHECK_INT_EQ(tok[i], real ? seq[i] : t->pad);
        TU_CHECK_INT_EQ(tgt[i], real ? seq[i + 1] : t->pad);
        int answer = real && i + 1 >= p + sep;  /* target seq[i + 1] is an answer token */
        TU_CHECK_MSG(m[i] == (answer ? 1.0f : 0.0f), "mask[%d] = %g (prompt %d, sep %d)", i,
                      (double)m[i], p, sep);
        n_sep += tok[i] == t->sep;
    }
    ck_assert_int_eq(n_sep, sep);
}

typedef struct {
    TaskKind kind;
    SeparatorMode mode;
    int sep;      /* expected: the sequences hold SEP */
    int seq_len;  /* expected T, by hand: recall 2 * 4 + 1 + sep, the others 2 * 5 - 1 + sep */
} GenCase;

static const GenCase GEN_CASES[] = {
    {TASK_RECALL, SEPARATOR_AUTO, 0, 9},  {TASK_RECALL, SEPARATOR_FALSE, 0, 9},
    {TASK_RECALL, SEPARATOR_TRUE, 1, 10}, {TASK_SORT, SEPARATOR_AUTO, 1, 10},
    {TASK_SORT, SEPARATOR_TRUE, 1, 10},   {TASK_SORT, SEPARATOR_FALSE, 0, 9},
    {TASK_REVERSE, SEPARATOR_AUTO, 1, 10}, {TASK_REVERSE, SEPARATOR_FALSE, 0, 9},
    {TASK_COPY, SEPARATOR_AUTO, 1, 10},   {TASK_COPY, SEPARATOR_FALSE, 0, 9},
};

START_TEST(test_generated_rows) {
    const GenCase *g = &GEN_CASES[_i];
    Config c = base_config(g->kind, g->mode);
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.separator, g->sep);
    ck_assert_int_eq(t.seq_len, g->seq_len);
    ck_assert_int_eq(t.vocab_size, 9 + 2);
    int p = g->kind == TASK_RECALL ? 2 * 4 + 1 : 5, B = 200;
    size_t T = (size_t)t.seq_len;
    int *tok = malloc((size_t)B * T * sizeof(int)), *tgt = malloc((size_t)B * T * sizeof(int));
    float *m = malloc((size_t)B * T * sizeof(float));
    ck_assert(tok && tgt && m);
    task_train_batch(&t, B, tok, tgt, m);
    int ans[MAXT];
    for (int b = 0; b < B + t.n_val; b++) {
        const int *rt = b < B ? tok + b * T : t.val_tokens + (b - B) * T;
        const int *rg = b < B ? tgt + b * T : t.val_targets + (b - B) * T;
        const float *rm = b < B ? m + b * T : t.val_mask + (b - B) * T;
        int na = expected_answer(g->kind, rt, p, ans);
        check_row(&t, rt, rg, rm, rt, p, ans, na, g->sep);
    }
    free(tok);
    free(tgt);
    free(m);
    task_free(&t);
}
END_TEST

/* ---- the file task ------------------------------------------------------------------------ */

static void temp_file(char *path, size_t n, const char *text) {
    snprintf(path, n, "/tmp/scaledot_sep_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq((long)write(fd, text, strlen(text)), (long)strlen(text));
    close(fd);
}

/* Lines of the file below as symbol ids (the alphabet a c d g o t x y z, sorted) and as text. */
static const char FILE_TEXT[] = "c a t | t a c\nd o g | g o d\nx | y z\nz y | x\na | z\n";
enum { N_LINES = 5 };
static const int LINE_P[N_LINES] = {3, 3, 1, 2, 1}, LINE_A[N_LINES] = {3, 3, 2, 1, 1};
static const int LINE_IDS[N_LINES][6] = {
    {1, 0, 5, 5, 0, 1}, {2, 4, 3, 3, 4, 2}, {6, 7, 8}, {8, 7, 6}, {0, 8}};
static const char *const LINE_TEXT[N_LINES] = {"c a t | t a c", "d o g | g o d", "x | y z",
                                               "z y | x", "a | z"};

/* Index of the line whose layout the row matches exactly, or -1. */
static int matching_line(const Task *t, const int *tok, const int *tgt, const float *m, int sep) {
    for (int k = 0; k < N_LINES; k++) {
        int seq[16], L = 0;
        for (int i = 0; i < LINE_P[k]; i++) seq[L++] = LINE_IDS[k][i];
        if (sep) seq[L++] = t->sep;
        for (int i = 0; i < LINE_A[k]; i++) seq[L++] = LINE_IDS[k][LINE_P[k] + i];
        int same = 1;
        for (int i = 0; i < t->seq_len && same; i++) {
            int real = i < L - 1;
            same = tok[i] == (real ? seq[i] : t->pad) && tgt[i] == (real ? seq[i + 1] : t->pad) &&
                   m[i] == ((real && i + 1 >= LINE_P[k] + sep) ? 1.0f : 0.0f);
        }
        if (same) return k;
    }
    return -1;
}

static const SeparatorMode FILE_MODES[] = {SEPARATOR_AUTO, SEPARATOR_TRUE, SEPARATOR_FALSE};

START_TEST(test_file_rows) {
    SeparatorMode mode = FILE_MODES[_i];
    int sep = mode != SEPARATOR_FALSE;  /* the file task has a separator unless told not to */
    char path[64];
    temp_file(path, sizeof path, FILE_TEXT);
    Config c = base_config(TASK_FILE, mode);
    snprintf(c.task_file, sizeof c.task_file, "%s", path);
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.separator, sep);
    ck_assert_int_eq(t.n_symbols, 9);
    ck_assert_int_eq(t.seq_len, 3 + 3 - 1 + sep);  /* the longest line, 'c a t | t a c' */
    ck_assert_int_eq(t.n_val + t.n_train_file, N_LINES);
    int seen[N_LINES] = {0};
    size_t T = (size_t)t.seq_len;
    char text[128];
    for (int r = 0; r < N_LINES; r++) {
        int val = r < t.n_val, k = val ? r : r - t.n_val;
        const int *tok = (val ? t.val_tokens : t.file_tokens) + k * T;
        const int *tgt = (val ? t.val_targets : t.file_targets) + k * T;
        const float *m = (val ? t.val_mask : t.file_mask) + k * T;
        int line = matching_line(&t, tok, tgt, m, sep);
        ck_assert_msg(line >= 0, "row %d matches no line of the file", r);
        seen[line]++;
        task_format(&t, tok, tgt, m, text, sizeof text);
        ck_assert_str_eq(text, LINE_TEXT[line]);
    }
    for (int k = 0; k < N_LINES; k++) ck_assert_int_eq(seen[k], 1);
    task_free(&t);
    unlink(path);
}
END_TEST

/* ---- the key ------------------------------------------------------------------------------ */

typedef struct {
    const char *value;
    int ok;
    SeparatorMode mode;
} ValueCase;

static const ValueCase VALUES[] = {
    {"auto", 1, SEPARATOR_AUTO}, {"true", 1, SEPARATOR_TRUE}, {"false", 1, SEPARATOR_FALSE},
    {"\"false\"", 1, SEPARATOR_FALSE}, {"maybe", 0, 0}, {"1", 0, 0}, {"TRUE", 0, 0},
};

START_TEST(test_key_values_in_file_and_set) {
    const ValueCase *v = &VALUES[_i];
    char text[128], path[64], want[160];
    snprintf(text, sizeof text, "[task]\nname = recall\nseparator = %s\n", v->value);
    temp_file(path, sizeof path, text);
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(c.task_separator, SEPARATOR_AUTO);
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = config_load_file(&c, path);
    char *msg = tu_capture_end(&cap);
    if (v->ok) {
        ck_assert_int_eq(rc, 0);
        ck_assert_int_eq(c.task_separator, v->mode);
    } else {
        ck_assert_int_eq(rc, -1);
        snprintf(want, sizeof want, "error: %s:3: 'task.separator': unknown value", path);
        ck_assert_msg(strstr(msg, want) == msg && strstr(msg, "auto, true, false"), "%s", msg);
        ck_assert_int_eq(c.task_separator, SEPARATOR_AUTO);
    }
    free(msg);
    unlink(path);

    snprintf(text, sizeof text, "task.separator=%s", v->value);
    config_defaults(&c);
    tu_capture_begin(&cap, 2);
    rc = config_set(&c, text, 4);
    msg = tu_capture_end(&cap);
    ck_assert_int_eq(rc, v->ok ? 0 : -1);
    if (!v->ok)
        ck_assert_msg(strstr(msg, "--set (argument 4): 'task.separator': unknown value"), "%s",
                      msg);
    free(msg);
}
END_TEST

/* ./train refuses the bad value before any work, with exit code 2. */
START_TEST(test_program_refuses_bad_value) {
    char dir[64];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_sep_run_XXXXXX");
    char ini[128];
    snprintf(ini, sizeof ini, "%s/bad.ini", dir);
    tu_write_file(ini, "[task]\nname = sort\nseparator = maybe\n");
    ck_assert_int_eq(tu_run_train(dir, "bad.ini --set run.dir=out"), EXIT_CONFIG);
    ck_assert(tu_train_output_contains(dir, "bad.ini:3: 'task.separator': unknown value 'maybe'"));
    char out[128];
    snprintf(out, sizeof out, "%s/out/run", dir);
    ck_assert_int_ne(access(out, F_OK), 0);  /* nothing was started */
    tu_remove_tree(dir);
}
END_TEST

TU_MAIN_TIMEOUT("tasks_separator", 60,
                TU_LOOP(test_generated_rows, 0, (int)(sizeof GEN_CASES / sizeof GEN_CASES[0])),
                TU_LOOP(test_file_rows, 0, 3),
                TU_LOOP(test_key_values_in_file_and_set, 0,
                        (int)(sizeof VALUES / sizeof VALUES[0])), test_program_refuses_bad_value);
