/* resolved.c: a configuration as its run uses it (resolved.h). The rules themselves have their
 * homes elsewhere (train_model_config, task_has_separator); this file only applies them. And
 * the attention-logit spread a config predicts at step 0, from the config alone. */
#include "train/resolved.h"

#include <string.h>

#include "model/model.h"
#include "tasks/tasks.h"
#include "train/run_setup.h"

void train_resolve_config(Config *c, int T) {
    Task t;
    memset(&t, 0, sizeof t);
    t.seq_len = T;
    ModelConfig mc = train_model_config(c, &t);
    c->d_ff = mc.d_ff;
    c->max_seq_len = mc.max_seq_len;
    if (c->window >= T) c->window = 0;
    c->task_separator = task_has_separator(c) ? SEPARATOR_TRUE : SEPARATOR_FALSE;
}

double train_predicted_logit_std(const Config *c) {
    int d_k = c->d_model / c->n_heads;
    int qk_norm = c->qk_norm != QK_NORM_NONE; /* normalises init.q_mult, init.k_mult away */
    double mult = qk_norm ? 1.0 : c->init_q_mult * c->init_k_mult; /* model.h */
    /* μP's W_q (and bias) start at 0: q = 0, and a norm of 0 is 0, so every logit is 0 */
    if (c->param == PARAM_MUP) mult = 0.0;
    return model_predicted_logit_std(c->d_model, d_k, config_attention_scale(c, d_k) * mult,
                                     qk_norm,
                                     model_qkv_init_std(c->d_model, c->init == INIT_GPT2,
                                                        c->init_std));
}
