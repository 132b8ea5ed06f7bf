/* qknorm.h: query-key normalisation, a LayerNorm on each attention head's q (or k) vector before
 * the dot product, the attention scale kept (Dehghani et al. 2023, ViT-22B, arXiv 2302.05442,
 * "QK normalization"; Wortsman et al. 2023, arXiv 2309.14322, "qk-layernorm"):
 *   q̂ = (q − mean(q)) / sqrt(var(q) + eps) · weight + bias      (biased variance, over d_k)
 *   scores = scale · q̂·k̂ᵀ
 * with weight and bias [d_k] shared by the heads of a layer, one pair for q and one for k.
 * With weight 1 and bias 0, q̂ has mean 0 and variance var/(var + eps) ≈ 1 whatever the size of
 * q, so q̂·k̂ has variance ≈ d_k: the normalisation bounds the logits but does not replace the
 * 1/√d_k scale.
 *
 * Layout: N token rows of row stride `stride` (3C inside the model's qkv); row n holds NH head
 * vectors of hs contiguous entries, head h at n·stride + h·hs. Every (row, head) vector is
 * normalised on its own; mean and rstd are [N·NH], index n·NH + h (rstd = 1/sqrt(var + eps)). */
#ifndef SCALEDOT_QKNORM_H
#define SCALEDOT_QKNORM_H

#include "model/real.h"

/* out = LayerNorm of every head vector of inp, strided as above (out may not alias inp); weight,
 * bias [hs]; saves mean and rstd for backward. Parallel over rows: one writer per output. */
void qknorm_forward(real *out, real *mean, real *rstd, const real *inp, const real *weight,
                    const real *bias, int N, int NH, int hs, long stride, real eps);

/* From dout (strided like inp), writes dinp (overwritten, same layout: nothing else flows into
 * the raw q or k) and accumulates (+=) dweight, dbias [hs]. With n = (x − mean)·rstd and
 * g = dout·weight, per head vector: dinp = rstd · (g − mean(g) − n · mean(g·n)). Each channel
 * of dweight and dbias is summed over the (row, head) vectors in order by one thread, so results
 * do not depend on the thread count. dinp may not alias dout. */
void qknorm_backward(real *dinp, real *dweight, real *dbias, const real *dout, const real *inp,
                     const real *weight, const real *mean, const real *rstd, int N, int NH,
                     int hs, long stride);

#endif
