/* rmsnorm.h: RMSNorm with a gain only (Zhang and Sennrich 2019, eq. 4; as in LLaMA and
 * llama2.c's `rmsnorm`):
 *   y = x / sqrt(mean(x²) + eps) · weight        (mean over the hs entries of one vector)
 * No centring and no bias: with weight 1, y has mean square mean(x²)/(mean(x²) + eps) ≈ 1, so
 * |y|² ≈ hs whatever the size of x.
 *
 * Layout (the strided head layout of qknorm.h, so that one kernel serves both uses):
 * N rows of row stride `stride`; row n holds NH vectors of hs contiguous entries, vector h at
 * n·stride + h·hs. Every (row, vector) is normalised on its own; weight [hs] is shared by all of
 * them; rstd is [N·NH], index n·NH + h (rstd = 1/sqrt(mean(x²) + eps)).
 *   - the LLaMA block's row norms (ln1, ln2, ln_f): NH = 1, hs = C, stride = C;
 *   - qk-RMSNorm of each head's q (or k) inside the (N, 3C) qkv: NH heads, hs = d_k,
 *     stride = 3C, inp = qkv (q) or qkv + C (k). */
#ifndef SCALEDOT_RMSNORM_H
#define SCALEDOT_RMSNORM_H

#include "model/real.h"

/* out = RMSNorm of every vector of inp, strided as above (entries of out outside the vectors are
 * not written; out may not alias inp); weight [hs]; saves rstd [N·NH] for backward. Parallel
 * over (row, vector): one writer per output. */
void rmsnorm_forward(real *out, real *rstd, const real *inp, const real *weight, int N, int NH,
                     int hs, long stride, real eps);

/* From dout (strided like inp), ACCUMULATES (+=) dinp (same layout; entries outside the vectors
 * untouched) and dweight [hs], using inp and the rstd saved by the forward pass. With
 * n = x·rstd and g = dout·weight, per vector:
 *     dinp += rstd · (g − n · mean(g·n))
 * (d/dx of x·s with s = (mean(x²) + eps)^(−1/2), ds/dx_c = −s³·x_c/hs).
 * Accumulating serves the residual stream, where the norm's gradient adds to the gradient that
 * flows past the block (as layernorm_backward does). A caller that wants dinp overwritten (qk-norm:
 * nothing else flows into the raw q or k) zeroes those entries first. Each channel of dweight is
 * summed over the (row, vector) pairs in order by one thread, and the row sums use the fixed
 * lanes of vecmath.h, so results do not depend on the thread count. dinp may not alias dout. */
void rmsnorm_backward(real *dinp, real *dweight, const real *dout, const real *inp,
                      const real *weight, const real *rstd, int N, int NH, int hs, long stride);

#endif
