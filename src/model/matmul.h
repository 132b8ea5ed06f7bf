/* matmul.h: the linear layer y = x·Wᵀ + b (PyTorch nn.Linear layout, weight is [out, in]). */
#ifndef SCALEDOT_MATMUL_H
#define SCALEDOT_MATMUL_H

#include <stddef.h>

#include "model/real.h"

/* out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias (OC); bias may be NULL. N = B·T rows. */
void matmul_forward(real *out, const real *inp, const real *weight, const real *bias, int N,
                    int C, int OC);

/* The three gradients of the linear layer from dout (N,OC): dinp (N,C) = dout · weight is
 * overwritten (no clearing needed before); dweight (OC,C) += doutᵀ · inp and
 * dbias (OC) += Σ_rows dout are accumulated, as parameter gradients are.
 * dbias may be NULL (no bias). Each output element has one writer and a fixed summation
 * order, so results are bitwise the same on any thread count. */
void matmul_backward(real *dinp, real *dweight, real *dbias, const real *dout, const real *inp,
                     const real *weight, int N, int C, int OC);

/* Reals of packing scratch that lets the _scratch variants below run at full speed on layers
 * whose widths (C and OC) are at most max_width, with up to omp_get_max_threads() threads
 * (each packs into its own part). About 1 MB per thread at most. */
size_t matmul_scratch_len(int max_width);

/* The same products with the caller's packing scratch (scratch_len reals, e.g. from
 * matmul_scratch_len), so nothing is allocated per call. With less scratch, or more threads than
 * it was sized for, each thread packs into a smaller part or a small buffer on its stack (the
 * plain variants above always do): slower, bitwise the same results, since neither the blocking
 * of N nor the split among threads changes any element's summation order.
 * Not reentrant on one scratch buffer. */
void matmul_forward_scratch(real *out, const real *inp, const real *weight, const real *bias,
                            int N, int C, int OC, real *scratch, size_t scratch_len);
void matmul_backward_scratch(real *dinp, real *dweight, real *dbias, const real *dout,
                             const real *inp, const real *weight, int N, int C, int OC,
                             real *scratch, size_t scratch_len);

/* The backward's two products alone, each in its own parallel region, with the same bits as
 * matmul_backward_scratch's: dinp (N,C) = dout · weight (overwritten), dweight (OC,C) +=
 * doutᵀ · inp. For timing each product by itself (bench/kernel_lines.c); the model calls
 * matmul_backward_scratch, which runs both (and dbias) without a barrier between them. */
void matmul_backward_input_scratch(real *dinp, const real *dout, const real *weight, int N, int C,
                                   int OC, real *scratch, size_t scratch_len);
void matmul_backward_weight_scratch(real *dweight, const real *dout, const real *inp, int N,
                                    int C, int OC, real *scratch, size_t scratch_len);

/* The calling thread's share of dbias (OC) += Σ_rows dout (N, OC), when every thread of a
 * parallel region calls it (alone: all of it): chunks of columns, each column's rows summed in
 * order, so the sums do not depend on the thread count. For matmul_bf16.c's backward, whose
 * bias gradient is this float32 one. */
void matmul_bias_grad_share(real *dbias, const real *dout, int N, int OC);

/* Whether a parallel product of `strips` MR-row strips of A and `panels` NR-column panels of B
 * shares the strips (1) or the panels (0) among `threads` threads (matmul.c's and
 * matmul_bf16.c's gemm_share). The strips whenever each thread gets at least 16: with the panels
 * shared, every thread sweeps every A strip across only its part of the columns, so A is read,
 * and in bf16 converted, `threads` times as often per FLOP, while sharing the strips costs each
 * thread a packing of all of B, which its many strips amortise. Otherwise whichever divides more
 * evenly. Which thread computes a tile never changes its bits (see matmul.c). Measured on Zen 5
 * (bench --kernels, 2 threads against 1, three rounds alternated): the twelve products of each
 * width shape 1.83-1.98x (float32) and 1.78-2.00x (bf16) against 1.67-1.89x and 1.57-1.80x with
 * the old rule (whichever divides more evenly, panels on a tie), the products with 512 or 768
 * output columns most. */
int matmul_share_strips(int strips, int panels, int threads);

/* ---- the GEMM underneath, for other kernels (attention) ---- */

/* A strided matrix view: element (r, c) is at p[r·rs + c·cs]. */
typedef struct {
    const real *p;
    long rs, cs;
} MatView;

/* Known zeros that let matmul_gemm skip work (with finite B the numbers are those of MAT_FULL,
 * up to the sign of a zero result):
 * MAT_C_LOWER: only C's lower triangle (j <= i) is wanted; tiles wholly above it are not
 *   computed and hold whatever they held (tiles crossing the diagonal are computed whole);
 * MAT_A_LOWER: A(i, k) = 0 for k > i, those terms are skipped;
 * MAT_A_UPPER: A(i, k) = 0 for k < i, those terms are skipped. */
typedef enum { MAT_FULL, MAT_C_LOWER, MAT_A_LOWER, MAT_A_UPPER } MatTri;

/* C (M×N, row stride ldc) = alpha·A·B (overwrite) or += alpha·A·B, A (M×K), B (K×N), on the
 * calling thread only (no OpenMP inside, for use within a parallel loop), packing on the stack.
 * Each element is an FMA chain over k in blocks of a fixed length, added to C block by block,
 * so its value depends on nothing but the operands. */
void matmul_gemm(int M, int N, int K, real alpha, MatView A, MatView B, real *C, long ldc,
                 int overwrite, MatTri tri);

#endif
