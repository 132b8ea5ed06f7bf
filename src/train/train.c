/* train.c: the training loop (train.h): builds the task, model and optimizer from a config, runs
 * the steps, evaluates and logs, writes checkpoints; the command layer (src/cli/cmd_train.c) calls it. */
#include "train/train.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "optim/optim.h"
#include "train/checkpoint.h"
#include "train/diagnostics.h"
#include "train/guards.h"
#include "train/progress.h"
#include "train/prompt.h"
#include "util/run_lock.h"
#include "train/runlog.h"
#include "train/task_source.h"
#include "util/file_check.h"
#include "util/provenance.h"
#include "util/stop_signal.h"

int is_nonfinite(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return ((bits >> 52) & 0x7ff) == 0x7ff;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

ModelConfig train_model_config(const Config *c, const Task *t) {
    ModelConfig mc = {
        .vocab_size = t->vocab_size,
        .d_model = c->d_model,
        .n_heads = c->n_heads,
        .n_layers = c->n_layers,
        .d_ff = c->d_ff > 0 ? c->d_ff : 4 * c->d_model,
        .max_seq_len = c->max_seq_len > 0 ? c->max_seq_len : t->seq_len,
        .ln_eps = (real)c->ln_eps,
        .scale = (real)config_attention_scale(c, c->d_model / c->n_heads),
        .qk_norm = c->qk_norm == QK_NORM_LAYERNORM,
    };
    return mc;
}

/* Everything one run owns; built once, so the step itself allocates nothing. */
typedef struct {
    const Config *c;
    Task task;
    Model m;
    Optimizer opt;
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
    GuardLog guards;        /* tripped guards: reported once each, counted (guards.h) */
} Run;

/* Name of the first tensor (table order) of buf (params or grads) holding a NaN or Inf. */
static const char *first_nonfinite(const Model *m, const real *buf) {
    for (int i = 0; i < m->n_tensors; i++) {
        const real *g = buf + m->tensors[i].offset;
        for (size_t k = 0; k < m->tensors[i].numel; k++)
            if (is_nonfinite(g[k])) return m->tensors[i].name;
    }
    return NULL;
}

/* The configuration as config.ini and the checkpoint store it: provenance comments first. */
static char *run_config_text(const Config *c) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
#ifdef _OPENMP
    provenance_write(f, omp_get_max_threads());
#else
    provenance_write(f, 1);
#endif
    if (task_source_write(f, c) != 0) {
        fclose(f);
        free(buf);
        return NULL;
    }
    config_write(c, f);
    fclose(f);
    return buf;
}

/* Counts a tripped guard, reported the first time per slot; returns 1 when the run must stop. */
static int guard_trip(Run *r, GuardKind kind, int layer, int head, int step, const char *what) {
    return guards_trip(&r->guards, kind, layer, head, step, what, r->c->guard_action == GUARD_STOP,
                       stderr);
}

static void forward_diag_batch(Run *r) {
    const Task *t = &r->task;
    model_forward(&r->m, t->val_tokens, t->val_targets, t->val_mask, r->diag_B, t->seq_len);
}

/* The step-0 check of the √d_k assumption: printed and kept as init_check.txt. */
static int init_check(Run *r) {
    InitCheck checks[MODEL_MAX_LAYERS];
    for (int l = 0; l < r->m.cfg.n_layers; l++) checks[l] = diag_init_check(&r->m, l);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return -1;
    const ModelConfig *mc = &r->m.cfg;
    double sigma = model_qkv_init_std(mc->d_model, r->c->init == INIT_GPT2, r->c->init_std);
    diag_init_report(f, &r->m, checks,
                     model_predicted_logit_std(mc->d_model, mc->d_model / mc->n_heads,
                                               config_attention_scale(r->c, mc->d_model / mc->n_heads),
                                               mc->qk_norm, sigma));
    fclose(f);
    if (r->c->progress) fputs(text, stderr);
    int rc = runlog_write_file(&r->log, "init_check.txt", text);
    free(text);
    return rc;
}

/* Attention statistics on the fixed validation batch, one attention.csv row per layer and
 * head, and the attention guards. Runs its own forward and backward (for the gradients that
 * reach the attention probabilities and the logits); the training step that follows recomputes
 * its own. Returns 0, or an exit code. */
static int diagnostics(Run *r, int step) {
    Model *m = &r->m;
    int NH = m->cfg.n_heads;
    forward_diag_batch(r);
    /* step 0: the init check, and the attention map before any update (saturation, when the
     * scale is missing, is there from the start) */
    if (step == 0 && (init_check(r) != 0 ||
                      runlog_attn_map_as(&r->log, m, &r->task, 0, "attn_map_step0.csv", NULL) != 0))
        return EXIT_RUNTIME;
    model_zero_grad(m);
    model_backward_diag(m);
    int stop = 0;
    for (int l = 0; l < m->cfg.n_layers; l++)
        for (int h = 0; h < NH; h++) {
            HeadStats s = diag_model_head_stats(m, l, h);
            s.dlogit_norm = m->dpreatt_norm[l * NH + h];
            s.dprob_norm = m->dprob_norm[l * NH + h];
            s.softmax_pass = diag_softmax_pass(s.dlogit_norm, s.dprob_norm);
            s.blocked_rows = m->blocked_rows[l * NH + h];
            if (runlog_attention_row(&r->log, step, l, h, &s) != 0) return EXIT_RUNTIME;
            char what[160];
            if (r->c->guard_logit_std_max > 0 && s.logit_std > r->c->guard_logit_std_max) {
                snprintf(what, sizeof what, "layer %d head %d: attention-logit std %.3g > guard.logit_std_max %g",
                         l, h, s.logit_std, r->c->guard_logit_std_max);
                stop |= guard_trip(r, GUARD_LOGIT_STD, l, h, step, what);
            }
            if (r->c->guard_max_weight_max > 0 && s.max_weight > r->c->guard_max_weight_max) {
                snprintf(what, sizeof what, "layer %d head %d: mean row-max attention weight %.3g > guard.max_weight_max %g",
                         l, h, s.max_weight, r->c->guard_max_weight_max);
                stop |= guard_trip(r, GUARD_MAX_WEIGHT, l, h, step, what);
            }
        }
    return stop ? EXIT_GUARD : 0;
}

static int grad_guard(Run *r, int step, double norm) {
    char what[160];
    const Config *c = r->c;
    if (c->guard_grad_norm_min > 0 && norm < c->guard_grad_norm_min) {
        snprintf(what, sizeof what, "global gradient norm %.3g < guard.grad_norm_min %g", norm, c->guard_grad_norm_min);
        return guard_trip(r, GUARD_GRAD_MIN, 0, 0, step, what) ? EXIT_GUARD : 0;
    }
    if (c->guard_grad_norm_max > 0 && norm > c->guard_grad_norm_max) {
        snprintf(what, sizeof what, "global gradient norm %.3g > guard.grad_norm_max %g", norm, c->guard_grad_norm_max);
        return guard_trip(r, GUARD_GRAD_MAX, 0, 0, step, what) ? EXIT_GUARD : 0;
    }
    return 0;
}

/* The part of a run that training and --eval share: the task (validation set included), the
 * model sized for batches of max_batch, and a zeroed optimizer. Returns 0 or an exit code.
 * task_init has already checked that the sequences fit model.max_seq_len. */
static int build_task_model_optimizer(Run *r, const Config *c, int max_batch) {
    memset(r, 0, sizeof *r);
    r->lock_fd = -1;
    r->c = c;
    if (task_init(&r->task, c) != 0) return EXIT_CONFIG;
    ModelConfig mc = train_model_config(c, &r->task);
    if (model_build(&r->m, &mc, max_batch) != 0) return EXIT_RUNTIME;
    if (optim_init(&r->opt, c->optim, c->beta1, c->beta2, c->eps, c->weight_decay, c->momentum,
                   r->m.n_params) != 0) {
        fprintf(stderr, "error: out of memory\n");
        return EXIT_RUNTIME;
    }
    return 0;
}

/* 1 when dir/config.ini is one ./train wrote: its provenance and task-file comment lines, then
 * config_write's first line (a run from before the provenance lines starts with that line). */
static int config_ini_is_ours(const char *dir) {
    char path[1100], why[128];
    snprintf(path, sizeof path, "%s/config.ini", dir);
    size_t len;
    char *text = file_read_regular(path, 1 << 20, &len, why, sizeof why);
    if (!text) return 0;
    const char *p = text;
    while (strncmp(p, PROVENANCE_PREFIX, strlen(PROVENANCE_PREFIX)) == 0 ||
           strncmp(p, TASK_SOURCE_PREFIX, strlen(TASK_SOURCE_PREFIX)) == 0) {
        p += strcspn(p, "\n");
        if (*p) p++;
    }
    size_t n = strlen(CONFIG_FILE_FIRST_LINE);
    int ours = strncmp(p, CONFIG_FILE_FIRST_LINE, n) == 0 && p[n] == '\n';
    free(text);
    return ours;
}

/* Before a new run (no checkpoint) touches its folder: a symbolic link is refused (the logs
 * would be written wherever it points), and so is a folder that holds files but no run of ours
 * (no config.ini ./train wrote, no checkpoint.bin): its files would be overwritten. An earlier
 * run is replaced, as before; a folder another process trains in is left to the lock's refusal.
 * What a sweep's run command writes before the run starts (.lock, train.log, its markers) and
 * the temporary files of a write cut short (NAME.tmp) do not make a folder a user's. Returns 0
 * or EXIT_CONFIG. */
static int run_folder_check(const char *dir) {
    struct stat st;
    if (lstat(dir, &st) != 0) return 0; /* absent: created below (or the error said there) */
    if (S_ISLNK(st.st_mode)) {
        fprintf(stderr, "error: run folder '%s' is a symbolic link; a run writes only into a "
                        "folder of its own, never through a link. Set run.name to another name, or "
                        "remove the link; nothing was run\n", dir);
        return EXIT_CONFIG;
    }
    if (!S_ISDIR(st.st_mode)) return 0; /* make_dirs reports it (ENOTDIR) */
    DIR *d = opendir(dir);
    if (!d) return 0; /* unreadable: creating the lock or logs there reports it */
    static const char *const sweep_files[] = {".", "..", ".lock", "train.log", "sweep_result.txt",
                                              "sweep_wall.txt"};
    int holds = 0;
    for (struct dirent *e; !holds && (e = readdir(d));) {
        holds = 1;
        for (size_t i = 0; i < sizeof sweep_files / sizeof sweep_files[0]; i++)
            if (strcmp(e->d_name, sweep_files[i]) == 0) holds = 0;
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".tmp") == 0) holds = 0;
    }
    closedir(d);
    if (!holds || run_lock_holder(dir) != 0) return 0;
    char path[1100];
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    if (access(path, F_OK) == 0 || config_ini_is_ours(dir)) return 0;
    fprintf(stderr, "error: run folder '%s' holds files but no run of ./train (no config.ini it "
                    "wrote, no checkpoint.bin); a new run would overwrite them. Set run.name to "
                    "another name, or move the folder away; nothing was run\n", dir);
    return EXIT_CONFIG;
}

#define RUN_FINISHED (-1) /* run_build: the checkpoint is of the finished run; nothing to do */

/* Builds everything the run needs; returns 0 or an exit code. With a checkpoint path, the
 * parameters, optimizer state, data generator and step come from it, and the logs are kept; a
 * checkpoint of the finished run (at train.steps, its attention map written) returns
 * RUN_FINISHED before anything in the folder is touched. */
static int run_build(Run *r, const Config *c, const char *checkpoint) {
    memset(r, 0, sizeof *r); /* run_free of a run refused here frees nothing */
    r->lock_fd = -1;
    char dir[sizeof r->dir];
    snprintf(dir, sizeof dir, "%s/%s", c->run_dir, c->run_name);
    int rc = checkpoint ? 0 : run_folder_check(dir);
    if (rc != 0) return rc;
    rc = build_task_model_optimizer(r, c, c->batch_size);
    if (rc != 0) return rc;
    int B = c->batch_size, T = r->task.seq_len;
    Rng init_rng;
    rng_seed(&init_rng, (uint64_t)c->seed ^ 0x696e6974ull); /* "init": a stream of its own */
    if (c->init == INIT_FAN_IN)
        model_init_fan_in(&r->m, &init_rng);
    else
        model_init_gpt2(&r->m, &init_rng, c->init_std);
    r->diag_B = r->task.n_val < B ? r->task.n_val : B;
    if (guards_init(&r->guards, r->m.cfg.n_layers, r->m.cfg.n_heads) != 0) {
        fprintf(stderr, "error: out of memory\n");
        return EXIT_RUNTIME;
    }
    r->tokens = malloc(sizeof(int) * (size_t)B * T);
    r->targets = malloc(sizeof(int) * (size_t)B * T);
    r->mask = malloc(sizeof(float) * (size_t)B * T);
    /* config.ini and the checkpoint say which format the run used (true or false, never auto),
     * so a later change of a task's own default cannot change what a resume does. */
    Config stored = *c;
    stored.task_separator = task_has_separator(c) ? SEPARATOR_TRUE : SEPARATOR_FALSE;
    r->cfg_text = run_config_text(&stored);
    if (!r->tokens || !r->targets || !r->mask || !r->cfg_text) {
        fprintf(stderr, "error: out of memory\n");
        return EXIT_RUNTIME;
    }
    long resume_step = -1;
    if (checkpoint) {
        CheckpointState st;
        if (checkpoint_load(checkpoint, &r->m, &r->opt, &st) != 0) return EXIT_CONFIG;
        if (st.step > c->steps) {
            fprintf(stderr, "error: checkpoint '%s' is at step %ld, beyond train.steps = %d\n",
                    checkpoint, st.step, c->steps);
            return EXIT_CONFIG;
        }
        /* finished: the final checkpoint and attention map were written; nothing is touched */
        char map[1100];
        snprintf(map, sizeof map, "%s/%s/attn_map.csv", c->run_dir, c->run_name);
        if (st.step == c->steps && access(map, F_OK) == 0) {
            fprintf(stderr, "run '%s' has finished its %d steps: nothing to train, nothing "
                            "written (raise train.steps with --set to train on)\n",
                    c->run_name, c->steps);
            return RUN_FINISHED;
        }
        r->task.rng = st.data_rng;
        r->skipped = st.skipped;
        r->start_step = st.step;
        r->resumed_elapsed = st.elapsed_s;
        resume_step = st.step;
    }
    snprintf(r->dir, sizeof r->dir, "%s/%s", c->run_dir, c->run_name);
    /* before anything in the folder is touched: a second ./train there would mix two runs */
    pid_t holder = 0;
    if (make_dirs(r->dir) != 0 || (r->lock_fd = run_lock_take(r->dir, &holder)) == -1) {
        fprintf(stderr, "error: cannot create run folder '%s': %s\n", r->dir, strerror(errno));
        return EXIT_RUNTIME;
    }
    if (r->lock_fd == -2) {
        fprintf(stderr, "error: %s/ is being trained by another process (pid %ld); wait for it, or "
                        "set run.name for a run of its own\n", r->dir, (long)holder);
        return EXIT_CONFIG;
    }
    if (!checkpoint) {
        char previous[1100];
        snprintf(previous, sizeof previous, "%s/loss.csv", r->dir);
        if (access(previous, F_OK) == 0)
            fprintf(stderr, "note: %s/ holds an earlier run; its logs and checkpoint are replaced "
                            "(set run.name to keep both)\n", r->dir);
        /* nothing of an earlier run may outlive it: a stale checkpoint would later be resumed
         * as if it belonged to this run's logs */
        static const char *const stale[] = {"checkpoint.bin", "checkpoint.bin.tmp", "attn_map.csv",
                                            "attn_map_tokens.csv", "attn_map_step0.csv",
                                            "init_check.txt"};
        for (size_t i = 0; i < sizeof stale / sizeof stale[0]; i++) {
            snprintf(previous, sizeof previous, "%s/%s", r->dir, stale[i]);
            remove(previous);
        }
    }
    rc = runlog_open_bpb(&r->log, r->dir, &r->m, r->cfg_text, resume_step,
                         r->task.kind == TASK_TEXT);
    return rc == 0 ? 0 : rc == -2 ? EXIT_CONFIG : EXIT_RUNTIME; /* -2: a log is not a file */
}

static void run_free(Run *r) {
    runlog_close(&r->log);
    if (r->lock_fd >= 0) close(r->lock_fd);
    guards_free(&r->guards);
    free(r->cfg_text);
    free(r->tokens);
    free(r->targets);
    free(r->mask);
    optim_free(&r->opt);
    model_free(&r->m);
    task_free(&r->task);
}

static int save_checkpoint(Run *r, long updates_done, double elapsed_s) {
    char path[1100];
    snprintf(path, sizeof path, "%s/checkpoint.bin", r->dir);
    CheckpointState st = {updates_done, elapsed_s, r->skipped, r->task.rng};
    return checkpoint_save(path, r->cfg_text, &r->m, &r->opt, &st) == 0 ? 0 : EXIT_RUNTIME;
}

/* Reports a non-finite loss or gradient at this step: names the first parameter (a non-finite
 * one explains everything after it) or gradient tensor affected. */
static void report_divergence(const Run *r, int step, double loss, double norm) {
    const Model *m = &r->m;
    const char *param = first_nonfinite(m, m->params), *grad = first_nonfinite(m, m->grads);
    int skip = r->c->on_divergence == DIVERGENCE_SKIP;
    fprintf(stderr, "%s: run '%s' diverged at step %d: loss %g, gradient norm %g; %s %s. %s\n",
            skip ? "warning" : "error", r->c->run_name, step, loss, norm,
            param ? "first non-finite parameter:" : grad ? "first non-finite gradient:" : "",
            param ? param : grad ? grad : "the loss alone is non-finite",
            skip ? "Update skipped (train.on_divergence = skip)." : "Logs up to this step are kept.");
}

/* After SIGINT / SIGTERM: the checkpoint of `done` updates, then 128 + the signal (or
 * EXIT_RUNTIME when the checkpoint cannot be written). */
static int stop_run(Run *r, long done, double elapsed_s) {
    int sig = stop_signal_caught();
    if (save_checkpoint(r, done, elapsed_s) != 0) return EXIT_RUNTIME;
    fprintf(stderr, "\n%s after step %ld: checkpoint and logs written to %s/; continue with "
                    "./train --resume %s\n",
            sig == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)", done, r->dir, r->dir);
    return 128 + sig;
}

int train_run(const Config *c) { return train_run_from(c, NULL); }

int train_run_from(const Config *c, const char *checkpoint) {
#ifdef _OPENMP
    if (c->threads > 0) omp_set_num_threads(c->threads);
#endif
    Run run;
    int rc = run_build(&run, c, checkpoint);
    if (rc != 0) {
        run_free(&run);
        return rc == RUN_FINISHED ? EXIT_OK : rc;
    }
    Model *m = &run.m;
    Task *task = &run.task;
    int B = c->batch_size, T = task->seq_len;
    fprintf(stderr,
            "run '%s': task %s, T=%d tokens, vocab %d; d_model %d, n_heads %d (d_k %d), n_layers %d, "
            "d_ff %d; %zu parameters; attention scale %.6g%s; %d steps of batch %d%s\n",
            c->run_name, task_kind_name(task->kind), T, m->cfg.vocab_size, m->cfg.d_model,
            m->cfg.n_heads, m->cfg.d_model / m->cfg.n_heads, m->cfg.n_layers, m->cfg.d_ff,
            m->n_params, (double)m->cfg.scale, m->cfg.qk_norm ? " with qk-LayerNorm" : "",
            c->steps, B, checkpoint ? " (resumed)" : "");
    if (checkpoint) fprintf(stderr, "resuming from %s at step %ld\n", checkpoint, run.start_step);

    /* SIGINT / SIGTERM ask the loop to stop after the current step */
    StopSignals saved;
    stop_signals_catch(&saved);

    double t0 = now_s() - run.resumed_elapsed, t_last = now_s();
    long tokens_since = 0;
    for (int step = (int)run.start_step; step <= c->steps && rc == 0; step++) {
        int last = step == c->steps;
        int do_eval = last || step % c->eval_every == 0;
        int do_log = do_eval || step % c->log_every == 0;
        if (do_log && (rc = diagnostics(&run, step)) != 0) break;
        EvalResult ev = {NAN, NAN, NAN};
        if (do_eval && evaluate_validation_until(m, task, stop_signal_caught, &ev) != 0) {
            /* stopped inside the validation pass: no row for this step (a partial evaluation is
             * never logged); the checkpoint holds the `step` updates done, so a resume starts
             * with this step's diagnostics and evaluation again (runlog drops this step's
             * attention rows) */
            rc = stop_run(&run, step, now_s() - t0);
            break;
        }

        double loss = NAN, norm = NAN, lr = NAN;
        if (!last) {
            task_train_batch(task, B, run.tokens, run.targets, run.mask);
            loss = model_forward(m, run.tokens, run.targets, run.mask, B, T);
            model_zero_grad(m);
            model_backward(m);
            lr = optim_lr_at(c, step);
            norm = model_norm(m->grads, m->n_params); /* logged before clipping */
            if (do_log && runlog_grad_row(&run.log, step, m, norm) != 0) {
                rc = EXIT_RUNTIME;
                break;
            }
            tokens_since += (long)B * T;
        }
        double t = now_s();
        double tps = (do_log && t > t_last && tokens_since > 0) ? tokens_since / (t - t_last) : NAN;
        double ms = is_nonfinite(tps) ? NAN : 1e3 * (t - t_last) / ((double)tokens_since / ((double)B * T));
        int diverged = !last && (is_nonfinite(loss) || is_nonfinite(norm));
        if (diverged) run.skipped += c->on_divergence == DIVERGENCE_SKIP;
        if (do_log || diverged) {
            LossRow row = {step, !last, do_eval, loss, ev.loss, ev.token_acc, ev.answer_acc,
                           lr, norm, t - t0, tps, run.skipped, evaluate_bits_per_byte(ev.loss)};
            if (runlog_loss_row(&run.log, &row) != 0) {
                rc = EXIT_RUNTIME;
                break;
            }
            if (!is_nonfinite(tps)) {
                t_last = t;
                tokens_since = 0;
            }
        }
        if (do_log && c->progress) {
            /* the pace of this process's updates; none timed yet: no ETA rather than "0s" */
            long done = step - run.start_step;
            double spent = t - t0 - run.resumed_elapsed;
            ProgressRow p = {step, c->steps, loss, ms, tps,
                             done > 0 ? spent / done * (c->steps - step) : NAN,
                             do_eval, ev.loss, ev.answer_acc, ev.token_acc,
                             task->kind == TASK_TEXT, evaluate_bits_per_byte(ev.loss)};
            progress_line(stderr, &p);
        }
        if (last) break;
        if (diverged) {
            report_divergence(&run, step, loss, norm);
            if (c->on_divergence == DIVERGENCE_STOP) {
                rc = EXIT_DIVERGED;
                break;
            }
        } else {
            if ((rc = grad_guard(&run, step, norm)) != 0) break;
            optim_clip_grads(m->grads, m->n_params, c->grad_clip, norm);
            optim_step(&run.opt, m->params, m->grads, m->tensors, m->n_tensors, lr);
        }
        long done = step + 1;
        if (c->checkpoint_every > 0 && done % c->checkpoint_every == 0 && done < c->steps &&
            (rc = save_checkpoint(&run, done, now_s() - t0)) != 0)
            break;
        if (stop_signal_caught()) {
            rc = stop_run(&run, done, now_s() - t0);
            break;
        }
    }
    if (rc == 0) rc = save_checkpoint(&run, c->steps, now_s() - t0);
    if (rc == 0) {
        /* the attention of one validation example at the end, for the heatmaps */
        forward_diag_batch(&run);
        if (runlog_attn_map(&run.log, m, task, 0) != 0) rc = EXIT_RUNTIME;
    }
    /* a language model's own words at the end, for --compare (sample.h) */
    if (rc == 0 && sample_is_byte_task(task) && sample_write_run(run.dir, m, task) != 0)
        rc = EXIT_RUNTIME;
    if (rc == 0) {
        double total = now_s() - t0;
        char here[64] = ""; /* a resumed run: t0 was moved back by the time before the resume */
        if (run.resumed_elapsed > 0)
            snprintf(here, sizeof here, " (%.1f s in this process)", total - run.resumed_elapsed);
        fprintf(stderr, "run '%s' finished in %.1f s%s; logs in %s/\n", c->run_name, total, here,
                run.dir);
    }
    guards_summary(&run.guards, stderr); /* however the run ended */
    if (runlog_close(&run.log) != 0 && rc == 0) {
        fprintf(stderr, "error: cannot finish writing the logs in %s\n", run.dir);
        rc = EXIT_RUNTIME;
    }
    stop_signals_restore(&saved);
    run_free(&run);
    return rc;
}

int train_eval_checkpoint(const Config *c, const char *checkpoint, int n_examples,
                          const char *prompt, const SampleOptions *gen) {
#ifdef _OPENMP
    if (c->threads > 0) omp_set_num_threads(c->threads);
#endif
    Run run;
    CheckpointState st;
    /* evaluation needs no large batch; the training one may not even fit this machine */
    int rc = build_task_model_optimizer(&run, c, c->batch_size < 64 ? c->batch_size : 64);
    if (rc != 0) goto done;
    rc = EXIT_CONFIG;
    if (checkpoint_load(checkpoint, &run.m, &run.opt, &st) != 0) goto done;
    if (c->steps < st.step) {
        fprintf(stderr, "error: checkpoint '%s' is at step %ld, beyond its train.steps = %d\n",
                checkpoint, st.step, c->steps);
        goto done;
    }
    if (prompt) { /* the answer alone: one line a script can read */
        rc = gen ? sample_prompt(&run.m, &run.task, prompt, gen, stdout)
                 : prompt_answer(&run.m, &run.task, prompt, stdout);
        goto done;
    }
    EvalResult ev = evaluate_validation(&run.m, &run.task);
    printf("checkpoint %s: step %ld, task %s, %d validation examples\n", checkpoint, st.step,
           task_kind_name(run.task.kind), run.task.n_val);
    char *stored = NULL;
    if (checkpoint_read_config(checkpoint, &stored) == 0 &&
        provenance_print_lines(stored, "  ", stdout) == 0)
        printf("  (no provenance: written by a version before 0.11)\n");
    free(stored);
    if (run.task.kind == TASK_TEXT)
        printf("validation loss %.4f nats/byte (%.4f bits per byte), next-byte accuracy %.2f%%\n",
               ev.loss, evaluate_bits_per_byte(ev.loss), 100 * ev.token_acc);
    else
        printf("validation loss %.4f, answer accuracy %.2f%%, token accuracy %.2f%%\n", ev.loss,
               100 * ev.answer_acc, 100 * ev.token_acc);
    /* a text window has no answer to show right or wrong: the model's own text is --generate's */
    if (run.task.kind == TASK_TEXT) {
        printf("(a text run has no answers to list; see its sample.txt, or --prompt \"TEXT\" "
               "--generate N)\n");
        rc = EXIT_OK;
    } else {
        rc = evaluate_print_examples(&run.m, &run.task, n_examples, stdout) == 0 ? EXIT_OK
                                                                                 : EXIT_RUNTIME;
    }
done:
    run_free(&run);
    return rc;
}
