/* runlog.h: the CSV logs of a run (which files, their columns, their rows), each row written
 * whole with one write(2) by the log writer (runlog/csv_write.h), so a run that is killed keeps
 * every finished row, and a write that a full disk cuts short is cut back to the last whole row:
 * no CSV ever ends in a torn line. */
#ifndef SCALEDOT_RUNLOG_H
#define SCALEDOT_RUNLOG_H

#include <limits.h>
#include <stdio.h>

#include "model/model.h"
#include "tasks/tasks.h"
#include "train/diagnostics.h"
#include "util/dirs.h"

typedef struct {
    char dir[PATH_MAX];
    FILE *loss;        /* loss.csv */
    FILE *grad_norms;  /* grad_norms.csv */
    FILE *attention;   /* attention.csv */
    FILE *attn_steps;  /* attn_steps.csv (train/attn_steps.h), NULL when not kept */
    int n_layers, d_model;
    int attention_old;  /* resumed attention.csv from before the pass-through columns: its rows
                           keep the old 11 columns, so the file stays one table */
    int val_bpb;       /* loss.csv has the val_bpb column (the text task) */
    int scale_col;     /* attention.csv has attn_scale (attention.scale = learned) */
    int clip_col;      /* attention.csv has clipped_steps (attention.qk_clip > 0) */
    int gain_col;      /* attention.csv has qk_gain_rms (attention.qk_norm = rmsnorm; not in a
                          resumed log from before the column) */
    char *line;        /* grad_norms.csv row buffer, sized once so logging allocates nothing */
    size_t line_cap;
    char *steps_line;  /* attn_steps.csv's row buffer, sized once for its longest row */
    size_t steps_cap;
    int steps_T, steps_side; /* the sequence length of its maps, and their side */
} RunLog;

/* The name of the first of a run's logs (loss.csv, grad_norms.csv, attention.csv,
 * attn_steps.csv) there is something at in the folder dir, NULL when there is none. */
const char *runlog_first_present(const char *dir);

/* The name of the first log a resume in dir continues that is absent there (loss.csv,
 * grad_norms.csv, attention.csv; attn_steps.csv is begun anew when absent), NULL when none is:
 * checked before anything in the folder changes. */
const char *runlog_first_missing(const char *dir);

/* 0 when each log of the folder dir that a resume continues and that is there (runlog_first_missing
 * names the absent) can be read and begins with the header of the rows the resume appends to it:
 * the one runlog_open_with writes for a run of m (val_bpb and seq_len as there), or an earlier
 * layout it goes on in (attention.csv from before dprob_norm, softmax_pass and blocked_rows, or
 * before qk_gain_rms); else -1 after the message the resume's rewrite would give
 * (runlog/csv_write.h, csv_log_check_header: a log of another run, configuration or name, as a
 * swapped loss.csv and grad_norms.csv, is refused, naming its first column that differs). Checked
 * before the resume takes the folder's lock and manifest, so that its refusal changes nothing; at
 * where (error_add's place: the run folder's argument). */
int runlog_check_headers(const char *dir, const Model *m, int val_bpb, int seq_len,
                         const char *where);

/* The largest step of a whole row of dir/loss.csv (csv_log_last_step_before: the rows a resume
 * keeps; in a log of ours its last row's), or -1 when it has none (only its header, no whole
 * header, no file or not a regular one). */
long runlog_last_step(const char *dir);

/* Creates the run folder (and its parents), writes config.ini from the text given, and opens
 * loss.csv, grad_norms.csv and attention.csv with their header rows. With resume_step >= 0 the
 * logs are kept instead: rows of steps >= resume_step (written after the checkpoint, before the
 * run stopped) are dropped and new rows are appended: config.ini's new text and all of them are
 * written aside first, and only then the logs replaced (temporary file + rename) and config.ini
 * last, so a resume that fails here (config.ini made read-only included) changes nothing and
 * leaves no temporary file. Nothing is written through a link
 * (util/whole_write.h). Returns 0, or -1 after printing which path could not be created or
 * written and why (strerror), or -2 when a log to resume is not a regular file, too large, or
 * its header is not that of the rows appended to it (runlog_check_headers). */
int runlog_open(RunLog *r, const char *dir, const Model *m, const char *config_text,
                long resume_step);

/* runlog_open, and with val_bpb = 1 loss.csv has a val_bpb column after val_loss (the text
 * task: validation bits per byte, LossRow.val_bpb); without it loss.csv is as runlog_open writes
 * it. A resumed loss.csv keeps its header. */
int runlog_open_bpb(RunLog *r, const char *dir, const Model *m, const char *config_text,
                    long resume_step, int val_bpb);

/* runlog_open_bpb, and with seq_len > 0 attn_steps.csv too (train/attn_steps.h: the maps are of
 * sequences of seq_len tokens, the counts of batches of up to m->max_batch), opened, resumed and
 * kept like the other logs; its row buffer is allocated here, once. A resumed run whose folder
 * has no attn_steps.csv (a version before it) starts one, with the rows from the resume on.
 * runlog_open and runlog_open_bpb keep none. */
int runlog_open_with(RunLog *r, const char *dir, const Model *m, const char *config_text,
                     long resume_step, int val_bpb, int seq_len);

/* Before a resume from a checkpoint at step `step` (updates done), writing nothing: each of the
 * logs in dir that every logged step writes (loss.csv, grad_norms.csv, attention.csv) must hold
 * the row of the last step before `step` that the run logged (a multiple of log_every or
 * eval_every). A log that ends earlier (a backup or copy of the folder taken while the run
 * trained, beside a later checkpoint) would miss rows the resume never writes again. A log that
 * is not there is left to runlog_open's message. Returns 0, or -1 after an error at where
 * (error_add's place) naming the log, the step it ends at, the checkpoint's step and what to do. */
int runlog_check_not_behind(const char *dir, long step, int log_every, int eval_every,
                            const char *where);

/* One row of loss.csv. has_train / has_val say which groups were measured at this step; the
 * others are left empty. A measured NaN or Inf is written as nan / inf, never hidden. Units:
 * losses in nats per answer token; val_token_acc and val_answer_acc are fractions in [0, 1]
 * (0.973), while everything ./train prints shows them in percent (97.3%). */
typedef struct {
    int step;
    int has_train;  /* train_loss, lr, grad_norm */
    int has_val;    /* val_loss, val_token_acc, val_answer_acc */
    double train_loss, val_loss, val_token_acc, val_answer_acc, lr, grad_norm;
    double elapsed_s, tokens_per_s;  /* tokens_per_s: NaN when no step ran since the last row */
    long skipped_steps;              /* updates skipped so far (train.on_divergence = skip) */
    double val_bpb;                  /* val_loss in bits per byte; written only by a log opened
                                        with val_bpb (runlog_open_bpb), when has_val */
} LossRow;

/* Returns 0, or -1 when the write failed (message printed). */
int runlog_loss_row(RunLog *r, const LossRow *row);

/* One row of grad_norms.csv: the L2 norm of every parameter tensor's gradient (table order),
 * then the q, k and v thirds of each attn.qkv.weight, then the global norm. */
int runlog_grad_row(RunLog *r, int step, const Model *m, double global_norm);

/* One row of attention.csv: the statistics of one head of one layer at this step (the columns
 * of HeadStats, in its order, dprob_norm, softmax_pass and blocked_rows last), then only in the
 * runs of the fixes that have them: attn_scale (a learned scale: the head's factor on q·k at
 * this step) and clipped_steps (QK-clip: how many updates since the previous row clipped the
 * head; the checkpoint keeps the count, so a resumed run logs what an uninterrupted one does,
 * but from a version-1 checkpoint, which lacks it, counts from its resume step) and qk_gain_rms (qk-RMSNorm: the layer's
 * rms(g_q ⊙ g_k), diag_qk_gain_rms, the same in each head's row). */
int runlog_attention_row(RunLog *r, int step, int layer, int head, const HeadStats *s);

/* One row of attn_steps.csv (attn_steps_row): the histogram hist of the logits of one head (its
 * DIAG_HIST_BINS + 1 counts: diag_model_head_hist) and the attention map of example 0 of the last
 * model_forward, which must be of the log's seq_len. Which steps and heads the caller logs:
 * attn_steps_logs_step and attn_steps_logs_head. Does nothing without attn_steps.csv. Allocates
 * nothing. Returns 0, or -1 when the write failed (message printed). */
int runlog_attn_steps_row(RunLog *r, int step, const Model *m, int layer, int head,
                          const long hist[DIAG_HIST_BINS + 1]);

/* Writes attn_map.csv (layer, head, query, then the weights over keys k0..k{T-1}) and
 * attn_map_tokens.csv (position, token, answer: 1 when that input token is part of the answer)
 * for example b of the last model_forward, which must be validation example b (its mask marks
 * the answer). runlog_attn_map_as writes the same into other files (tokens_file NULL: none);
 * the run writes attn_map_step0.csv at step 0 and attn_map.csv at the end. */
int runlog_attn_map(RunLog *r, const Model *m, const Task *t, int b);
int runlog_attn_map_as(RunLog *r, const Model *m, const Task *t, int b, const char *file,
                       const char *tokens_file);

/* Writes text into a new file of the run folder (init_check.txt, ...). */
int runlog_write_file(RunLog *r, const char *name, const char *text);

/* Closes the files; returns -1 if a final flush failed. */
int runlog_close(RunLog *r);


#endif
