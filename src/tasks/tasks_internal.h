/* tasks_internal.h: what the files of src/tasks/ share with each other and nothing outside the
 * folder uses (the public API is tasks.h): the seeded streams, the config-key messages, the row
 * layout and validation hash set, and the two task builders task_init dispatches to.
 *
 * Who does what: tasks.c (task_init, task_free, the messages), generated.c (sort, reverse,
 * copy, recall), file_parse.c (a task file's text into examples), file_task.c (those examples
 * into a task), valset.c (rows and the validation set), stream.c (training batches), format.c
 * (text), file_conflict.c (one answer per prompt), text_task.c (the text task). */
#ifndef SCALEDOT_TASKS_INTERNAL_H
#define SCALEDOT_TASKS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "util/rng.h"

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

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

/* ---- messages (tasks.c) --------------------------------------------------------------------- */

/* config_origin may return a static buffer, so two origins in one message are copied first. */
typedef struct {
    char s[CONFIG_STR + 64];
} Origin;

/* Where key was set ("FILE:LINE", "--set (argument N)") or "default". */
Origin task_origin_of(const Config *c, const char *key);

/* "set at FILE:LINE" or "default", for a second key named inside a message. */
Origin task_set_at(const Config *c, const char *key);

/* Prints "ORIGIN: key 'KEY': message" to stderr -- the same shape as the config reader's errors
 * -- and returns -1. */
PRINTF_LIKE(3, 4) int task_key_error(const Config *c, const char *key, const char *fmt, ...);

/* ---- rows and the validation hash set (valset.c) -------------------------------------------- */

/* Lays out seq (the prompt, SEP when the task has one, the answer; total length L; the answer
 * starts at seq[a]) as one [T] row: targets[i] = seq[i + 1] is an answer token from i = a - 1 on,
 * that is at SEP with a separator and at the prompt's last token without. */
void task_put_row(const Task *t, const int *seq, int a, int L, int *tok, int *tgt, float *m);

/* Hash of one [T] row: tokens, targets and which positions the mask counts. */
uint64_t task_row_hash(const int *tok, const int *tgt, const float *m, int T);

/* Index of the validation example equal to the row (h = its task_row_hash), or -1. */
int task_val_find(const Task *t, const int *tok, const int *tgt, const float *m, uint64_t h);

/* Records validation example k (hash h) in the hash set; the caller has checked it is new. */
void task_val_insert(Task *t, uint64_t h, int k);

/* Allocates n_val validation rows of t->seq_len and an empty hash set with load factor <= 1/2.
 * Returns 0, or -1 (with a message) when out of memory. */
int task_alloc_val(Task *t, int n_val);

/* ---- the builders ------------------------------------------------------------------------ */

/* generated.c: draws one example into seq (prompt, SEP if the task has one, answer; room for
 * t->seq_len + 1 ints); returns where the answer starts, sets *L. Recall shuffles keys in
 * t->scratch beyond seq_len + 1. */
int task_gen_example(Task *t, Rng *r, int *seq, int *L);

/* generated.c: task_init for sort, reverse, copy and recall (t->kind and t->separator set). */
int task_init_generated(Task *t, const Config *c);

/* file_task.c: task_init for the file task (t->kind and t->separator set) from path; text = NULL
 * reads the file, else text[0..len) is its content and path only names it in messages. */
int task_init_file(Task *t, const Config *c, const char *path, const char *text, size_t len);

/* text_task.c: task_init for the text task (t->kind set) from the file at path. */
int task_init_text_file(Task *t, const Config *c, const char *path);
/* Its keys checked and its fixed shape set (256 byte tokens, no SEP or PAD, task.seq_len
 * windows), the file not read: task_init_text_file's first half, and task_init_model_only. */
int task_init_text_shape(Task *t, const Config *c);

/* text_task.c: bytes of the held-out tail of a text of n bytes, floor(n * val_fraction). */
size_t task_text_tail(size_t n, double val_fraction);

/* text_task.c: the fewest bytes a text needs for windows of T + 1 bytes in both its training
 * part and its held-out tail (the number the too-short message gives). */
size_t task_text_min_bytes(int T, double val_fraction);

/* ---- a task file's text as examples (file_parse.c, used by file_task.c) ---------------------- */

typedef struct {
    char *text;      /* the whole file, NUL-terminated */
    size_t size;
    char **names;    /* symbol names in order of first appearance */
    int n_names;
    int slots[2 * TASK_MAX_FILE_SYMBOLS];  /* hash table of names: index or -1 */
    int *ids;        /* every example's symbol ids, concatenated */
    size_t n_ids, cap_ids;
    size_t *start;   /* per example: offset into ids, prompt length, answer length */
    int *plen, *alen;
    int *line;       /* per example: its line in the file, for messages */
    int n_ex, cap_ex;
    int *order;      /* distinct examples, then shuffled */
    int *ex_slots;   /* hash table of examples for deduplication */
} FileParse;

/* Prints "FILE:LINE: message (task.file, set at ORIGIN)" to stderr (line 0 = the file as a
 * whole) and returns -1. */
PRINTF_LIKE(4, 5) int task_file_error(const Config *c, const char *path, int line,
                                      const char *fmt, ...);

/* A fresh FileParse (every slot empty, room for the names), or NULL with a message. */
FileParse *task_parse_new(void);

/* Frees fp and everything it holds; safe on NULL members. */
void task_parse_free(FileParse *fp);

/* Puts the task file's content into fp->text: read from path when text is NULL, else copied from
 * text[0..len). Returns 0, or -1 after a message naming the file. */
int task_parse_load(FileParse *fp, const Config *c, const char *path, const char *text,
                    size_t len);

/* Splits fp->text into examples of interned symbol ids (ids in order of first appearance).
 * Returns 0, or -1 after a message naming the file and line. */
int task_parse_lines(FileParse *fp, const Config *c, const char *path);

#endif
