/* run_setup.h: what one training run owns (TrainRun) and how it is built and freed: the task, model
 * and optimizer from a config, the folder checks and lock, the checkpoint to resume from, the
 * logs. Internal to src/train/ (train.c runs the steps). */
#ifndef SCALEDOT_RUN_SETUP_H
#define SCALEDOT_RUN_SETUP_H

#include "config/config.h"
#include "model/model.h"
#include "optim/optim.h"
#include "tasks/tasks.h"
#include "train/guards.h"
#include "train/run_print.h"
#include "train/runlog.h"

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

/* The place of the errors about a new run's folder dir (no argument names it), into buf (n
 * bytes): where its run.name was set ("configs/scaled.ini:8", "--set (argument 4)"), or its
 * run.dir when that was set later on the line or run.name is the default; both defaults: the
 * folder itself. */
void train_run_folder_place(const Config *c, const char *dir, char *buf, size_t n);

/* The check a new run (no checkpoint) makes of its folder dir before anything is written there:
 * 0 when it is absent, empty but for what a sweep's run command wrote (.lock, its markers, a
 * train.log starting with TRAIN_SWEEP_LOG_START), or a run of ./train (a config.ini it wrote, a
 * checkpoint.bin), or another process trains there (the lock refuses it later); else
 * EXIT_CONFIG after naming it at where (train_run_folder_place): a symbolic link, or a folder
 * holding files of the user's. The sweep's run command (sweep/run_one.c) makes it before its
 * train.log and markers go there. */
int train_run_folder_check(const char *dir, const char *where);

/* 0 when the checkpoint's step is within c's train.steps (a resume or --eval of it); else -1
 * after an error at where (the run folder's place) naming the checkpoint, and the --set that
 * gave train.steps when one did. */
int train_check_steps(const Config *c, const char *checkpoint, long step, const char *where);

/* The first bytes of every train.log a sweep's run command writes (its first line, sweep-run
 * CONFIG: training ...): a train.log that does not start so is the user's. */
#define TRAIN_SWEEP_LOG_START "sweep-run "

/* 1 when dir/train.log is one a sweep's run command began (TRAIN_SWEEP_LOG_START; empty: opened
 * by one stopped before its first line), else 0. */
int train_log_is_sweeps(const char *dir);

/* For a writer that must stay out of every folder ./train writes (--export): the name of the
 * file in dir that makes it one, whether its run trains now or has finished: the manifest
 * (OWNED_MANIFEST, util/owned_dir.h: a run, sweep or report folder), or, from a version before
 * manifests, a checkpoint.bin with our magic or a config.ini ./train wrote; NULL when dir holds
 * none. */
const char *train_run_folder_mark(const char *dir);

/* 1 when name (no folder) is a file name a run writes in its folder (config.ini, loss.csv,
 * attn_map.csv, ..., the folder's manifest and .lock, a sweep run's train.log), else 0: a file of
 * another's under it would fail the run, or be read and rewritten as the run's own. */
int train_run_writes_name(const char *name);

/* The length of the longest name train_run_writes_name knows (attn_map_tokens.csv): what a run
 * folder's path needs room for after its '/'. */
size_t train_run_name_max(void);

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
    char dir[PATH_MAX];
    char *cfg_text;         /* the resolved configuration, as written to config.ini */
    long start_step;        /* updates done before this process (resume) */
    double resumed_elapsed; /* seconds spent before this process (resume) */
    long skipped;           /* updates skipped after a non-finite loss or gradient */
    int lock_fd;            /* run_lock.h: held while this process trains in dir; -1 none */
    int owned;              /* util/owned_dir.h: dir's handle while registered; -1 none */
    GuardLog guards;        /* tripped guards: reported once each, counted (guards.h) */
} TrainRun;

#define RUN_FINISHED (-1) /* run_build: the checkpoint is of the finished run; nothing to do */

/* Builds everything the run needs; returns 0 or an exit code. With a checkpoint path, the
 * parameters, optimizer state, data generator and step come from it, and the logs are kept in
 * the checkpoint's folder (c's run.dir and run.name are then what the run records); checked,
 * when not NULL, is the folder's print taken before the caller's checks read it, and the resume
 * is refused (EXIT_CONFIG) when the folder, once locked, is no longer that (run_print.h); a
 * checkpoint of the finished run (at train.steps, its attention map written, loss.csv's final
 * row there) returns RUN_FINISHED before anything in the folder is touched, and a log the resume
 * continues that is absent is refused (EXIT_CONFIG) as early. A new run (no checkpoint) refuses
 * a folder that is a symbolic link or holds files but no run of ./train (EXIT_CONFIG), and
 * removes what an earlier run there left. run_free releases r after any return. */
int run_build(TrainRun *r, const Config *c, const char *checkpoint, const RunPrint *checked);

/* The part of a run that training and --eval share: the task (validation set included; with
 * model_only, as far as the model needs it: task_init_model_only, so a text run's file is not
 * read), the model sized for batches of max_batch, and a zeroed optimizer. Returns 0 or an exit
 * code. */
int run_build_task_model_optimizer(TrainRun *r, const Config *c, int max_batch, int model_only);

/* Releases everything r holds (the lock too); safe on a run whose build failed part way. */
void run_free(TrainRun *r);

#endif
