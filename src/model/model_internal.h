/* model_internal.h: the steps of model.c's forward and backward that the LLaMA block (llama.c)
 * shares with the GPT-2 block, so that each lives in one place. Not for use outside
 * src/model/. */
#ifndef SCALEDOT_MODEL_INTERNAL_H
#define SCALEDOT_MODEL_INTERNAL_H

#include "model/model.h"

/* The norms on q, k and v of block l over N = B·T rows (attn_layer.c): acts[l].attn_qkv =
 * [qknorm(q), qknorm(k), vnorm(v)] per head from acts[l].qkv: the qk-norm LayerNorm (qknorm.h) or
 * RMSNorm (rmsnorm.h) as cfg.qk_norm says (q and k copied without one), v through a weightless
 * RMSNorm with cfg.v_norm (copied without); backward from m->dattn_qkv to m->dqkv (overwritten),
 * accumulating the q_norm and k_norm gradients. Only with cfg.qk_norm or cfg.v_norm. */
void model_qkvnorm_forward(Model *m, int l, int N);
void model_qkvnorm_backward(Model *m, int l, int N);

/* The attention of block l (attn_layer.c) with model_attn_scores(m, l), over the last forward's
 * B and T: acts[l].atty and att from acts[l].attn_qkv, and with cfg.qk_clip the largest logit of
 * each head into m->logit_max. Backward: from m->datty into dattn_qkv (overwritten), adding
 * d loss / d attn.log_scale into the gradients with cfg.learned_scale, and with with_pass_stats
 * the pass-through norms into m->dprob_norm, m->dpreatt_norm and m->blocked_rows (model.h). */
void model_attention_forward(Model *m, int l);
void model_attention_backward(Model *m, int l, real *dattn_qkv, int with_pass_stats);

/* A linear layer of the model (model_linear.c): matmul.h's products with the model's packing
 * scratch, in float32 or, with cfg.matmul = MODEL_MATMUL_BF16, with bf16 inputs (matmul_bf16.h).
 * Shapes as matmul_forward / matmul_backward: inp [N, C], weight [OC, C], out [N, OC]. */
void model_linear_forward(const Model *m, real *out, const real *inp, const real *weight,
                          const real *bias, int N, int C, int OC);
void model_linear_backward(const Model *m, real *dinp, real *dweight, real *dbias,
                           const real *dout, const real *inp, const real *weight, int N, int C,
                           int OC);

/* The readout (model_linear.c): logits [N, V] = readout_mult · lnf [N, C] · head.weightᵀ, the
 * factor cfg.readout_mult (0 or 1: none, the product as it is). μP's MuReadout (Yang et al.
 * 2022, Tensor Programs V, Table 3's output multiplier 1/fan_in relative to the base width;
 * microsoft/mup: forward(x / width_mult)). Backward: m->dlogits is multiplied in place by the
 * factor, then head.weight's gradient is added and m->dlnf overwritten, as model_linear_backward. */
void model_readout_forward(Model *m, int N);
void model_readout_backward(Model *m, int N);

#endif
