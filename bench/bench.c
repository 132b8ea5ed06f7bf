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
 * Each (shape, threads) configuration runs in its own child process, so that its peak RSS
 * (getrusage ru_maxrss) is its own and not the largest of all configurations so far; the child
 * sends its result to the parent through a pipe.
 *
 * Usage: bench [--quick]   (--quick: fewer steps, for a smoke test) */
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

/* ---- kernel timing through -Wl,--wrap ------------------------------------------------ */

enum { K_MM_FWD, K_MM_BWD, K_ATT_FWD, K_ATT_BWD, K_LN, K_GELU, K_LOSS, K_OPT, K_OTHER, K_COUNT };
static const char *kernel_names[K_COUNT] = {"mm fwd", "mm bwd", "att fwd", "att bwd", "lnorm",
                                            "gelu",   "loss",   "optim",   "other"};
static double kernel_s[K_COUNT];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
       int T, int C, int NH, real scale),
      (dqkv, dpreatt, dout, qkv, att, B, T, C, NH, scale))
TIMED(K_LN, layernorm_forward,
      (real * out, real *mean, real *rstd, const real *inp, const real *weight, const real *bias,
       int N, int C, real eps),
      (out, mean, rstd, inp, weight, bias, N, C, eps))
TIMED(K_LN, layernorm_backward,
      (real * dinp, real *dweight, real *dbias, const real *dout, const real *inp,
       const real *weight, const real *mean, const real *rstd, int N, int C),
      (dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C))
TIMED(K_GELU, gelu_forward, (real * out, const real *inp, long N), (out, inp, N))
TIMED(K_GELU, gelu_backward, (real * dinp, const real *inp, const real *dout, long N),
      (dinp, inp, dout, N))

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

typedef struct {
    int ok, threads, steps;
    double median_ms, min_ms, max_ms;
    double share[K_COUNT];  /* fraction of the timed steps' total time */
    double peak_rss_mb;     /* ru_maxrss of the child process */
    double need_mb;         /* params + grads + AdamW state + activations + scratch */
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

/* Runs one configuration in the calling process; fills r. quick: fewer steps. */
static void run_config(const Shape *s, int threads, int quick, Result *r) {
    memset(r, 0, sizeof *r);
    r->threads = threads;
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    ModelConfig mc = {.vocab_size = s->V, .d_model = s->C, .n_heads = s->NH, .n_layers = s->L,
                      .d_ff = 4 * s->C, .max_seq_len = s->T, .ln_eps = R(1e-5),
                      .scale = (real)(1.0 / sqrt((double)(s->C / s->NH)))};
    Model m;
    Optimizer opt = {0};
    if (model_build(&m, &mc, s->B) != 0) return;
    if (optim_init(&opt, OPT_ADAMW, 0.9, 0.999, 1e-8, 0.01, 0, m.n_params) != 0) {
        model_free(&m);
        return;
    }
    Rng rng;
    rng_seed(&rng, 1234);
    model_init_fan_in(&m, &rng);
    int n = s->B * s->T;
    int *tokens = malloc(sizeof(int) * (size_t)n), *targets = malloc(sizeof(int) * (size_t)n);
    float *mask = malloc(sizeof(float) * (size_t)n);
    if (!tokens || !targets || !mask) goto done;
    for (int i = 0; i < n; i++) {
        tokens[i] = (int)rng_below(&rng, (uint32_t)s->V);
        targets[i] = (int)rng_below(&rng, (uint32_t)s->V);
        mask[i] = 1;
    }

    int warmup = quick ? 1 : 2, min_steps = quick ? 3 : 7;
    double budget_s = quick ? 1.0 : 6.0;
    for (int i = 0; i < warmup; i++) train_step(&m, &opt, tokens, targets, mask, s->B, s->T);
    memset(kernel_s, 0, sizeof kernel_s);
    double ms[MAX_STEPS], total = 0;
    int steps = 0;
    while (steps < MAX_STEPS && (steps < min_steps || total < budget_s)) {
        double t0 = now_s();
        train_step(&m, &opt, tokens, targets, mask, s->B, s->T);
        double dt = now_s() - t0;
        ms[steps++] = 1e3 * dt;
        total += dt;
    }
    qsort(ms, (size_t)steps, sizeof ms[0], cmp_double);
    r->steps = steps;
    r->median_ms = steps % 2 ? ms[steps / 2] : 0.5 * (ms[steps / 2 - 1] + ms[steps / 2]);
    r->min_ms = ms[0];
    r->max_ms = ms[steps - 1];
    double known = 0;
    for (int k = 0; k < K_OTHER; k++) {
        r->share[k] = kernel_s[k] / total;
        known += kernel_s[k];
    }
    r->share[K_OTHER] = (total - known) / total;
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

/* Runs one configuration in a child process and collects its Result through a pipe. */
static int run_in_child(const Shape *s, int threads, int quick, Result *r) {
    int fd[2];
    memset(r, 0, sizeof *r);
    if (pipe(fd) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(fd[0]);
        Result mine;
        run_config(s, threads, quick, &mine);
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

static void print_tables(const Result res[N_SHAPES][N_THREADS]) {
    char label[64];
    printf("\n%-22s %3s %5s %9s %17s %10s %8s\n", "shape (B,T,C,L,NH,V)", "thr", "steps",
           "ms/step", "[min .. max] ms", "tokens/s", "GFLOP/s");
    for (int i = 0; i < N_SHAPES; i++)
        for (int j = 0; j < N_THREADS; j++) {
            const Result *r = &res[i][j];
            shape_label(&shapes[i], label, sizeof label);
            printf("%-22s %3d %5d %9.1f %8.1f .. %6.1f %10.0f %8.1f\n", label, r->threads,
                   r->steps, r->median_ms, r->min_ms, r->max_ms,
                   shapes[i].B * shapes[i].T / (r->median_ms * 1e-3),
                   step_flops(&shapes[i]) / (r->median_ms * 1e-3) / 1e9);
        }

    printf("\nShare of step time per kernel (%%), timed around each call:\n%-22s %3s", "shape",
           "thr");
    for (int k = 0; k < K_COUNT; k++) printf(" %7s", kernel_names[k]);
    printf("\n");
    for (int i = 0; i < N_SHAPES; i++)
        for (int j = 0; j < N_THREADS; j++) {
            shape_label(&shapes[i], label, sizeof label);
            printf("%-22s %3d", label, res[i][j].threads);
            for (int k = 0; k < K_COUNT; k++) printf(" %7.1f", 100 * res[i][j].share[k]);
            printf("\n");
        }
    printf("(other: embedding, residual adds, gradient zeroing, buffer clears, dpreatt norms)\n");

    printf("\nMemory: peak RSS of the process vs bytes the model needs (params + grads + AdamW m,v "
           "+ activations + backward scratch):\n");
    printf("%-22s %3s %10s %12s %12s %7s\n", "shape", "thr", "params", "needed MB", "peak RSS MB",
           "ratio");
    for (int i = 0; i < N_SHAPES; i++)
        for (int j = 0; j < N_THREADS; j++) {
            const Result *r = &res[i][j];
            shape_label(&shapes[i], label, sizeof label);
            printf("%-22s %3d %10zu %12.1f %12.1f %7.2f\n", label, r->threads, r->n_params,
                   r->need_mb, r->peak_rss_mb, r->peak_rss_mb / r->need_mb);
        }

    printf("\nAgainst llm.c train_gpt2.c (llm.c figures quoted from the issue, measured on this "
           "machine by the issue's author):\n");
    printf("%-22s %3s %12s %12s %14s\n", "shape", "thr", "llm.c ms", "ours ms", "llm.c / ours");
    for (int i = 0; i < N_SHAPES; i++)
        for (int j = 0; j < N_THREADS; j++) {
            double l = shapes[i].llmc_ms[j];
            if (l <= 0) continue;
            shape_label(&shapes[i], label, sizeof label);
            printf("%-22s %3d %12.0f %12.1f %13.1fx\n", label, res[i][j].threads, l,
                   res[i][j].median_ms, l / res[i][j].median_ms);
        }
    printf("\nThread scaling (ms at 1 thread / ms at 2 threads):\n");
    for (int i = 0; i < N_SHAPES; i++) {
        shape_label(&shapes[i], label, sizeof label);
        printf("%-22s %6.2fx\n", label, res[i][0].median_ms / res[i][1].median_ms);
    }
}

int main(int argc, char **argv) {
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else {
            fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
            return 2;
        }
    }
    printf("scaledot bench: median time of whole training steps (model_forward, model_zero_grad,\n"
           "model_backward, optim_step AdamW) after warm-up; d_ff = 4C, real = %s.\n"
           "GFLOP/s = model FLOPs per step / time, FLOPs per step = 3 x forward,\n"
           "forward = 2*B*T*12*L*C^2 + 2*B*T*C*V + 2*L*B*C*T*(T+1)  (matmuls, head, causal "
           "attention).\n",
           sizeof(real) == 4 ? "float" : "double");
    Result res[N_SHAPES][N_THREADS];
    for (int i = 0; i < N_SHAPES; i++)
        for (int j = 0; j < N_THREADS; j++) {
            char label[64];
            shape_label(&shapes[i], label, sizeof label);
            fprintf(stderr, "bench: %s, %d thread%s ...\n", label, thread_counts[j],
                    thread_counts[j] > 1 ? "s" : "");
            if (run_in_child(&shapes[i], thread_counts[j], quick, &res[i][j]) != 0) {
                fprintf(stderr, "bench: configuration %s at %d threads failed\n", label,
                        thread_counts[j]);
                return 1;
            }
        }
    print_tables((const Result(*)[N_THREADS])res);
    return 0;
}
