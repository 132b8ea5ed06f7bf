/* rope.h: rotary position embedding (RoPE; Su et al. 2021, arXiv 2104.09864, eq. 34), in the
 * interleaved-pair form of the original LLaMA code and llama2.c's `run.c`: within each head's
 * q and k vector (d_k = hs entries), channel pair (2i, 2i+1), i = 0 … hs/2 − 1, at position t
 * (0-based, within the sequence) is rotated by the angle a = t · 10000^(−2i/hs):
 *   (x₂ᵢ, x₂ᵢ₊₁) ← (x₂ᵢ·cos a − x₂ᵢ₊₁·sin a,  x₂ᵢ·sin a + x₂ᵢ₊₁·cos a)
 * (Hugging Face's `rotate_half` pairs i with i + hs/2 instead; not this.) A rotation keeps
 * |q| and |k|, and q_t·k_s after it depends on t − s only through the angles, which is how
 * position enters the attention logits with no position table.
 *
 * Layout: qkv (B·T, 3C) as attention.h reads it, row b·T + t; channels 0..C−1 are q,
 * C..2C−1 k (rotated), 2C..3C−1 v (untouched); head h uses h·hs .. (h+1)·hs − 1 of each. */
#ifndef SCALEDOT_ROPE_H
#define SCALEDOT_ROPE_H

#include "model/real.h"

/* cos_t, sin_t [max_T, hs/2]: cos and sin of a = t · 10000^(−2i/hs) at [t, i], computed in
 * double and rounded once; done when the model is built, so a step has no trigonometry.
 * hs must be even. */
void rope_tables(real *cos_t, real *sin_t, int max_T, int hs);

/* Rotates, in place, each head's q and k in every row of qkv (B·T, 3C), T <= the tables' max_T,
 * C = NH·hs; v is not touched. Parallel over rows. */
void rope_forward(real *qkv, const real *cos_t, const real *sin_t, int B, int T, int C, int NH);

/* Backward of rope_forward: the rotation is linear and orthogonal, so d x = Rᵀ · d y, the
 * inverse rotation (angle −a) of the gradient, applied in place to the q and k parts of dqkv
 * (B·T, 3C); the v part is not touched (its gradient passes unchanged). */
void rope_backward(real *dqkv, const real *cos_t, const real *sin_t, int B, int T, int C, int NH);

#endif
