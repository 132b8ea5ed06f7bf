/* matmul.h: the linear layer y = x·Wᵀ + b (PyTorch nn.Linear layout, weight is [out, in]). */
#ifndef SCALEDOT_MATMUL_H
#define SCALEDOT_MATMUL_H

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

#endif
