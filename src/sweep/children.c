/* children.c: the sweep's child processes: fork + exec of the program's own per-run command,
 * --jobs at a time (--jobs 1 takes the same path), the signals passed on, a progress line. */
#include "sweep/children.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#include "report/read/read.h"
#include "runlog/log_query.h"
#include "sweep/results.h"
#include "util/clock.h"
#include "util/error_list.h"
#include "util/stop_signal.h"

double children_eta(double run_s, const double *age, int running, int queued, int jobs) {
    if (jobs < 1) jobs = 1;
    double *slot = calloc((size_t)jobs, sizeof *slot), end = 0;
    if (!slot) return run_s * (queued + running); /* one at a time: an upper bound */
    /* each slot's time until it is free: what its run has left (none once past run_s) */
    for (int i = 0; i < running && i < jobs; i++) slot[i] = age[i] < run_s ? run_s - age[i] : 0;
    /* each queued run goes to the slot that frees first */
    for (int q = 0; q < queued; q++) {
        int first = 0;
        for (int s = 1; s < jobs; s++)
            if (slot[s] < slot[first]) first = s;
        slot[first] += run_s;
    }
    for (int s = 0; s < jobs; s++)
        if (slot[s] > end) end = slot[s];
    free(slot);
    return end;
}

/* "1h02m", "3m05s", "12s". */
static void format_eta(char *out, size_t n, double s) {
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(out, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60) snprintf(out, n, "%ldm%02lds", t / 60, t % 60);
    else snprintf(out, n, "%lds", t);
}

/* The last step run folder dir has logged in loss.csv (a row with its train_loss, so the step
 * field is whole while the line is still being written), or -1. */
static int logged_step(const char *dir) {
    Csv t = {0};
    char path[PATH_MAX];
    int step = -1;
    if (dir && log_read(&t, dir, "loss.csv", path, sizeof path, LOG_QUIET) == 0) {
        int row = log_last_row(&t, csv_col(&t, "train_loss"));
        step = row >= 0 ? log_step(&t, row) : -1;
    }
    csv_free(&t);
    return step;
}

/* The heartbeat (children.h), once *last (the time of the last progress line) is beat_s old. */
static void heartbeat(const JobList *jl, const pid_t *pid, const int *which, const double *began,
                      int done, double *last) {
    double now = now_s();
    if (now - *last < (jl->beat_s > 0 ? jl->beat_s : CHILDREN_BEAT_S)) return;
    *last = now;
    fprintf(stderr, "sweep: %d/%d runs done; running:", jl->finished_before + done, jl->total);
    for (int s = 0, first = 1; s < jl->jobs; s++) {
        if (pid[s] <= 0) continue;
        const char *path = jl->dir ? jl->dir[which[s]] : jl->cfg[which[s]];
        const char *base = strrchr(path, '/');
        int step = logged_step(jl->dir ? path : NULL);
        fprintf(stderr, "%s %s (", first ? "" : ",", SHOWN(base ? base + 1 : path));
        if (step >= 0) fprintf(stderr, "step %d, ", step);
        fprintf(stderr, "%.0f s)", now - began[s]);
        first = 0;
    }
    fprintf(stderr, "\n");
}

/* The progress line after a run ended (children.h); n: runs done, started, running, failed,
 * timed (those that ended for good: results_final); run_s: the seconds of the timed runs,
 * summed; age: room for jobs values. */
static void progress_line(const JobList *jl, const pid_t *pid, const double *began, double *age,
                          const int n[5], double run_s) {
    /* each run left takes as long as the mean run trained so far, --jobs of them at once; a run
     * refused at its start or failed says nothing of how long a run takes: with none trained
     * there is no ETA */
    char eta[48] = "", t[32];
    int done = n[0], left = jl->n - done, n_age = 0, timed = n[4];
    for (int k = 0; k < jl->jobs; k++)
        if (pid[k] > 0) age[n_age++] = now_s() - began[k];
    if (timed > 0 && left > 0) {
        format_eta(t, sizeof t, children_eta(run_s / timed, age, n_age, jl->n - n[1], jl->jobs));
        snprintf(eta, sizeof eta, "; ETA %s", t);
    } else if (left == 0) {
        snprintf(eta, sizeof eta, "; ETA 0s");
    }
    fprintf(stderr, "sweep: %d/%d runs done (%d before this start), %d running, %d failed%s\n",
            jl->finished_before + done, jl->total, jl->finished_before, n[2], n[3], eta);
}

static pid_t start(const JobList *jl, int i) {
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
#ifdef __linux__
        /* the run dies with its sweep (kill -9 of the parent included): SIGTERM, so that it
         * saves its checkpoint and stops; the sweep started again resumes it. The parent may
         * have died before the call: then no signal would ever come */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(128 + SIGTERM);
#else
        (void)parent;
#endif
        char *argv[] = {(char *)jl->exe, "--sweep-run", jl->cfg[i], NULL};
        execv(jl->exe, argv);
        error_add(NULL, 0, NULL, "cannot run '%s': %s", jl->exe, strerror(errno));
        _exit(127);
    }
    if (pid < 0) error_add(NULL, 0, NULL, "cannot start a run (fork): %s", strerror(errno));
    return pid;
}

/* The line a second SIGINT / SIGTERM to the sweep prints as it ends at once (util/stop_signal.h:
 * "second SIGINT: stopped at once; " and this note), in the words of a run's own line: its
 * running runs were not waited for and stop at once too (each gets SIGTERM as its parent dies:
 * start(); a Ctrl-C at the terminal reaches them directly), with no checkpoint of this step;
 * which of their folders keep a checkpoint to go on from (checkpoint.bin there now) and which
 * train again from step 0; the same command resumes the sweep. Called as runs start and end and
 * while they run, so that the note is the state of the moment. */
static void note_stop_state(const JobList *jl, const pid_t *pid, const int *which) {
    char note[STOP_NOTE_MAX], kept[STOP_NOTE_MAX / 2] = "", none[STOP_NOTE_MAX / 2] = "";
    int running = 0;
    for (int s = 0; s < jl->jobs; s++) {
        if (pid[s] <= 0) continue;
        running++;
        const char *name = jl->dir ? jl->dir[which[s]] : jl->cfg[which[s]];
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/checkpoint.bin", name);
        char *list = jl->dir && access(path, F_OK) == 0 ? kept : none;
        size_t len = strlen(list);
        snprintf(list + len, sizeof kept - len, "%s%s%s", len ? ", " : "", name, jl->dir ? "/" : "");
    }
    if (running == 0)
        snprintf(note, sizeof note, "no run was running. Every finished run is kept; the same "
                 "command resumes the sweep\n");
    else if (snprintf(note, sizeof note, "its %d running run%s too, not waited for: no checkpoint of "
                 "this step.%s%s%s%s%s%s Every finished run is kept; the same command resumes "
                 "the sweep, each run from its checkpoint\n", running, running > 1 ? "s" : "",
                 kept[0] ? " Their logs and last checkpoint kept: " : "", kept, kept[0] ? "." : "",
                 none[0] ? (jl->dir ? " No checkpoint, trained again from step 0: "
                                    : " Runs (their train.log says what each keeps): ") : "",
                 none, none[0] ? "." : "") >= (int)sizeof note)
        memcpy(note + sizeof note - 5, "...\n", 5); /* a list too long for the note: cut, said so */
    stop_signal_note(note);
}

/* Starts runs into the free slots, unless a signal came or a start failed (*rc = 1). */
static void fill(const JobList *jl, pid_t *pid, int *which, double *began, int *next,
                 int *running, int *rc) {
    for (int s = 0; s < jl->jobs && !stop_signal_caught() && !*rc && *next < jl->n; s++)
        if (pid[s] == 0) {
            if ((pid[s] = start(jl, *next)) < 0) {
                pid[s] = 0;
                *rc = 1;
            } else {
                which[s] = (*next)++;
                began[s] = now_s();
                ++*running;
            }
        }
}

int children_run(const JobList *jl, int *failed) {
    pid_t *pid = calloc((size_t)(jl->jobs), sizeof *pid);
    int *which = calloc((size_t)(jl->jobs), sizeof *which);
    double *began = calloc((size_t)(jl->jobs), sizeof *began); /* when each slot's run began */
    double *age = calloc((size_t)(jl->jobs), sizeof *age);
    if (!pid || !which || !began || !age) {
        free(pid);
        free(which);
        free(began);
        free(age);
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    StopSignals saved;
    stop_signals_catch(&saved);
    int next = 0, running = 0, done = 0, n_failed = 0, timed = 0, rc = 0, forwarded = 0;
    double run_s = 0; /* seconds of the runs that ended for good, summed */
    double last_line = now_s(); /* the sweep's first line was just printed */
    while (next < jl->n || running > 0) {
        fill(jl, pid, which, began, &next, &running, &rc);
        note_stop_state(jl, pid, which);
        if (rc && running == 0) break;
        if (stop_signal_caught() && !forwarded) {
            for (int s = 0; s < jl->jobs; s++)
                if (pid[s] > 0) stop_signal_relay(pid[s], stop_signal_caught());
            forwarded = 1;
        }
        int st;
        pid_t got = waitpid(-1, &st, WNOHANG);
        if (got == 0 || (got < 0 && errno == EINTR)) {
            heartbeat(jl, pid, which, began, done, &last_line);
            struct timespec nap = {0, 50000000};
            nanosleep(&nap, NULL);
            continue;
        }
        if (got < 0) break; /* ECHILD: nothing left to wait for */
        int s = 0;
        while (s < jl->jobs && pid[s] != got) s++;
        if (s == jl->jobs) continue; /* not one of ours */
        pid[s] = 0;
        running--;
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
        int stopped = stop_signal_caught() && (code == 128 + SIGINT || code == 128 + SIGTERM);
        if (!stopped) {
            done++;
            n_failed += !results_final(code);
            if (results_final(code)) timed++, run_s += now_s() - began[s];
        }
        if (jl->done(jl->ctx, which[s], code) != 0) rc = 1;
        if (stopped) continue;
        fill(jl, pid, which, began, &next, &running, &rc); /* the next run first: "running" is true */
        progress_line(jl, pid, began, age, (int[]){done, next, running, n_failed, timed}, run_s);
        last_line = now_s();
    }
    stop_signals_restore(&saved);
    free(pid);
    free(which);
    free(began);
    free(age);
    if (failed) *failed = n_failed;
    if (stop_signal_caught()) return 128 + stop_signal_caught();
    return rc;
}
