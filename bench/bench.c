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
 * Usage: bench [--quick] [--shape I] [--threads N]
 *   --quick      fewer steps, for a smoke test
 *   --shape I    only the I-th shape (0, 1, 2), e.g. under a profiler
 *   --threads N  only N threads */
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
    double llmc_ms[2]; /* llm.c train_gpt2.c at 1 and 2 threads, from the issue; 0 = not given */
} Shape;

static const Shape shapes[] = {
    {64, 32, 128, 2, 2, 16, {260, 160}},
    {16, 128, 256, 4, 4, 64, {2100, 1350}},
    {8, 256, 512, 6, 8, 256, {0, 0}},
};
enum { N_SHAPES = sizeof shapes / sizeof shapes[0] };
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
        optim_init(&opt, OPT_ADAMW, 0.9, 0.999, 1e-8, 0.01, 0, m.n_params) != 0)
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
    double budget_s = quick ? 1.0 : 8.0, spent = 0;
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

static void print_tables(const Result res[N_SHAPES]) {
    char label[64];
    printf("\n%-22s %3s %5s %9s %17s %10s %8s %9s\n", "shape (B,T,C,L,NH,V)", "thr", "steps",
           "ms/step", "[min .. max] ms", "tokens/s", "GFLOP/s", "CPU ms");
    for (int i = 0; i < N_SHAPES; i++)
        for (int j = 0; j < N_THREADS; j++) {
            const Timing *t = &res[i].t[j];
            if (!t->ok) continue;
            shape_label(&shapes[i], label, sizeof label);
            printf("%-22s %3d %5d %9.1f %8.1f .. %6.1f %10.0f %8.1f %9.1f\n", label, t->threads,
                   t->steps, t->median_ms, t->min_ms, t->max_ms,
                   shapes[i].B * shapes[i].T / (t->median_ms * 1e-3),
                   step_flops(&shapes[i]) / (t->median_ms * 1e-3) / 1e9, t->cpu_ms);
        }
    printf("(ms/step: wall clock, median. CPU ms: median process CPU time per step / threads;\n"
           " on a busy machine it leaves out time spent descheduled but counts spin-waiting)\n");

    printf("\nShare of step time per kernel (%%), timed around each call:\n%-22s %3s", "shape",
           "thr");
    for (int k = 0; k < K_COUNT; k++) printf(" %7s", kernel_names[k]);
    printf("\n");
    for (int i = 0; i < N_SHAPES; i++)
        for (int j = 0; j < N_THREADS; j++) {
            const Timing *t = &res[i].t[j];
            if (!t->ok) continue;
            shape_label(&shapes[i], label, sizeof label);
            printf("%-22s %3d", label, t->threads);
            for (int k = 0; k < K_COUNT; k++) printf(" %7.1f", 100 * t->share[k]);
            printf("\n");
        }
    printf("(other: embedding, residual adds, gradient zeroing, buffer clears, dpreatt norms)\n");

    printf("\nMemory: peak RSS of the process vs bytes the model needs (params + grads + AdamW m,v "
           "+ activations + backward scratch):\n");
    printf("%-22s %10s %12s %12s %7s\n", "shape", "params", "needed MB", "peak RSS MB", "ratio");
    for (int i = 0; i < N_SHAPES; i++) {
        const Result *r = &res[i];
        if (!r->ok) continue;
        shape_label(&shapes[i], label, sizeof label);
        printf("%-22s %10zu %12.1f %12.1f %7.2f\n", label, r->n_params, r->need_mb,
               r->peak_rss_mb, r->peak_rss_mb / r->need_mb);
    }

    printf("\nAgainst llm.c train_gpt2.c (llm.c figures quoted from the issue, measured on this "
           "machine by the issue's author):\n");
    printf("%-22s %3s %12s %12s %14s\n", "shape", "thr", "llm.c ms", "ours ms", "llm.c / ours");
    for (int i = 0; i < N_SHAPES; i++)
        for (int j = 0; j < N_THREADS; j++) {
            const Timing *t = &res[i].t[j];
            double l = shapes[i].llmc_ms[j];
            if (l <= 0 || !t->ok) continue;
            shape_label(&shapes[i], label, sizeof label);
            printf("%-22s %3d %12.0f %12.1f %13.1fx\n", label, t->threads, l, t->median_ms,
                   l / t->median_ms);
        }
    printf("\nThread scaling (median ms at 1 thread / median ms at 2 threads):\n");
    for (int i = 0; i < N_SHAPES; i++) {
        if (!res[i].t[0].ok || !res[i].t[1].ok) continue;
        shape_label(&shapes[i], label, sizeof label);
        printf("%-22s %6.2fx\n", label, res[i].t[0].median_ms / res[i].t[1].median_ms);
    }
}

int main(int argc, char **argv) {
    int quick = 0, only_shape = -1, only_threads = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
            only_shape = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            only_threads = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--quick] [--shape 0|1|2] [--threads N]\n", argv[0]);
            return 2;
        }
    }
    /* which binary this is: a -march=native build times this CPU's instructions, a portable one
     * (make portable) the family's */
    printf("build: scaledot %s; %s; flags %s\n", provenance_build(), provenance_compiler(),
           provenance_flags());
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
    for (int i = 0; i < N_SHAPES; i++) {
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
