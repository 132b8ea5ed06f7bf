/* children.h: runs a list of sweep runs as child processes, N at a time, and waits for them. */
#ifndef SCALEDOT_SWEEP_CHILDREN_H
#define SCALEDOT_SWEEP_CHILDREN_H

typedef struct {
    const char *exe;             /* the program to run: `exe --sweep-run cfg[i]` */
    int jobs;                    /* children at once (>= 1) */
    int n;                       /* runs to do */
    char *const *cfg;            /* their config files */
    int total, finished_before;  /* plan size and runs finished earlier, for the progress line */
    char *const *dir;            /* their run folders, for the heartbeat's steps (NULL: none) */
    double beat_s;               /* the heartbeat's period; 0: CHILDREN_BEAT_S */
    /* Called in the parent after run i exited with rc (128 + signal when a signal killed it);
     * returns 0, or -1 to stop starting new runs (an I/O error). */
    int (*done)(void *ctx, int i, int rc);
    void *ctx;
} JobList;

/* Seconds without a progress line after which the sweep says which runs are running. */
#define CHILDREN_BEAT_S 10.0

/* Starts the runs in order, at most jobs at once, and waits for every child. A progress line
 * on stderr after each run ends: runs done, running, failed (an exit code other than 0, 3, 4),
 * ETA (children_eta over the runs that ended for good; none while no run has); and after beat_s seconds without one, a heartbeat: the runs done, and each
 * running run's name (its folder's, else its config file's), last logged step (loss.csv) and
 * seconds so far. SIGINT / SIGTERM to the sweep: no new run starts, the signal is passed to every running
 * child (each saves its checkpoint), and all are waited for. Returns 0, 128 + the signal after
 * SIGINT / SIGTERM, or 1 when a child could not be started or done() failed (after a message).
 * *failed (may be NULL) gets the number of failed runs. */
int children_run(const JobList *jl, int *failed);

/* The progress line's ETA in seconds: every run left is taken to last run_s (the mean of the runs
 * done so far), at most jobs (>= 1) at once. The running runs have run age[0..running) seconds so
 * far (one past run_s is taken to end now), and queued runs wait, each starting on the slot that
 * frees first; the ETA is when the last slot frees. At --jobs 2, two runs of 60 s left and
 * nothing running: 60 s (not 120). */
double children_eta(double run_s, const double *age, int running, int queued, int jobs);

#endif
