/* attn_steps.c: what attn_steps.csv holds and how large it can grow (attn_steps.h): which steps
 * and heads are logged, the header, a row. */
#include "train/attn_steps.h"

#include <stdio.h>

#include "runlog/csv_write.h"

int attn_steps_map_side(int T) { return T < ATTN_STEPS_MAP_MAX ? T : ATTN_STEPS_MAP_MAX; }

int attn_steps_logs_step(int step, int steps, int eval_every) {
    if (step == steps) return 1;
    long intervals = eval_every > 0 ? steps / eval_every : 0;
    long k = (intervals + ATTN_STEPS_MAX_INTERVALS - 1) / ATTN_STEPS_MAX_INTERVALS;
    if (k < 1) k = 1;
    return step % (k * eval_every) == 0;
}

int attn_steps_logs_head(int l, int h, int n_layers, int n_heads) {
    if (n_layers <= ATTN_STEPS_MAX_HEADS) {
        int per_layer = ATTN_STEPS_MAX_HEADS / n_layers;
        return h < (per_layer < 1 ? 1 : per_layer) && h < n_heads;
    }
    int every = (n_layers + ATTN_STEPS_MAX_HEADS - 1) / ATTN_STEPS_MAX_HEADS;
    return h == 0 && l % every == 0;
}

/* Appends the text of one snprintf to buf[0..len) (cap bytes); once it does not fit, len goes
 * past cap and nothing more is written (the caller sees the row is cut). */
#define APPEND(buf, cap, len, ...)                                                                \
    do {                                                                                          \
        if ((len) < (cap)) (len) += (size_t)snprintf((buf) + (len), (cap) - (len), __VA_ARGS__); \
    } while (0)

size_t attn_steps_header(char *buf, size_t cap, int side) {
    size_t len = 0;
    APPEND(buf, cap, len, "step,layer,head");
    for (int k = 0; k < DIAG_HIST_BINS; k++)
        APPEND(buf, cap, len, ",n_%g_%g", DIAG_HIST_EDGES[k], DIAG_HIST_EDGES[k + 1]);
    APPEND(buf, cap, len, ",n_nan");
    for (int i = 0; i < side; i++)
        for (int j = 0; j <= i; j++) APPEND(buf, cap, len, ",q%dk%d", i, j);
    APPEND(buf, cap, len, "\n");
    return len < cap ? len : 0;
}

/* Decimal digits of n >= 0. */
static size_t digits(double n) {
    size_t d = 1;
    for (; n >= 10; n /= 10) d++;
    return d;
}

size_t attn_steps_header_max(int side) {
    /* "step,layer,head" + the bin names (",n_-inf_-256" at most 12 each) + ",n_nan" + the map's
     * ",q{i}k{j}" (i, j < 100: at most 7 each) + '\n' */
    size_t pairs = (size_t)side * (side + 1) / 2;
    return 15 + 12 * DIAG_HIST_BINS + 6 + 7 * pairs + 1;
}

size_t attn_steps_row_max(int side, int B, int T) {
    size_t pairs = (size_t)side * (side + 1) / 2;
    double most = (double)B * T * (T + 1) / 2; /* every visible logit of the batch in one bin */
    /* step, layer and head as ints (11 characters each at most), the counts, ",%.3g" weights
     * (8 characters at most in [0, 1]; "nan" and "-nan" fewer), '\n' */
    return 11 + 12 + 12 + (DIAG_HIST_BINS + 1) * (1 + digits(most)) + 9 * pairs + 1;
}

size_t attn_steps_row(char *buf, size_t cap, int step, int layer, int head,
                      const long hist[DIAG_HIST_BINS + 1], const real *map, int T, int side) {
    size_t len = 0;
    APPEND(buf, cap, len, "%d,%d,%d", step, layer, head);
    for (int k = 0; k <= DIAG_HIST_BINS; k++) APPEND(buf, cap, len, ",%ld", hist[k]);
    for (int i = 0; i < side; i++)
        for (int j = 0; j <= i; j++)
            len = csv_log_field(buf, cap, len, 1, (double)map[(size_t)i * T + j], "%.3g");
    APPEND(buf, cap, len, "\n");
    return len;
}

double attn_steps_max_bytes(int T, int B, int n_layers, int n_heads, int steps, int eval_every) {
    int side = attn_steps_map_side(T);
    long n_steps = 0, n_heads_logged = 0;
    for (int s = 0; s <= steps; s += eval_every)
        n_steps += attn_steps_logs_step(s, steps, eval_every);
    if (steps % eval_every != 0) n_steps++; /* the last step, evaluated whatever eval_every */
    for (int l = 0; l < n_layers; l++)
        for (int h = 0; h < n_heads; h++)
            n_heads_logged += attn_steps_logs_head(l, h, n_layers, n_heads);
    return (double)attn_steps_header_max(side) +
           (double)n_steps * n_heads_logged * (double)attn_steps_row_max(side, B, T);
}
