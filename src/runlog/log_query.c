/* log_query.c: queries on one run's CSV logs (log_query.h), shared by --compare and the sweep
 * report. */
#include "runlog/log_query.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int log_path(char *out, size_t n, const char *dir, const char *file) {
    size_t len = strlen(dir);
    int w = snprintf(out, n, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", file);
    if (w < 0 || (size_t)w >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int log_load(Csv *t, const char *dir, const char *file, char *path, size_t n) {
    if (log_path(path, n, dir, file) != 0) return -1;
    return csv_load(t, path);
}

int log_step(const Csv *t, int row) { return csv_int(t, row, csv_col(t, "step"), -1); }

int log_last_row(const Csv *t, int col) {
    if (col < 0) return -1;
    for (int r = t->n_rows - 1; r >= 0; r--)
        if (!csv_empty(t, r, col)) return r;
    return -1;
}

int log_nearest_row(const Csv *t, int col, double target) {
    int best = -1;
    double best_d = INFINITY;
    if (col < 0) return -1;
    for (int r = 0; r < t->n_rows; r++) {
        if (csv_empty(t, r, col)) continue;
        double d = fabs(log_step(t, r) - target);
        if (d < best_d) best_d = d, best = r;
    }
    return best;
}

double log_head_mean(const Csv *attn, int step, int layer, const char *name, int *n) {
    int cs = csv_col(attn, "step"), cl = csv_col(attn, "layer"), cv = csv_col(attn, name);
    double sum = 0;
    int count = 0;
    if (cs >= 0 && cl >= 0 && cv >= 0)
        for (int i = 0; i < attn->n_rows; i++)
            if (csv_num(attn, i, cs) == step && csv_num(attn, i, cl) == layer &&
                !csv_empty(attn, i, cv)) {
                sum += csv_num(attn, i, cv);
                count++;
            }
    if (n) *n = count;
    return count ? sum / count : NAN;
}

/* The growth bookkeeping of one finished step's head mean s at step t. */
static void growth_add(LogitGrowth *g, long t, double s, int *seen) {
    if (isnan(s)) return;
    if (t == 0) g->std0 = s;
    if (!*seen || s > g->peak) g->peak = s, g->peak_step = t;
    *seen = 1;
    if (g->first_10x < 0 && t > 0 && !isnan(g->std0) && s > 10 * g->std0) g->first_10x = t;
}

int log_logit_growth(const Csv *attn, int layer, LogitGrowth *g) {
    *g = (LogitGrowth){NAN, NAN, -1, -1};
    int cs = csv_col(attn, "step"), cl = csv_col(attn, "layer"), cv = csv_col(attn, "logit_std");
    if (cs < 0 || cl < 0 || cv < 0) return -1;
    int seen = 0, n = 0;
    long t = -1;
    double sum = 0;
    for (int i = 0; i < attn->n_rows; i++) {
        if (csv_num(attn, i, cl) != layer || csv_empty(attn, i, cv)) continue;
        long step = (long)csv_num(attn, i, cs);
        if (step != t && n > 0) growth_add(g, t, sum / n, &seen), sum = 0, n = 0;
        t = step;
        sum += csv_num(attn, i, cv);
        n++;
    }
    if (n > 0) growth_add(g, t, sum / n, &seen);
    return seen ? 0 : -1;
}

void log_format_value(char *out, size_t n, double v, const char *fmt, double scale) {
    if (isnan(v))
        snprintf(out, n, "nan");
    else if (isinf(v))
        snprintf(out, n, "%s", v > 0 ? "inf" : "-inf");
    else
        snprintf(out, n, fmt, v * scale);
}
