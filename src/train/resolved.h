/* resolved.h: a configuration as its run uses it, the settings it leaves to a rule resolved, so
 * that two spellings of one run compare equal (a sweep's duplicate runs, sweep/plan.c; --where's
 * regime, lr_map.c). */
#ifndef SCALEDOT_TRAIN_RESOLVED_H
#define SCALEDOT_TRAIN_RESOLVED_H

#include "config/config.h"

/* Resolves in c what a run on sequences of T tokens (the task's T, T >= 1) leaves to a rule, as
 * the run uses it: model.d_ff 0 is the block's width and model.max_seq_len 0 is T (both as
 * train_model_config builds the model), attention.window >= T is 0 (query i sees keys
 * i - window + 1 .. i, src/model/attention.h: a window of T keys or more is every earlier key,
 * as no window), task.separator auto is true or false as the task has it (task_has_separator,
 * what a run stores). The attention scale is left as it is (its callers compare it each in
 * their own terms). */
void train_resolve_config(Config *c, int T);

/* The step-0 attention-logit std predicted from config c alone (model_predicted_logit_std with
 * c's d_model, d_k = d_model / n_heads, attention scale, qk-norm and qkv init std): the one home
 * of that number for init_check.txt, sweep.csv's predicted_logit_std and ./train --where. c must
 * have n_heads > 0 dividing d_model (config_validate checks it). */
double train_predicted_logit_std(const Config *c);

#endif
