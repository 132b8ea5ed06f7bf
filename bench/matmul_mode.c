/* matmul_mode.c: `bench --matmul N`, our linear layer alone at N x N x N, the figure
 * bench/torch_compare.sh holds PyTorch's sgemm to. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/matmul.h"
#include "model/matmul_bf16.h"

#include "bench_util.h"
#include "matmul_mode.h"

/* --matmul N: our linear layer alone, matmul_forward_scratch (path 1, --path bf16:
 * matmul_bf16_forward) (no bias, packing scratch of matmul_scratch_len(N), as the model's) at
 * N x N x N (2 N^3 FLOPs), best of 5 calls after a warm-up, on `threads` threads; prints the
 * GFLOP/s alone on one line,
 * for bench/torch_compare.sh to hold PyTorch's sgemm against. Returns the exit code. */
int matmul_mode(int n, int threads, int path) {
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
        if (path)
            matmul_bf16_forward(out, x, w, NULL, n, n, n, scratch, len);
        else
            matmul_forward_scratch(out, x, w, NULL, n, n, n, scratch, len);
        double dt = now_s() - t0;
        if (r >= 0 && dt < best) best = dt;
    }
    printf("%.1f\n", 2.0 * n * n * (double)n / best / 1e9);
    free(x), free(w), free(out), free(scratch);
    return 0;
}
