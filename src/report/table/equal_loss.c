/* equal_loss.c: two runs' gradient readings at equal validation loss (table.h), for
 * ./train --compare A B --at-equal-loss. Reads loss.csv, grad_norms.csv and attention.csv. */
#include "report/table/table.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runlog/log_query.h"
#include "report/read/read.h"
#include "runlog/csv_read.h"
#include "util/error_list.h"

double equal_loss_step(const double *steps, const double *losses, int n, double level) {
    int prev = -1; /* the last finite evaluation above the level */
    for (int k = 0; k < n; k++) {
        if (!isfinite(losses[k])) continue;
        if (losses[k] <= level) {
            if (prev < 0) return steps[k];
            double t = (losses[prev] - level) / (losses[prev] - losses[k]);
            return steps[prev] + t * (steps[k] - steps[prev]);
        }
        prev = k;
    }
    return NAN;
}

/* The readings, in print order: the W_q gradient (grad_norms.csv) then attention.csv columns. */
enum { R_WQ, R_DZ, R_DP, R_PASS, R_BLK, N_READ };
static const char *const READ_NAME[N_READ] = {"|dL/dW_q|", "|dL/dZ|", "|dL/dP|", "softmax_pass",
                                              "blocked_rows"};
static const char *const ATTN_COL[N_READ] = {NULL, "dlogit_norm", "dprob_norm", "softmax_pass",
                                             "blocked_rows"};

typedef struct {
    const char *dir;
    Csv loss, grad, attn;
    double *steps, *losses; /* its evaluations: finite or not, in file order */
    int n_eval, n_layers;
    double lo, hi;          /* range of its finite val_loss */
} RunLogs;

static void logs_free(RunLogs *r) {
    csv_free(&r->loss);
    csv_free(&r->grad);
    csv_free(&r->attn);
    free(r->steps);
    free(r->losses);
}

static int need_col(const Csv *t, const char *path, const char *name) {
    if (csv_col(t, name) >= 0) return 0;
    error_add(NULL, 0, NULL, "--compare --at-equal-loss: '%s' has no column '%s'", path, name);
    return -1;
}

/* Loads the three logs of dir and its evaluations. Returns 0 or an exit code (message given). */
static int logs_load(RunLogs *r, const char *dir) {
    char path[4096];
    Csv *logs[3] = {&r->loss, &r->grad, &r->attn};
    static const char *const FILES[3] = {"loss.csv", "grad_norms.csv", "attention.csv"};
    r->dir = dir;
    for (int i = 0; i < 3; i++) {
        if (log_read(logs[i], dir, FILES[i], path, sizeof path, 0) != 0) {
            error_add(NULL, 0, NULL, "--compare --at-equal-loss: cannot read '%s': %s", path,
                      strerror(errno));
            return errno == ENOMEM ? 1 : 2;
        }
        if (need_col(logs[i], path, "step") != 0) return 2;
    }
    log_path(path, sizeof path, dir, "loss.csv");
    if (need_col(&r->loss, path, "val_loss") != 0) return 2;
    log_path(path, sizeof path, dir, "attention.csv");
    if (need_col(&r->attn, path, "layer") != 0) return 2;
    for (int k = R_DZ; k < N_READ; k++)
        if (need_col(&r->attn, path, ATTN_COL[k]) != 0) return 2;
    for (;;) {
        char name[64];
        snprintf(name, sizeof name, "blocks.%d.attn.qkv.weight.q", r->n_layers);
        if (csv_col(&r->grad, name) < 0) break;
        r->n_layers++;
    }
    if (r->n_layers == 0) {
        log_path(path, sizeof path, dir, "grad_norms.csv");
        return need_col(&r->grad, path, "blocks.0.attn.qkv.weight.q") ? 2 : 0;
    }
    int cv = csv_col(&r->loss, "val_loss");
    r->steps = malloc(((size_t)r->loss.n_rows + 1) * sizeof *r->steps);
    r->losses = malloc(((size_t)r->loss.n_rows + 1) * sizeof *r->losses);
    if (!r->steps || !r->losses) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    r->lo = INFINITY;
    r->hi = -INFINITY;
    for (int i = 0; i < r->loss.n_rows; i++) {
        if (csv_empty(&r->loss, i, cv)) continue;
        double v = csv_num(&r->loss, i, cv);
        r->steps[r->n_eval] = log_step(&r->loss, i);
        r->losses[r->n_eval++] = v;
        if (isfinite(v)) {
            r->lo = fmin(r->lo, v);
            r->hi = fmax(r->hi, v);
        }
    }
    if (!(r->lo <= r->hi)) { /* no finite val_loss: nothing to be compared at */
        error_add(NULL, 0, NULL, "--compare --at-equal-loss: run '%s' has no validation evaluation "
                                 "(no finite val_loss in its loss.csv)", dir);
        return 2;
    }
    return 0;
}

/* Reading k of layer l at the logged step nearest `step`; *at gets that step (−1: none). */
static double reading(const RunLogs *r, int k, int l, double step, int *at) {
    *at = -1;
    if (!isfinite(step)) return NAN;
    if (k == R_WQ) {
        char name[64];
        snprintf(name, sizeof name, "blocks.%d.attn.qkv.weight.q", l);
        int c = csv_col(&r->grad, name), row = log_nearest_row(&r->grad, c, step);
        if (row < 0) return NAN;
        *at = log_step(&r->grad, row);
        return csv_num(&r->grad, row, c);
    }
    int row = log_nearest_row(&r->attn, csv_col(&r->attn, ATTN_COL[k]), step);
    if (row < 0) return NAN;
    *at = log_step(&r->attn, row);
    return log_head_mean(&r->attn, *at, l, ATTN_COL[k], NULL);
}

/* Median of the finite values of v (n; reordered): sweep_median of them; NAN when there is none. */
static double median(double *v, int n) {
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) v[m++] = v[i];
    return sweep_median(v, m);
}

/* A / B into out (n bytes), 7 columns wide as "%7.3g" prints it: "—" when both are 0, a ratio
 * 0/0 that says nothing (it printed "-nan"); returns 1 then, else 0. A / 0 stays inf (A above
 * B), and a median not measured stays nan. */
static int ratio_cell(char *out, size_t n, double a, double b) {
    if (a == 0 && b == 0) {
        snprintf(out, n, "%*s", 7 + (int)strlen("—") - 1, "—"); /* 3 bytes, 1 column */
        return 1;
    }
    snprintf(out, n, "%7.3g", a / b);
    return 0;
}

/* The levels both runs are read at: A's evaluations inside the overlap of the two val_loss
 * ranges, with A's step and B's interpolated step at each, and every reading there. */
typedef struct {
    int n, L;              /* A's evaluations (room for as many levels), layers both runs have */
    int m;                 /* levels in the overlap */
    double *lv, *sa, *sb;  /* per level: the loss, A's step, B's interpolated step */
    double *val;           /* per level, layer and reading: A, B at equal loss, B at equal step */
} Levels;

/* Reading k of layer l at level i: w = 0 A, 1 B at equal loss, 2 B at equal step. */
#define VAL(i, l, k, w) val[(((size_t)(i) * L + (l)) * N_READ + (k)) * 3 + (w)]

static int levels_alloc(Levels *v, const RunLogs *a, const RunLogs *b) {
    v->n = a->n_eval;
    v->L = a->n_layers < b->n_layers ? a->n_layers : b->n_layers;
    v->lv = malloc(((size_t)v->n + 1) * sizeof *v->lv);
    v->sa = malloc(((size_t)v->n + 1) * sizeof *v->sa);
    v->sb = malloc(((size_t)v->n + 1) * sizeof *v->sb);
    v->val = malloc(((size_t)v->n + 1) * (size_t)(v->L + 1) * N_READ * 3 * sizeof *v->val);
    if (!v->lv || !v->sa || !v->sb || !v->val) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    return 0;
}

static void levels_free(Levels *v) {
    free(v->lv);
    free(v->sa);
    free(v->sb);
    free(v->val);
}

/* Prints what is compared and the two val_loss ranges, and fills v's levels: A's evaluations
 * in the overlap, B's step interpolated at each. Returns the number of levels, or -1 when
 * there is nothing to compare (said on out). */
static int overlap_levels(FILE *out, const RunLogs *a, const RunLogs *b, Levels *v) {
    double lo = fmax(a->lo, b->lo), hi = fmin(a->hi, b->hi);
    fprintf(out, "At equal validation loss: A = %s (its evaluations are the levels), B = %s.\n"
                 "B's step at a level: its first evaluation at or below the level, the step "
                 "linearly interpolated with the evaluation before it;\n"
                 "each reading is taken at the logged step nearest a run's step (grad_norms.csv; "
                 "attention.csv, mean over heads).\n",
            SHOWN(a->dir), SHOWN(b->dir));
    fprintf(out, "val_loss range: A [%.4g, %.4g], B [%.4g, %.4g]", a->lo, a->hi, b->lo, b->hi);
    if (!(lo <= hi)) {
        fprintf(out, ": they do not overlap (A %s B); no reading is compared at equal loss.\n",
                a->lo > b->hi ? "never gets down to" : "stays below");
        return -1;
    }
    int m = 0;
    for (int i = 0; i < v->n; i++)
        if (a->losses[i] >= lo && a->losses[i] <= hi) {
            v->lv[m] = a->losses[i];
            v->sa[m] = a->steps[i];
            v->sb[m] = equal_loss_step(b->steps, b->losses, b->n_eval, a->losses[i]);
            m++;
        }
    fprintf(out, "; overlap [%.4g, %.4g]: %d of A's %d evaluations%s.\n", lo, hi, m, v->n,
            a->lo < b->lo ? " (A goes lower than B: only the overlap is compared)"
            : a->hi > b->hi ? " (the levels above B's highest loss are left out)" : "");
    if (m == 0) { /* the overlap falls between two of A's evaluations: no level to read at */
        fprintf(out, "No evaluation of A lies in the overlap: no reading is compared at equal "
                     "loss (evaluate more often, train.eval_every, or train longer).\n");
        return -1;
    }
    return v->m = m;
}

/* Takes every reading at every level into v->val and prints them, a table per layer. */
static void read_levels(FILE *out, const RunLogs *a, const RunLogs *b, Levels *v) {
    double *val = v->val, *sa = v->sa, *sb = v->sb;
    int L = v->L;
    for (int l = 0; l < L; l++) {
        fprintf(out, "\nlayer %d: A / B at equal loss\n%9s %6s %8s", l, "val_loss", "step A",
                "step B");
        for (int k = 0; k < N_READ; k++) fprintf(out, " | %-12s %8s %8s", READ_NAME[k], "A", "B");
        fprintf(out, "\n");
        for (int i = 0; i < v->m; i++) {
            fprintf(out, "%9.4g %6.0f %8.1f", v->lv[i], sa[i], sb[i]);
            for (int k = 0; k < N_READ; k++) {
                int at;
                VAL(i, l, k, 0) = reading(a, k, l, sa[i], &at);
                VAL(i, l, k, 1) = reading(b, k, l, sb[i], &at);
                VAL(i, l, k, 2) = reading(b, k, l, sa[i], &at);
                fprintf(out, " | %-12s %8.4g %8.4g", "", VAL(i, l, k, 0), VAL(i, l, k, 1));
            }
            fprintf(out, "\n");
        }
    }
}

/* One line of the medians: reading k of layer l, A against B at equal loss and at equal step,
 * and whether the direction survives. Returns 1 when a ratio was 0 / 0 ("—"), else 0. */
static int median_line(FILE *out, int l, int k, const double med[3]) {
    char r_loss[16], r_step[16];
    int any_zero = ratio_cell(r_loss, sizeof r_loss, med[0], med[1]);
    any_zero |= ratio_cell(r_step, sizeof r_step, med[0], med[2]);
    /* the direction is A above or below B, read off the medians (a ratio is inf or
     * NaN when B's median is 0) */
    const char *verdict = isnan(med[0]) || isnan(med[1]) || isnan(med[2]) ||
                                  med[0] == med[1] || med[0] == med[2]
                              ? "cannot tell"
                          : (med[0] > med[1]) == (med[0] > med[2]) ? "survives"
                                                                   : "reverses";
    fprintf(out, "layer %d %-12s A %8.4g | equal loss: B %8.4g, A/B %s | equal step: "
                 "B %8.4g, A/B %s | %s\n",
            l, READ_NAME[k], med[0], med[1], r_loss, med[2], r_step, verdict);
    return any_zero;
}

/* The medians over the levels of every reading, a line each. Returns 0, or 1 when out of
 * memory. */
static int print_medians(FILE *out, const Levels *v) {
    const double *val = v->val;
    int L = v->L, m = v->m;
    fprintf(out, "\nMedian over the %d levels (A / B: their ratio); equal step = B at A's steps:\n",
            m);
    double *col = malloc(((size_t)m + 1) * sizeof *col);
    if (!col) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    int any_zero = 0; /* a ratio 0 / 0 printed as "—" */
    for (int l = 0; l < L; l++)
        for (int k = 0; k < N_READ; k++) {
            double med[3];
            for (int w = 0; w < 3; w++) {
                for (int i = 0; i < m; i++) col[i] = VAL(i, l, k, w);
                med[w] = median(col, m);
            }
            any_zero |= median_line(out, l, k, med);
        }
    if (any_zero)
        fprintf(out, "\"—\": A and B are both 0 there (0/0): no ratio, and no direction to survive "
                     "or reverse.\n");
    free(col);
    return 0;
}
#undef VAL

int report_equal_loss(FILE *out, const char *dir_a, const char *dir_b) {
    RunLogs a = {0}, b = {0};
    Levels v = {0};
    int rc = logs_load(&a, dir_a);
    if (rc == 0) rc = logs_load(&b, dir_b);
    if (rc == 0) rc = levels_alloc(&v, &a, &b);
    if (rc == 0 && overlap_levels(out, &a, &b, &v) >= 0) {
        read_levels(out, &a, &b, &v);
        rc = print_medians(out, &v);
    }
    levels_free(&v);
    logs_free(&a);
    logs_free(&b);
    return rc;
}
