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
/* checkpoint_read_config with its errors at place what (error_add's: "--resume (argument 2)";
 * NULL: none). */
int checkpoint_read_config_at(const char *path, const char *what, char **config_text);

/* Restores parameters, optimizer state, QK-clip counters and run state into a model and
 * optimizer built from the checkpoint's own configuration. Returns 0, or -1 with a message naming
 * the file and the first mismatch (tensor name or shape, optimizer kind, size). */
int checkpoint_load(const char *path, Model *m, Optimizer *o, CheckpointState *s);

#endif
