/* bench.h: the types and small helpers the parts of `make bench` share: the kernel list the
 * -Wl,--wrap timers fill (kernel_wrap.c), a shape, the measurements of one shape (step_timing.c)
 * that the tables print (tables.c), and the FMA peak they are held to (machine.c). */
#ifndef SCALEDOT_BENCH_H
#define SCALEDOT_BENCH_H

#include <stddef.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Seconds on clock `id`; now_s is the monotonic one. Inline here (as when the bench was one file)
 * so that the timing wrappers around each kernel call cost no extra call. */
static inline double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

/* The number of OpenMP threads of the next parallel regions (nothing without OpenMP). */
static inline void set_threads(int n) {
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

/* qsort comparator for ascending doubles. */
static inline int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The kernels timed through -Wl,--wrap (kernel_wrap.c), plus the optimizer step (timed in
 * step_timing.c) and "other", the rest of the step. */
enum { K_MM_FWD, K_MM_BWD, K_ATT_FWD, K_ATT_BWD, K_LN, K_GELU, K_LOSS, K_OPT, K_OTHER, K_COUNT };
extern const char *const kernel_names[K_COUNT];
/* Seconds spent in each kernel since the caller last zeroed it; the wrappers add to it. */
extern double kernel_s[K_COUNT];

/* A model shape: batch B, sequence length T, width C, layers L, heads NH, vocabulary V. */
typedef struct {
    int B, T, C, L, NH, V;
} Shape;

/* The thread counts each shape runs at, interleaved (step_timing.c). */
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

/* One core's FMA peak in GFLOP/s over FMA_RUNS probes (machine.c): the fastest run (the ceiling
 * %peak is against), the median and the slowest; all 0 when not measured. */
typedef struct {
    double best, median, min;
    /* the probe on team_threads threads at once (fma_team_gflops), fastest and slowest of
     * FMA_RUNS; team_threads 0 when not measured */
    int team_threads;
    double team_best, team_min;
    /* the bf16 probe (bf16_peak_gflops), the ceiling of bf16 steps, the same way; all 0 when
     * the CPU has no AVX512_BF16 */
    double bf16_best, bf16_median, bf16_min, bf16_team_best, bf16_team_min;
} Peak;

/* step_timing.c: runs shape s with the linear layers of path (0 float32, 1 bf16) in a child process (its own peak RSS) at the thread counts with
 * use[j] set, steps interleaved, for budget_seconds (< 0: 8 s, 1 s when quick) and at least 5
 * (3 when quick) rounds; fills r. Returns 0, or -1 when the child or the pipe failed. */
int run_in_child(const Shape *s, int path, const int use[N_THREADS], int quick,
                 double budget_seconds, Result *r);

/* machine.c: prints the CPU model name from /proc/cpuinfo and the online CPU count. */
void print_cpu(void);
/* machine.c: runs the FMA probe FMA_RUNS times for `seconds` each; prints and returns the
 * spread. */
Peak measure_peak(double seconds);
/* machine.c: the probe FMA_RUNS times on team_threads threads at once; prints the spread against
 * p's one-core best and fills p's team fields. Starts OpenMP threads in the calling process, so
 * call it after the last run_in_child: libgomp's thread pool does not survive fork(), and a
 * child forked after it would wait forever at its first parallel region. */
void measure_team_peak(Peak *p, double seconds, int team_threads);

/* tables.c: "(B,T,C,L,NH,V)" of s into buf. */
void shape_label(const Shape *s, char *buf, size_t n);
/* tables.c: prints the time, kernel-share and memory tables of res[i·N_PATHS + path] for
 * shapes i < n_shapes (rows whose ok is 0 left out), then the thread scaling and the bf16 step
 * against the float32 one, or with seq_base >= 0 (--seq) the cost per token against
 * shapes[seq_base] (float32). */
void print_tables(const Shape *shapes, int n_shapes, const Result *res, const Peak *peak,
                  int seq_base);

/* matmul_mode.c: --matmul N on `threads` threads, the float32 (path 0) or bf16 (path 1) linear
 * layer; prints the GFLOP/s. Returns the exit code. */
int matmul_mode(int n, int threads, int path);

#endif
