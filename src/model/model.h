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

#include <stddef.h>

#include "model/attention.h"
#include "model/real.h"
#include "util/rng.h"

#define MODEL_MAX_LAYERS 64

/* ModelConfig.block: which block the model stacks (config key model.block). */
enum { MODEL_BLOCK_GPT2 = 0, MODEL_BLOCK_LLAMA = 1 };
#define MODEL_NAME_LEN 48

typedef struct {
    int vocab_size;   /* V */
    int d_model;      /* C */
    int n_heads;      /* NH; d_k = C / NH */
    int n_layers;     /* L */
    int d_ff;         /* F, hidden width of the MLP */
    int max_seq_len;  /* rows of pos_emb */
    real ln_eps;
    real scale;       /* the number multiplying q·k, resolved (1/√d_k, 1, ...); with
                       * learned_scale, every head's factor at init */
    int qk_norm;      /* MODEL_QK_NORM_*: a norm on each head's q and k before q·k (qknorm.h) */
    int learned_scale; /* 1 = each head learns its factor on q·k, exp(attn.log_scale[h]) */
    real softcap;     /* c > 0: the logits are soft-capped at ±c (AttnScores); 0 = off */
    real qk_clip;     /* τ > 0: the forward keeps each head's largest logit for model_qk_clip */
    int window;       /* w > 0: each query sees its last w keys only (AttnScores); 0 = all */
    int block;        /* MODEL_BLOCK_GPT2 (0, the default) or MODEL_BLOCK_LLAMA (llama.h) */
    int matmul;       /* MODEL_MATMUL_FLOAT32 (0, the default) or MODEL_MATMUL_BF16: the linear
                       * layers' products with bf16 inputs, float32 sums (matmul_bf16.h) */
    real readout_mult; /* the factor on the logits (model_readout_forward; μP's 1/width_mult);
                        * 0 or 1 = none */
    int v_norm;       /* 1 = each head's v through a weightless RMSNorm (model.h, below) */
} ModelConfig;

/* ModelConfig.matmul (config key model.matmul). */
enum { MODEL_MATMUL_FLOAT32 = 0, MODEL_MATMUL_BF16 = 1 };

/* ModelConfig.qk_norm, numbered as the reference cases' `qk_norm` key. */
enum { MODEL_QK_NORM_NONE, MODEL_QK_NORM_LAYERNORM, MODEL_QK_NORM_RMSNORM };

/* One parameter tensor: its reference name, shape and place in the flat buffer. qkv_thirds = 1
 * for attn.qkv.weight [3C, C] and attn.qkv.bias [3C], whose rows (entries) are in thirds, the
 * ones making q, then k, then v (the reference README's layout): W_q is the first numel/3 values,
 * W_k the next numel/3 (what init.q_mult, init.k_mult and the optimizer's lr_q_mult, lr_k_mult
 * multiply); 0 for every other tensor. */
typedef struct {
    char name[MODEL_NAME_LEN];
    int ndim;
    int shape[2];
    size_t offset, numel;
    int qkv_thirds;
    int hidden; /* 1 = a hidden weight matrix: a block's 2-D tensor (both dimensions grow with
                 * d_model), what μP's learning rate 1/width_mult multiplies; 0 for the
                 * embeddings, head.weight and every 1-D tensor */
} TensorInfo;

/* One block's tensors; qn_* and kn_* (attn.q_norm, attn.k_norm, [d_k]) are NULL without
 * qk-norm (qn_b and kn_b also with qk-RMSNorm, which has no bias); log_scale
 * (attn.log_scale, [n_heads]) is NULL without a learned scale. The LLaMA block has no *_b and
 * no fc_w, fcproj_w (NULL) but gate_w, up_w [d_ff, C] (adjacent: one [2·d_ff, C] matrix) and
 * down_w [C, d_ff]; the GPT-2 block has those NULL. */
typedef struct {
    real *ln1_w, *ln1_b, *qkv_w, *qkv_b, *qn_w, *qn_b, *kn_w, *kn_b, *log_scale, *proj_w, *proj_b;
    real *ln2_w, *ln2_b, *fc_w, *fc_b, *fcproj_w, *fcproj_b;
    real *gate_w, *up_w, *down_w;
} BlockTensors;

/* Named views into a flat buffer (used for the parameters and, over a second buffer, the
 * gradients). pos_emb and lnf_b are NULL in the LLaMA block. */
typedef struct {
    real *tok_emb, *pos_emb;
    BlockTensors block[MODEL_MAX_LAYERS];
    real *lnf_w, *lnf_b, *head_w;
} Tensors;

/* One block's activations, (B·T, width) each. With cfg.v_norm, attn_qkv is a copy too, its v
 * each head's v through a weightless RMSNorm, v / sqrt(mean(v²) + ln_eps) over d_k (Gemma 4's
 * v-norm), q and k as without it. fch holds the fc output until GELU reads it, then
 * GELU's derivative there (all that backward needs of it). attn_qkv is the (B·T, 3C) q, k, v
 * that attention reads: qkv itself, or with qk-norm a copy with each head's q and k normalised
 * (then q_mean, q_rstd, k_mean, k_rstd are (B·T·NH) each; else NULL).
 * LLaMA block: ln1, ln2 are the RMSNorm outputs (ln1_rstd, ln2_rstd saved, the means unused);
 * attn_qkv holds q and k after the (optional) qk-norm AND the rotary embedding (what the
 * attention and the diagnostics read; it is qkv itself, rotated in place, without qk-norm);
 * gu (B·T, 2·d_ff) the [gate | up] products and swiglu (B·T, d_ff) silu(gate)·up, in place of
 * fch and fch_gelu (NULL). */
typedef struct {
    real *resid, *ln1, *ln1_mean, *ln1_rstd, *qkv, *attn_qkv, *att, *atty, *attproj;
    real *q_mean, *q_rstd, *k_mean, *k_rstd;
    real *v_rstd; /* with cfg.v_norm: each head's v RMSNorm rstd, (B·T·NH); else NULL */
    real *resid2, *ln2, *ln2_mean, *ln2_rstd, *fch, *fch_gelu, *fcproj;
    real *gu, *swiglu;
} BlockActs;

typedef struct {
    ModelConfig cfg;
    int n_tensors;
    TensorInfo *tensors;          /* [n_tensors] */
    size_t n_params;
    real *params, *grads;         /* flat buffers, n_params each */
    Tensors p, g;                 /* named views into params and grads */
    /* activations, sized for max_batch x max_seq_len */
    int max_batch;
    int B, T;                     /* shape of the last forward pass */
    BlockActs acts[MODEL_MAX_LAYERS];
    real *resid_final, *lnf, *lnf_mean, *lnf_rstd, *logits, *probs, *losses;
    int *targets;                 /* copy of the last forward's targets (B,T) */
    float *mask;                  /* copy of the last forward's mask (B,T) */
    int *tokens;                  /* copy of the last forward's tokens (B,T) */
    real loss;
    /* backward scratch, reused by every block */
    real *dlogits, *dlnf, *dx, *dln, *dfch, *datty, *dqkv;
    real *dattn_qkv;              /* d loss / d attn_qkv with qk-norm or v-norm (B·T, 3C); else NULL */
    /* With cfg.v_norm: [d_k] ones, the v-norm's gain (it has none: RMSNorm times 1 is RMSNorm),
     * and [d_k] where rmsnorm_backward puts that gain's gradient, never read; else NULL */
    real *v_gain, *dv_gain;
    /* LLaMA block only (else NULL): d loss / d gu (B·T, 2·d_ff), and RoPE's cos and sin tables
     * [max_seq_len, d_k/2] (rope.h), made by model_build */
    real *dgu, *rope_cos, *rope_sin;
    /* attention's T × T work space, one slot per thread (attention_backward_scratch; slot 0 also
     * for attention_logits in the diagnostics): [attn_slots * max_seq_len²]. The attention
     * logits and their gradient are never kept whole: see attention.h. */
    real *attn_scratch;
    int attn_slots;
    /* With cfg.learned_scale: attention_backward's per-(b, head) d loss / d log_scale,
     * [max_batch * n_heads]; else NULL. */
    double *dlog_scale_pairs;
    /* With cfg.qk_clip > 0: the largest logit f_h·q·k of each (b, head) of the forward being
     * run, [max_batch * n_heads], and of each layer and head over the last model_forward's
     * batch, [n_layers * n_heads] (before any soft-cap: QK-clip's S_max); else NULL. */
    real *smax_pairs, *logit_max;
    /* With cfg.qk_clip > 0: how many updates model_qk_clip clipped each layer's head,
     * [n_layers * n_heads], counted until the caller resets it (the logs: since their last row). */
    int *clip_count;
    /* From the last model_backward_diag only, per layer and head, [n_layers * n_heads]:
     * dpreatt_norm, the L2 norm of the gradient reaching the pre-softmax logits (over the
     * batch); dprob_norm, the L2 norm of the gradient reaching the attention probabilities P (over the
     * batch and the visible j <= i entries, before the softmax backward); blocked_rows, the
     * fraction of the query rows softmax_row_pass counts whose pass-through is below
     * ATTN_BLOCKED_PASS (0 when it counts none). See attention.h. */
    double *dpreatt_norm, *dprob_norm, *blocked_rows;
    AttnGradStats attn_stats;     /* their per-(b, head) sums: [max_batch * n_heads] slots */
    /* packing scratch of the matmul kernels, sized for the widest layer: [mm_scratch_len] */
    real *mm_scratch;
    size_t mm_scratch_len;
    size_t act_bytes, scratch_bytes;
    void *arena;                  /* the one allocation behind activations and scratch */
} Model;

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
