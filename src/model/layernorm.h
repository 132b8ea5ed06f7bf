/* layernorm.h: LayerNorm over the last dimension (Ba, Kiros and Hinton 2016, eq. 4):
 * y = (x − mean) / sqrt(var + eps) · weight + bias, with the biased variance. */
#ifndef SCALEDOT_LAYERNORM_H
#define SCALEDOT_LAYERNORM_H

#include "model/real.h"

/* out, inp (N,C) for N = B·T rows; weight, bias (C); mean, rstd (N) are saved for backward
 * (rstd = 1/sqrt(var + eps)). */
void layernorm_forward(real *out, real *mean, real *rstd, const real *inp, const real *weight,
                       const real *bias, int N, int C, real eps);

/* Accumulates (+=) dinp (N,C), dweight (C), dbias (C) from dout (N,C), using the inputs and the
 * mean and rstd saved by the forward pass. With n = (x − mean)·rstd and g = dout·weight:
 * dinp = rstd · (g − mean(g) − n · mean(g·n)). Each channel of dweight and dbias is summed over
 * the rows in row order by one thread, and row sums use fixed lanes (vecmath.h), so results do
 * not depend on the thread count. */
void layernorm_backward(real *dinp, real *dweight, real *dbias, const real *dout,
                        const real *inp, const real *weight, const real *mean, const real *rstd,
                        int N, int C);

#endif
