/* model_internal.h: the steps of model.c's forward and backward that the LLaMA block (llama.c)
 * shares with the GPT-2 block, so that each lives in one place. Not for use outside
 * src/model/. */
#ifndef SCALEDOT_MODEL_INTERNAL_H
#define SCALEDOT_MODEL_INTERNAL_H

#include "model/model.h"

/* qk-norm of block l over N = B·T rows: acts[l].attn_qkv = [norm(q), norm(k), v] per head from
 * acts[l].qkv (qknorm.h); backward from m->dattn_qkv to m->dqkv (overwritten), accumulating the
 * q_norm and k_norm gradients. Only with cfg.qk_norm. */
void model_qknorm_forward(Model *m, int l, int N);
void model_qknorm_backward(Model *m, int l, int N);

/* Adds up the per-(b, head) pass-through sums of layer l's attention_backward (m->attn_stats)
 * over the batch into m->dprob_norm, m->dpreatt_norm and m->blocked_rows (model.h). */
void model_collect_pass_stats(Model *m, int l);

#endif
