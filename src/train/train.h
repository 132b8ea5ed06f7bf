/* train.h: the training run: build the task and model from a config, train, evaluate, log. */
#ifndef SCALEDOT_TRAIN_H
#define SCALEDOT_TRAIN_H

#include "config/config.h"
#include "model/model.h"
#include "optim/optim.h"
#include "tasks/tasks.h"
#include "train/evaluate.h"
#include "train/sample.h"
#include "util/exit_codes.h"

/* μP's width multiplier m = model.d_model / model.base_width with model.param = mup (the
 * logits' factor 1/m, the hidden matrices' rate lr/m, head.weight's init √m: run_setup.c); 1
 * with model.param = standard. */
double train_width_mult(const Config *c);

/* Builds the model config (V, T and the attention scale resolved) for a config and a task. */
ModelConfig train_model_config(const Config *c, const Task *t);

/* The learning-rate schedule (optim.h) of a config: optim.lr, optim.min_lr, optim.warmup_steps,
 * optim.schedule and train.steps. */
LrSchedule train_lr_schedule(const Config *c);

/* optim_init with the optimizer a config asks for: optim.name, beta1, beta2, eps, weight_decay,
 * momentum, optim.lr_q_mult, optim.lr_k_mult (optim_set_qk_lr_mult) and model.param's hidden
 * rate (optim_set_hidden_lr_mult, 1/train_width_mult); zeroed state for
 * n_params parameters. Returns 0, or -1 on out-of-memory. */
int train_optim_init(Optimizer *o, const Config *c, size_t n_params);

/* The whole run of ./train CONFIG: returns an exit code (util/exit_codes.h), or 128 + the signal
 * number after SIGINT or SIGTERM (a checkpoint is written first: 130, 143). */
int train_run(const Config *c);

/* Same, continuing from the checkpoint file at path (NULL: a fresh run). c must be the
 * checkpoint's own configuration (checkpoint_read_config), possibly with a larger train.steps.
 * The rows logged after resuming are bitwise identical to those of the uninterrupted run, but
 * for the timing columns. A checkpoint of the finished run (at train.steps, attn_map.csv
 * written) is a note and exit code 0, every file of the folder left byte for byte as it was. */
int train_run_from(const Config *c, const char *checkpoint);

/* ./train --eval: loads the checkpoint (built from its own configuration c), prints the
 * validation loss and accuracies, the run's provenance and n_examples validation examples with
 * the model's greedy answer, wrong ones first (evaluate_print_examples); with prompt (not NULL)
 * the answer to that prompt instead of the examples (prompt.h), or with gen (not NULL) too,
 * gen->n_new tokens generated after it (--generate: sample.h). Returns an exit code. */
int train_eval_checkpoint(const Config *c, const char *checkpoint, int n_examples,
                          const char *prompt, const SampleOptions *gen);

/* The check a new run (no checkpoint) makes of its folder dir before anything is written there:
 * 0 when it is absent, empty but for what a sweep's run command wrote (.lock, its markers, a
 * train.log starting with TRAIN_SWEEP_LOG_START), or a run of ./train (a config.ini it wrote, a
 * checkpoint.bin), or another process trains there (the lock refuses it later); else
 * EXIT_CONFIG after naming it: a symbolic link, or a folder holding files of the user's. The
 * sweep's run command (sweep/run_one.c) makes it before its train.log and markers go there. */
int train_run_folder_check(const char *dir);

/* The first bytes of every train.log a sweep's run command writes (its first line, sweep-run
 * CONFIG: training ...): a train.log that does not start so is the user's. */
#define TRAIN_SWEEP_LOG_START "sweep-run "

/* 1 when dir/train.log is one a sweep's run command began (TRAIN_SWEEP_LOG_START; empty: opened
 * by one stopped before its first line), else 0. */
int train_log_is_sweeps(const char *dir);

/* True when x is NaN or ±Inf, by its bit pattern, so no compiler flag can remove the test. */
int is_nonfinite(double x);

/* The step-0 attention-logit std predicted from config c alone (model_predicted_logit_std with
 * c's d_model, d_k = d_model / n_heads, attention scale, qk-norm and qkv init std): the one home
 * of that number for init_check.txt, sweep.csv's predicted_logit_std and ./train --where. c must
 * have n_heads > 0 dividing d_model (config_validate checks it). */
double train_predicted_logit_std(const Config *c);

#endif
