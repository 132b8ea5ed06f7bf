/* plan.h: what a sweep will run: its command line read into axes (SweepArgs, filled by
 * cli/sweep_args.c), the grid expanded into named, checked runs and written as the text of
 * OUT/plan.txt (plan.c), that text read back (plan_text.c), and the files written from the plan
 * into OUT (plan_files.c); plan_text.c calls plan.c, never the other way.
 *
 * An axis is one thing the sweep varies: d_k (--dk: model.d_model and model.n_heads together),
 * a config key (--scales = attention.scale, --seeds = run.seed, --grid section.key=v1,v2,...).
 * Runs are every combination, the last axis fastest; the axes are in the order d_k, scale, the
 * --grid keys as given, seed. */
#ifndef SCALEDOT_SWEEP_PLAN_H
#define SCALEDOT_SWEEP_PLAN_H

#include <stddef.h>
#include <stdio.h>

#include "config/config.h"

#define SWEEP_MAX_AXES 16
#define SWEEP_MAX_VALUES 1000
#define SWEEP_MAX_RUNS 100000
#define SWEEP_PATH 1024

typedef enum { AXIS_DK, AXIS_KEY } AxisKind;

typedef struct {
    AxisKind kind;
    char key[64];        /* "section.key"; "d_k" for AXIS_DK */
    char label[72];      /* run-name prefix: "dk", "" (scale), "s" (seed), "lr-" (a --grid key) */
    const char *flag;    /* the option that made it, for messages: "--dk", "--grid", ... */
    int argn;            /* its position on the whole command line (for config origins) */
    int column;          /* 1: a sweep.csv column of its own (a --grid key not among the fixed) */
    char **values;       /* n values, as given (malloc'd) */
    int n;
} Axis;

typedef enum { MODE_RUN, MODE_PLAN, MODE_COLLECT } SweepMode;

typedef struct {
    const char *config_path;       /* NULL: defaults only */
    Axis axes[SWEEP_MAX_AXES];     /* plan order */
    int n_axes;
    int any_grid;                  /* a --grid was given: no default d_k / scale axes */
    int d_model, d_model_argn;     /* the d_k axis' fixed width (--d-model, default 128) */
    int one_head, one_head_argn;   /* --one-head: d_model = d_k, n_heads = 1 */
    int steps, steps_argn;         /* --steps; steps < 0: the config's train.steps */
    const char *out;               /* --out; NULL: sweeps/<config name> */
    int out_argn;
    const char **sets;             /* --set assignments, in command-line order */
    int *set_argn, n_sets;
    int jobs, jobs_argn;           /* --jobs, default 1; jobs_argn 0: not given */
    SweepMode mode;
} SweepArgs;

/* The axis that sets config key `key` ("model.d_model" is set by the d_k axis), or NULL. */
const Axis *sweep_axis_for(const SweepArgs *a, const char *key);

/* The expanded plan. Cells of run r: cell[r * n_cols + c]; the columns are d_k, d_model,
 * n_heads, scale, seed, the --grid columns, steps (docs/sweeps.md, "What a row records",
 * columns 2 to 8). */
#define PLAN_CELL CONFIG_STR
typedef struct {
    int n_cols, n_runs;
    char (*col_names)[PLAN_CELL];
    char (*names)[PLAN_CELL];   /* run folder names under OUT/runs/ */
    char (*cells)[PLAN_CELL];
    char *text;                 /* the plan as stored in OUT/plan.txt */
} Plan;

/* A relative task.file of c made absolute (joined to the current folder), so that the run
 * configs and jobs.txt lines work from any folder. Returns 0, or -1 after a message (the path
 * does not fit task.file). */
int plan_absolute_task_file(Config *c);

/* The d_model of a run whose d_k (the d_k axis' value) is dk: --d-model (default 128), or dk
 * itself with --one-head; -1 when dk does not divide it (n_heads = d_model / d_k must be a whole
 * number). The one rule, checked with the arguments (cli/sweep_args_check.c) and applied here. */
int plan_dk_width(const SweepArgs *a, int dk);

/* The config every run of the sweep starts from, into c: the defaults, the config file, each
 * --set in command-line order, then --steps; every error added to errs (NULL: printed now), the
 * file's first. Returns 0, or -1 when a value was refused (c then holds what was good and marks
 * the refused keys unsure, config_load_file_to). task.file is left as given
 * (plan_absolute_task_file). */
int plan_base_config(const SweepArgs *a, Config *c, ErrorList *errs);

/* config_set of "key=value" on c, a value of axis ax: its error (one line naming the option, its
 * argument, the key and why) added to errs (NULL: printed now). Returns 0, or -1. */
int plan_axis_set(Config *c, const Axis *ax, const char *key, const char *value,
                  ErrorList *errs);

/* Config of run `index` (0-based, plan order): base, then each axis' value, run.dir = runs_dir,
 * run.name = the run's name, run.threads = 1 unless base set it, task.file absolute. Returns 0, or -1 after a
 * message naming the option and key that could not be set. Does not validate. */
int plan_run_config(const SweepArgs *a, const Config *base, const char *runs_dir, long index,
                    Config *out);

/* Expands and checks every run before anything runs: each value through config_set, every
 * run's config through config_validate and task_init (sequence length vs max_seq_len), d_k
 * dividing d_model, names filesystem-safe and unique. base is the config file + --set + --steps.
 * Returns 0 with p filled (free with plan_free), or -1 after a message. */
int plan_build(const SweepArgs *a, const Config *base, const char *runs_dir, Plan *p);
void plan_free(Plan *p);

/* Reads the run list back from the text of a plan.txt (for --collect). Returns 0, or -1 after a
 * message naming path and line. */
int plan_parse(Plan *p, const char *text, const char *path);

/* 0 when none of the files the plan would write into out_abs is a user's: each is absent or one
 * a sweep into this folder wrote. Checked in every folder: each report file the sweep writes
 * after its runs (summary.txt, index.html, any *.svg; a regular file that reads like ours, a link
 * never does) and jobs.txt (each of its lines exactly a --sweep-run command of a config in
 * out_abs/configs/ as this version or an earlier one wrote it: a re-plan rewrites jobs.txt, and a
 * line a user added to it, their own command for xargs say, would be lost). Only when the folder
 * has no plan.txt (has_plan 0), its configs/<run>.ini too (a run config whose run.dir is
 * out_abs/runs): `--out .` from the project root must not replace a configs/ file of the user's
 * named like a run; a folder of this plan (plan_check_same) holds only configs a sweep wrote.
 * Else -1 after naming the file (a jobs.txt's message: its first line that is not ours). */
int plan_check_folder(const Plan *p, const char *out_abs, int has_plan);

/* The configuration run r of plan p trains, rebuilt from the plan's text alone (its base lines,
 * then r's cells of every axis; run.dir = runs_dir, run.name = its name, task.separator resolved
 * as a run stores it): the plan's side of the identity check of a collected run (results.h),
 * which an edited OUT/configs/RUN.ini cannot move. Returns 0, or -1 after a message naming path
 * (plan.txt) and the line whose value is refused. */
int plan_row_config(const Plan *p, int r, const char *runs_dir, const char *path, Config *out);

/* Refuses a different plan in the same folder: returns 0 when path does not exist or holds
 * text, where a "base KEY = VALUE" line of text that path lacks any line of KEY for (a plan.txt
 * of an older program, from before KEY existed) counts as present when VALUE is KEY's default;
 * else -1 after a message naming the first line that differs, old and new. */
int plan_check_same(const char *path, const char *text);

/* The start of plan.txt's line for a task file the runs read: PLAN_TASK_FILE, 16 hex digits of
 * its FNV-1a hash (task_source_hash), a space, its absolute path. */
#define PLAN_TASK_FILE "task-file fnv1a64 "

/* plan.txt's first line (plan_text), without its '\n': what marks a sweep folder (sweep.h). */
#define PLAN_FIRST_LINE "# sweep plan (./train --sweep); a sweep into this folder must have this plan"

/* For --sweep-run of a run not yet started (no checkpoint): when c's task reads task.file and
 * the plan.txt of its sweep (the folder above run.dir = OUT/runs) records that file's hash, the
 * file must still have it. Returns 0 (same, or nothing to compare: no plan, a plan from before
 * the task-file lines), or -1 after a message naming cfg_path, the file and both hashes. */
int plan_check_task_file(const Config *c, const char *cfg_path);

/* Writes OUT/plan.txt, OUT/configs/RUN.ini for every run and OUT/jobs.txt (one shell command
 * per run: `'EXE' --sweep-run 'OUT/configs/RUN.ini'`, paths absolute). out_abs is absolute.
 * Each file is written to a temporary name and renamed. Returns 0, or -1 after a message. */
int plan_write_files(const SweepArgs *a, const Config *base, const Plan *p, const char *out_abs,
                     const char *exe_abs);

/* OUT/configs/<name>.ini into buf. */
void plan_config_path(char *buf, size_t n, const char *out, const char *name);

/* Writes text to path via path.tmp and rename (file_write_atomic of util/whole_write.h), so a
 * reader sees the old or the new file whole and a link at path is replaced, never written
 * through. Returns 0, or -1 after a message naming the file. */
int sweep_write_atomic(const char *path, const char *text, size_t len);

/* ---- Shared by plan.c and plan_text.c only ---- */

/* The longest run name: the files named after it (OUT/configs/<name>.ini, a published
 * curves/<name>.csv) must fit one file name (NAME_MAX, 255), with 8 characters kept for their
 * suffixes. (It was once set by the temporary name <name>.ini.tmp; temporary names are now cut
 * to fit, whole_write.h.) */
#define PLAN_NAME_MAX (255 - 8)

/* Allocates p's column names, run names and cells for n_cols columns and n_runs runs (zeroed).
 * Returns 0, or -1 after a message (out of memory; what was allocated is freed by plan_free). */
int plan_alloc(Plan *p, int n_cols, long n_runs);

/* The text of plan.txt for the expanded plan p (axes, base config, the task-file lines `files`,
 * columns, runs). malloc'd; NULL when out of memory. */
char *plan_text(const SweepArgs *a, const Config *base, const Plan *p, const char *files);

/* Writes base's "base section.key = value" lines to f, as plan.txt holds them: config_write's
 * keys but run.name and run.dir, comments dropped. */
void plan_write_base(FILE *f, const Config *base);

/* Adds c's task file (when its task reads one) to the "task-file" lines in *lines (malloc'd
 * text, grown), once per path. Returns 0, or -1: after a message when the file cannot be read,
 * silently when memory runs out. */
int plan_add_task_file(char **lines, const Config *c);

/* 1 when c's task reads task.file (task.name = file or text): its hash goes into plan.txt. */
int plan_reads_task_file(const Config *c);

#endif
