/* kernel_lines.c: each matmul kernel alone, so that a step's shortfall against the probe can be
 * split between the kernels and the rest of the step (issue 43 item 1).
 *
 * The products are the model's own entry points with the model's packing scratch
 * (matmul_scratch_len of the widest layer), on one thread and then on two: forward out = x·Wᵀ
 * (matmul_forward_scratch, matmul_bf16_forward), dinp = dout·W and dW += doutᵀ·x (the backward's
 * two products, each alone). Inputs are uniform in [-0.5, 0.5); the bias is left out (its add is
 * part of the forward tile's store either way). */
#include "kernel_lines.h"

#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "model/matmul.h"
#include "model/matmul_bf16.h"
#include "model/real.h"

#include "bench_util.h"

enum { MAX_REPS = 32, N_LAYERS = 4, N_PRODUCTS = 3 };

/* A block's linear layers as multiples of the width: in -> out. */
static const struct {
    const char *name;
    int in, out;
} layers[N_LAYERS] = {{"qkv", 1, 3}, {"proj", 1, 1}, {"fc", 1, 4}, {"fc2", 4, 1}};
static const char *const product_names[N_PRODUCTS] = {"fwd", "dinp", "dW"};

/* The buffers of one shape, each sized for the widest layer (M × 4C, 4C × C). */
typedef struct {
    real *x, *w, *y, *dy, *dx, *dw, *scratch;
    size_t scratch_len;
} Bufs;

/* One call of product p of path (0 float32, 1 bf16) for an M × in -> out layer. */
static void run_product(const Bufs *b, int path, int p, int M, int in, int out) {
    if (path == 0 && p == 0)
        matmul_forward_scratch(b->y, b->x, b->w, NULL, M, in, out, b->scratch, b->scratch_len);
    else if (path == 0 && p == 1)
        matmul_backward_input_scratch(b->dx, b->dy, b->w, M, in, out, b->scratch, b->scratch_len);
    else if (path == 0)
        matmul_backward_weight_scratch(b->dw, b->dy, b->x, M, in, out, b->scratch,
                                       b->scratch_len);
    else if (p == 0)
        matmul_bf16_forward(b->y, b->x, b->w, NULL, M, in, out, b->scratch, b->scratch_len);
    else if (p == 1)
        matmul_bf16_backward_input(b->dx, b->dy, b->w, M, in, out, b->scratch, b->scratch_len);
    else
        matmul_bf16_backward_weight(b->dw, b->dy, b->x, M, in, out, b->scratch, b->scratch_len);
}

/* Best and median seconds of reps calls after one warm-up. */
static void time_product(const Bufs *b, int path, int p, int M, int in, int out, int reps,
                         double *best, double *med) {
    double t[MAX_REPS];
    run_product(b, path, p, M, in, out);
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        run_product(b, path, p, M, in, out);
        t[r] = now_s() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    *best = t[0];
    *med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
}

static void fill(real *p, size_t n, unsigned *st) {
    for (size_t i = 0; i < n; i++) {
        *st = *st * 1664525u + 1013904223u;
        p[i] = (real)((*st >> 8) * (1.0 / 16777216.0) - 0.5);
    }
}

static void free_bufs(Bufs *b) {
    free(b->x), free(b->w), free(b->y), free(b->dy), free(b->dx), free(b->dw), free(b->scratch);
}

static int alloc_bufs(Bufs *b, int M, int C) {
    size_t act = (size_t)M * 4 * C, par = (size_t)4 * C * C;
    b->scratch_len = matmul_scratch_len(4 * C);
    b->x = malloc(act * sizeof(real)), b->y = malloc(act * sizeof(real));
    b->dy = malloc(act * sizeof(real)), b->dx = malloc(act * sizeof(real));
    b->w = malloc(par * sizeof(real)), b->dw = malloc(par * sizeof(real));
    b->scratch = malloc(b->scratch_len * sizeof(real));
    if (!b->x || !b->y || !b->dy || !b->dx || !b->w || !b->dw || !b->scratch) return -1;
    unsigned st = 12345u;
    fill(b->x, act, &st), fill(b->dy, act, &st), fill(b->w, par, &st), fill(b->dw, par, &st);
    return 0;
}

/* The 2thr cell: the 1-thread time over the 2-thread one, "-" when not timed (two = 0). */
static void print_speedup(double one, double two) {
    if (two > 0)
        printf(" %5.2fx", one / two);
    else
        printf(" %6s", "-");
}

/* One product's cells on one path: best and median GFLOP/s at one thread, the best's share of
 * the probe, and the 2thr cell. */
static void print_cells(double flops, double best1, double med1, double best2, double ceil) {
    printf("   %7.1f %7.1f %5.1f%%", flops / best1 / 1e9, flops / med1 / 1e9,
           ceil > 0 ? 100 * flops / best1 / 1e9 / ceil : 0);
    print_speedup(best1, best2);
}

/* One shape's twelve lines and its total per path. Each product is timed on one thread and then,
 * when `two`, on two, per path: the pairs alternate, so the machine's drift falls on both. */
static void shape_lines(const Bufs *b, int M, int C, const Peak *peak, int reps, int two) {
    double flops_all = 0, best_all[2][2] = {{0, 0}, {0, 0}};
    for (int l = 0; l < N_LAYERS; l++)
        for (int p = 0; p < N_PRODUCTS; p++) {
            int in = layers[l].in * C, out = layers[l].out * C;
            double flops = 2.0 * M * in * out;
            flops_all += flops;
            printf("%6d %5d %5d %-5s %-5s", M, in, out, layers[l].name, product_names[p]);
            for (int path = 0; path < 2; path++) {
                double best[2] = {0, 0}, med, med2;
                set_threads(1);
                time_product(b, path, p, M, in, out, reps, &best[0], &med);
                if (two) {
                    set_threads(2);
                    time_product(b, path, p, M, in, out, reps, &best[1], &med2);
                }
                best_all[path][0] += best[0], best_all[path][1] += best[1];
                print_cells(flops, best[0], med, best[1], peak_ceiling(peak, path, 0));
            }
            printf("\n");
        }
    printf("%6d %5d %5s %-11s", M, C, "", "all 12");
    for (int path = 0; path < 2; path++) {
        double g = flops_all / best_all[path][0] / 1e9, ceil = peak_ceiling(peak, path, 0);
        printf("   %7.1f %7s %5.1f%%", g, "", ceil > 0 ? 100 * g / ceil : 0);
        print_speedup(best_all[path][0], best_all[path][1]);
    }
    printf("\n");
}

int print_kernel_lines(const Shape *shapes, int n_shapes, const Peak *peak, int reps) {
    if (reps > MAX_REPS) reps = MAX_REPS;
    int two = 0;
#ifdef _OPENMP
    two = omp_get_num_procs() >= 2;
#endif
    set_threads(two ? 2 : 1); /* the scratch is sized for this many (alloc_bufs) */
    printf("\nMatmul kernels alone, one thread (%d calls after a warm-up; GFLOP/s = 2*M*in*out / "
           "time;\n%% of the path's one-core probe, best run: float32 against the FMA probe, "
           "bf16 against the bf16 probe;\n2thr: the best of %d calls on 2 threads against the "
           "best on one, timed right after it):\n",
           reps, reps);
    printf("%6s %5s %5s %-5s %-5s   %7s %7s %6s %6s   %7s %7s %6s %6s\n", "M=B*T", "in", "out",
           "layer", "prod", "f32best", "median", "%FMA", "2thr", "bf16bst", "median", "%bf16",
           "2thr");
    for (int i = 0; i < n_shapes; i++) {
        Bufs b = {0};
        int M = shapes[i].B * shapes[i].T, C = shapes[i].C;
        if (alloc_bufs(&b, M, C) != 0) {
            free_bufs(&b);
            fprintf(stderr, "bench: kernel lines at M = %d, C = %d: out of memory\n", M, C);
            return 1;
        }
        shape_lines(&b, M, C, peak, reps, two);
        free_bufs(&b);
    }
    printf("(all 12: the shape's twelve products' FLOPs over the sum of their best times, and "
           "the 2-thread sum against it;\n %s bf16 kernel%s)\n",
           matmul_bf16_kernel_name(), two ? "" : "; one CPU online: no 2-thread column");
    return 0;
}
