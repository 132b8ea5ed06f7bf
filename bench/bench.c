/* bench.c: `make bench`, whole AdamW training steps on fixed shapes, at 1 and 2 threads: the
 * shapes, the command line, and the order of the work.
 *
 * For each shape and thread count the program prints the median time per step after warm-up,
 * tokens/s, model GFLOP/s (formula printed with the table), the share of the step spent in each
 * kernel, and peak resident memory next to what the model needs. The parts:
 *   step_timing.c  one shape's training steps, thread counts interleaved, in a child process
 *   kernel_wrap.c  the per-kernel times, through -Wl,--wrap (the product's objects unchanged)
 *   machine.c      the CPU's name and one core's FMA peak (fma_peak.c), the ceiling of %peak
 *   tables.c       the printed tables
 *   kernel_lines.c each matmul product alone at the width shapes' sizes, one thread
 *   matmul_mode.c  --matmul N
 *
 * Every shape runs twice, with the linear layers in float32 and in bf16 (model.matmul = bf16,
 * matmul_bf16.c); a bf16 step's %peak is held to the bf16 probe's ceiling (vdpbf16ps chains).
 *
 * Usage: bench [--quick] [--seconds S] [--shape I] [--threads N] [--path P] [--seq | --gpt2]
 *        bench --kernels [--quick]
 *   --quick      fewer steps, for a smoke test
 *   --seconds S  time budget per shape (default 8 s, 1 with --quick); at least 5 (3) steps
 *   --shape I    only the I-th shape (0 .. 4), e.g. under a profiler
 *   --threads N  only N threads
 *   --path P     only the linear layers' path P: float32 or bf16 (default: both)
 *   --seq        the cost against sequence length instead: B=16, C=256, L=4, NH=4, V=64 at
 *                T = 64, 128, 256, 512 on one thread; time and memory per token, against T=128
 *                (with --shape I: only the I-th of those)
 *   --gpt2       GPT-2 small's shape instead, (4,64,768,12,12,50257), the shape llm.c's README
 *                trains on a CPU (make bench-gpt2; too slow for the default run)
 *   --kernels    only the probes and the kernel lines: each matmul product (forward, dinp,
 *                dweight; float32 and bf16) alone on one thread at the matrix sizes of the
 *                width shapes (the last three), which the full default run prints too
 *   --matmul N   only our matmul_forward_scratch at N x N x N on --threads T (default 1): its
 *                GFLOP/s, best of 5 calls (bench/torch_compare.sh holds PyTorch's sgemm to it);
 *                with --path bf16, matmul_bf16_forward
 *
 * The FMA probe (machine.c) runs FMA_RUNS times; %peak is against the fastest run, and the table
 * gives the range of %peak against the fastest .. slowest run beside it. With 2-thread steps it
 * also runs on both threads at once: the thread-scaling table is held to that ratio. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/matmul_bf16.h"
#include "model/real.h"
#include "util/provenance.h"

#include "bench_util.h"
#include "kernel_lines.h"
#include "machine.h"
#include "matmul_mode.h"
#include "step_timing.h"
#include "tables.h"

static const Shape bench_shapes[] = {
    {64, 32, 128, 2, 2, 16},
    {16, 128, 256, 4, 4, 64},
    {8, 256, 512, 6, 8, 256},
    /* the regime map's width runs (issue 31 item 3): sort of 8 symbols from 16 (T = 17, vocab
     * 18), batch 64, 2 layers, d_k 64, at d_model 512 and 768 */
    {64, 17, 512, 2, 8, 18},
    {64, 17, 768, 2, 12, 18},
};
/* --seq: one model, the sequence length varied; SEQ_BASE is the row the others are held to */
static const Shape seq_shapes[] = {
    {16, 64, 256, 4, 4, 64},
    {16, 128, 256, 4, 4, 64},
    {16, 256, 256, 4, 4, 64},
    {16, 512, 256, 4, 4, 64},
};
enum { SEQ_BASE = 1 };
/* --gpt2: GPT-2 small (124M parameters with its tied head; 163M here, whose head is its own
 * tensor) on llm.c's CPU batch */
static const Shape gpt2_shapes[] = {{4, 64, 768, 12, 12, 50257}};
enum { N_SHAPES = 5 }; /* the longest of the lists */
_Static_assert(sizeof bench_shapes / sizeof bench_shapes[0] <= N_SHAPES &&
                   sizeof seq_shapes / sizeof seq_shapes[0] <= N_SHAPES,
               "N_SHAPES: the longest of the lists");
/* the kernel lines' shapes: bench_shapes from (8,256,512,6,8,256) on (the widths 512, 768) */
enum { FIRST_WIDTH_SHAPE = 2, N_WIDTH_SHAPES = 3, KERNEL_REPS = 7, KERNEL_REPS_QUICK = 3 };

static int usage(const char *prog) {
    fprintf(stderr,
            "usage: %s [--quick] [--seconds S] [--shape I] [--threads N] [--path float32|bf16] "
            "[--seq | --gpt2]\n"
            "       %s --kernels [--quick]\n"
            "       %s --matmul N [--threads T] [--path float32|bf16]\n",
            prog, prog, prog);
    return 2;
}

/* What is timed, and the FLOP formula of the GFLOP/s column (tables.c's step_flops). */
static void print_method(void) {
    printf("scaledot bench: median time of whole training steps (model_forward, model_zero_grad,\n"
           "model_backward, optim_step AdamW) after warm-up, 1- and 2-thread steps interleaved;\n"
           "d_ff = 4C, real = %s.\n"
           "GFLOP/s = model FLOPs per step / time, FLOPs per step = 3 x forward,\n"
           "forward = 2*B*T*12*L*C^2 + 2*B*T*C*V + 2*L*B*C*T*(T+1)  (matmuls, head, causal "
           "attention).\n"
           "Each shape on two paths: float32, and bf16 (model.matmul = bf16: the linear layers'\n"
           "inputs rounded to bf16, float32 sums; %s kernel); %%peak of a bf16 step is against\n"
           "the bf16 probe (the FMA probe without AVX512_BF16; the rest of its step, attention\n"
           "included, stays float32).\n",
           sizeof(real) == 4 ? "float" : "double",
           matmul_bf16_kernel_name());
}

/* The command line's choices (bench's usage text). */
typedef struct {
    int quick, only_shape, only_threads, matmul_n, only_path, kernels;
    const Shape *shapes;
    int n_shapes;
    double budget_seconds; /* --seconds; < 0: the default */
} Options;

/* argv into o; 0, or usage's exit code for a bad argument. */
static int parse_options(int argc, char **argv, Options *o) {
    *o = (Options){.only_shape = -1, .only_path = -1, .shapes = bench_shapes,
                   .n_shapes = sizeof bench_shapes / sizeof bench_shapes[0], .budget_seconds = -1};
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(argv[i], "--seq") == 0) {
            o->shapes = seq_shapes;
            o->n_shapes = sizeof seq_shapes / sizeof seq_shapes[0];
        } else if (strcmp(argv[i], "--gpt2") == 0) {
            o->shapes = gpt2_shapes;
            o->n_shapes = sizeof gpt2_shapes / sizeof gpt2_shapes[0];
        } else if (strcmp(argv[i], "--kernels") == 0) {
            o->kernels = 1;
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            o->budget_seconds = strtod(argv[++i], &end);
            if (*end || !(o->budget_seconds >= 0)) return usage(argv[0]);
        } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
            o->only_shape = (int)strtol(argv[++i], &end, 10);
            if (*end || o->only_shape < 0) return usage(argv[0]);
        } else if (strcmp(argv[i], "--matmul") == 0 && i + 1 < argc) {
            o->matmul_n = (int)strtol(argv[++i], &end, 10);
            if (*end || o->matmul_n < 1 || o->matmul_n > 16384) return usage(argv[0]);
        } else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
            i++;
            o->only_path = strcmp(argv[i], "float32") == 0 ? 0
                           : strcmp(argv[i], "bf16") == 0  ? 1
                                                           : -2;
            if (o->only_path < 0) return usage(argv[0]);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            o->only_threads = (int)strtol(argv[++i], &end, 10);
            if (*end || o->only_threads < 1) return usage(argv[0]);
        } else {
            return usage(argv[0]);
        }
    }
    if (o->only_shape >= o->n_shapes) return usage(argv[0]);
    /* --seq: one thread and float32 unless asked (not for --matmul, which reads them as given) */
    if (o->shapes == seq_shapes && !o->matmul_n) {
        if (!o->only_threads) o->only_threads = 1;
        if (o->only_path < 0) o->only_path = 0;
    }
    return 0;
}

int main(int argc, char **argv) {
    Options o;
    int bad = parse_options(argc, argv, &o);
    if (bad) return bad;
    if (o.matmul_n)
        return matmul_mode(o.matmul_n, o.only_threads ? o.only_threads : 1, o.only_path == 1);
    /* which binary this is: a -march=native build times this CPU's instructions, a portable one
     * (make portable) the family's */
    printf("build: scaledot %s; %s; flags %s\n", provenance_build(), provenance_compiler(),
           provenance_flags());
    print_cpu();
    Peak peak = measure_peak(o.quick ? 0.3 : 1.0);
    int reps = o.quick ? KERNEL_REPS_QUICK : KERNEL_REPS;
    if (o.kernels)
        return print_kernel_lines(bench_shapes + FIRST_WIDTH_SHAPE, N_WIDTH_SHAPES, &peak, reps);
    print_method();
    int use[N_THREADS];
    for (int j = 0; j < N_THREADS; j++)
        use[j] = o.only_threads <= 0 || thread_counts[j] == o.only_threads;
    Result res[N_SHAPES * N_PATHS];
    memset(res, 0, sizeof res);
    for (int i = 0; i < o.n_shapes; i++)
        for (int path = 0; path < N_PATHS; path++) {
            if ((o.only_shape >= 0 && i != o.only_shape) ||
                (o.only_path >= 0 && path != o.only_path))
                continue;
            char label[64];
            shape_label(&o.shapes[i], label, sizeof label);
            fprintf(stderr, "bench: %s %s ...\n", label, path_names[path]);
            if (run_in_child(&o.shapes[i], path, use, o.quick, o.budget_seconds,
                             &res[i * N_PATHS + path]) != 0) {
                fprintf(stderr, "bench: shape %s %s failed\n", label, path_names[path]);
                return 1;
            }
        }
    /* the kernel lines in the full default run, after the children (they start OpenMP here) */
    if (o.shapes == bench_shapes && o.only_shape < 0 && o.only_threads == 0 && o.only_path < 0 &&
        print_kernel_lines(bench_shapes + FIRST_WIDTH_SHAPE, N_WIDTH_SHAPES, &peak, reps) != 0)
        return 1;
    /* the team probe only when a 2-thread step was timed (its ceiling is the scaling table's),
     * and only now: it starts OpenMP threads in this process, which the children must not
     * inherit (see measure_team_peak) */
    if (o.only_threads != 1)
        measure_team_peak(&peak, o.quick ? 0.3 : 1.0, thread_counts[N_THREADS - 1]);
    print_tables(o.shapes, o.n_shapes, res, &peak, o.shapes == seq_shapes ? SEQ_BASE : -1);
    return 0;
}
