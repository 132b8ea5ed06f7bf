/* train.h: the training run: build the task and model from a config, train, evaluate, log. The
 * config mapped to the model's, schedule's and optimizer's structs is run_setup.h's, the
 * predicted logit spread resolved.h's; both are included here for the run's callers. */
#ifndef SCALEDOT_TRAIN_H
#define SCALEDOT_TRAIN_H

#include "config/config.h"
#include "model/model.h"
#include "optim/optim.h"
#include "tasks/tasks.h"
#include "train/evaluate.h"
#include "train/resolved.h"
#include "train/run_setup.h"
#include "train/sample.h"
#include "util/exit_codes.h"

/* The whole run of ./train CONFIG: returns an exit code (util/exit_codes.h), or 128 + the signal
 * number after SIGINT or SIGTERM (a checkpoint is written first: 130, 143). */
int train_run(const Config *c);

/* Same, continuing from the checkpoint file at path (NULL: a fresh run), in the checkpoint's
 * folder. c must be the checkpoint's own configuration (checkpoint_read_config), possibly with a
 * larger train.steps; its run.dir and run.name are what the run records. checked: the folder's
 * print (run_print.h) taken before the caller's checks of it, verified once the folder is locked
 * (exit code 2 when it changed); NULL when the caller checked nothing (a test's own folder).
 * The rows logged after resuming are bitwise identical to those of the uninterrupted run, but
 * for the timing columns. A checkpoint of the finished run (at train.steps, attn_map.csv
 * written, loss.csv's last row of that step) is a note and exit code 0, every file of the folder
 * left byte for byte as it was; without that row (an extension killed before its first
 * checkpoint dropped it) the final evaluation is done again. */
int train_run_from(const Config *c, const char *checkpoint, const RunPrint *checked);

/* Where --eval's inputs were given, for the errors about each (error_place's "OPTION (argument
 * N)"; NULL: no place): the run folder ("--eval (argument 2)"), --prompt and --top-k. */
typedef struct {
    const char *run, *prompt, *top_k;
} EvalPlaces;

/* ./train --eval: loads the checkpoint (built from its own configuration c), prints the
 * validation loss and accuracies, the run's provenance and n_examples validation examples with
 * the model's greedy answer, wrong ones first (evaluate_print_examples); with prompt (not NULL)
 * the answer to that prompt instead of the examples (prompt.h), or with gen (not NULL) too,
 * gen->n_new tokens generated after it (--generate: sample.h). Each error is at its input's place
 * in at. Returns an exit code. */
int train_eval_checkpoint(const Config *c, const char *checkpoint, int n_examples,
                          const char *prompt, const SampleOptions *gen, const EvalPlaces *at);


/* True when x is NaN or ±Inf, by its bit pattern, so no compiler flag can remove the test. */
int is_nonfinite(double x);

#endif
