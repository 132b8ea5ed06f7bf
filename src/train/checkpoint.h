/* checkpoint.h: save and restore the whole state of a run, so that a resumed run continues
 * bitwise identically to one never interrupted.
 *
 * Format (version 2), native little-endian, every integer fixed-width:
 *   char[8]  magic "SCALEDOT"
 *   u32      version (1)
 *   u32      0x01020304 (byte-order check)
 *   u64      length of the resolved configuration text, then that text (INI, as config.ini)
 *   i64      step: updates done;  f64 elapsed seconds;  i64 skipped (non-finite) steps
 *   u64[4]   state of the training-data generator (xoshiro256**)
 *   i64      optimizer steps taken;  u32 optimizer kind (0 AdamW, 1 SGD);  u32 state buffers (2, 1)
 *   u32      number of QK-clip counters (n_layers * n_heads with attention.qk_clip, else 0), then
 *            i64 each: updates that clipped the head since attention.csv's last row (version 2)
 *   u32      number of tensors, then for each: u32 name length, name, u32 ndim, u32 shape[2],
 *            u64 element count
 *   f32[n]   every parameter, in tensor-table order; then each optimizer state buffer (AdamW m
 *            and v, SGD momentum), same order
 *   u64      FNV-1a 64-bit hash of every byte before it
 * Version 1 (no counters) still loads: its run's counters start at zero on resume.
 * A file whose size, magic, version, byte order, shapes or hash do not match is rejected. It is
 * written to a temporary file, flushed to disk (fsync) and renamed over the old one, so a crash
 * leaves either the old or the new checkpoint, never a torn one. */
#ifndef SCALEDOT_CHECKPOINT_H
#define SCALEDOT_CHECKPOINT_H

#include "config/config.h"
#include "model/model.h"
#include "optim/optim.h"
#include "util/rng.h"

typedef struct {
    long step;          /* updates done */
    double elapsed_s;
    long skipped;       /* steps whose update was skipped (train.on_divergence = skip) */
    Rng data_rng;       /* the training stream's generator */
    int clip_counts_kept; /* set by checkpoint_load: 0 for a version-1 file, whose QK-clip counters
                           * were not stored (the model's stay zero) */
} CheckpointState;

/* Writes the checkpoint to path (via a temporary file, util/whole_write.h). Returns 0, or -1
 * after printing which file could not be written and why. */
int checkpoint_save(const char *path, const char *config_text, const Model *m,
                    const Optimizer *o, const CheckpointState *s);

/* Reads the configuration text stored in the checkpoint at path (malloc'd, NUL-terminated, the
 * caller frees it). Checks that it is a regular file, then magic, version, byte order, length and
 * hash. Returns 0, or -1 with a message naming the file and what is wrong. */
int checkpoint_read_config(const char *path, char **config_text);

/* For `what` (the place of the folder's argument, "--resume (argument 2)", "--eval (argument
 * 2)" or "--export (argument 2)": error_place) of run folder run_dir: 0 when run_dir is a folder
 * holding a checkpoint.bin (of any kind: the loader checks it); else -1 after a message at that
 * place that says so plainly: no such folder, or no checkpoint in it, so nothing to resume,
 * evaluate or export (a run stopped before its first checkpoint: a second Ctrl-C, a kill), and
 * what to do (train it again from step 0; its config.ini named when the folder holds one). */
int checkpoint_check_present(const char *run_dir, const char *what);

/* Reads the configuration stored in the checkpoint at path into c (which should hold defaults),
 * its errors at place what (error_add's: the argument that named the run folder, "--resume
 * (argument 2)"; NULL: none; the file is named in each):
 * checkpoint_read_config, then config_load_text with the checkpoint's path in messages, then what
 * an older checkpoint meant by a key it lacks: one without task.separator was written when every
 * task, recall included, put a separator before the answer, so it gets task.separator = true.
 * The stored run.name and run.dir are not read (c keeps its own): where a run lives is its
 * folder's, which the caller sets, and a bad name an older version wrote stays readable.
 * Returns 0, or -1 after printing what is wrong (c is then unchanged). */
int checkpoint_load_config(const char *path, Config *c, const char *what);

/* The run.dir stored in the checkpoint at path (the one the run was started with, or last
 * resumed under), into dir (n bytes). Returns 0, or -1 when the checkpoint cannot be read
 * (after a message), stores none or it does not fit. */
int checkpoint_stored_run_dir(const char *path, char *dir, size_t n);

/* A copy of the configuration text of a checkpoint (checkpoint_read_config) whose [run] name line
 * says name (written as config_write writes it: name = "NAME"); text unchanged when it has no
 * such line. Malloc'd (the caller frees); NULL when memory runs out. */
char *checkpoint_config_named(const char *text, const char *name);

/* The checks before a run folder's checkpoint is resumed, shared by ./train --resume (and
 * --eval) and --sweep-run (a sweep restart): the task file the checkpoint was trained on is
 * unchanged (task_source_check against c's task.file), and, when run_dir is not NULL, the
 * checkpoint's configuration is the one in run_dir/config.ini but for the keys a resume may
 * change (config_resumable_keys) and run.dir / run.name (a folder may move). A missing
 * config.ini is not compared when the folder holds no log either (a checkpoint alone); beside a
 * log (runlog_first_present) it is refused, as is one that is not a regular file, too large or
 * unreadable.
 * what is the place the messages start with ("--resume (argument 2)", "--sweep-run"). Returns 0,
 * or -1 after an error naming the files and every key that differs. checkpoint_check_folder is the second check alone, for what reads no task
 * data (--export and --eval --generate of a text run: its file may have moved away). */
int checkpoint_check_folder(const char *path, const char *run_dir, const char *what);
int checkpoint_check_resume(const char *path, const char *run_dir, const Config *c,
                            const char *what);

/* Restores parameters, optimizer state, QK-clip counters and run state into a model and
 * optimizer built from the checkpoint's own configuration. Returns 0, or -1 with a message naming the file and the first
 * mismatch (tensor name or shape, optimizer kind, size). */
int checkpoint_load(const char *path, Model *m, Optimizer *o, CheckpointState *s);

#endif
