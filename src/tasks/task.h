/* task.h: a built task's data (Task) and its public limits: what the builders fill and the
 * training stream, the evaluation and the formatting read. The layout of the tokens and of the
 * task file is in tasks.h (the folder's public face), which includes this. */
#ifndef SCALEDOT_TASK_H
#define SCALEDOT_TASK_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "util/rng.h"

#define TASK_MAX_FILE_SYMBOLS 4096
/* Longest accepted prompt + answer of one file line, in symbols; keeps T * examples sane. */
#define TASK_MAX_FILE_LINE_SYMBOLS 65536

typedef struct {
    TaskKind kind;
    int n_symbols;   /* alphabet size */
    int vocab_size;  /* n_symbols + 2 (SEP, PAD) */
    int sep, pad;    /* token ids */
    int separator;   /* 1: sequences are prompt SEP answer; 0: prompt answer (no SEP in them) */
    int seq_len;     /* T: tokens fed to the model per example (longest prompt+SEP+answer - 1) */
    int max_answer;  /* longest answer, in tokens */
    int length, pairs;  /* generated tasks: task.length (sort/reverse/copy), task.pairs (recall) */
    Rng rng;         /* the training stream's generator */
    /* validation set, n_val examples, each T tokens/targets/mask, row-major [n_val, T] */
    int n_val;
    int *val_tokens, *val_targets;
    float *val_mask;
    /* Open-addressing hash set of the validation rows (capacity a power of two): slot i holds
     * the hash of a row and its index in the validation set, or -1 when empty. A hit is
     * confirmed by comparing the rows exactly, so a hash collision can never drop a training
     * example wrongly or let a validation example through. */
    uint64_t *val_hashes;
    int *val_slots;
    int n_val_hashes_cap;
    /* task = file: the training examples (those not held out) and the symbol names */
    int n_train_file;
    int *file_tokens, *file_targets;  /* [n_train_file, T] */
    float *file_mask;
    char **symbol_names;              /* [n_symbols], sorted by strcmp; NULL for generated tasks */
    int n_duplicates;                 /* task = file: duplicate lines removed */
    int *scratch;                     /* workspace: T + 1 (+ n_symbols for generated tasks) ints */
    /* task = text: the file's bytes; the first text_train of them are the training part */
    unsigned char *text;
    size_t text_size, text_train;
    long skipped;                     /* training examples skipped because they were in val */
    uint64_t file_hash;               /* task = file or text: FNV-1a 64 (util/fnv1a.h) of the
                                         bytes the task was built from, as read once */
} Task;

#endif
