/* runs.h: the run folders ./train --compare reads, and what their logs say about each run.
 *
 * A run folder holds loss.csv (required) and, when the trainer wrote them, config.ini,
 * grad_norms.csv, attention.csv, attn_map.csv and attn_map_tokens.csv. */
#ifndef SCALEDOT_RUNS_H
#define SCALEDOT_RUNS_H

#include <stddef.h>

#include "runlog/csv_read.h"

#define RUN_NAME_LEN 256

/* The settings of config.ini as text: "section.key" -> value (unquoted, comment stripped). */
typedef struct {
    char *key;
    char *value;
} IniEntry;

typedef struct {
    IniEntry *e;   /* in order of first appearance in the file */
    int n, cap;
} Ini;

/* The value of "section.key", or NULL when the file does not set it. */
const char *ini_get(const Ini *ini, const char *key);

typedef struct {
    const char *path;          /* as given on the command line */
    char name[RUN_NAME_LEN];   /* the folder's name, made unique among the runs */
    Ini config;                /* empty without config.ini */
    Csv loss, grads, attn, map, tokens;
    Csv map0;                  /* attn_map_step0.csv: the map before the first update */
    int has_config, has_grads, has_attn, has_map, has_tokens, has_map0;
} Run;

/* Reads the run folder at path into r (zeroed by the caller). Only loss.csv (with a step column)
 * is required: a missing optional file is silent or gets a "note:" on stderr. Returns 0, or -1
 * after printing which path is missing or unreadable and why. free_run frees r either way. */
int load_run(Run *r, const char *path);
void free_run(Run *r);

/* Two folders with the same name (runs/a/x, runs/b/x) would be indistinguishable in the legend:
 * the later ones become "x (2)", "x (3)", ... (a long name cut to make room, at a UTF-8 character
 * boundary). */
void make_names_unique(Run *runs, int n);

/* The last step at which column `name` of each run's loss.csv was logged, maximised over runs
 * (0 when none logged it). */
int max_last_step(const Run *runs, int n, const char *name);

/* Layers that have q/k gradient columns in grad_norms.csv (0 without the file). */
int grad_layers(const Run *r);

/* Layers that appear in attention.csv (0 without the file). */
int attn_layers(const Run *r);

/* First (last = 0) or last step of attention.csv; -1 when there is none. */
int attn_step(const Run *r, int last);

/* 1 when a task.name value names the text task ("text", as config/keys.c spells it; report/
 * reads no config, so this is the one place here that spells it). */
int task_name_is_text(const char *task);

/* Run r's task: task.name of its config.ini, else "text" when its loss.csv has val_bpb (written
 * for the text task only), else NULL (not known). */
const char *run_task(const Run *r);

/* 1 when run r is a text run: task.name = text in its config.ini, or a val_bpb column in its
 * loss.csv (the trainer writes it for the text task only). */
int run_is_text(const Run *r);

/* 1 when n > 0 and every run is a text run: the report then speaks of bytes (bits per byte,
 * next-byte accuracy) instead of answers. */
int runs_are_text(const Run *runs, int n);

/* The last logged value of loss.csv column col of run r, its step in *step; NAN (step -1) when
 * the column has no value. */
double run_last_logged(const Run *r, const char *col, int *step);

/* Run r's last validation loss in bits per byte (a text run's unit): val_bpb, else val_loss / ln 2;
 * NAN (step -1) when neither was logged. */
double run_last_bpb(const Run *r, int *step);

/* "diverged @N" when the run ended on NaN/inf (N: the first bad step after its last good one),
 * else "finished @N", "running @N" (a ./train still trains in the folder: util/run_lock.h) or
 * "stopped @N" (fewer steps than its config asked for), plus ", K skipped"
 * when it skipped non-finite updates and went on (train.on_divergence = skip). */
void run_status(const Run *r, char *out, size_t n);

#endif
