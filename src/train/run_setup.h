/* run_setup.h: what one training run owns (Run) and how it is built and freed: the task, model
 * and optimizer from a config, the folder checks and lock, the checkpoint to resume from, the
 * logs. Internal to src/train/ (train.c runs the steps). */
#ifndef SCALEDOT_RUN_SETUP_H
#define SCALEDOT_RUN_SETUP_H

#include "optim/optim.h"
#include "train/guards.h"
#include "train/runlog.h"
#include "train/train.h"

/* Everything one run owns; built once, so the step itself allocates nothing. */
typedef struct {
    const Config *c;
    Task task;
    Model m;
    Optimizer opt;
    LrSchedule sched; /* the learning rate of each step (train_lr_schedule) */
    RunLog log;
    int *tokens, *targets;
    float *mask;
    int diag_B;  /* the fixed validation batch of the diagnostics: its first diag_B examples */
    char dir[1024];
    char *cfg_text;         /* the resolved configuration, as written to config.ini */
    long start_step;        /* updates done before this process (resume) */
    double resumed_elapsed; /* seconds spent before this process (resume) */
    long skipped;           /* updates skipped after a non-finite loss or gradient */
    int lock_fd;            /* run_lock.h: held while this process trains in dir; -1 none */
    int owned;              /* util/owned_dir.h: dir's handle while registered; -1 none */
    GuardLog guards;        /* tripped guards: reported once each, counted (guards.h) */
} Run;

#define RUN_FINISHED (-1) /* run_build: the checkpoint is of the finished run; nothing to do */

/* Builds everything the run needs; returns 0 or an exit code. With a checkpoint path, the
 * parameters, optimizer state, data generator and step come from it, and the logs are kept; a
 * checkpoint of the finished run (at train.steps, its attention map written) returns
 * RUN_FINISHED before anything in the folder is touched. A new run (no checkpoint) refuses a
 * folder that is a symbolic link or holds files but no run of ./train (EXIT_CONFIG), and removes
 * what an earlier run there left. run_free releases r after any return. */
int run_build(Run *r, const Config *c, const char *checkpoint);

/* The part of a run that training and --eval share: the task (validation set included; with
 * model_only, as far as the model needs it: task_init_model_only, so a text run's file is not
 * read), the model sized for batches of max_batch, and a zeroed optimizer. Returns 0 or an exit
 * code. */
int run_build_task_model_optimizer(Run *r, const Config *c, int max_batch, int model_only);

/* Releases everything r holds (the lock too); safe on a run whose build failed part way. */
void run_free(Run *r);

#endif
