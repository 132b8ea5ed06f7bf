/* step_timing.h: one shape's whole training steps, timed at each thread count in a child process
 * (step_timing.c), and the measurements the tables print. */
#ifndef SCALEDOT_STEP_TIMING_H
#define SCALEDOT_STEP_TIMING_H

#include <stddef.h>

#include "kernel_wrap.h"

/* A model shape: batch B, sequence length T, width C, layers L, heads NH, vocabulary V. */
typedef struct {
    int B, T, C, L, NH, V;
} Shape;

/* The thread counts each shape runs at, interleaved. */
enum { N_THREADS = 2 };
extern const int thread_counts[N_THREADS];

/* The measurements of one thread count. */
typedef struct {
    int ok, threads, steps;
    double median_ms, min_ms, max_ms;
    double cpu_ms;         /* median process CPU time per step / threads */
    double share[K_COUNT]; /* fraction of the timed steps' total time */
} Timing;

/* The two paths of the linear layers each shape runs (model.matmul): 0 float32, 1 bf16. */
enum { N_PATHS = 2 };
extern const char *const path_names[N_PATHS];

/* The measurements of one shape on one path. */
typedef struct {
    int ok;
    int path; /* 0 float32, 1 bf16 */
    Timing t[N_THREADS];
    double peak_rss_mb; /* ru_maxrss of the child process */
    double need_mb;     /* params + grads + AdamW state + activations + scratch */
    size_t n_params;
} Result;

/* Runs shape s with the linear layers of path (0 float32, 1 bf16) in a child process (its own
 * peak RSS) at the thread counts with use[j] set, steps interleaved, for budget_seconds (< 0:
 * 8 s, 1 s when quick) and at least 5 (3 when quick) rounds; fills r. Returns 0, or -1 when the
 * child or the pipe failed. */
int run_in_child(const Shape *s, int path, const int use[N_THREADS], int quick,
                 double budget_seconds, Result *r);

#endif
