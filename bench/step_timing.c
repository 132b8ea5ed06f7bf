/* step_timing.c: `make bench`'s measurement of one shape, whole AdamW training steps timed at
 * each thread count.
 *
 * A step is what train.c does minus logging: model_forward, model_zero_grad, model_backward,
 * optim_step (AdamW). The machine may be shared, so the thread counts are interleaved: step on
 * 1 thread, step on 2, step on 1, ..., and each gets the median of its own steps; slow drifts in
 * the load then hit both alike. Each shape runs in its own child process, so that its peak RSS
 * (getrusage ru_maxrss) is its own and not the largest of all shapes so far; the child sends its
 * results to the parent through a pipe. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/model.h"
#include "optim/optim.h"

#include "bench_util.h"
#include "kernel_wrap.h"
#include "step_timing.h"

const int thread_counts[N_THREADS] = {1, 2};
const char *const path_names[N_PATHS] = {"float32", "bf16"};
enum { MAX_STEPS = 64 };

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
 * interleaved; fills r. quick: fewer steps; budget_seconds: --seconds (< 0: the default). */
static void run_shape(const Shape *s, int path, const int use[N_THREADS], int quick,
                      double budget_seconds, Result *r) {
    memset(r, 0, sizeof *r);
    r->path = path;
    int max_threads = 1;
    for (int j = 0; j < N_THREADS; j++)
        if (use[j] && thread_counts[j] > max_threads) max_threads = thread_counts[j];
    set_threads(max_threads); /* the matmul scratch is sized for this many */
    ModelConfig mc = {.vocab_size = s->V, .d_model = s->C, .n_heads = s->NH, .n_layers = s->L,
                      .d_ff = 4 * s->C, .max_seq_len = s->T, .ln_eps = R(1e-5),
                      .scale = (real)(1.0 / sqrt((double)(s->C / s->NH))),
                      .matmul = path ? MODEL_MATMUL_BF16 : MODEL_MATMUL_FLOAT32};
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
int run_in_child(const Shape *s, int path, const int use[N_THREADS], int quick,
                 double budget_seconds, Result *r) {
    int fd[2];
    memset(r, 0, sizeof *r);
    if (pipe(fd) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(fd[0]);
        Result mine;
        run_shape(s, path, use, quick, budget_seconds, &mine);
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
