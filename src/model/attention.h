/* attention.h: multi-head causal scaled dot-product attention (Vaswani et al. 2017, eq. 1):
 * Attention(Q,K,V) = softmax(scale · Q·Kᵀ) · V, with query i seeing keys 0..i.
 * The paper's scale is 1/√d_k: for q, k with independent unit-variance entries, q·k has
 * variance d_k, and the scale brings it back to 1 so the softmax does not saturate. Here the
 * scale is a parameter so the experiment can remove it. */
#ifndef SCALEDOT_ATTENTION_H
#define SCALEDOT_ATTENTION_H

#include "model/real.h"

/* qkv (B,T,3C): channels 0..C-1 are q, C..2C-1 k, 2C..3C-1 v; head h uses channels
 * h·d_k .. (h+1)·d_k − 1 of each, d_k = C/NH.
 * preatt (B,NH,T,T): the scaled logits scale·q_i·k_j (j ≤ i; 0 above the diagonal);
 * att (B,NH,T,T): softmax over j ≤ i with the true row maximum subtracted (0 above the diagonal);
 * out (B,T,C): Σ_j att[i,j]·v_j, heads concatenated. */
void attention_forward(real *out, real *preatt, real *att, const real *qkv, int B, int T, int C,
                       int NH, real scale);

/* Writes dqkv (B,T,3C) (overwritten) from dout (B,T,C), using qkv and att from the forward pass.
 * dpreatt (B,NH,T,T) is overwritten with the gradient reaching the pre-softmax logits (0 above
 * the diagonal). Softmax backward uses dz = p ⊙ (dp − Σ_j p_j·dp_j), O(T²) per head, not the
 * O(T³) Jacobian product. Parallel over (b, head): each writes its own slice of dqkv, so the
 * result does not depend on the thread count. */
void attention_backward(real *dqkv, real *dpreatt, const real *dout, const real *qkv,
                        const real *att, int B, int T, int C, int NH, real scale);

#endif
