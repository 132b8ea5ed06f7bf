/* resume_checks.h: the checks on a run folder before its checkpoint is used (--resume, --eval,
 * --export, a sweep's restart): that it holds one, that its task data is unchanged, and that
 * the checkpoint is the run of the folder's config.ini and logs. */
#ifndef SCALEDOT_RESUME_CHECKS_H
#define SCALEDOT_RESUME_CHECKS_H

#include "config/config.h"

/* For `what` (the place of the folder's argument, "--resume (argument 2)", "--eval (argument
 * 2)" or "--export (argument 2)": error_place) of run folder run_dir: 0 when run_dir is a folder
 * holding a checkpoint.bin (of any kind: the loader checks it); else -1 after a message at that
 * place that says so plainly: no such folder, or no checkpoint in it, so nothing to resume,
 * evaluate or export (a run stopped before its first checkpoint: a second Ctrl-C, a kill), and
 * what to do (train it again from step 0; its config.ini named when the folder holds one). */
int checkpoint_check_present(const char *run_dir, const char *what);

/* The checks before a run folder's checkpoint is resumed, shared by ./train --resume (and
 * --eval) and --sweep-run (a sweep restart): the task file the checkpoint was trained on is
 * unchanged (task_source_check against c's task.file), and, when run_dir is not NULL, the
 * checkpoint's configuration is the one in run_dir/config.ini but for the keys a resume may
 * change (config_resumable_keys) and run.dir / run.name (a folder may move). A missing
 * config.ini is not compared when the folder holds no log either (a checkpoint alone); beside a
 * log (runlog_first_present) it is refused, as is one that is not a regular file, too large or
 * unreadable.
 * what is the place the messages start with ("--resume (argument 2)", "--sweep-run"). Returns 0,
 * or -1 after an error naming the files and every key that differs. checkpoint_check_folder is
 * the second check alone, for what reads no task data (--export and --eval --generate of a text
 * run: its file may have moved away). */
int checkpoint_check_resume(const char *path, const char *run_dir, const Config *c,
                            const char *what);
int checkpoint_check_folder(const char *path, const char *run_dir, const char *what);

#endif
