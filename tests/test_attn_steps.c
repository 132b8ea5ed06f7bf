/* test_attn_steps.c: attn_steps.csv (src/train/attn_steps.c, written by runlog.c at each
 * evaluation): a tiny run's log read back with the CSV reader holds a row per evaluation and
 * head, histograms whose counts sum to the visible logits of the diagnostics batch and agree with
 * attention.csv's logit_absmax, maps whose weights are in [0, 1] and whose rows sum to 1, equal
 * at the last step to attn_map.csv; and the size bound: which steps and heads are kept, the
 * longest row, and the bound of the shipped configs and of the largest allowed, by hand. */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runlog/csv_read.h"
#include "testutil.h"
#include "train/attn_steps.h"

static char tmpdir[256];

/* The tiny run: 2 layers of 2 heads, 20 steps, an evaluation every 5, a diagnostics batch of 8
 * (val_size 16, batch_size 8). */
#define DIAG_B 8
static void tiny_run(void) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_attn_steps_XXXXXX");
    ck_assert_int_eq(tu_run_train(tmpdir,
                                  "--set task.name=copy --set task.length=3 --set task.symbols=6 "
                                  "--set task.val_size=16 --set model.d_model=16 "
                                  "--set model.n_heads=2 --set model.n_layers=2 "
                                  "--set train.batch_size=8 --set train.steps=20 "
                                  "--set train.eval_every=5 --set log.every=5 --set optim.lr=1e-2 "
                                  "--set log.progress=0 --set run.threads=1 --set run.name=t"),
                     0);
}

static void load(Csv *t, const char *file) {
    char path[512];
    snprintf(path, sizeof path, "%s/runs/t/%s", tmpdir, file);
    ck_assert_msg(csv_load(t, path) == 0, "cannot read %s", path);
}

/* The row of attention.csv at (step, layer, head). */
static int attn_row(const Csv *a, int step, int layer, int head) {
    for (int r = 0; r < a->n_rows; r++)
        if (csv_int(a, r, 0, -1) == step && csv_int(a, r, 1, -1) == layer &&
            csv_int(a, r, 2, -1) == head)
            return r;
    return -1;
}

START_TEST(test_tiny_run_log) {
    tiny_run();
    Csv s, map, attn;
    load(&s, "attn_steps.csv");
    load(&map, "attn_map.csv");
    load(&attn, "attention.csv");
    int T = map.n_cols - 3; /* attn_map.csv: layer, head, query, k0 .. k{T-1} */
    ck_assert_int_le(T, ATTN_STEPS_MAP_MAX);
    ck_assert_int_eq(s.n_cols, 3 + 25 + T * (T + 1) / 2);
    ck_assert_str_eq(s.cell[3], "n_-inf_-256");
    ck_assert_str_eq(s.cell[27], "n_nan");
    ck_assert_int_eq(s.n_rows, 5 * 4); /* steps 0, 5, ..., 20; 2 layers x 2 heads */
    int c_max = csv_col(&attn, "logit_absmax");
    for (int r = 0; r < s.n_rows; r++) {
        int step = csv_int(&s, r, 0, -1), layer = csv_int(&s, r, 1, -1);
        int head = csv_int(&s, r, 2, -1);
        ck_assert_int_eq(step, 5 * (r / 4));
        ck_assert_int_eq(layer, (r / 2) % 2);
        ck_assert_int_eq(head, r % 2);
        /* every visible logit of the batch once: query i sees i + 1 keys */
        double sum = 0, absmax = csv_num(&attn, attn_row(&attn, step, layer, head), c_max);
        double edges[25] = {-INFINITY, -256, -128, -64, -32, -16, -8, -4, -2, -1, -0.5, -0.25, 0,
                            0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, INFINITY};
        double outer = 0; /* the largest |logit| the non-empty bins can hold */
        for (int k = 0; k < 24; k++) {
            double n = csv_num(&s, r, 3 + k);
            sum += n;
            /* a bin of logits all larger in size than logit_absmax (%.6g: 1e-5 margin) is empty */
            double inner = k < 12 ? -edges[k + 1] : edges[k];
            if (inner > absmax * (1 + 1e-5))
                ck_assert_msg(n == 0, "row %d bin %d: %g logits beyond absmax %g", r, k, n, absmax);
            if (n > 0) outer = fmax(outer, k < 12 ? -edges[k] : edges[k + 1]);
        }
        ck_assert_msg(outer >= absmax / (1 + 1e-5), "row %d: no bin holds absmax %g", r, absmax);
        ck_assert_double_eq(csv_num(&s, r, 27), 0); /* no NaN logit */
        ck_assert_double_eq(sum, DIAG_B * T * (T + 1) / 2);
        for (int i = 0, c = 28; i < T; i++) {
            double row = 0;
            for (int j = 0; j <= i; j++, c++) {
                double w = csv_num(&s, r, c);
                ck_assert_msg(w >= 0 && w <= 1, "row %d q%dk%d = %g", r, i, j, w);
                row += w;
                if (step == 20) { /* the run's last step: attn_map.csv is of the same model */
                    double want = csv_num(&map, (layer * 2 + head) * T + i, 3 + j);
                    /* three significant digits against attn_map.csv's five */
                    ck_assert_msg(fabs(w - want) <= 5e-3 * want + 1e-9, "q%dk%d: %g, map %g", i,
                                  j, w, want);
                }
            }
            ck_assert_msg(fabs(row - 1) <= 2e-3 * (i + 1), "row %d query %d sums to %g", r, i, row);
        }
    }
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/runs/t/attn_steps.csv", tmpdir);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_double_le((double)st.st_size, attn_steps_max_bytes(T, DIAG_B, 2, 2, 20, 5));
    csv_free(&s);
    csv_free(&map);
    csv_free(&attn);
}
END_TEST

/* Which steps are kept, counted by hand: (steps, eval_every, evaluations kept). */
static const struct {
    int steps, every, kept;
} STEPS[] = {
    {2000, 100, 21},        /* the sort and recall pairs: every evaluation */
    {600, 100, 7},          /* the text pair */
    {101, 1, 52},           /* 101 intervals: every 2nd (0, 2, ..., 100: 51) and the last */
    {250, 1, 85},           /* every 3rd (0 .. 249: 84) and 250 */
    {100, 1, 101},          /* 100 intervals: all */
    {100000000, 1, 101},    /* every 1000000th, the last among them */
    {99999901, 999999, 102}, /* 100 intervals: all 101, and the last step after them */
};

START_TEST(test_logged_steps) {
    int kept = 0, steps = STEPS[_i].steps, every = STEPS[_i].every;
    for (int s = 0; s <= steps; s += every) kept += attn_steps_logs_step(s, steps, every);
    if (steps % every) kept += attn_steps_logs_step(steps, steps, every);
    ck_assert_int_eq(kept, STEPS[_i].kept);
    ck_assert_int_le(kept, ATTN_STEPS_MAX_INTERVALS + 2);
    ck_assert(attn_steps_logs_step(0, steps, every));
    ck_assert(attn_steps_logs_step(steps, steps, every));
}
END_TEST

/* Which heads are kept: (n_layers, n_heads, pairs kept), by hand. */
static const struct {
    int layers, heads, kept;
} HEADS[] = {{2, 1, 2}, {4, 4, 16}, {2, 16, 16}, {3, 8, 15}, {16, 4, 16},
             {17, 2, 9}, {64, 1024, 16}, {1, 1024, 16}};

START_TEST(test_logged_heads) {
    int kept = 0;
    for (int l = 0; l < HEADS[_i].layers; l++)
        for (int h = 0; h < HEADS[_i].heads; h++)
            kept += attn_steps_logs_head(l, h, HEADS[_i].layers, HEADS[_i].heads);
    ck_assert_int_eq(kept, HEADS[_i].kept);
    ck_assert(attn_steps_logs_head(0, 0, HEADS[_i].layers, HEADS[_i].heads));
}
END_TEST

/* The longest row the writer can make fits attn_steps_row_max: the largest allowed batch and
 * sequence (B = 65536, T = 8192), every count at its most, the widest weight text (%.3g of
 * 0.000123 is 8 characters), the largest step, layer and head. */
START_TEST(test_longest_row_fits) {
    enum { B = 65536, T = 8192 };
    static real map[(size_t)ATTN_STEPS_MAP_MAX * T];
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) map[k] = (real)0.000123456;
    long hist[DIAG_HIST_BINS + 1];
    for (int k = 0; k <= DIAG_HIST_BINS; k++) hist[k] = (long)B * T * (T + 1) / 2;
    int side = attn_steps_map_side(T);
    ck_assert_int_eq(side, ATTN_STEPS_MAP_MAX);
    size_t cap = attn_steps_row_max(side, B, T) + 1;
    char *buf = malloc(cap + 100);
    size_t len = attn_steps_row(buf, cap + 100, INT_MAX, 63, 1023, hist, map, T, side);
    ck_assert_msg(len < cap, "row of %zu bytes, bound %zu", len, cap - 1);
    ck_assert_int_eq(buf[len - 1], '\n');
    ck_assert_int_eq(strlen(buf), len);
    /* the header too */
    size_t hcap = attn_steps_header_max(side) + 1;
    ck_assert_uint_gt(attn_steps_header(buf, hcap, side), 0);
    free(buf);
}
END_TEST

/* The bound docs/manual.md states, worked out by hand (header + rows x longest row; row: 35
 * characters of step, layer and head, 25 counts of 1 + digits characters, 9 per weight, '\n'):
 *   sort pair (T 16: 136 weights; counts <= 64 x 136 = 8704, 4 digits; 21 steps, 2 heads):
 *     header 15 + 288 + 6 + 7 x 136 + 1 = 1262, row 35 + 125 + 1224 + 1 = 1385: 59432 bytes
 *   recall pair (T 17: 153 weights; counts <= 64 x 153 = 9792, 4 digits; 21 steps, 2 heads):
 *     header 15 + 288 + 6 + 7 x 153 + 1 = 1381, row 35 + 125 + 1377 + 1 = 1538: 65977 bytes
 *   text pair (T 64, side 32: 528 weights; counts <= 32 x 2080 = 66560, 5 digits; 7 steps):
 *     header 15 + 288 + 6 + 3696 + 1 = 4006, row 35 + 150 + 4752 + 1 = 4938: 73138 bytes
 *   the largest allowed (T 8192, batch 65536: counts <= 65536 x 33558528, 13 digits; 102 steps,
 *   the most attn_steps_logs_step keeps; 16 heads): row 35 + 350 + 4752 + 1 = 5138:
 *   4006 + 102 x 16 x 5138 = 8389222 bytes. */
START_TEST(test_bound_by_hand) {
    ck_assert_double_eq(attn_steps_max_bytes(16, 64, 2, 1, 2000, 100), 59432);
    ck_assert_double_eq(attn_steps_max_bytes(17, 64, 2, 1, 2000, 100), 65977);
    ck_assert_double_eq(attn_steps_max_bytes(64, 32, 2, 1, 600, 100), 73138);
    ck_assert_double_eq(attn_steps_max_bytes(8192, 65536, 64, 1024, 99999901, 999999), 8389222);
}
END_TEST

TU_MAIN("attn_steps", test_tiny_run_log, TU_LOOP(test_logged_steps, 0, 7),
        TU_LOOP(test_logged_heads, 0, 8), test_longest_row_fits, test_bound_by_hand);
