/* results.h: what a sweep knows about one run, read from its folder: the marker the per-run
 * command writes when the run ends (sweep_result.txt), and the sweep.csv row built from the
 * run's logs (result columns: report/read/sweep_columns.c). */
#ifndef SCALEDOT_SWEEP_RESULTS_H
#define SCALEDOT_SWEEP_RESULTS_H

#include <stddef.h>

#include "report/read/read.h"
#include "sweep/plan.h"

/* RUN/sweep_result.txt: "exit_code N", "wall_s S", "version V", one per line. Written (via a
 * temporary file and rename) when a run ends with an exit code; never after SIGINT / SIGTERM,
 * which leave the run to be resumed. */
#define SWEEP_MARKER "sweep_result.txt"

typedef struct {
    int exit_code;
    double wall_s;      /* wall time of every attempt of the run, seconds */
    char version[64];   /* the program that ran it */
} RunMarker;

/* Reads run_dir's marker. Returns 0, -1 when there is none, or -2 when it exists but cannot
 * be read, holds no exit_code line, or one that is not a whole number in [0, 255], or two
 * (a garbage or hand-edited marker: the run's outcome is unknown; a warning names why). */
int results_marker_read(const char *run_dir, RunMarker *m);

/* Writes run_dir's marker atomically. Returns 0, or -1 after a message. */
int results_marker_write(const char *run_dir, const RunMarker *m);

/* True for the exit codes of a run that ended for good: done (0), diverged (3), guard stop
 * (4). Any other (1 I/O, 2 config, a crash) is tried again when the sweep is started again. */
int results_final(int exit_code);

/* Whether text (a stored configuration: a run's config.ini, a checkpoint's) is the configuration
 * c but for where the run lives, what it is named, how many threads train it and whether it
 * prints progress: the one identity of a run, the settings that change its numbers. Returns 1
 * (the same), 0 (another; why, when not NULL, gets the first setting that differs, "optim.lr =
 * 0.009, the plan's 0.001"), or -1 when text does not parse (after the reader's message). */
int results_same_config(const Config *c, const char *origin, const char *text, char *why, size_t n);

/* 1 when out/configs/RUN.ini of plan run r, what its jobs.txt line trains, is not the plan's
 * row either (why: the first setting that differs, as results_same_config): it was edited after
 * the plan was made, so removing the run's folder and running its jobs.txt line would train the
 * edited settings again. 0 when it is the plan's row, or cannot be read. */
int results_config_edited(const Plan *p, int r, const char *out, char *why, size_t n);

/* What the status column is decided from. */
typedef struct {
    int mismatch;    /* its config.ini is not the plan's run (results_same_config) */
    int refused;     /* its command refused it before it trained (exit code 2), this sweep saw */
    int has_folder;
    int marker;      /* results_marker_read's answer: 0 read, -1 none, -2 garbage */
    int exit_code;   /* the marker's, when marker == 0 */
    int live;        /* a process holds the run's lock (util/run_lock.h): it is training */
    int short_log;   /* loss.csv ends before the plan's train.steps */
} RunState;

/* The status column for a run (SWEEP_STATUSES, report/read/sweep_columns.c): mismatch (its folder
 * holds a run of another configuration than the plan's row, whatever its marker says), refused
 * (its command refused it before training, exit code 2: known only to the sweep that started
 * it, as nothing is written into a folder it refuses), missing (no folder), unknown (a marker that cannot be read),
 * running (no marker, a live process trains it), stopped (no marker, nobody trains it: stopped
 * by a signal or killed; the next start resumes it), ok, incomplete (exit code 0 but loss.csv
 * ends before train.steps: its numbers are left empty, out of the statistics), diverged, guard,
 * failed (any other exit code). */
SweepStatus results_status(const RunState *s);

/* What the sweep prints about a finished run. */
typedef struct {
    const char *status;
    int has_acc;
    double answer_acc;  /* last validation pass, fraction; on a text run the next-byte accuracy */
    int text;           /* a run of the text task (task.name = text in its config.ini) */
    double val_bpb;     /* last validation pass, bits per byte (val_loss / ln 2), when has_acc */
    long val_step;      /* the step of the last validation pass, when has_acc */
    double wall_s;      /* NaN when not recorded */
    int exit_code;      /* -1 when none recorded */
    char mismatch[256]; /* status mismatch: the first setting that differs from the plan's */
} RowInfo;

/* The header line of sweep.csv for plan p (no newline; malloc'd). NULL when out of memory. */
char *results_header(const Plan *p);

/* The sweep.csv row of plan run r, read from run_dir (its folder; it may not exist), its
 * config.ini checked against the plan's (plan_row_config, results_same_config): a run of
 * another configuration is status mismatch, its numbers left empty; no newline, malloc'd; info (may be NULL) gets the status, the final accuracy and bits per byte, and
 * whether the run is of the text task. NULL when out of memory. */
char *results_row(const Plan *p, int r, const char *run_dir, RowInfo *info);

/* results_row for a run whose command this sweep saw refuse it with exit code `refused` (>= 0:
 * status refused, that exit code), or as results_row when refused is -1. */
char *results_row_as(const Plan *p, int r, const char *run_dir, int refused, RowInfo *info);

/* Writes path (sweep.csv): the header and rows[0..p->n_runs), via a temporary file and rename,
 * so a reader never sees it cut short. Returns 0, or -1 after a message. */
int results_write_csv(const char *path, const Plan *p, char *const *rows);

/* Reads a run's config file (OUT/configs/RUN.ini) into c as the run stores it (task.separator
 * resolved). Returns 0, or -1 after a message naming the file, line and key. */
int sweep_load_run_config(const char *cfg_path, Config *c);

/* 1 when run_dir/config.ini, the configuration a finished run was trained with, is c (but for
 * its folder and thread count); 0 when it differs or cannot be read. A finished run is skipped
 * only when it is the run the plan asks for. */
int sweep_finished_run_matches(const Config *c, const char *run_dir);

#endif
