/* model.h: the decoder-only Transformer of ../shared/reference/README.md (GPT-2 style,
 * pre-LayerNorm; Radford et al. 2019), its parameters, activations and gradients.
 *
 *   x = tok_emb[token] + pos_emb[position]
 *   for each block: x = x + proj(attention(LayerNorm1(x)));  x = x + mlp(LayerNorm2(x))
 *   logits = LayerNorm_f(x) · head.weightᵀ;  loss = masked mean cross-entropy
 *
 * With cfg.qk_norm, each head's q and k go through their own LayerNorm (or RMSNorm) before q·k
 * (qknorm.h), and each block has more tensors, attn.q_norm.weight/.bias and
 * attn.k_norm.weight/.bias [d_k] (RMSNorm: the weights only), right after attn.qkv.bias; with
 * cfg.learned_scale, attn.log_scale [n_heads] after those; cfg.softcap caps the logits
 * (attention.h). Without them the table is exactly the plain model's.
 *
 * With cfg.block = MODEL_BLOCK_LLAMA the model is the reference README's LLaMA-style block
 * instead (llama.h): no pos_emb, no biases, RMSNorm gains only, rotary q and k, SwiGLU MLP
 * (mlp.gate, mlp.up, mlp.down); the same buffers, table and views, its own forward and backward.
 *
 * Memory: one contiguous buffer for the parameters and one for their gradients, with the
 * tensors in the order of the tensor table (tok_emb, pos_emb, blocks.0.*, ..., ln_f.*,
 * head.weight) and a struct of named views into each. Activations are sized once for a
 * maximum batch; nothing is allocated inside a step. */
#ifndef SCALEDOT_MODEL_H
#define SCALEDOT_MODEL_H

#include "model/model_types.h"

/* Builds the tensor table and allocates parameters, gradients, activations and scratch for
 * batches of up to max_batch sequences of up to cfg.max_seq_len tokens. Parameters are zero
 * until model_init_* or model_set_tensor. Returns 0, or -1 (message on stderr) when cfg is
 * invalid (d_model not divisible by n_heads, too many layers) or memory runs out. */
int model_build(Model *m, const ModelConfig *cfg, int max_batch);
void model_free(Model *m);

/* 'fan_in': every weight matrix N(0, 1/fan_in) (fan_in = its input width), so that after
 * LayerNorm the q and k entries have variance ≈ 1 — the assumption of the 1/√d_k argument
 * (Vaswani et al. 2017, footnote 4); embeddings N(0, 1) (PyTorch's nn.Embedding default);
 * biases 0; LayerNorm weight 1, bias 0 (q_norm and k_norm too).
 * 'gpt2': weights and embeddings N(0, std²), the attention and MLP output projections
 * N(0, (std/√(2·n_layers))²) as in GPT-2; biases 0; LayerNorm 1 and 0.
 * Draws in tensor-table order, row-major, from rng. */
void model_init_fan_in(Model *m, Rng *rng);
void model_init_gpt2(Model *m, Rng *rng, double std);

/* Per-tensor init multipliers (init.q_mult, init.k_mult), applied after model_init_*: the query
 * third of every attn.qkv.weight and attn.qkv.bias (W_q and its bias, TensorInfo.qkv_thirds) is
 * multiplied by q_mult, the key third (W_k and its bias) by k_mult; v and every other tensor are
 * untouched, and no random number is drawn, so the other tensors are those of the same seed
 * without multipliers. With a bias of 0 at init (both schemes) only the weights change. Why: a
 * factor c on the logits, s = c·(x W_q)(x W_k)ᵀ, is the same function as factor 1 with W_q
 * c times larger (issue 42; under Adam, with the learning rate of W_q also c times larger, the
 * same training: docs/findings.md). Multipliers of 1 leave the parameters bit for bit. */
void model_scale_qk(Model *m, double q_mult, double k_mult);

/* μP's init (model.param = mup; Yang et al. 2022, Tensor Programs V, Table 3, and microsoft/mup),
 * applied after model_init_* and model_scale_qk: the query third of every attn.qkv.weight and
 * attn.qkv.bias set to 0 (the mup README's zero-initialised query: q·k is 0 at step 0 whatever
 * the width), and head.weight multiplied by √width_mult (MuReadout._rescale_parameters: with the
 * logits' factor 1/width_mult the readout's output starts 1/√width_mult of the base width's,
 * Table 3's output init variance 1/fan_in² against the hidden weights' 1/fan_in). Every other
 * tensor is untouched and no random number is drawn. width_mult 1 changes only W_q. */
void model_init_mup(Model *m, double width_mult);

/* The std σ of attn.qkv.weight's entries as model_init_fan_in (gpt2 == 0: 1/√d_model) or
 * model_init_gpt2 (gpt2 != 0: gpt2_std itself; the qkv weight is not one of the output
 * projections GPT-2 scales down) draw them; asked of the same per-tensor rules the init uses. */
double model_qkv_init_std(int d_model, int gpt2, double gpt2_std);

/* The predicted std of the attention logits scale·q·k at step 0, from the init alone.
 *
 * Derivation (pre-LayerNorm blocks, LayerNorm weight 1 and bias 0 at init): each LayerNorm'd row
 * x has mean 0 and mean square 1 over its C = d_model entries (up to eps), so |x|² = C. With
 * the qkv weight's entries drawn i.i.d. N(0, σ²) and its bias 0, a query entry q_d = w_d·x is
 * N(0, |x|²σ²) = N(0, C σ²) given x, and so is a key entry k_d = u_d·x' (another row u_d of the
 * same matrix, independent of w_d, so q and k are independent even for x' = x). Then
 * E[q_d k_d] = 0 and Var(q_d k_d) = E[q_d²] E[k_d²] = (C σ²)², and the d_k terms of q·k are
 * independent (distinct rows of the weight), so Var(q·k) = d_k (C σ²)², whatever the layer (every
 * block's input is LayerNorm'd) and whatever the inputs (the result is conditional on them):
 *
 *     std(logit) = scale · √d_k · d_model · σ²
 *
 * fan_in (σ² = 1/d_model): scale·√d_k, the unit-variance premise of Vaswani et al. (2017),
 * footnote 4; gpt2 (σ = init.std = 0.02): scale·√d_k·d_model·0.0004 — 0.20 unscaled at
 * d_model 64, d_k 64; 2.5 at GPT-2 small's d_model 768. With qk-norm (qk_norm != 0) each head's
 * q and k are LayerNorm'd to mean square 1 over their d_k entries, so |q|² = |k|² = d_k and, for
 * directions independent of each other, Var(q·k) = d_k: scale·√d_k, whatever σ.
 * It is the std over the randomness of the weights; one model's measured std over a batch
 * scatters around it (tests/test_diagnostics.c: within 15 % at d_model 64 ... 512, d_k 64).
 *
 * The LLaMA block (cfg.block = MODEL_BLOCK_LLAMA): the same formula, for three reasons.
 * (1) RMSNorm with gain 1 does not centre, but the argument never used the mean: it needs only
 * |x|² = C, and RMSNorm gives mean(x²) = ms/(ms + eps) ≈ 1 over the C entries, so |x|² = C as
 * after LayerNorm (a row's mean may be nonzero; q_d = w_d·x is still N(0, |x|²σ²) given x).
 * (2) There is no qkv bias, as the derivation assumed (GPT-2's is 0 at init). (3) RoPE rotates
 * q at position i by R_i and k at j by R_j, so the logit is q·R_(j−i)k; given the inputs, k
 * is a vector of i.i.d. N(0, Cσ²) entries independent of q, and an orthogonal R maps it to
 * another such vector (each rotated pair is an orthogonal mix of two independent entries), still
 * independent of q: Var(q·Rk) = d_k (Cσ²)². With qk-norm, RoPE keeps |q̂|² = |k̂|² = d_k, so
 * scale·√d_k holds too. The model's diagnostics measure the logits after RoPE (attn_qkv), and
 * tests/test_diagnostics.c checks this block against the same prediction (measured/predicted
 * 0.94–1.04 at d_model 64 ... 512, both inits, with and without qk-norm). */
double model_predicted_logit_std(int d_model, int d_k, double scale, int qk_norm, double qkv_std);
/* (With init.q_mult and init.k_mult, q and k entries have std √C·σ·q_mult and √C·σ·k_mult, so the
 * same derivation gives scale·q_mult·k_mult·√d_k·d_model·σ²: the caller passes
 * scale·q_mult·k_mult as scale, without qk-norm, which normalises the multipliers away.) */

/* What multiplies q·k in layer l and what caps it (attention.h), from cfg and the parameters. */
AttnScores model_attn_scores(const Model *m, int l);

/* QK-clip (Kimi K2's MuonClip, arXiv 2507.20534, the clip step applied to our AdamW): after an
 * update, every head h of every layer whose largest logit S_max of the last model_forward
 * (m->logit_max) exceeds tau has its query and key weights, the rows of attn.qkv.weight that
 * make head h's q and k and their entries of attn.qkv.bias, multiplied by sqrt(tau / S_max),
 * so that the same inputs would give that head a largest logit of tau (q and k each shrink by
 * the square root). The attention output, v and the other heads are untouched. With qk-norm the
 * normalised q and k do not depend on the weights' size, so there the clip cannot bound the
 * logits (the config refuses the pair). Adds 1 to m->clip_count of every clipped head and
 * returns how many were clipped; needs cfg.qk_clip > 0 (else does nothing and returns 0). */
int model_qk_clip(Model *m, double tau);
/* The MLP width when model.d_ff = 0: GPT-2's 4·d_model; for the LLaMA block LLaMA's rule
 * (Touvron et al. 2023; Shazeer 2020, sec. 2): two thirds of 4·d_model, ⌊8·d_model/3⌋, rounded up
 * to a multiple of 8 (LLaMA rounds to 256, far too coarse at our widths), so that its three
 * [d_ff, C] matrices hold about the 8·d_model² parameters of GPT-2's two (d_model 64: 176). */
int model_default_d_ff(int block, int d_model);

/* Index of the tensor with this reference name, or -1. */
int model_find_tensor(const Model *m, const char *name);

/* Forward pass over tokens, targets, mask (B,T), B <= max_batch, T <= max_seq_len. Fills every
 * activation and returns the masked mean cross-entropy (also in m->loss). */
real model_forward(Model *m, const int *tokens, const int *targets, const float *mask, int B,
                   int T);

/* Sets every gradient to 0. */
void model_zero_grad(Model *m);

/* Backward pass of the last model_forward: accumulates (+=) d loss / d params into m->grads. */
void model_backward(Model *m);

/* model_backward, and also fills m->dpreatt_norm, m->dprob_norm and m->blocked_rows (extra work
 * per attention row: for the diagnostics batch, not the training step). The gradients are the
 * same. */
void model_backward_diag(Model *m);

/* L2 norm of a slice of a flat buffer, summed in double in a fixed order. */
double model_norm(const real *x, size_t n);

#endif
