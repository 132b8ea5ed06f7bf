/* children.h: runs a list of sweep runs as child processes, N at a time, and waits for them. */
#ifndef SCALEDOT_SWEEP_CHILDREN_H
#define SCALEDOT_SWEEP_CHILDREN_H

typedef struct {
    const char *exe;             /* the program to run: `exe --sweep-run cfg[i]` */
    int jobs;                    /* children at once (>= 1) */
    int n;                       /* runs to do */
    char *const *cfg;            /* their config files */
    int total, finished_before;  /* plan size and runs finished earlier, for the progress line */
    /* Called in the parent after run i exited with rc (128 + signal when a signal killed it);
     * returns 0, or -1 to stop starting new runs (an I/O error). */
    int (*done)(void *ctx, int i, int rc);
    void *ctx;
} JobList;

/* Starts the runs in order, at most jobs at once, and waits for every child. A progress line
 * on stderr after each run ends: runs done, running, failed (an exit code other than 0, 3, 4),
 * ETA. SIGINT / SIGTERM to the sweep: no new run starts, the signal is passed to every running
 * child (each saves its checkpoint), and all are waited for. Returns 0, 128 + the signal after
 * SIGINT / SIGTERM, or 1 when a child could not be started or done() failed (after a message).
 * *failed (may be NULL) gets the number of failed runs. */
int children_run(const JobList *jl, int *failed);

#endif
