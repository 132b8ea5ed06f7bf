/* file_task.c: the file task built from a parsed task file (file_parse.c): one answer per prompt
 * (file_conflict.c), symbol ids in strcmp order, duplicates removed, a validation set held out by
 * the validation stream, and every example laid out as a row. task_init (tasks.c) calls
 * task_init_file. Part of the task stage (config -> task -> model). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks/file_task.h"
#include "tasks/file_conflict.h"
#include "tasks/file_parse.h"
#include "tasks/tasks_internal.h"
#include "tasks/valset.h"
#include "util/error_list.h"
#include "util/fnv1a.h"

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static uint64_t example_hash(const FileParse *fp, int k) {
    uint64_t h = mix64((uint64_t)fp->plen[k] * 0x9E3779B97F4A7C15ull);
    const int *ids = fp->ids + fp->start[k];
    for (int i = 0; i < fp->plen[k] + fp->alen[k]; i++) h = mix64(h + (uint32_t)ids[i]);
    return h;
}

static int examples_equal(const FileParse *fp, int a, int b) {
    return fp->plen[a] == fp->plen[b] && fp->alen[a] == fp->alen[b] &&
           memcmp(fp->ids + fp->start[a], fp->ids + fp->start[b],
                  (size_t)(fp->plen[a] + fp->alen[a]) * sizeof(int)) == 0;
}

/* Writes example k of the parse as one row. */
static void file_row(const Task *t, const FileParse *fp, int k, int *seq, int *tok, int *tgt,
                     float *m) {
    const int *ids = fp->ids + fp->start[k];
    int p = fp->plen[k], a = fp->alen[k], s = t->separator;
    memcpy(seq, ids, (size_t)p * sizeof(int));
    if (s) seq[p] = t->sep;
    memcpy(seq + p + s, ids + p, (size_t)a * sizeof(int));
    task_put_row(t, seq, p + s, p + a + s, tok, tgt, m);
}

/* Refuses a prompt given two different answers (naming both lines). */
static int one_answer_per_prompt(const FileParse *fp, const TaskConfig *c, const char *path) {
    int first, second;
    int conflict = task_file_conflict(fp->ids, fp->start, fp->plen, fp->alen, fp->n_ex, &first,
                                      &second);
    if (conflict == 0) return 0;
    if (conflict < 0)
        error_add(NULL, 0, NULL, "task: out of memory");
    else
        task_file_error(c, path, fp->line[second],
                        "the same prompt as line %d with a different answer (each prompt "
                        "needs one answer)", fp->line[first]);
    return -1;
}

/* Ids by strcmp order, so the same set of lines gives the same ids in any order: the names move
 * from fp to t (symbol_names, n_symbols, sep, pad, vocab_size). */
static int ids_in_name_order(Task *t, FileParse *fp) {
    int S = fp->n_names;
    char **sorted = malloc((size_t)S * sizeof(char *));
    int *remap = malloc((size_t)S * sizeof(int));
    if (!sorted || !remap) {
        free(sorted);
        free(remap);
        error_add(NULL, 0, NULL, "task: out of memory");
        return -1;
    }
    memcpy(sorted, fp->names, (size_t)S * sizeof(char *));
    qsort(sorted, (size_t)S, sizeof(char *), cmp_name);
    for (int i = 0; i < S; i++) {
        /* Interned names are distinct, so bsearch finds exactly one. */
        char **hit = bsearch(&fp->names[i], sorted, (size_t)S, sizeof(char *), cmp_name);
        remap[i] = (int)(hit - sorted);
    }
    for (size_t i = 0; i < fp->n_ids; i++) fp->ids[i] = remap[fp->ids[i]];
    free(remap);
    free(fp->names);
    fp->names = NULL;
    fp->n_names = 0;
    t->symbol_names = sorted;
    t->n_symbols = S;
    t->sep = S;
    t->pad = S + 1;
    t->vocab_size = S + 2;
    return 0;
}

/* Deduplicates, keeping the first occurrence of each example, into fp->order; sets t's
 * n_duplicates, seq_len (T) and max_answer. Returns the number of distinct examples, or -1. */
static int distinct_examples(Task *t, FileParse *fp) {
    int cap = 16;
    while (cap < 2 * fp->n_ex) cap *= 2;
    fp->ex_slots = malloc((size_t)cap * sizeof(int));
    fp->order = malloc((size_t)fp->n_ex * sizeof(int));
    if (!fp->ex_slots || !fp->order) {
        error_add(NULL, 0, NULL, "task: out of memory");
        return -1;
    }
    for (int i = 0; i < cap; i++) fp->ex_slots[i] = -1;
    int n = 0, T = 0, max_answer = 0;
    for (int k = 0; k < fp->n_ex; k++) {
        size_t mask = (size_t)cap - 1, i = example_hash(fp, k) & mask;
        int dup = 0;
        for (; fp->ex_slots[i] >= 0; i = (i + 1) & mask)
            if (examples_equal(fp, fp->ex_slots[i], k)) {
                dup = 1;
                break;
            }
        if (dup) continue;
        fp->ex_slots[i] = k;
        fp->order[n++] = k;
        if (fp->plen[k] + fp->alen[k] > T) T = fp->plen[k] + fp->alen[k];
        if (fp->alen[k] > max_answer) max_answer = fp->alen[k];
    }
    t->n_duplicates = fp->n_ex - n;
    T += t->separator - 1;  /* the longest prompt + SEP + answer, less the last token */
    t->seq_len = T;
    t->max_answer = max_answer;
    return n;
}

/* Refuses fewer than 2 distinct examples, or sequences longer than model.max_seq_len. */
static int shape_fits(const Task *t, const TaskConfig *c, const char *path, int n) {
    int T = t->seq_len;
    if (n < 2)
        return task_file_error(c, path, 0, "only %d distinct example; holding out a validation "
                                           "set needs at least 2", n);
    if (c->max_seq_len != 0 && T > c->max_seq_len) {
        Origin om = task_origin_of(c, "model.max_seq_len");
        return task_error_at(om.s, "'model.max_seq_len' = %d is too short for task 'file' "
                                   "(sequences need T = %d tokens); raise model.max_seq_len or "
                                   "shorten the longest lines of %s",
                             c->max_seq_len, T, path);
    }
    return 0;
}

/* Shuffles the n distinct examples with the validation stream (and seeds the training stream);
 * returns how many of them are held out: a fifth at most, so a small file keeps most of its
 * examples for training, and at least one. */
static int shuffle_held_out(Task *t, FileParse *fp, const TaskConfig *c, int n) {
    Rng vr;
    seed_stream(&vr, c->seed, STREAM_VAL);
    seed_stream(&t->rng, c->seed, STREAM_TRAIN);
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(&vr, (uint32_t)(i + 1));
        int tmp = fp->order[i];
        fp->order[i] = fp->order[j];
        fp->order[j] = tmp;
    }
    int n_val = c->val_size < n / 5 ? c->val_size : n / 5;
    return n_val < 1 ? 1 : n_val;
}

/* Lays out the first n_val shuffled examples as the validation set and the rest as the training
 * examples. Returns 0, or -1 when out of memory. */
static int lay_out_rows(Task *t, const FileParse *fp, int n, int n_val) {
    if (task_alloc_val(t, n_val) != 0) return -1;
    t->n_train_file = n - n_val;
    size_t Tz = (size_t)t->seq_len;
    t->file_tokens = xcalloc((size_t)t->n_train_file * Tz, sizeof(int));
    t->file_targets = xcalloc((size_t)t->n_train_file * Tz, sizeof(int));
    t->file_mask = xcalloc((size_t)t->n_train_file * Tz, sizeof(float));
    t->scratch = xcalloc(Tz + 1, sizeof(int));
    if (!t->file_tokens || !t->file_targets || !t->file_mask || !t->scratch) {
        error_add(NULL, 0, NULL, "task: out of memory for %d examples of %d tokens", n, t->seq_len);
        return -1;
    }
    for (int k = 0; k < n_val; k++) {
        int *tok = t->val_tokens + (size_t)k * Tz, *tgt = t->val_targets + (size_t)k * Tz;
        float *m = t->val_mask + (size_t)k * Tz;
        file_row(t, fp, fp->order[k], t->scratch, tok, tgt, m);
        task_val_insert(t, task_row_hash(tok, tgt, m, t->seq_len), k);
    }
    for (int k = 0; k < t->n_train_file; k++)
        file_row(t, fp, fp->order[n_val + k], t->scratch, t->file_tokens + (size_t)k * Tz,
                 t->file_targets + (size_t)k * Tz, t->file_mask + (size_t)k * Tz);
    return 0;
}

int task_init_file(Task *t, const TaskConfig *c, const char *path, const char *text, size_t len) {
    if (!text && path[0] == '\0')
        return task_key_error(c, "task.file", "is empty, but task.name = file needs a task file");
    if (c->val_size < 0 || c->val_size > MAX_VAL)
        return task_key_error(c, "task.val_size", "%d is out of range (0 .. %d)", c->val_size,
                              MAX_VAL);
    FileParse *fp = task_parse_new();
    if (!fp) return -1;
    int rc = -1, n;
    if (task_parse_load(fp, c, path, text, len) != 0) goto done;
    t->file_hash = fnv1a64(FNV1A64_BASIS, fp->text, fp->size); /* what the run records */
    if (task_parse_lines(fp, c, path) != 0) goto done;
    if (one_answer_per_prompt(fp, c, path) != 0) goto done;
    if (ids_in_name_order(t, fp) != 0) goto done;
    if ((n = distinct_examples(t, fp)) < 0) goto done;
    if (shape_fits(t, c, path, n) != 0) goto done;
    rc = lay_out_rows(t, fp, n, shuffle_held_out(t, fp, c, n));
done:
    task_parse_free(fp);
    return rc;
}
