/* tasks_internal.h: the constants and small helpers the files of src/tasks/ share and nothing
 * outside the folder uses (the public face is tasks.h): the seeded streams, the size limits,
 * calloc of at least one element. It declares no function of any file: each file's functions
 * are in its own header, so that a file includes only what is below it.
 *
 * The rooms, top down: tasks.c (task_init: a TaskConfig made once from the Config, the builder
 * picked; task_free), the builders generated.c (sort, reverse, copy, recall), file_task.c (the
 * file task) and text_task.c (the text task); below them file_parse.c (a task file's text into
 * examples), file_conflict.c (one answer per prompt), valset.c (rows and the validation set) and
 * task_config.c (TaskConfig, the kind names, the messages that name a key); beside tasks.c the
 * readers of a built task, stream.c (training batches) and format.c (text). */
#ifndef SCALEDOT_TASKS_INTERNAL_H
#define SCALEDOT_TASKS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "tasks/task.h"
#include "util/rng.h"

/* Stream constants (ASCII "validate" and "train---"): the validation set and the training stream
 * get unrelated generators from one run.seed, so the validation set depends only on the seed and
 * the task, never on how much training data is drawn. */
#define STREAM_VAL 0x76616c6964617465ull
#define STREAM_TRAIN 0x747261696e2d2d2dull

/* Limits that keep every size computation inside int and allocations sane; far beyond any
 * model this program can train. */
#define MAX_GEN_SYMBOLS (1 << 20)
#define MAX_SEQ (1 << 20)
#define MAX_VAL (1 << 24)

/* ---- small helpers ---------------------------------------------------------------------- */

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Mixing the seed before the XOR means two runs share a stream only for one pseudo-random pair of
 * seeds, never for neighbours like 1 and 2. */
static inline void seed_stream(Rng *r, long seed, uint64_t stream) {
    rng_seed(r, mix64((uint64_t)seed + 0x9E3779B97F4A7C15ull) ^ stream);
}

/* calloc of at least one element, so a zero-sized set is still a valid, freeable pointer. */
static inline void *xcalloc(size_t n, size_t size) { return calloc(n ? n : 1, size); }

#endif
