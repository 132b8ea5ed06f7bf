/* swiglu.h: the gated activation of the LLaMA MLP, SwiGLU (Shazeer 2020, arXiv 2002.05202,
 * eq. 5, with β = 1; Touvron et al. 2023, sec. 2.2):
 *   out = silu(g) ⊙ u,   silu(g) = g·σ(g) = g / (1 + e^(−g))
 * where g = h·mlp.gate.weightᵀ and u = h·mlp.up.weightᵀ; the MLP is then out·mlp.down.weightᵀ.
 * The three products go through matmul.h; this is the elementwise part between them.
 *
 * Layout: gu (N, 2F), row n = [g (F entries) | u (F entries)]: the output of ONE matmul with
 * the weight [2F, C] that mlp.gate.weight and mlp.up.weight form when they are adjacent in the
 * parameter buffer (gate rows first), as the model's tensor table lays them out. */
#ifndef SCALEDOT_SWIGLU_H
#define SCALEDOT_SWIGLU_H

#include "model/real.h"

/* σ(x) = 1/(1 + e^(−x)), computed from e^(−|x|) so that nothing overflows (vecmath.h's
 * exp_nonpositive in float). */
real swiglu_sigmoid(real x);

/* out (N, F) = silu(g) ⊙ u from gu (N, 2F) as above. Parallel over rows. */
void swiglu_forward(real *out, const real *gu, int N, int F);

/* From dout (N, F), writes dgu (N, 2F) (overwritten: the g and u halves), using gu from the
 * forward pass (silu is recomputed, not saved):
 *   dg = dout · u · silu'(g),  silu'(g) = σ(g) · (1 + g·(1 − σ(g))),   du = dout · silu(g). */
void swiglu_backward(real *dgu, const real *dout, const real *gu, int N, int F);

#endif
