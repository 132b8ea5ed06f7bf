/* bench.c: `make bench`, whole AdamW training steps on fixed shapes, at 1 and 2 threads.
 *
 * A step is what train.c does minus logging: model_forward, model_zero_grad, model_backward,
 * optim_step (AdamW). For each shape and thread count the program prints the median time per
 * step after warm-up, tokens/s, model GFLOP/s (formula printed with the table), the share of
 * the step spent in each kernel, and peak resident memory next to what the model needs.
 *
 * Kernel times come from the linker, not from the product: the Makefile links this program with
 * -Wl,--wrap=<kernel> for every kernel that model.c calls, so model.c's call to, say,
 * layernorm_forward lands in __wrap_layernorm_forward below, which times the real kernel
 * (__real_layernorm_forward). The product's objects are linked unchanged and pay nothing.
 *
 * The machine may be shared, so the thread counts are interleaved: step on 1 thread, step on 2,
 * step on 1, ..., and each gets the median of its own steps; slow drifts in the load then hit
 * both alike. Each shape runs in its own child process, so that its peak RSS (getrusage
 * ru_maxrss) is its own and not the largest of all shapes so far; the child sends its results
 * to the parent through a pipe.
 *
 * The ceiling: before the shapes, one core's FMA throughput is measured (fma_peak.c) and each
 * shape's GFLOP/s is printed as a share of it (per thread: a 2-thread step against 2 cores).
 *
 * Usage: bench [--quick] [--seconds S] [--shape I] [--threads N] [--seq]
 *   --quick      fewer steps, for a smoke test
 *   --seconds S  time budget per shape (default 8 s, 1 with --quick); at least 5 (3) steps
 *   --shape I    only the I-th shape (0, 1, 2), e.g. under a profiler
 *   --threads N  only N threads
 *   --seq        the cost against sequence length instead: B=16, C=256, L=4, NH=4, V=64 at
 *                T = 64, 128, 256, 512 on one thread; time and memory per token, against T=128
 *                (with --shape I: only the I-th of those)
 *   --matmul N   only our matmul_forward_scratch at N x N x N on --threads T (default 1): its
 *                GFLOP/s, best of 5 calls (bench/torch_compare.sh holds PyTorch's sgemm to it)
 *
 * The FMA probe runs FMA_RUNS times; %peak is against the fastest run, and the table gives the
 * range of %peak against the fastest .. slowest run beside it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "model/attention.h"
#include "model/gelu.h"
#include "model/layernorm.h"
#include "model/loss.h"
#include "model/matmul.h"
#include "model/model.h"
#include "optim/optim.h"
#include "util/provenance.h"

#include "fma_peak.h"

/* ---- kernel timing through -Wl,--wrap ------------------------------------------------ */

enum { K_MM_FWD, K_MM_BWD, K_ATT_FWD, K_ATT_BWD, K_LN, K_GELU, K_LOSS, K_OPT, K_OTHER, K_COUNT };
static const char *kernel_names[K_COUNT] = {"mm fwd", "mm bwd", "att fwd", "att bwd", "lnorm",
                                            "gelu",   "loss",   "optim",   "other"};
static double kernel_s[K_COUNT];

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

/* Defines __wrap_NAME(PARAMS), which calls __real_NAME(ARGS) and adds its time to kernel_s[K]. */
#define TIMED(K, NAME, PARAMS, ARGS)                                                              \
    void __real_##NAME PARAMS;                                                                    \
    void __wrap_##NAME PARAMS;                                                                    \
    void __wrap_##NAME PARAMS {                                                                   \
        double t0 = now_s();                                                                      \
        __real_##NAME ARGS;                                                                       \
        kernel_s[K] += now_s() - t0;                                                              \
    }

TIMED(K_MM_FWD, matmul_forward,
      (real * out, const real *inp, const real *weight, const real *bias, int N, int C, int OC),
      (out, inp, weight, bias, N, C, OC))
TIMED(K_MM_BWD, matmul_backward,
      (real * dinp, real *dweight, real *dbias, const real *dout, const real *inp,
       const real *weight, int N, int C, int OC),
      (dinp, dweight, dbias, dout, inp, weight, N, C, OC))
TIMED(K_MM_FWD, matmul_forward_scratch,
      (real * out, const real *inp, const real *weight, const real *bias, int N, int C, int OC,
       real *scratch, size_t scratch_len),
      (out, inp, weight, bias, N, C, OC, scratch, scratch_len))
TIMED(K_MM_BWD, matmul_backward_scratch,
      (real * dinp, real *dweight, real *dbias, const real *dout, const real *inp,
       const real *weight, int N, int C, int OC, real *scratch, size_t scratch_len),
      (dinp, dweight, dbias, dout, inp, weight, N, C, OC, scratch, scratch_len))
TIMED(K_ATT_FWD, attention_forward,
      (real * out, real *preatt, real *att, const real *qkv, int B, int T, int C, int NH,
       real scale),
      (out, preatt, att, qkv, B, T, C, NH, scale))
TIMED(K_ATT_BWD, attention_backward,
      (real * dqkv, real *dpreatt, const real *dout, const real *qkv, const real *att, int B,
       int T, int C, int NH, real scale, AttnGradStats *stats),
      (dqkv, dpreatt, dout, qkv, att, B, T, C, NH, scale, stats))
TIMED(K_ATT_BWD, attention_backward_scratch,
      (real * dqkv, real *scratch, int slots, const real *dout, const real *qkv, const real *att,
       int B, int T, int C, int NH, real scale, AttnGradStats *stats),
      (dqkv, scratch, slots, dout, qkv, att, B, T, C, NH, scale, stats))
TIMED(K_LN, layernorm_forward,
      (real * out, real *mean, real *rstd, const real *inp, const real *weight, const real *bias,
       int N, int C, real eps),
      (out, mean, rstd, inp, weight, bias, N, C, eps))
TIMED(K_LN, layernorm_backward,
      (real * dinp, real *dweight, real *dbias, const real *dout, const real *inp,
       const real *weight, const real *mean, const real *rstd, int N, int C),
      (dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C))
TIMED(K_GELU, gelu_forward, (real * out, real *dgelu, const real *inp, long N),
      (out, dgelu, inp, N))
TIMED(K_GELU, gelu_backward, (real * dinp, const real *dgelu, const real *dout, long N),
      (dinp, dgelu, dout, N))

/* crossentropy_forward returns a value, so it is written out. */
real __real_crossentropy_forward(real *losses, real *probs, const real *logits, const int *targets,
                                 const float *mask, int N, int V);
real __wrap_crossentropy_forward(real *losses, real *probs, const real *logits, const int *targets,
                                 const float *mask, int N, int V);
real __wrap_crossentropy_forward(real *losses, real *probs, const real *logits, const int *targets,
                                 const float *mask, int N, int V) {
    double t0 = now_s();
    real r = __real_crossentropy_forward(losses, probs, logits, targets, mask, N, V);
    kernel_s[K_LOSS] += now_s() - t0;
    return r;
}
TIMED(K_LOSS, crossentropy_backward,
      (real * dlogits, const real *probs, const int *targets, const float *mask, int N, int V),
      (dlogits, probs, targets, mask, N, V))

/* ---- the benchmark ------------------------------------------------------------------- */

typedef struct {
    int B, T, C, L, NH, V;
} Shape;

static const Shape bench_shapes[] = {
    {64, 32, 128, 2, 2, 16},
    {16, 128, 256, 4, 4, 64},
    {8, 256, 512, 6, 8, 256},
};
/* --seq: one model, the sequence length varied; SEQ_BASE is the row the others are held to */
static const Shape seq_shapes[] = {
    {16, 64, 256, 4, 4, 64},
    {16, 128, 256, 4, 4, 64},
    {16, 256, 256, 4, 4, 64},
    {16, 512, 256, 4, 4, 64},
};
enum { SEQ_BASE = 1 };
enum { N_SHAPES = sizeof seq_shapes / sizeof seq_shapes[0] }; /* the longer of the two lists */
static const Shape *shapes = bench_shapes;
static int n_shapes = sizeof bench_shapes / sizeof bench_shapes[0];
static double budget_seconds = -1; /* --seconds; < 0: the default */
static const int thread_counts[] = {1, 2};
enum { N_THREADS = sizeof thread_counts / sizeof thread_counts[0] };
enum { MAX_STEPS = 64 };

/* The measurements of one thread count. */
typedef struct {
    int ok, threads, steps;
    double median_ms, min_ms, max_ms;
    double cpu_ms;         /* median process CPU time per step / threads */
    double share[K_COUNT]; /* fraction of the timed steps' total time */
} Timing;

/* The measurements of one shape. */
typedef struct {
    int ok;
    Timing t[N_THREADS];
    double peak_rss_mb; /* ru_maxrss of the child process */
    double need_mb;     /* params + grads + AdamW state + activations + scratch */
    size_t n_params;
} Result;

/* Model FLOPs of one training step (forward + backward = 3 x forward), PERF_NOTES convention. */
static double step_flops(const Shape *s) {
    double B = s->B, T = s->T, C = s->C, L = s->L, V = s->V;
    double fwd = 2 * B * T * 12 * L * C * C + 2 * B * T * C * V + 2 * L * B * C * T * (T + 1);
    return 3 * fwd;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One training step as train.c does it (without clipping and logging). */
static void train_step(Model *m, Optimizer *opt, const int *tokens, const int *targets,
                       const float *mask, int B, int T) {
    model_forward(m, tokens, targets, mask, B, T);
    model_zero_grad(m);
    model_backward(m);
    double t0 = now_s();
    optim_step(opt, m->params, m->grads, m->tensors, m->n_tensors, 1e-3);
    kernel_s[K_OPT] += now_s() - t0;
}

static double median(double *x, int n) {
    qsort(x, (size_t)n, sizeof x[0], cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

static void set_threads(int n) {
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

/* Per thread count: step times (wall, CPU / threads) and kernel seconds of the timed steps. */
typedef struct {
    double ms[MAX_STEPS], cpu_ms[MAX_STEPS], kernel_s[K_COUNT], total_s;
} Samples;

/* One timed training step on `threads` threads, added to sm. */
static void timed_step(Model *m, Optimizer *opt, const int *tokens, const int *targets,
                       const float *mask, int B, int T, int threads, Samples *sm, int i) {
    set_threads(threads);
    memset(kernel_s, 0, sizeof kernel_s);
    double t0 = now_s(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    train_step(m, opt, tokens, targets, mask, B, T);
    double dt = now_s() - t0;
    sm->cpu_ms[i] = 1e3 * (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) / threads;
    sm->ms[i] = 1e3 * dt;
    sm->total_s += dt;
    for (int k = 0; k < K_COUNT; k++) sm->kernel_s[k] += kernel_s[k];
}

static void summarise(Samples *sm, int steps, int threads, Timing *t) {
    t->ok = 1;
    t->threads = threads;
    t->steps = steps;
    t->median_ms = median(sm->ms, steps);
    t->min_ms = sm->ms[0]; /* sorted by median() */
    t->max_ms = sm->ms[steps - 1];
    t->cpu_ms = median(sm->cpu_ms, steps);
    double known = 0;
    for (int k = 0; k < K_OTHER; k++) {
        t->share[k] = sm->kernel_s[k] / sm->total_s;
        known += sm->kernel_s[k];
    }
    t->share[K_OTHER] = (sm->total_s - known) / sm->total_s;
}

/* Runs one shape in the calling process for the thread counts with use[j] set, their steps
 * interleaved; fills r. quick: fewer steps. */
static void run_shape(const Shape *s, const int use[N_THREADS], int quick, Result *r) {
    memset(r, 0, sizeof *r);
    int max_threads = 1;
    for (int j = 0; j < N_THREADS; j++)
        if (use[j] && thread_counts[j] > max_threads) max_threads = thread_counts[j];
    set_threads(max_threads); /* the matmul scratch is sized for this many */
    ModelConfig mc = {.vocab_size = s->V, .d_model = s->C, .n_heads = s->NH, .n_layers = s->L,
                      .d_ff = 4 * s->C, .max_seq_len = s->T, .ln_eps = R(1e-5),
                      .scale = (real)(1.0 / sqrt((double)(s->C / s->NH)))};
    Model m;
    Optimizer opt = {0};
    if (model_build(&m, &mc, s->B) != 0) return;
    int n = s->B * s->T;
    int *tokens = malloc(sizeof(int) * (size_t)n), *targets = malloc(sizeof(int) * (size_t)n);
    float *mask = malloc(sizeof(float) * (size_t)n);
    static Samples sm[N_THREADS];
    memset(sm, 0, sizeof sm);
    if (!tokens || !targets || !mask ||
        optim_init(&opt, OPTIMIZER_ADAMW, 0.9, 0.999, 1e-8, 0.01, 0, m.n_params) != 0)
        goto done;
    Rng rng;
    rng_seed(&rng, 1234);
    model_init_fan_in(&m, &rng);
    for (int i = 0; i < n; i++) {
        tokens[i] = (int)rng_below(&rng, (uint32_t)s->V);
        targets[i] = (int)rng_below(&rng, (uint32_t)s->V);
        mask[i] = 1;
    }
    /* warm-up: one step per thread count (first touch of every buffer, thread start-up) */
    for (int j = 0; j < N_THREADS; j++)
        if (use[j]) {
            set_threads(thread_counts[j]);
            train_step(&m, &opt, tokens, targets, mask, s->B, s->T);
        }
    int min_rounds = quick ? 3 : 5, rounds = 0;
    double budget_s = budget_seconds >= 0 ? budget_seconds : quick ? 1.0 : 8.0, spent = 0;
    while (rounds < MAX_STEPS && (rounds < min_rounds || spent < budget_s)) {
        for (int j = 0; j < N_THREADS; j++)
            if (use[j])
                timed_step(&m, &opt, tokens, targets, mask, s->B, s->T, thread_counts[j], &sm[j],
                           rounds);
        rounds++;
        spent = 0;
        for (int j = 0; j < N_THREADS; j++) spent += sm[j].total_s;
    }
    for (int j = 0; j < N_THREADS; j++)
        if (use[j]) summarise(&sm[j], rounds, thread_counts[j], &r->t[j]);
    r->n_params = m.n_params;
    double p = (double)m.n_params * sizeof(real);
    r->need_mb = (p /* params */ + p /* grads */ + 2 * p /* AdamW m, v */ +
                  (double)m.act_bytes + (double)m.scratch_bytes) / 1048576.0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    r->peak_rss_mb = (double)ru.ru_maxrss / 1024.0; /* Linux reports KiB */
    r->ok = 1;
done:
    free(tokens);
    free(targets);
    free(mask);
    optim_free(&opt);
    model_free(&m);
}

/* Runs one shape in a child process and collects its Result through a pipe. */
static int run_in_child(const Shape *s, const int use[N_THREADS], int quick, Result *r) {
    int fd[2];
    memset(r, 0, sizeof *r);
    if (pipe(fd) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(fd[0]);
        Result mine;
        run_shape(s, use, quick, &mine);
        ssize_t w = write(fd[1], &mine, sizeof mine);
        _exit(w == (ssize_t)sizeof mine && mine.ok ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], r, sizeof *r);
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    return got == (ssize_t)sizeof *r && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void shape_label(const Shape *s, char *buf, size_t n) {
    snprintf(buf, n, "(%d,%d,%d,%d,%d,%d)", s->B, s->T, s->C, s->L, s->NH, s->V);
}

/* Peak of one core in GFLOP/s, measured before the shapes (0 when not measured): the best of
 * FMA_RUNS runs of the probe, and the slowest and median runs, whose spread says how much %peak
 * itself moves on this machine. */
enum { FMA_RUNS = 5 };
static double peak_gflops, peak_min, peak_median;

/* Runs the FMA probe FMA_RUNS times for `seconds` each, sets peak_gflops (the fastest run),
 * peak_median and peak_min, and prints them. */
static void measure_peak(double seconds) {
    double runs[FMA_RUNS];
    for (int k = 0; k < FMA_RUNS; k++) runs[k] = fma_peak_gflops(seconds);
    qsort(runs, FMA_RUNS, sizeof runs[0], cmp_double);
    peak_min = runs[0];
    peak_median = runs[FMA_RUNS / 2];
    peak_gflops = runs[FMA_RUNS - 1];
    printf("one-core FMA peak (16 chains of 64-byte vector FMAs, best probe): %.1f GFLOP/s\n"
           "  spread over %d runs of %.1f s: min %.1f, median %.1f, max %.1f GFLOP/s "
           "(max/min %.2f)\n",
           peak_gflops, FMA_RUNS, seconds, peak_min, peak_median, peak_gflops,
           peak_min > 0 ? peak_gflops / peak_min : 0);
}

/* CPU model name from /proc/cpuinfo: figures are comparable only on the same machine. */
static void print_cpu(void) {
    char line[256], name[200] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            const char *c = strchr(line, ':');
            if (c) snprintf(name, sizeof name, "%s", c + 2);
            name[strcspn(name, "\n")] = 0;
            break;
        }
    if (f) fclose(f);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    printf("cpu: %s, %ld online\n", name, ncpu);
}

static void print_tables(const Result res[N_SHAPES]) {
    char label[64];
    printf("\n%-22s %3s %5s %9s %17s %10s %8s %6s %13s %9s\n", "shape (B,T,C,L,NH,V)", "thr",
           "steps", "ms/step", "[min .. max] ms", "tokens/s", "GFLOP/s", "%peak", "[probe range]",
           "CPU ms");
    for (int i = 0; i < n_shapes; i++)
        for (int j = 0; j < N_THREADS; j++) {
            const Timing *t = &res[i].t[j];
            if (!t->ok) continue;
            shape_label(&shapes[i], label, sizeof label);
            double g = step_flops(&shapes[i]) / (t->median_ms * 1e-3) / 1e9;
            double pc = peak_gflops > 0 ? 100 * g / (peak_gflops * t->threads) : 0;
            double pc_slow = peak_min > 0 ? 100 * g / (peak_min * t->threads) : 0;
            printf("%-22s %3d %5d %9.1f %8.1f .. %6.1f %10.0f %8.1f %6.1f %5.1f .. %5.1f %9.1f\n",
                   label, t->threads, t->steps, t->median_ms, t->min_ms, t->max_ms,
                   shapes[i].B * shapes[i].T / (t->median_ms * 1e-3), g, pc, pc, pc_slow,
                   t->cpu_ms);
        }
    printf("(ms/step: wall clock, median. %%peak: GFLOP/s against threads x the one-core FMA "
           "peak above\n (its fastest run); [probe range]: %%peak against its fastest .. "
           "slowest run.\n CPU ms: median process CPU time per step / threads; on a busy machine "
           "it leaves out\n time spent descheduled but counts spin-waiting)\n");

    printf("\nShare of step time per kernel (%%), timed around each call:\n%-22s %3s", "shape",
           "thr");
    for (int k = 0; k < K_COUNT; k++) printf(" %7s", kernel_names[k]);
    printf("\n");
    for (int i = 0; i < n_shapes; i++)
        for (int j = 0; j < N_THREADS; j++) {
            const Timing *t = &res[i].t[j];
            if (!t->ok) continue;
            shape_label(&shapes[i], label, sizeof label);
            printf("%-22s %3d", label, t->threads);
            for (int k = 0; k < K_COUNT; k++) printf(" %7.1f", 100 * t->share[k]);
            printf("\n");
        }
    printf("(other: embedding, residual adds, gradient zeroing, buffer clears)\n");

    printf("\nMemory: peak RSS of the process vs bytes the model needs (params + grads + AdamW m,v "
           "+ activations + backward scratch):\n");
    printf("%-22s %10s %12s %12s %7s %12s\n", "shape", "params", "needed MB", "peak RSS MB",
           "ratio", "RSS KB/token");
    for (int i = 0; i < n_shapes; i++) {
        const Result *r = &res[i];
        if (!r->ok) continue;
        shape_label(&shapes[i], label, sizeof label);
        printf("%-22s %10zu %12.1f %12.1f %7.2f %12.1f\n", label, r->n_params, r->need_mb,
               r->peak_rss_mb, r->peak_rss_mb / r->need_mb,
               1024 * r->peak_rss_mb / (shapes[i].B * shapes[i].T));
    }
    if (shapes == seq_shapes) {
        const Timing *base = &res[SEQ_BASE].t[0];
        printf("\nCost against sequence length (one thread; per token, against T = %d):\n",
               seq_shapes[SEQ_BASE].T);
        printf("%-22s %12s %10s %16s\n", "shape", "us/token", "vs base", "attention FLOPs");
        for (int i = 0; i < n_shapes; i++) {
            const Timing *t = &res[i].t[0];
            if (!t->ok) continue;
            const Shape *sh = &shapes[i];
            double per_tok = 1e3 * t->median_ms / (sh->B * sh->T);
            double att = 3.0 * 2 * sh->L * sh->B * sh->C * sh->T * (sh->T + 1.0);
            shape_label(sh, label, sizeof label);
            printf("%-22s %12.2f", label, per_tok);
            if (base->ok)
                printf(" %9.3fx", per_tok / (1e3 * base->median_ms /
                                            (seq_shapes[SEQ_BASE].B * seq_shapes[SEQ_BASE].T)));
            else
                printf(" %10s", "-");
            printf(" %15.1f%%\n", 100 * att / step_flops(sh));
        }
        return;
    }
    printf("\nThread scaling (median ms at 1 thread / median ms at 2 threads):\n");
    for (int i = 0; i < n_shapes; i++) {
        if (!res[i].t[0].ok || !res[i].t[1].ok) continue;
        shape_label(&shapes[i], label, sizeof label);
        printf("%-22s %6.2fx\n", label, res[i].t[0].median_ms / res[i].t[1].median_ms);
    }
}

/* --matmul N: our linear layer alone, matmul_forward_scratch (no bias, packing scratch of
 * matmul_scratch_len(N), as the model's) at N x N x N (2 N^3 FLOPs), best of 5 calls after a
 * warm-up, on `threads` threads; prints the GFLOP/s alone on one line,
 * for bench/torch_compare.sh to hold PyTorch's sgemm against. Returns the exit code. */
static int matmul_mode(int n, int threads) {
    size_t nn = (size_t)n * n;
    real *x = malloc(nn * sizeof(real)), *w = malloc(nn * sizeof(real));
    real *out = malloc(nn * sizeof(real));
    set_threads(threads); /* before sizing the scratch: one part per thread */
    size_t len = matmul_scratch_len(n);
    real *scratch = malloc(len * sizeof(real));
    if (!x || !w || !out || !scratch) {
        fprintf(stderr, "bench: --matmul %d: out of memory\n", n);
        free(x), free(w), free(out), free(scratch);
        return 1;
    }
    unsigned st = 12345u;
    for (size_t i = 0; i < nn; i++) {
        st = st * 1664525u + 1013904223u;
        x[i] = (real)((st >> 8) * (1.0 / 16777216.0) - 0.5);
        st = st * 1664525u + 1013904223u;
        w[i] = (real)((st >> 8) * (1.0 / 16777216.0) - 0.5);
    }
    double best = INFINITY;
    for (int r = -1; r < 5; r++) { /* r = -1: warm-up */
        double t0 = now_s();
        matmul_forward_scratch(out, x, w, NULL, n, n, n, scratch, len);
        double dt = now_s() - t0;
        if (r >= 0 && dt < best) best = dt;
    }
    printf("%.1f\n", 2.0 * n * n * (double)n / best / 1e9);
    free(x), free(w), free(out), free(scratch);
    return 0;
}

static int usage(const char *prog) {
    fprintf(stderr,
            "usage: %s [--quick] [--seconds S] [--shape I] [--threads N] [--seq]\n"
            "       %s --matmul N [--threads T]\n",
            prog, prog);
    return 2;
}

int main(int argc, char **argv) {
    int quick = 0, only_shape = -1, only_threads = 0, matmul_n = 0;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--seq") == 0) {
            shapes = seq_shapes;
            n_shapes = sizeof seq_shapes / sizeof seq_shapes[0];
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            budget_seconds = strtod(argv[++i], &end);
            if (*end || !(budget_seconds >= 0)) return usage(argv[0]);
        } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
            only_shape = (int)strtol(argv[++i], &end, 10);
            if (*end || only_shape < 0) return usage(argv[0]);
        } else if (strcmp(argv[i], "--matmul") == 0 && i + 1 < argc) {
            matmul_n = (int)strtol(argv[++i], &end, 10);
            if (*end || matmul_n < 1 || matmul_n > 16384) return usage(argv[0]);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            only_threads = (int)strtol(argv[++i], &end, 10);
            if (*end || only_threads < 1) return usage(argv[0]);
        } else {
            return usage(argv[0]);
        }
    }
    if (only_shape >= n_shapes) return usage(argv[0]);
    if (matmul_n) return matmul_mode(matmul_n, only_threads ? only_threads : 1);
    if (shapes == seq_shapes && !only_threads) only_threads = 1;
    /* which binary this is: a -march=native build times this CPU's instructions, a portable one
     * (make portable) the family's */
    printf("build: scaledot %s; %s; flags %s\n", provenance_build(), provenance_compiler(),
           provenance_flags());
    print_cpu();
    measure_peak(quick ? 0.3 : 1.0);
    printf("scaledot bench: median time of whole training steps (model_forward, model_zero_grad,\n"
           "model_backward, optim_step AdamW) after warm-up, 1- and 2-thread steps interleaved;\n"
           "d_ff = 4C, real = %s.\n"
           "GFLOP/s = model FLOPs per step / time, FLOPs per step = 3 x forward,\n"
           "forward = 2*B*T*12*L*C^2 + 2*B*T*C*V + 2*L*B*C*T*(T+1)  (matmuls, head, causal "
           "attention).\n",
           sizeof(real) == 4 ? "float" : "double");
    int use[N_THREADS];
    for (int j = 0; j < N_THREADS; j++)
        use[j] = only_threads <= 0 || thread_counts[j] == only_threads;
    Result res[N_SHAPES];
    memset(res, 0, sizeof res);
    for (int i = 0; i < n_shapes; i++) {
        if (only_shape >= 0 && i != only_shape) continue;
        char label[64];
        shape_label(&shapes[i], label, sizeof label);
        fprintf(stderr, "bench: %s ...\n", label);
        if (run_in_child(&shapes[i], use, quick, &res[i]) != 0) {
            fprintf(stderr, "bench: shape %s failed\n", label);
            return 1;
        }
    }
    print_tables(res);
    return 0;
}
