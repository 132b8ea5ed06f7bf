/* sweep.h: the commands of the sweep engine (src/sweep/): ./train --sweep and the per-run
 * command ./train --sweep-run that the sweep's child processes and OUT/jobs.txt run. */
#ifndef SCALEDOT_SWEEP_H
#define SCALEDOT_SWEEP_H

#include "config/config.h"
#include "sweep/plan.h"

/* ./train --sweep ...; a holds its arguments (read by cli/sweep_args.c; see ./train --sweep
 * --help) and stays the caller's to free (sweep_args_free). Plans every run and checks each one's config before anything runs,
 * stores the plan in OUT, then runs the runs not yet finished as child processes of the program
 * (/proc/self/exe --sweep-run), --jobs at a time, rebuilding OUT/sweep.csv (its result columns: report/read/sweep_columns.c)
 * as each ends, and calls sweep_report. --plan stops after writing the plan, the configs and
 * jobs.txt; --collect only rebuilds sweep.csv and the report. Returns an exit code: 0; 1 I/O
 * error or a failed run; 2 bad arguments or config, nothing run or written; 128 + signal after
 * SIGINT / SIGTERM (the running children were signalled and each saved its checkpoint). */
int sweep_execute(const SweepArgs *a);

/* ./train --sweep-run OUT/configs/RUN.ini (cfg_path): one run of a sweep, idempotent. Does nothing when
 * the run's marker (results.h) records that it ended for good (exit code 0, 3 or 4), resumes it
 * from RUN/checkpoint.bin when there is one (refusing a checkpoint of another configuration),
 * else trains it; its output goes to RUN/train.log (appended). When the run ends with an exit
 * code the marker is written (exit code, wall time summed over attempts, version); after
 * SIGINT / SIGTERM it is not, and the next call resumes. Returns the run's exit code (the
 * recorded one when nothing was done), 2 for a bad config file. */
int sweep_run_one(const char *cfg_path);

/* Where a run config of a sweep folder that was moved (or copied) away from where it was planned
 * trains: its run.dir names the old folder's runs/ (an absolute path), so c->run_dir is set to the
 * runs/ beside the config instead, OUT/runs for cfg_path OUT/configs/R.ini, when OUT holds a
 * plan.txt that names run R, c's run.name is R, and OUT is not the folder run.dir names; a note
 * on stderr says so. Never the old place. Used by the sweep's run command and by a plain
 * ./train OUT/configs/R.ini (docs/sweeps.md). Returns 0 (c moved, or left as it was when the
 * config is no such run config), or -1 after a message (plan.txt unreadable, OUT unresolvable). */
int sweep_follow_moved(Config *c, const char *cfg_path);

/* For a writer that must stay out of every folder ./train writes (--export), also one a version
 * before manifests (util/owned_dir.h) wrote: the name of the file in dir that makes it a sweep
 * folder, read as the sweep writes it (folder_mark.c): plan.txt starting with PLAN_FIRST_LINE,
 * sweep.csv whose header starts with the run column and holds the status and exit_code columns
 * side by side, jobs.txt whose first line is a --sweep-run command of a configs/ file; NULL when
 * dir holds none. */
const char *sweep_folder_mark(const char *dir);

/* The sweep folder's path goes into every run config (run.dir = "...") and jobs.txt line: a '"',
 * a line break or another control byte would break them. Returns 0 when path holds none, else
 * -1 after adding the error naming path and the byte to errs (NULL: printed now) at place
 * `where` (an error_place, e.g. "--out (argument 4)") with order `order`. */
int sweep_out_check(const char *path, const char *where, int order, ErrorList *errs);

#endif
