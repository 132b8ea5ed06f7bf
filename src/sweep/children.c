/* children.c: the sweep's child processes: fork + exec of the program's own per-run command,
 * --jobs at a time (--jobs 1 takes the same path), the signals passed on, a progress line. */
#include "sweep/children.h"

#include <errno.h>
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

#include "sweep/results.h"
#include "util/clock.h"
#include "util/stop_signal.h"

/* "1h02m", "3m05s", "12s". */
static void format_eta(char *out, size_t n, double s) {
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(out, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60) snprintf(out, n, "%ldm%02lds", t / 60, t % 60);
    else snprintf(out, n, "%lds", t);
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
        fprintf(stderr, "error: cannot run '%s': %s\n", jl->exe, strerror(errno));
        _exit(127);
    }
    if (pid < 0) fprintf(stderr, "error: cannot start a run (fork): %s\n", strerror(errno));
    return pid;
}

/* Starts runs into the free slots, unless a signal came or a start failed (*rc = 1). */
static void fill(const JobList *jl, pid_t *pid, int *which, int *next, int *running, int *rc) {
    for (int s = 0; s < jl->jobs && !stop_signal_caught() && !*rc && *next < jl->n; s++)
        if (pid[s] == 0) {
            if ((pid[s] = start(jl, *next)) < 0) {
                pid[s] = 0;
                *rc = 1;
            } else {
                which[s] = (*next)++;
                ++*running;
            }
        }
}

int children_run(const JobList *jl, int *failed) {
    pid_t *pid = calloc((size_t)(jl->jobs), sizeof *pid);
    int *which = calloc((size_t)(jl->jobs), sizeof *which);
    if (!pid || !which) {
        free(pid);
        free(which);
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    StopSignals saved;
    stop_signals_catch(&saved);
    int next = 0, running = 0, done = 0, n_failed = 0, rc = 0, forwarded = 0;
    double t0 = now_s();
    while (next < jl->n || running > 0) {
        fill(jl, pid, which, &next, &running, &rc);
        if (rc && running == 0) break;
        if (stop_signal_caught() && !forwarded) {
            for (int s = 0; s < jl->jobs; s++)
                if (pid[s] > 0) stop_signal_relay(pid[s], stop_signal_caught());
            forwarded = 1;
        }
        int st;
        pid_t got = waitpid(-1, &st, WNOHANG);
        if (got == 0 || (got < 0 && errno == EINTR)) {
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
        }
        if (jl->done(jl->ctx, which[s], code) != 0) rc = 1;
        if (stopped) continue;
        fill(jl, pid, which, &next, &running, &rc); /* the next run first: "running" is true */
        char eta[32] = "-";
        int left = jl->n - done;
        if (done > 0 && left > 0) format_eta(eta, sizeof eta, (now_s() - t0) / done * left);
        else if (left == 0) snprintf(eta, sizeof eta, "0s");
        fprintf(stderr, "sweep: %d/%d runs done (%d before this start), %d running, %d failed; "
                        "ETA %s\n", jl->finished_before + done, jl->total, jl->finished_before,
                running, n_failed, eta);
    }
    stop_signals_restore(&saved);
    free(pid);
    free(which);
    if (failed) *failed = n_failed;
    if (stop_signal_caught()) return 128 + stop_signal_caught();
    return rc;
}
