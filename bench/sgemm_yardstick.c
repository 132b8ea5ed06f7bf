/* sgemm_yardstick.c: `make bench-sgemm`, our linear-layer kernels against OpenBLAS sgemm.
 *
 * For every linear layer of the `make bench` shapes (M = B·T = 2048 rows; in/out widths C→3C,
 * C→C, C→4C, 4C→C and the head C→V), times
 *   forward:  matmul_forward_scratch (no bias)  vs  cblas_sgemm(NoTrans, Trans)  (out = x·Wᵀ)
 *   backward: matmul_backward_scratch (no bias) vs  cblas_sgemm(NoTrans, NoTrans) (dx = dy·W)
 *                                                 + cblas_sgemm(Trans, NoTrans)   (dW += dyᵀ·x)
 * on one thread each (run it with OPENBLAS_NUM_THREADS=1; the Makefile target does), alternating
 * ours and OpenBLAS call by call so that machine noise hits both alike, and prints the median
 * GFLOP/s of each and their ratio, plus the largest difference between the two results relative
 * to the largest |value|. Built only by `make bench-sgemm`: the product never links BLAS.
 *
 * Usage: sgemm_yardstick [--threads N]   (threads for our kernels; default 1) */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "model/matmul.h"

enum { M = 2048, REPS = 15 };

/* CPU time of the calling thread when both sides run on it (one thread each): on a machine shared
 * with other work, time spent descheduled does not count against either side. Wall time for
 * more threads. */
static int use_thread_clock = 1;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(use_thread_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int n) {
    qsort(x, (size_t)n, sizeof x[0], cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

static void fill(float *x, size_t n, unsigned *state) {
    for (size_t i = 0; i < n; i++) {
        *state = *state * 1664525u + 1013904223u;
        x[i] = (float)((*state >> 8) * (1.0 / 16777216.0) - 0.5);
    }
}

/* max |a − b| / max |b| */
static double rel_diff(const float *a, const float *b, size_t n) {
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs((double)a[i] - b[i]));
        m = fmax(m, fabs((double)b[i]));
    }
    return m > 0 ? d / m : d;
}

typedef struct {
    double ours_gflops, blas_gflops, diff;
} Cmp;

/* Times forward (bwd = 0) or backward (bwd = 1) of a layer C -> OC at M rows. */
static Cmp compare(int C, int OC, int bwd, float *scratch, size_t scratch_len) {
    size_t nx = (size_t)M * C, ny = (size_t)M * OC, nw = (size_t)OC * C;
    float *x = malloc(nx * 4), *w = malloc(nw * 4), *dy = malloc(ny * 4);
    float *y1 = calloc(ny, 4), *y2 = calloc(ny, 4);
    float *dx1 = calloc(nx, 4), *dx2 = calloc(nx, 4), *dw1 = calloc(nw, 4), *dw2 = calloc(nw, 4);
    unsigned st = 12345u + (unsigned)(C * 7 + OC);
    fill(x, nx, &st);
    fill(w, nw, &st);
    fill(dy, ny, &st);
    double flops = (bwd ? 4.0 : 2.0) * M * (double)C * OC;
    double t_ours[REPS], t_blas[REPS];
    for (int r = -1; r < REPS; r++) { /* r = -1: warm-up */
        double t0 = now_s();
        if (bwd)
            matmul_backward_scratch(dx1, dw1, NULL, dy, x, w, M, C, OC, scratch, scratch_len);
        else
            matmul_forward_scratch(y1, x, w, NULL, M, C, OC, scratch, scratch_len);
        double t1 = now_s();
        if (bwd) {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, C, OC, 1.0f, dy, OC, w, C,
                        0.0f, dx2, C);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, OC, C, M, 1.0f, dy, OC, x, C,
                        1.0f, dw2, C);
        } else {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, OC, C, 1.0f, x, C, w, C, 0.0f,
                        y2, OC);
        }
        double t2 = now_s();
        if (r >= 0) {
            t_ours[r] = t1 - t0;
            t_blas[r] = t2 - t1;
        }
    }
    Cmp c = {flops / median(t_ours, REPS) / 1e9, flops / median(t_blas, REPS) / 1e9,
             bwd ? fmax(rel_diff(dx1, dx2, nx), rel_diff(dw1, dw2, nw)) : rel_diff(y1, y2, ny)};
    free(x), free(w), free(dy), free(y1), free(y2), free(dx1), free(dx2), free(dw1), free(dw2);
    return c;
}

int main(int argc, char **argv) {
    int threads = 1;
    if (argc == 3 && strcmp(argv[1], "--threads") == 0) {
        threads = atoi(argv[2]);
    } else if (argc != 1) {
        fprintf(stderr, "usage: %s [--threads N]\n", argv[0]);
        return 2;
    }
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    use_thread_clock = threads == 1;
    const char *obt = getenv("OPENBLAS_NUM_THREADS");
    printf("Linear-layer kernels vs OpenBLAS cblas_sgemm, M = B*T = %d rows, median of %d calls,\n"
           "alternating ours and OpenBLAS, timed by %s. Our threads: %d; "
           "OPENBLAS_NUM_THREADS=%s.\n"
           "forward = x*W^T (2*M*C*OC FLOPs); backward = dx += dy*W and dW += dy^T*x "
           "(4*M*C*OC FLOPs, two sgemm calls).\n\n",
           M, REPS, use_thread_clock ? "the thread's CPU clock" : "the wall clock", threads,
           obt ? obt : "(unset)");
    printf("%-6s %5s %5s  %10s %10s %7s  %10s %10s %7s  %9s\n", "layer", "in", "out",
           "fwd ours", "fwd BLAS", "ratio", "bwd ours", "bwd BLAS", "ratio", "max diff");
    static const int widths[] = {128, 256, 512};
    static const int vocab[] = {16, 64, 256};
    size_t len = matmul_scratch_len(4 * 512);
    float *scratch = malloc(len * sizeof(float));
    double sum_ratio = 0, min_ratio = 1e9;
    int n = 0;
    for (int s = 0; s < 3; s++) {
        int C = widths[s];
        int layers[5][2] = {{C, 3 * C}, {C, C}, {C, 4 * C}, {4 * C, C}, {C, vocab[s]}};
        const char *names[5] = {"qkv", "proj", "fc", "fcproj", "head"};
        for (int l = 0; l < 5; l++) {
            Cmp f = compare(layers[l][0], layers[l][1], 0, scratch, len);
            Cmp b = compare(layers[l][0], layers[l][1], 1, scratch, len);
            printf("%-6s %5d %5d  %10.1f %10.1f %6.0f%%  %10.1f %10.1f %6.0f%%  %9.1e\n", names[l],
                   layers[l][0], layers[l][1], f.ours_gflops, f.blas_gflops,
                   100 * f.ours_gflops / f.blas_gflops, b.ours_gflops, b.blas_gflops,
                   100 * b.ours_gflops / b.blas_gflops, fmax(f.diff, b.diff));
            if (l < 4) { /* the head (N = V tiny) is reported but not in the summary */
                double rf = f.ours_gflops / f.blas_gflops, rb = b.ours_gflops / b.blas_gflops;
                sum_ratio += rf + rb;
                min_ratio = fmin(min_ratio, fmin(rf, rb));
                n += 2;
            }
        }
    }
    printf("\nours / OpenBLAS over the block layers (qkv, proj, fc, fcproj): mean %.0f%%, "
           "worst %.0f%%\n(GFLOP/s columns are 1e9 FLOPs per second of each call's median time)\n",
           100 * sum_ratio / n, 100 * min_ratio);
    free(scratch);
    return 0;
}
