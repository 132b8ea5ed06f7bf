/* train.c: the training loop (train.h): runs the steps of a run built by run_setup.c (step,
 * log, evaluate, guard, checkpoint, stop), writes the final checkpoint and attention map, and
 * --eval; the command layer (src/cli/cmd_train.c) calls it. */
#include "train/train.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "model/matmul_bf16.h"
#include "optim/optim.h"
#include "train/attn_steps.h"
#include "train/checkpoint.h"
#include "train/diagnostics.h"
#include "train/guards.h"
#include "train/lr_map.h"
#include "train/progress.h"
#include "train/prompt.h"
#include "train/run_setup.h"
#include "train/runlog.h"
#include "util/clock.h"
#include "util/error_list.h"
#include "util/provenance.h"
#include "util/stop_signal.h"

int is_nonfinite(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return ((bits >> 52) & 0x7ff) == 0x7ff;
}

/* The clock of a run: its start (moved back by the time before a resume) and the tokens trained
 * since the last logged row, for the tokens-per-second column. */
typedef struct {
    double t0, t_last;
    long tokens_since;
} Pace;

/* What one step computed, for its log rows and the update. NAN where the step had no such
 * number (the last step trains nothing; a step without evaluation has no validation loss). */
typedef struct {
    int step, last, do_eval, do_log, diverged;
    EvalResult ev;
    double loss, norm, lr;
} Step;

/* Name of the first tensor (table order) of buf (params or grads) holding a NaN or Inf. */
static const char *first_nonfinite(const Model *m, const real *buf) {
    for (int i = 0; i < m->n_tensors; i++) {
        const real *g = buf + m->tensors[i].offset;
        for (size_t k = 0; k < m->tensors[i].numel; k++)
            if (is_nonfinite(g[k])) return m->tensors[i].name;
    }
    return NULL;
}

static void forward_diag_batch(TrainRun *r) {
    const Task *t = &r->task;
    model_forward(&r->m, t->val_tokens, t->val_targets, t->val_mask, r->diag_B, t->seq_len);
}

/* The step-0 check of the √d_k assumption: printed and kept as init_check.txt. */
static int init_check(TrainRun *r) {
    InitCheck checks[MODEL_MAX_LAYERS];
    for (int l = 0; l < r->m.cfg.n_layers; l++) checks[l] = diag_init_check(&r->m, l);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return -1;
    diag_init_report(f, &r->m, checks, train_predicted_logit_std(r->c));
    long shown = ftell(f); /* what stderr gets: the lr map line only when it matters */
    /* where this run's lr lies in its measured regime (lr_map.h): step 0 alone can look harmless
     * at a learning rate that fails */
    LrPlacement where;
    int matters = 0;
    if (lr_map_place(r->c, r->task.seq_len, NULL, &where) == 0) {
        lr_map_verdict(f, &where, "lr map: ");
        matters = lr_map_note_matters(&where);
    }
    fclose(f);
    if (r->c->progress) fprintf(stderr, "%.*s", matters ? (int)len : (int)shown, text);
    int rc = runlog_write_file(&r->log, "init_check.txt", text);
    free(text);
    return rc;
}

/* Attention statistics on the fixed validation batch, one attention.csv row per layer and
 * head, and the attention guards; at an evaluation, the logit histograms and maps of
 * attn_steps.csv (attn_steps.h says which steps and heads). Runs its own forward and backward (for
 * the gradients that reach the attention probabilities and the logits); the training step that
 * follows recomputes its own. Returns 0, or an exit code. */
static int diagnostics(TrainRun *r, int step, int do_eval) {
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
    int tripped = 0;
    int steps_row = do_eval && attn_steps_logs_step(step, r->c->steps, r->c->eval_every);
    for (int l = 0; l < m->cfg.n_layers; l++)
        for (int h = 0; h < NH; h++) {
            long hist[DIAG_HIST_BINS + 1] = {0};
            int keep = steps_row && attn_steps_logs_head(l, h, m->cfg.n_layers, NH);
            HeadStats s = diag_model_head_hist(m, l, h, keep ? hist : NULL);
            if (keep && runlog_attn_steps_row(&r->log, step, m, l, h, hist) != 0)
                return EXIT_RUNTIME;
            s.dlogit_norm = m->dpreatt_norm[l * NH + h];
            s.dprob_norm = m->dprob_norm[l * NH + h];
            s.softmax_pass = diag_softmax_pass(s.dlogit_norm, s.dprob_norm);
            s.blocked_rows = m->blocked_rows[l * NH + h];
            s.attn_scale = attn_factor(model_attn_scores(m, l), h);
            s.clipped_steps = m->clip_count ? m->clip_count[l * NH + h] : 0;
            s.qk_gain_rms = diag_qk_gain_rms(m, l);
            if (runlog_attention_row(&r->log, step, l, h, &s) != 0) return EXIT_RUNTIME;
            tripped |= guards_check(&r->guards, GUARD_LOGIT_STD, s.logit_std, l, h, step, stderr);
            tripped |= guards_check(&r->guards, GUARD_MAX_WEIGHT, s.max_weight, l, h, step, stderr);
        }
    return tripped && r->guards.stop ? EXIT_GUARD : 0;
}

/* The gradient-norm guards: the lower bound first; the upper one only when it did not trip. */
static int grad_guard(TrainRun *r, int step, double norm) {
    GuardLog *g = &r->guards;
    int tripped = guards_check(g, GUARD_GRAD_MIN, norm, 0, 0, step, stderr) ||
                  guards_check(g, GUARD_GRAD_MAX, norm, 0, 0, step, stderr);
    return tripped && g->stop ? EXIT_GUARD : 0;
}

/* The line a second SIGINT / SIGTERM prints before it ends the process at once (stop_signal.h):
 * what the run's folder then holds, and what to do with it; checkpoint_step the updates done
 * in the folder's checkpoint, -1 when it has none. */
static void note_stop_state(const TrainRun *r, long checkpoint_step) {
    char note[STOP_NOTE_MAX];
    if (checkpoint_step >= 0)
        snprintf(note, sizeof note, "no checkpoint of this step. %s/ keeps its logs and the "
                 "checkpoint of step %ld; ./train --resume %s continues from there\n",
                 r->dir, checkpoint_step, r->dir);
    else
        snprintf(note, sizeof note, "no checkpoint was written (one Ctrl-C writes one; "
                 "train.checkpoint_every = %d: %s). %s/ holds the logs so far and nothing to "
                 "resume: the same command trains the run again from step 0, replacing them\n",
                 r->c->checkpoint_every,
                 r->c->checkpoint_every > 0 ? "the first comes at that step" : "none before the end",
                 r->dir);
    stop_signal_note(note);
}

static int save_checkpoint(TrainRun *r, long updates_done, double elapsed_s) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/checkpoint.bin", r->dir);
    CheckpointState st = {updates_done, elapsed_s, r->skipped, r->task.rng, 1};
    /* held: a second signal between the rename and the new note would name the checkpoint
     * before it (or none) */
    stop_signals_hold();
    int failed = checkpoint_save(path, r->cfg_text, &r->m, &r->opt, &st) != 0;
    if (!failed) note_stop_state(r, updates_done);
    stop_signals_release();
    return failed ? EXIT_RUNTIME : 0;
}

/* Reports a non-finite loss or gradient at this step: names the first parameter (a non-finite
 * one explains everything after it) or gradient tensor affected. */
static void report_divergence(const TrainRun *r, int step, double loss, double norm) {
    const Model *m = &r->m;
    const char *param = first_nonfinite(m, m->params), *grad = first_nonfinite(m, m->grads);
    int skip = r->c->on_divergence == DIVERGENCE_SKIP;
    fprintf(stderr, "%s: run '%s' diverged at step %d: loss %g, gradient norm %g; %s %s. %s\n",
            skip ? "warning" : "error", SHOWN(r->c->run_name), step, loss, norm,
            param ? "first non-finite parameter:" : grad ? "first non-finite gradient:" : "",
            param ? param : grad ? grad : "the loss alone is non-finite",
            skip ? "Update skipped (train.on_divergence = skip)." : "Logs up to this step are kept.");
}

/* After SIGINT / SIGTERM: the checkpoint of `done` updates, then 128 + the signal (or
 * EXIT_RUNTIME when the checkpoint cannot be written). */
static int stop_run(TrainRun *r, long done, double elapsed_s) {
    int sig = stop_signal_caught();
    if (save_checkpoint(r, done, elapsed_s) != 0) return EXIT_RUNTIME;
    fprintf(stderr, "\n%s after step %ld: checkpoint and logs written to %s/; continue with "
                    "./train --resume %s\n",
            sig == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)", done, SHOWN(r->dir),
            SHOWN(r->dir));
    return 128 + sig;
}

/* The run's opening lines on stderr: task, model, scale, steps; where a resume starts. */
static void announce_run(const TrainRun *r, const char *checkpoint) {
    const Config *c = r->c;
    const ModelConfig *mc = &r->m.cfg;
    char fixes[96] = "";
    int n = 0;
    if (mc->softcap > 0)
        n = snprintf(fixes, sizeof fixes, ", logits soft-capped at %.6g", (double)mc->softcap);
    if (mc->qk_clip > 0)
        snprintf(fixes + n, sizeof fixes - (size_t)n, ", QK-clip at %.6g", (double)mc->qk_clip);
    fprintf(stderr,
            "run '%s': task %s, T=%d tokens, vocab %d; d_model %d, n_heads %d (d_k %d), n_layers %d, "
            "d_ff %d%s; %zu parameters; attention scale %s%.6g%s%s; %d steps of batch %d%s\n",
            SHOWN(c->run_name), task_kind_name(r->task.kind), r->task.seq_len, mc->vocab_size,
            mc->d_model,
            mc->n_heads, mc->d_model / mc->n_heads, mc->n_layers, mc->d_ff,
            mc->block == MODEL_BLOCK_LLAMA ? " (llama block: RMSNorm, RoPE, SwiGLU)" : "",
            r->m.n_params, mc->learned_scale ? "learned from " : "", (double)mc->scale,
            mc->qk_norm == MODEL_QK_NORM_LAYERNORM ? " with qk-LayerNorm"
            : mc->qk_norm == MODEL_QK_NORM_RMSNORM ? " with qk-RMSNorm"
                                                   : "",
            fixes, c->steps, c->batch_size, checkpoint ? " (resumed)" : "");
    if (mc->matmul == MODEL_MATMUL_BF16)
        fprintf(stderr,
                "linear layers in bf16: inputs rounded to bfloat16, float32 sums (%s kernel)\n",
                matmul_bf16_kernel_name());
    if (checkpoint)
        fprintf(stderr, "resuming from %s at step %ld\n", SHOWN(checkpoint), r->start_step);
}

/* The training step proper: a batch, forward, loss, backward, the learning rate and the global
 * gradient norm (logged before clipping, with grad_norms.csv's row on a logged step); counts a
 * non-finite loss or norm as a divergence. Returns 0 or EXIT_RUNTIME. */
static int forward_backward(TrainRun *r, Pace *p, Step *s) {
    Model *m = &r->m;
    int B = r->c->batch_size, T = r->task.seq_len;
    task_train_batch(&r->task, B, r->tokens, r->targets, r->mask);
    s->loss = model_forward(m, r->tokens, r->targets, r->mask, B, T);
    model_zero_grad(m);
    model_backward(m);
    s->lr = optim_lr_at(&r->sched, s->step);
    s->norm = model_norm(m->grads, m->n_params); /* logged before clipping */
    if (s->do_log && runlog_grad_row(&r->log, s->step, m, s->norm) != 0) return EXIT_RUNTIME;
    p->tokens_since += (long)B * T;
    s->diverged = is_nonfinite(s->loss) || is_nonfinite(s->norm);
    if (s->diverged) r->skipped += r->c->on_divergence == DIVERGENCE_SKIP;
    return 0;
}

/* The step's loss.csv row (a logged step, or a divergence) and its progress line. Returns 0 or
 * EXIT_RUNTIME. */
static int log_step(TrainRun *r, Pace *p, const Step *s) {
    const Config *c = r->c;
    double BT = (double)c->batch_size * r->task.seq_len;
    double t = now_s();
    double tps = (s->do_log && t > p->t_last && p->tokens_since > 0)
                     ? p->tokens_since / (t - p->t_last)
                     : NAN;
    double ms = is_nonfinite(tps) ? NAN : 1e3 * (t - p->t_last) / ((double)p->tokens_since / BT);
    const EvalResult *ev = &s->ev;
    if (s->do_log || s->diverged) {
        LossRow row = {s->step, !s->last, s->do_eval, s->loss, ev->loss, ev->token_acc,
                       ev->answer_acc, s->lr, s->norm, t - p->t0, tps, r->skipped,
                       evaluate_bits_per_byte(ev->loss)};
        if (runlog_loss_row(&r->log, &row) != 0) return EXIT_RUNTIME;
        if (!is_nonfinite(tps)) {
            p->t_last = t;
            p->tokens_since = 0;
        }
    }
    if (s->do_log && c->progress) {
        /* the pace of this process's updates; none timed yet: no ETA rather than "0s" */
        long done = s->step - r->start_step;
        double spent = t - p->t0 - r->resumed_elapsed;
        ProgressRow row = {s->step, c->steps, s->loss, ms, tps,
                           done > 0 ? spent / done * (c->steps - s->step) : NAN,
                           s->do_eval, ev->loss, ev->answer_acc, ev->token_acc,
                           r->task.kind == TASK_TEXT, evaluate_bits_per_byte(ev->loss)};
        progress_line(stderr, &row);
    }
    return 0;
}

/* After a finite step: the gradient guards, clipping, the optimizer's update. After a non-finite
 * one, the divergence policy: stop (EXIT_DIVERGED) or skip the update. Returns 0 or an exit
 * code. */
static int update(TrainRun *r, const Step *s) {
    Model *m = &r->m;
    if (s->diverged) {
        report_divergence(r, s->step, s->loss, s->norm);
        return r->c->on_divergence == DIVERGENCE_STOP ? EXIT_DIVERGED : 0;
    }
    int rc = grad_guard(r, s->step, s->norm);
    if (rc != 0) return rc;
    optim_clip_grads(m->grads, m->n_params, r->c->grad_clip, s->norm);
    optim_step(&r->opt, m->params, m->grads, m->tensors, m->n_tensors, s->lr);
    if (r->c->qk_clip > 0) model_qk_clip(m, r->c->qk_clip); /* on this step's logits */
    return 0;
}

/* After `done` updates: the periodic checkpoint (the final one is finish_run's), and the stop
 * asked by SIGINT / SIGTERM. Returns 0, an exit code, or 128 + the signal. */
static int checkpoint_or_stop(TrainRun *r, const Pace *p, long done) {
    const Config *c = r->c;
    if (c->checkpoint_every > 0 && done % c->checkpoint_every == 0 && done < c->steps) {
        int rc = save_checkpoint(r, done, now_s() - p->t0);
        if (rc != 0) return rc;
    }
    return stop_signal_caught() ? stop_run(r, done, now_s() - p->t0) : 0;
}

/* One step of the loop, in order: diagnostics, evaluation, the training step, its log rows, the
 * update, the checkpoint or stop. Step train.steps evaluates and logs only. Returns 0 to go on,
 * or an exit code (128 + the signal after SIGINT / SIGTERM). */
static int run_step(TrainRun *r, Pace *p, int step) {
    const Config *c = r->c;
    Step s = {.step = step, .last = step == c->steps, .ev = {NAN, NAN, NAN},
              .loss = NAN, .norm = NAN, .lr = NAN};
    s.do_eval = s.last || step % c->eval_every == 0;
    s.do_log = s.do_eval || step % c->log_every == 0;
    int rc = s.do_log ? diagnostics(r, step, s.do_eval) : 0;
    if (rc != 0) return rc;
    if (s.do_eval && evaluate_validation_until(&r->m, &r->task, stop_signal_caught, &s.ev) != 0)
        /* stopped inside the validation pass: no row for this step (a partial evaluation is
         * never logged); the checkpoint holds the `step` updates done, so a resume starts with
         * this step's diagnostics and evaluation again (runlog drops this step's attention rows) */
        return stop_run(r, step, now_s() - p->t0);
    /* QK-clip's counts start anew only now that this step's rows stand: a stop inside the
     * evaluation, and the final checkpoint (an extension logs the last step again), keep the
     * counts the resume logs at this step */
    if (s.do_log && !s.last && r->m.clip_count)
        memset(r->m.clip_count, 0, sizeof(int) * (size_t)(r->m.cfg.n_layers * r->m.cfg.n_heads));
    if (!s.last && (rc = forward_backward(r, p, &s)) != 0) return rc;
    if ((rc = log_step(r, p, &s)) != 0 || s.last) return rc;
    if ((rc = update(r, &s)) != 0) return rc;
    return checkpoint_or_stop(r, p, step + 1);
}

/* After the last step: the final checkpoint, the attention of one validation example (for the
 * heatmaps), a language model's own words (for --compare: sample.h), the closing line. Returns 0
 * or EXIT_RUNTIME. */
static int finish_run(TrainRun *r, const Pace *p) {
    if (save_checkpoint(r, r->c->steps, now_s() - p->t0) != 0) return EXIT_RUNTIME;
    forward_diag_batch(r);
    if (runlog_attn_map(&r->log, &r->m, &r->task, 0) != 0) return EXIT_RUNTIME;
    if (sample_is_byte_task(&r->task) && sample_write_run(r->dir, &r->m, &r->task) != 0)
        return EXIT_RUNTIME;
    double total = now_s() - p->t0;
    char here[64] = ""; /* a resumed run: t0 was moved back by the time before the resume */
    if (r->resumed_elapsed > 0)
        snprintf(here, sizeof here, " (%.1f s in this process)", total - r->resumed_elapsed);
    fprintf(stderr, "run '%s' finished in %.1f s%s; logs in %s/\n", SHOWN(r->c->run_name), total,
            here, SHOWN(r->dir));
    return 0;
}

static void set_threads(const Config *c) {
#ifdef _OPENMP
    if (c->threads > 0) omp_set_num_threads(c->threads);
#else
    (void)c;
#endif
}

int train_run(const Config *c) { return train_run_from(c, NULL, NULL); }

int train_run_from(const Config *c, const char *checkpoint, const RunPrint *checked) {
    set_threads(c);
    TrainRun run;
    int rc = run_build(&run, c, checkpoint, checked);
    if (rc != 0) {
        run_free(&run);
        return rc == RUN_FINISHED ? EXIT_OK : rc;
    }
    announce_run(&run, checkpoint);
    StopSignals saved; /* SIGINT / SIGTERM ask the loop to stop after the current step */
    stop_signals_catch(&saved);
    note_stop_state(&run, checkpoint ? run.start_step : -1);
    Pace pace = {.t0 = now_s() - run.resumed_elapsed};
    pace.t_last = now_s();
    for (int step = (int)run.start_step; step <= c->steps && rc == 0; step++)
        rc = run_step(&run, &pace, step);
    if (rc == 0) rc = finish_run(&run, &pace);
    guards_summary(&run.guards, stderr); /* however the run ended */
    if (runlog_close(&run.log) != 0 && rc == 0) {
        error_add(NULL, 0, NULL, "cannot finish writing the logs in %s", run.dir);
        rc = EXIT_RUNTIME;
    }
    stop_signals_restore(&saved);
    run_free(&run);
    return rc;
}

int train_eval_checkpoint(const Config *c, const char *checkpoint, int n_examples,
                          const char *prompt, const SampleOptions *gen, const EvalPlaces *at) {
    set_threads(c);
    TrainRun run;
    CheckpointState st;
    /* evaluation needs no large batch; the training one may not even fit this machine */
    /* generating needs only the model (and a text run's fixed byte vocabulary), not the data */
    int rc = run_build_task_model_optimizer(&run, c, c->batch_size < 64 ? c->batch_size : 64,
                                            prompt && gen);
    if (rc != 0) goto done;
    rc = EXIT_CONFIG;
    if (checkpoint_load(checkpoint, &run.m, &run.opt, &st) != 0) goto done;
    if (train_check_steps(c, checkpoint, st.step, at->run) != 0) goto done;
    if (prompt) { /* the answer alone: one line a script can read */
        rc = gen ? sample_prompt(&run.m, &run.task, prompt, gen, at->prompt, at->top_k, stdout)
                 : prompt_answer(&run.m, &run.task, prompt, at->prompt, stdout);
        goto done;
    }
    EvalResult ev = evaluate_validation(&run.m, &run.task);
    printf("checkpoint %s: step %ld, task %s, %d validation examples\n", SHOWN(checkpoint), st.step,
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
