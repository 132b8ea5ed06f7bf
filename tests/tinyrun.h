/* tinyrun.h: the tiny trained run of the tests of ./train --eval on a checkpoint (test_prompt:
 * --prompt; test_sample: --generate): 60 steps of a task of 3 symbols over 6 (copy or sort;
 * d_model 16, 2 heads, one layer, one thread) trained by ./train as runs/t in a fresh folder, and
 * its checkpoint loaded back here, for a decoding done independently of --eval.
 *
 * Static inline, a header rather than testutil.c: that one is linked into the double-precision
 * programs too, which do not have the training objects. */
#ifndef SCALEDOT_TINYRUN_H
#define SCALEDOT_TINYRUN_H

#include <check.h>
#include <stddef.h>
#include <stdio.h>

#include "config/config.h"
#include "model/model.h"
#include "optim/optim.h"
#include "tasks/tasks.h"
#include "train/checkpoint.h"
#include "train/checkpoint_config.h"
#include "train/train.h"
#include "testutil.h"

/* Makes a fresh folder from the mkdtemp template tmpl into dir (n bytes) and trains the tiny run
 * of task (task.name: "copy" or "sort") there as runs/t; fails the test unless ./train exits 0. */
static inline void tiny_train(char *dir, size_t n, const char *tmpl, const char *task) {
    char args[512];
    tu_make_tmp(dir, n, tmpl);
    snprintf(args, sizeof args,
             "--set task.name=%s --set task.length=3 --set task.symbols=6 --set task.val_size=64 "
             "--set model.d_model=16 --set model.n_heads=2 --set model.n_layers=1 "
             "--set train.batch_size=16 --set train.steps=60 --set optim.lr=3e-3 "
             "--set log.every=20 --set train.eval_every=20 --set log.progress=0 "
             "--set run.threads=1 --set run.name=t",
             task);
    ck_assert_int_eq(tu_run_train(dir, args), 0);
}

/* Loads dir/runs/t/checkpoint.bin (its config, its task, its weights) into *m and *t, as ./train
 * --eval would, but through the library here; checks the sequence length is 6 (3 symbols, SEP, 2
 * answer positions fed back). The caller frees both (model_free, task_free). */
static inline void tiny_load(const char *dir, Model *m, Task *t) {
    char ck[300];
    snprintf(ck, sizeof ck, "%s/runs/t/checkpoint.bin", dir);
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(checkpoint_load_config(ck, &c, NULL), 0);
    ck_assert_int_eq(task_init(t, &c), 0);
    ck_assert_int_eq(t->seq_len, 6);
    ModelConfig mc = train_model_config(&c, t);
    ck_assert_int_eq(model_build(m, &mc, 1), 0);
    Optimizer o;
    ck_assert_int_eq(train_optim_init(&o, &c, m->n_params), 0);
    CheckpointState st;
    ck_assert_int_eq(checkpoint_load(ck, m, &o, &st), 0);
    optim_free(&o);
}

#endif
