/* matmul.h: the linear layer y = x·Wᵀ + b (PyTorch nn.Linear layout, weight is [out, in]). */
#ifndef SCALEDOT_MATMUL_H
#define SCALEDOT_MATMUL_H

#include <stddef.h>

#include "model/real.h"

/* out (N,OC) = inp (N,C) · weight (OC,C)ᵀ + bias (OC); bias may be NULL. N = B·T rows. */
void matmul_forward(real *out, const real *inp, const real *weight, const real *bias, int N,
                    int C, int OC);

/* Accumulates (+=) the three gradients of the linear layer from dout (N,OC):
 * dinp (N,C) += dout · weight;  dweight (OC,C) += doutᵀ · inp;  dbias (OC) += Σ_rows dout.
 * dbias may be NULL (no bias). Each output element has one writer and a fixed summation
 * order, so results are bitwise the same on any thread count. */
void matmul_backward(real *dinp, real *dweight, real *dbias, const real *dout, const real *inp,
                     const real *weight, int N, int C, int OC);

/* Reals of packing scratch that lets the _scratch variants below run at full speed on layers
 * whose widths (C and OC) are at most max_width. Fixed by the blocking, at most a few MB. */
size_t matmul_scratch_len(int max_width);

/* The same products with the caller's packing scratch (scratch_len reals, e.g.
 * matmul_scratch_len(widest layer)), so nothing is allocated per call. The plain variants above
 * pack through a small stack buffer instead: slower on wide layers, bitwise the same results.
 * Not reentrant on one scratch buffer. */
void matmul_forward_scratch(real *out, const real *inp, const real *weight, const real *bias,
                            int N, int C, int OC, real *scratch, size_t scratch_len);
void matmul_backward_scratch(real *dinp, real *dweight, real *dbias, const real *dout,
                             const real *inp, const real *weight, int N, int C, int OC,
                             real *scratch, size_t scratch_len);

#endif
