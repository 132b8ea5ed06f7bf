/* llama.h: the whole model's forward and backward with the LLaMA-style block (as in LLaMA,
 * Touvron et al. 2023, and llama2.c's run.c), the reference README's section "The LLaMA-style
 * block"; model_forward and model_backward dispatch here when cfg.block = MODEL_BLOCK_LLAMA.
 *
 *   x = tok_emb[token]                                        (no position table)
 *   for each block:
 *     h = RMSNorm(x; ln1);  [q k v] = h · attn.qkv.weightᵀ     (no biases anywhere)
 *     q, k ← qk-norm(q, k) when configured;  q, k ← RoPE(q, k)  (rope.h, interleaved pairs)
 *     x = x + attention(q, k, v) · attn.proj.weightᵀ
 *     h₂ = RMSNorm(x; ln2)
 *     x = x + (silu(h₂·mlp.gate.weightᵀ) ⊙ (h₂·mlp.up.weightᵀ)) · mlp.down.weightᵀ   (swiglu.h)
 *   logits = RMSNorm(x; ln_f) · head.weightᵀ;  loss = masked mean cross-entropy
 *
 * RMSNorm is rmsnorm.h with NH = 1, hs = stride = d_model and eps = cfg.ln_eps. The gate and up
 * products are one matmul with the [2·d_ff, C] matrix the two adjacent tensors form. Buffers,
 * views and activations are model.h's (BlockActs: ln*_rstd, gu, swiglu; Model: dgu and the RoPE
 * tables). */
#ifndef SCALEDOT_LLAMA_H
#define SCALEDOT_LLAMA_H

#include "model/model_types.h"

/* model_forward for the LLaMA block: the same contract (fills every activation, returns the loss
 * and sets m->loss). */
real llama_forward(Model *m, const int *tokens, const int *targets, const float *mask, int B,
                   int T);

/* model_backward (with_pass_stats = 0) or model_backward_diag (1) for the LLaMA block:
 * accumulates (+=) d loss / d params into m->grads. */
void llama_backward(Model *m, int with_pass_stats);

#endif
