/* attn_steps.h: attn_steps.csv, the log behind the step slider of ./train --compare: at each
 * evaluation, per layer and head, the histogram of the attention logits on the diagnostics'
 * validation batch (the rows of attention.csv at that step give its numbers) and the attention
 * map of validation example 0 (the example of attn_map.csv). Bounded in size whatever the run:
 * which steps, heads and map positions go in is decided here, and attn_steps_max_bytes says how
 * large the file can grow (docs/manual.md states it for the shipped configs and the largest
 * allowed). The rows are written by runlog.h (runlog_attn_steps_row), through the log writer. */
#ifndef SCALEDOT_ATTN_STEPS_H
#define SCALEDOT_ATTN_STEPS_H

#include <stddef.h>

#include "model/real.h"
#include "train/diagnostics.h"

#define ATTN_STEPS_FILE "attn_steps.csv"

/* The map is of the first ATTN_STEPS_MAP_MAX queries at most, each over the keys it sees
 * (k <= q): a query's row is complete, later queries are left out. */
#define ATTN_STEPS_MAP_MAX 32
/* Evaluations logged: every one while there are at most ATTN_STEPS_MAX_INTERVALS intervals of
 * train.eval_every in the run, else every k-th one (attn_steps_logs_step); the last step always. */
#define ATTN_STEPS_MAX_INTERVALS 100
/* (layer, head) pairs logged: all while n_layers * n_heads <= ATTN_STEPS_MAX_HEADS, else fewer
 * heads per layer, and past ATTN_STEPS_MAX_HEADS layers, one head of every k-th layer. */
#define ATTN_STEPS_MAX_HEADS 16

/* The map's side: min(T, ATTN_STEPS_MAP_MAX). */
int attn_steps_map_side(int T);

/* 1 when the evaluation at `step` goes into the log: step = steps (the last), or step a multiple
 * of k * eval_every with k = ceil((steps / eval_every) / ATTN_STEPS_MAX_INTERVALS) (at least 1).
 * At most ATTN_STEPS_MAX_INTERVALS + 2 steps are logged. */
int attn_steps_logs_step(int step, int steps, int eval_every);

/* 1 when head h of layer l goes into the log: with n_layers <= ATTN_STEPS_MAX_HEADS, the first
 * max(1, ATTN_STEPS_MAX_HEADS / n_layers) heads of every layer; with more layers, head 0 of every
 * ceil(n_layers / ATTN_STEPS_MAX_HEADS)-th layer (0, k, 2k, ...). At most ATTN_STEPS_MAX_HEADS
 * pairs. */
int attn_steps_logs_head(int l, int h, int n_layers, int n_heads);

/* The header row ("step,layer,head", a count column per histogram bin named n_LO_HI after its
 * edges, n_nan, then q{i}k{j} for i < side, j <= i) into buf (cap bytes, '\n' ended). Returns
 * its length, or 0 when it does not fit. */
size_t attn_steps_header(char *buf, size_t cap, int side);

/* The longest header and row the log can have for a map of the given side and a batch of B
 * examples of T tokens (the counts are at most B * T * (T + 1) / 2), '\n' included. */
size_t attn_steps_header_max(int side);
size_t attn_steps_row_max(int side, int B, int T);

/* One row into buf (cap: attn_steps_row_max or more): step, layer, head, the counts
 * hist[0..DIAG_HIST_BINS] and the weights of the map, map[i * T + j] for i < side, j <= i (T:
 * the row stride, the whole attention row of example 0), each in %.3g (a weight in [0, 1] takes
 * at most 8 characters: 0.000123, 1.23e-05). Returns the length, '\n' included. */
size_t attn_steps_row(char *buf, size_t cap, int step, int layer, int head,
                      const long hist[DIAG_HIST_BINS + 1], const real *map, int T, int side);

/* The most bytes attn_steps.csv can take in a run of this shape: the header plus a row per
 * logged step and logged head (at their longest). B: the diagnostics' batch (min(val_size,
 * batch_size)). */
double attn_steps_max_bytes(int T, int B, int n_layers, int n_heads, int steps, int eval_every);

#endif
