/* run_one.c: ./train --sweep-run CONFIG: the one per-run command behind every sweep path (the
 * in-process sweep's children, jobs.txt under xargs, GNU parallel or Slurm): train if absent,
 * resume if interrupted, nothing if finished; the outcome recorded in the run's marker. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sweep/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "sweep/results.h"
#include "tasks/tasks.h"
#include "train/checkpoint.h"
#include "train/resume_checks.h"
#include "train/run_files.h"
#include "train/runlog.h"
#include "train/train.h"
#include "util/clock.h"
#include "util/dirs.h"
#include "util/error_list.h"
#include "util/file_check.h"
#include "util/owned_dir.h"
#include "util/run_lock.h"
#include "util/version.h"
#include "util/whole_write.h"

#define WALL_FILE "sweep_wall.txt" /* seconds of earlier, interrupted attempts */

/* What the run command writes into a run folder before and after ./train's own files (its
 * owner rule, util/owned_dir.h; train/run_setup.c has ./train's): in a folder of an earlier
 * version, a train.log is adopted when a run command began it, a marker when it reads as one,
 * sweep_wall.txt when it holds a number of seconds (run_files.h), as every file adopted is read
 * first. */
static int adopt_sweep_file(const char *dir, const char *name) {
    if (strcmp(name, "train.log") == 0) return train_log_is_sweeps(dir);
    if (strcmp(name, WALL_FILE) == 0) return run_file_reads_as_ours(dir, WALL_FILE);
    RunMarker mk;
    return strcmp(name, SWEEP_MARKER) != 0 || results_marker_read(dir, &mk) == 0;
}

static const char *const SWEEP_RUN_NAMES[] = {"train.log", SWEEP_MARKER, WALL_FILE};

static const OwnedWriter SWEEP_RUN_WRITER = {
    .id = "sweep-run",
    .what = "run folder",
    .who = "./train --sweep-run",
    .would = "the run's log would be appended to it",
    .names = SWEEP_RUN_NAMES,
    .n_names = (int)(sizeof SWEEP_RUN_NAMES / sizeof *SWEEP_RUN_NAMES),
    .adopt = adopt_sweep_file,
    .advice = "Move it away, or remove the run folder to train the run again",
};

/* 1 when the plan in plan_path (OUT/plan.txt) names run `name`; 0 when it does not, -1 after a
 * message when it cannot be read. */
static int plan_names_run(const char *plan_path, const char *name) {
    char why[128];
    size_t len;
    char *text = file_read_regular(plan_path, FILE_MAX_TEXT_BYTES, &len, why, sizeof why);
    if (!text) {
        error_add(NULL, 0, NULL, "cannot read '%s': %s", plan_path, why);
        return -1;
    }
    Plan p;
    int rc = plan_parse(&p, text, plan_path);
    free(text);
    if (rc != 0) return -1;
    int found = 0;
    for (int r = 0; r < p.n_runs && !found; r++) found = strcmp(p.names[r], name) == 0;
    plan_free(&p);
    return found;
}

int sweep_follow_moved(Config *c, const char *cfg_path) {
    char out[SWEEP_PATH], old[SWEEP_PATH], abs[PATH_MAX], plan[SWEEP_PATH + 16];
    const char *slash = strrchr(cfg_path, '/');
    size_t n = slash ? (size_t)(slash - cfg_path) : 0;
    while (n > 0 && cfg_path[n - 1] == '/') n--; /* configs//R.ini: the folder is configs */
    /* a folder named configs exactly (".../configs/R.ini" or "configs/R.ini") */
    if (n < 7 || strncmp(cfg_path + n - 7, "configs", 7) != 0 ||
        (n > 7 && cfg_path[n - 8] != '/') || n - 7 >= sizeof out)
        return 0;
    if (n == 7) snprintf(out, sizeof out, ".");
    else snprintf(out, sizeof out, "%.*s", (int)(n - 8), cfg_path);
    if (!*out) snprintf(out, sizeof out, "/");
    snprintf(plan, sizeof plan, "%s/plan.txt", out);
    size_t m = strlen(c->run_dir);
    while (m > 1 && c->run_dir[m - 1] == '/') m--;
    if (access(plan, F_OK) != 0 || m < 5 || strncmp(c->run_dir + m - 5, "/runs", 5) != 0) return 0;
    /* the plan's own config of run R: OUT/configs/R.ini with run.name = R */
    size_t rn = strlen(c->run_name);
    if (strlen(slash + 1) != rn + 4 || strncmp(slash + 1, c->run_name, rn) != 0 ||
        strcmp(slash + 1 + rn, ".ini") != 0)
        return 0;
    snprintf(old, sizeof old, "%.*s", (int)(m - 5), c->run_dir);
    struct stat a, b;
    if (stat(out, &a) != 0) return 0;
    if (stat(old, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) return 0;
    int named = plan_names_run(plan, c->run_name);
    if (named <= 0) return named;
    if (!realpath(out, abs) || strlen(abs) + 6 > sizeof c->run_dir) {
        error_add(NULL, 0, NULL, "%s names run.dir '%s', not the runs/ of its own sweep folder "
                                 "'%s', which cannot be resolved: plan the sweep again with "
                                 "./train --sweep ... --out %s", cfg_path, c->run_dir, out, out);
        return -1;
    }
    fprintf(stderr, "note: %s was planned in '%s', not in its folder '%s' now (the sweep folder "
                    "was moved or copied): its run goes into %s/runs\n",
            SHOWN(cfg_path), SHOWN(old), SHOWN(abs), SHOWN(abs));
    size_t l = strlen(abs); /* l + 6 <= sizeof c->run_dir, checked above */
    memcpy(c->run_dir, abs, l);
    memcpy(c->run_dir + l, "/runs", 6);
    return 0;
}

/* The checkpoint must be of this very run. Returns 0, or -1 after a message. */
static int checkpoint_matches(const Config *c, const char *checkpoint, const char *cfg_path) {
    char *text = NULL;
    if (checkpoint_read_config(checkpoint, &text) != 0) return -1;
    int same = results_same_config(c, checkpoint, text, NULL, 0) == 1;
    if (!same)
        error_add(NULL, 0, NULL, "%s holds a run of another configuration than %s; remove "
                                 "the run folder to train it again", checkpoint, cfg_path);
    free(text);
    return same ? 0 : -1;
}

static double read_wall(const char *dir) {
    char path[SWEEP_PATH + 32];
    snprintf(path, sizeof path, "%s/%s", dir, WALL_FILE);
    char why[128];
    FILE *f = file_fopen_regular(path, FILE_MAX_TEXT_BYTES, why, sizeof why);
    double s = 0;
    if (f) {
        if (fscanf(f, "%lf", &s) != 1 || !isfinite(s) || s < 0) s = 0;
        fclose(f);
    }
    return s;
}

/* Appends this process's stdout and stderr to dir/train.log. */
static int redirect_output(const char *dir) {
    char path[SWEEP_PATH + 32];
    snprintf(path, sizeof path, "%s/train.log", dir);
    char why[128];
    int fd = file_open_log(path, 0, why, sizeof why); /* never through a link */
    if (fd < 0) {
        error_add(NULL, 0, NULL, "cannot open '%s': %s", path, why);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    int rc = dup2(fd, 1) < 0 || dup2(fd, 2) < 0 ? -1 : 0;
    close(fd);
    return rc;
}

/* The run's outcome so far, before training: its marker unreadable (EXIT_CONFIG), the run
 * finished before (its exit code, or EXIT_CONFIG for another configuration's run), or -1 to
 * train. A live process still training in dir is waited for first, then looked at again. */
static int earlier_outcome(const Config *c, const char *dir, const char *cfg_path) {
    RunMarker mk;
    for (int waited = 0;; waited = 1) {
        int marker = results_marker_read(dir, &mk);
        if (marker == -2) {
            /* its outcome cannot be known: neither trained again nor recorded over */
            error_add(NULL, 0, NULL, "%s/%s cannot be read (not a marker ./train wrote); the run's "
                                     "outcome is unknown. Remove that file to resume or train the "
                                     "run again", dir, SWEEP_MARKER);
            return EXIT_CONFIG;
        }
        if (marker == 0 && results_final(mk.exit_code)) {
            int same = sweep_finished_run_matches(c, dir);
            if (!same)
                error_add(NULL, 0, NULL, "%s holds a finished run of another configuration than "
                                         "%s; remove the run folder to train it again",
                          dir, cfg_path);
            return same ? mk.exit_code : EXIT_CONFIG; /* finished before: nothing to do */
        }
        /* still trained by a live process (a child of a sweep killed a moment ago, which its
         * parent-death signal is stopping; a jobs.txt line run twice): waited for, then looked
         * at again; never started beside it, never recorded as failed */
        pid_t holder = run_lock_holder(dir);
        if (holder == 0) break;
        if (!waited)
            fprintf(stderr, "sweep-run %s: %s is being trained by another process (pid %ld); "
                            "waiting for it to end\n", SHOWN(cfg_path), SHOWN(dir), (long)holder);
        struct timespec nap = {0, 200000000};
        nanosleep(&nap, NULL);
    }
    return -1;
}

/* The checks before anything is written into dir: a run not yet started trains on the task
 * file the sweep was planned with; the folder is absent or a run of ours (its errors at where).
 * Returns 0 or EXIT_CONFIG. */
static int may_train_in(const Config *c, const char *dir, const char *cfg_path,
                        const char *where) {
    char path[SWEEP_PATH + 32];
    /* a run not yet started trains on the task file the sweep was planned with, or not at all:
     * its numbers would be pooled with those of the runs that did (sweep/plan.h) */
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    if (access(path, F_OK) != 0 && plan_check_task_file(c, cfg_path) != 0) return EXIT_CONFIG;
    /* train.log and the markers go into the run folder before ./train's own check (train.c):
     * the check is made here first, so that a link or a folder of the user's (their own
     * train.log included) gets nothing written into it */
    if (train_run_folder_check(dir, where) != 0 ||
        owned_dir_check(dir, &SWEEP_RUN_WRITER, where) != 0) {
        return EXIT_CONFIG; /* a run of ours, resumed, passes */
    }
    return 0;
}

/* Trains the run, or resumes it from its checkpoint, its output going to dir/train.log; then
 * records its outcome: the wall time so far after an interruption, else the marker. Returns
 * the run's exit code. */
static int train_and_record(Config *c, const char *dir, const char *cfg_path) {
    char path[SWEEP_PATH + 32];
    /* a failed attempt's marker goes: stopped now, the run must read as interrupted */
    snprintf(path, sizeof path, "%s/%s", dir, SWEEP_MARKER);
    owned_remove(path);
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    int resume = access(path, F_OK) == 0;
    double before = resume ? read_wall(dir) : 0, t0 = now_s();
    fprintf(stderr, TRAIN_SWEEP_LOG_START "%s: %s (%s)\n", SHOWN(cfg_path),
            resume ? "resuming from checkpoint.bin" : "training", SCALEDOT_VERSION);
    int rc;
    /* the same checks as ./train --resume (the task file unchanged, the folder's own run), and
     * what they read is what the run continues (run_print.h) */
    RunPrint print;
    if (resume) run_print_take(dir, "--sweep-run", &print);
    if (resume)
        rc = checkpoint_matches(c, path, cfg_path) == 0 &&
                     checkpoint_check_resume(path, dir, c, "--sweep-run") == 0
                 ? train_run_from(c, path, &print)
                 : EXIT_CONFIG;
    else rc = train_run(c);
    double wall = before + now_s() - t0;
    char text[64];
    snprintf(path, sizeof path, "%s/%s", dir, WALL_FILE);
    if (rc == 128 + SIGINT || rc == 128 + SIGTERM) {
        int n = snprintf(text, sizeof text, "%.3f\n", wall);
        sweep_write_atomic(path, text, (size_t)n);
    } else {
        RunMarker mk = {rc, wall, SCALEDOT_VERSION};
        if (results_marker_write(dir, &mk) != 0 && rc == 0) rc = EXIT_RUNTIME;
        owned_remove(path);
    }
    return rc;
}

/* A failed run's line on the terminal (fd terminal, closed here): the run's own messages went to
 * its train.log, which a user running jobs.txt by hand would not think to read. */
static void tell_terminal(int terminal, int rc, const char *cfg_path, const char *dir) {
    if (terminal < 0) return;
    if (rc != 0) {
        char line[SWEEP_PATH + 128];
        int n = snprintf(line, sizeof line, "sweep-run %s: exit code %d; see %s/train.log\n",
                         cfg_path, rc, dir);
        if (n > 0 && write(terminal, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0) {
            /* nothing more to say: the terminal is gone, the marker and train.log have it */
        }
    }
    close(terminal);
}

int sweep_run_one(const char *cfg_path) {
    Config *c = malloc(sizeof *c);
    if (!c) return EXIT_RUNTIME;
    if (sweep_load_run_config(cfg_path, c) != 0 || sweep_follow_moved(c, cfg_path) != 0) {
        free(c);
        return EXIT_CONFIG;
    }
    char dir[SWEEP_PATH];
    snprintf(dir, sizeof dir, "%s/%s", c->run_dir, c->run_name);
    char where[CONFIG_STR + 64]; /* the folder's place: the config line that named the run */
    train_run_folder_place(c, dir, where, sizeof where);
    int rc = earlier_outcome(c, dir, cfg_path);
    if (rc >= 0 || (rc = may_train_in(c, dir, cfg_path, where)) != 0) {
        free(c); /* finished before, or not to be trained here */
        return rc;
    }
    if (make_dirs(dir) != 0) {
        error_add(NULL, 0, where, "cannot create run folder '%s': %s", dir, strerror(errno));
        free(c);
        return EXIT_RUNTIME;
    }
    /* ./train locks the folder itself while it trains; the run command's files are claimed in
     * the folder's manifest */
    int owned = owned_dir_open(dir, &SWEEP_RUN_WRITER, OWNED_NO_LOCK, where);
    if (owned < 0) {
        free(c);
        return owned == -2 ? EXIT_CONFIG : EXIT_RUNTIME;
    }
    /* the terminal (or the scheduler's log) still hears of a failure */
    int terminal = dup(2);
    if (redirect_output(dir) != 0) {
        if (terminal >= 0) close(terminal);
        owned_dir_close(owned);
        free(c);
        return EXIT_RUNTIME;
    }
    rc = train_and_record(c, dir, cfg_path);
    owned_dir_close(owned);
    fflush(NULL);
    tell_terminal(terminal, rc, cfg_path, dir);
    free(c);
    return rc;
}
