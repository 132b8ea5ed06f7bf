/* model_types.h: the model's types (ModelConfig, the tensor table, the views, the activations,
 * Model), apart from the functions of model.c (model.h, which includes this and says what the
 * model is), so that the blocks model.c dispatches to (llama.c) can read a Model without
 * including their caller's header. */
#ifndef SCALEDOT_MODEL_TYPES_H
#define SCALEDOT_MODEL_TYPES_H

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

#endif
