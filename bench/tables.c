/* tables.c: `make bench`'s printed results: per shape, path (float32, bf16) and thread count the
 * step time, tokens/s,
 * model GFLOP/s and its share of the FMA peak, the share of each kernel, the memory against what
 * the model needs, then the thread scaling or (--seq) the cost per token against sequence
 * length. */
#include <stdio.h>

#include "tables.h"

/* Model FLOPs of one training step (forward + backward = 3 x forward), PERF_NOTES convention. */
static double step_flops(const Shape *s) {
    double B = s->B, T = s->T, C = s->C, L = s->L, V = s->V;
    double fwd = 2 * B * T * 12 * L * C * C + 2 * B * T * C * V + 2 * L * B * C * T * (T + 1);
    return 3 * fwd;
}

void shape_label(const Shape *s, char *buf, size_t n) {
    snprintf(buf, n, "(%d,%d,%d,%d,%d,%d)", s->B, s->T, s->C, s->L, s->NH, s->V);
}

/* "(B,T,C,L,NH,V) path" of row r of res (shape r / N_PATHS). */
static void row_label(const Shape *shapes, int r, char *buf, size_t n) {
    char sh[64];
    shape_label(&shapes[r / N_PATHS], sh, sizeof sh);
    snprintf(buf, n, "%s %s", sh, path_names[r % N_PATHS]);
}

/* The one-core ceiling of row r's path, fastest (slow = 0) or slowest probe run. */
static double ceiling(const Peak *p, int r, int slow) { return peak_ceiling(p, r % N_PATHS, slow); }

/* Time per step, tokens/s, GFLOP/s and %peak, CPU time. */
static void print_times(const Shape *shapes, int n_rows, const Result *res, const Peak *peak) {
    char label[80];
    printf("\n%-30s %3s %5s %9s %17s %10s %8s %6s %13s %9s\n", "shape (B,T,C,L,NH,V) path",
           "thr", "steps", "ms/step", "[min .. max] ms", "tokens/s", "GFLOP/s", "%peak",
           "[probe range]", "CPU ms");
    for (int r = 0; r < n_rows; r++)
        for (int j = 0; j < N_THREADS; j++) {
            const Timing *t = &res[r].t[j];
            if (!t->ok) continue;
            const Shape *sh = &shapes[r / N_PATHS];
            row_label(shapes, r, label, sizeof label);
            double g = step_flops(sh) / (t->median_ms * 1e-3) / 1e9;
            double best = ceiling(peak, r, 0), slow = ceiling(peak, r, 1);
            double pc = best > 0 ? 100 * g / (best * t->threads) : 0;
            double pc_slow = slow > 0 ? 100 * g / (slow * t->threads) : 0;
            printf("%-30s %3d %5d %9.1f %8.1f .. %6.1f %10.0f %8.1f %6.1f %5.1f .. %5.1f %9.1f\n",
                   label, t->threads, t->steps, t->median_ms, t->min_ms, t->max_ms,
                   sh->B * sh->T / (t->median_ms * 1e-3), g, pc, pc, pc_slow, t->cpu_ms);
        }
    printf("(ms/step: wall clock, median. %%peak: GFLOP/s against threads x the one-core peak "
           "above\n of the row's path (float32: the FMA probe; bf16: the bf16 probe), its "
           "fastest run;\n [probe range]: %%peak against its fastest .. slowest run.\n CPU ms: "
           "median process CPU time per step / threads; on a busy machine it leaves out\n time "
           "spent descheduled but counts spin-waiting)\n");
}

/* Share of the step time per kernel. */
static void print_kernel_shares(const Shape *shapes, int n_rows, const Result *res) {
    char label[80];
    printf("\nShare of step time per kernel (%%), timed around each call:\n%-30s %3s",
           "shape path", "thr");
    for (int k = 0; k < K_COUNT; k++) printf(" %7s", kernel_names[k]);
    printf("\n");
    for (int r = 0; r < n_rows; r++)
        for (int j = 0; j < N_THREADS; j++) {
            const Timing *t = &res[r].t[j];
            if (!t->ok) continue;
            row_label(shapes, r, label, sizeof label);
            printf("%-30s %3d", label, t->threads);
            for (int k = 0; k < K_COUNT; k++) printf(" %7.1f", 100 * t->share[k]);
            printf("\n");
        }
    printf("(other: embedding, residual adds, gradient zeroing, buffer clears)\n");
}

/* Peak RSS against the bytes the model needs. */
static void print_memory(const Shape *shapes, int n_rows, const Result *res) {
    char label[80];
    printf("\nMemory: peak RSS of the process vs bytes the model needs (params + grads + AdamW m,v "
           "+ activations + backward scratch):\n");
    printf("%-30s %10s %12s %12s %7s %12s\n", "shape path", "params", "needed MB",
           "peak RSS MB", "ratio", "RSS KB/token");
    for (int i = 0; i < n_rows; i++) {
        const Result *r = &res[i];
        if (!r->ok) continue;
        row_label(shapes, i, label, sizeof label);
        const Shape *sh = &shapes[i / N_PATHS];
        printf("%-30s %10zu %12.1f %12.1f %7.2f %12.1f\n", label, r->n_params, r->need_mb,
               r->peak_rss_mb, r->peak_rss_mb / r->need_mb,
               1024 * r->peak_rss_mb / (sh->B * sh->T));
    }
}

/* --seq: time per token at one thread against shapes[base], and attention's share of FLOPs. */
static void print_seq_cost(const Shape *shapes, int n_shapes, const Result *res, int base_i) {
    char label[64];
    const Timing *base = &res[base_i * N_PATHS].t[0];
    const Shape *bs = &shapes[base_i];
    printf("\nCost against sequence length (one thread; per token, against T = %d):\n", bs->T);
    printf("%-22s %12s %10s %16s %14s %14s\n", "shape", "us/token", "vs base", "attention FLOPs",
           "FLOPs/token", "time/FLOP");
    for (int i = 0; i < n_shapes; i++) {
        const Timing *t = &res[i * N_PATHS].t[0];
        if (!t->ok) continue;
        const Shape *sh = &shapes[i];
        double per_tok = 1e3 * t->median_ms / (sh->B * sh->T);
        double att = 3.0 * 2 * sh->L * sh->B * sh->C * sh->T * (sh->T + 1.0);
        shape_label(sh, label, sizeof label);
        printf("%-22s %12.2f", label, per_tok);
        if (base->ok)
            printf(" %9.3fx", per_tok / (1e3 * base->median_ms / (bs->B * bs->T)));
        else
            printf(" %10s", "-");
        printf(" %15.1f%%", 100 * att / step_flops(sh));
        /* per token, the FLOPs grow with T (causal attention) whatever the kernels do; the time
         * per FLOP is what the kernels' efficiency alone changes */
        double flop_ratio = (step_flops(sh) / (sh->B * sh->T)) / (step_flops(bs) / (bs->B * bs->T));
        if (base->ok)
            printf(" %13.3fx %13.3fx\n", flop_ratio,
                   (t->median_ms / step_flops(sh)) / (base->median_ms / step_flops(bs)));
        else
            printf(" %13.3fx %14s\n", flop_ratio, "-");
    }
    printf("(vs base, FLOPs/token, time/FLOP: against T = %d; vs base = FLOPs/token x time/FLOP)\n",
           bs->T);
}

/* Median ms at 1 thread over median ms at 2, for shapes that ran at both. */
static void print_scaling(const Shape *shapes, int n_rows, const Result *res,
                          const Peak *peak) {
    char label[80];
    printf("\nThread scaling (median ms at 1 thread / median ms at 2 threads):\n");
    for (int r = 0; r < n_rows; r++) {
        if (!res[r].t[0].ok || !res[r].t[1].ok) continue;
        row_label(shapes, r, label, sizeof label);
        printf("%-30s %6.2fx\n", label, res[r].t[0].median_ms / res[r].t[1].median_ms);
    }
    if (peak->team_threads > 1 && peak->best > 0)
        printf("(the FMA probe alone, %d threads at once against one: %.2fx best, %.2fx slowest "
               "run)\n",
               peak->team_threads, peak->team_best / peak->best, peak->team_min / peak->best);
    if (peak->team_threads > 1 && peak->bf16_best > 0)
        printf("(the bf16 probe alone, %d threads at once against one: %.2fx best, %.2fx slowest "
               "run)\n",
               peak->team_threads, peak->bf16_team_best / peak->bf16_best,
               peak->bf16_team_min / peak->bf16_best);
}

/* Per shape and thread count: the float32 step's median ms over the bf16 step's (one run). */
static void print_bf16_speedup(const Shape *shapes, int n_shapes, const Result *res,
                               const Peak *peak) {
    char label[64];
    int any = 0;
    for (int i = 0; i < n_shapes; i++)
        for (int j = 0; j < N_THREADS; j++) {
            const Timing *f = &res[i * N_PATHS].t[j], *b = &res[i * N_PATHS + 1].t[j];
            if (!f->ok || !b->ok) continue;
            if (!any)
                printf("\nbf16 step against float32 (median ms float32 / median ms bf16, same "
                       "threads):\n");
            any = 1;
            shape_label(&shapes[i], label, sizeof label);
            printf("%-22s %3d thr %6.2fx   %.1f ms/step = %.2f min per 2000 steps\n", label,
                   f->threads, f->median_ms / b->median_ms, b->median_ms,
                   2000 * b->median_ms / 60000);
        }
    if (any && peak->bf16_best > 0 && peak->best > 0)
        printf("(the probes' own ratio, bf16 / FMA: %.2fx)\n", peak->bf16_best / peak->best);
}

void print_tables(const Shape *shapes, int n_shapes, const Result *res, const Peak *peak,
                  int seq_base) {
    int n_rows = n_shapes * N_PATHS;
    print_times(shapes, n_rows, res, peak);
    print_kernel_shares(shapes, n_rows, res);
    print_memory(shapes, n_rows, res);
    if (seq_base >= 0) {
        print_seq_cost(shapes, n_shapes, res, seq_base);
    } else {
        print_scaling(shapes, n_rows, res, peak);
        print_bf16_speedup(shapes, n_shapes, res, peak);
    }
}
