/* generated.c: the generated tasks (sort, reverse, copy, recall): their parameters checked
 * against the config, one random example, and the distinct validation set drawn from the
 * validation stream. task_init (tasks.c) calls task_init_generated; the training stream
 * (stream.c) draws with task_gen_example. Part of the task stage (config -> task -> model). */
#include <stdio.h>
#include <stdlib.h>

#include "tasks/generated.h"
#include "tasks/tasks_internal.h"
#include "tasks/valset.h"
#include "util/error_list.h"

static uint64_t mul_sat(uint64_t a, uint64_t b) {
    if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
    return a * b;
}

static uint64_t pow_sat(uint64_t base, int e) {
    uint64_t r = 1;
    for (int i = 0; i < e && r != UINT64_MAX; i++) r = mul_sat(r, base);
    return r;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int task_gen_example(Task *t, Rng *r, int *seq, int *L) {
    int S = t->n_symbols, s = t->separator;
    if (t->kind == TASK_RECALL) {
        int n = t->pairs;
        int *perm = t->scratch + t->seq_len + 1;
        /* Partial Fisher-Yates from the identity: the first n entries are a uniformly random
         * ordered choice of distinct keys, independent of earlier draws. */
        for (int i = 0; i < S; i++) perm[i] = i;
        for (int i = 0; i < n; i++) {
            int j = i + (int)rng_below(r, (uint32_t)(S - i));
            int tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
            seq[2 * i] = perm[i];
            seq[2 * i + 1] = (int)rng_below(r, (uint32_t)S);
        }
        int q = (int)rng_below(r, (uint32_t)n);
        seq[2 * n] = seq[2 * q];
        if (s) seq[2 * n + 1] = t->sep;
        seq[2 * n + 1 + s] = seq[2 * q + 1];
        *L = 2 * n + 2 + s;
        return 2 * n + 1 + s;
    }
    int n = t->length;
    for (int i = 0; i < n; i++) seq[i] = (int)rng_below(r, (uint32_t)S);
    if (s) seq[n] = t->sep;
    int *ans = seq + n + s;
    for (int i = 0; i < n; i++) ans[i] = t->kind == TASK_REVERSE ? seq[n - 1 - i] : seq[i];
    if (t->kind == TASK_SORT) qsort(ans, (size_t)n, sizeof(int), cmp_int);
    *L = 2 * n + s;
    return n + s;
}

/* Recall's shape from task.pairs (n pairs of symbols, then a key; one answer token) and the size
 * of its example space into *space. Returns 0, or -1 after a message naming the key. */
static int recall_shape(Task *t, const TaskConfig *c, uint64_t *space) {
    int n = c->pairs, S = c->symbols;
    if (n < 1 || n > (MAX_SEQ - 3) / 2)
        return task_key_error(c, "task.pairs", "%d is out of range (1 .. %d)", n,
                              (MAX_SEQ - 3) / 2);
    if (n > S) {
        Origin os = task_set_at(c, "task.symbols");
        return task_key_error(c, "task.pairs",
                              "%d pairs need %d distinct keys, but task.symbols = %d (%s) "
                              "has only %d symbols; lower task.pairs or raise task.symbols",
                              n, n, S, os.s, S);
    }
    /* Ordered distinct keys, any values, any of the n keys as the query. */
    uint64_t keys = 1;
    for (int i = 0; i < n && keys != UINT64_MAX; i++) keys = mul_sat(keys, (uint64_t)(S - i));
    *space = mul_sat(mul_sat(keys, pow_sat((uint64_t)S, n)), (uint64_t)n);
    t->pairs = n;
    t->seq_len = 2 * n + 1 + t->separator;
    t->max_answer = 1;
    return 0;
}

/* Sort's, reverse's and copy's shape from task.length (n symbols in, n out) and the size of
 * their example space into *space. Returns 0, or -1 after a message naming the key. */
static int sequence_shape(Task *t, const TaskConfig *c, uint64_t *space) {
    int n = c->length;
    if (n < 1 || n > MAX_SEQ / 2)
        return task_key_error(c, "task.length", "%d is out of range (1 .. %d)", n, MAX_SEQ / 2);
    *space = pow_sat((uint64_t)c->symbols, n);
    t->length = n;
    t->seq_len = 2 * n - 1 + t->separator;
    t->max_answer = n;
    return 0;
}

/* Refuses an example space too small for the validation set and the training stream beside it,
 * and sequences longer than model.max_seq_len; messages name the task's length key. */
static int room_for(const Task *t, const TaskConfig *c, uint64_t space) {
    const char *name = task_kind_name(c->kind);
    const char *len_key = c->kind == TASK_RECALL ? "task.pairs" : "task.length";
    int len_val = c->kind == TASK_RECALL ? c->pairs : c->length, S = c->symbols;
    /* A training stream that must avoid the validation set needs room left over; half the
     * space keeps both the distinct-validation draw and the skipping cheap. */
    uint64_t need = 2 * (uint64_t)c->val_size;
    if (space < need) {
        Origin ol = task_set_at(c, len_key), os = task_set_at(c, "task.symbols");
        return task_key_error(c, "task.val_size",
                              "%d validation examples need a space of at least %llu distinct "
                              "examples, but task '%s' with %s = %d (%s) and task.symbols = %d "
                              "(%s) has only %llu; lower task.val_size or raise %s or "
                              "task.symbols",
                              c->val_size, (unsigned long long)need, name, len_key, len_val,
                              ol.s, S, os.s, (unsigned long long)space, len_key);
    }
    if (c->max_seq_len != 0 && t->seq_len > c->max_seq_len) {
        Origin om = task_origin_of(c, "model.max_seq_len");
        return task_error_at(om.s, "'model.max_seq_len' = %d is too short for task '%s' "
                                   "(sequences need T = %d tokens); raise model.max_seq_len or "
                                   "lower %s",
                             c->max_seq_len, name, t->seq_len, len_key);
    }
    return 0;
}

/* Draws t->n_val distinct validation examples from the validation stream and seeds the training
 * stream, both from run.seed. */
static void draw_val_set(Task *t, const TaskConfig *c) {
    Rng vr;
    seed_stream(&vr, c->seed, STREAM_VAL);
    seed_stream(&t->rng, c->seed, STREAM_TRAIN);
    size_t T = (size_t)t->seq_len;
    int *seq = t->scratch;
    for (int k = 0; k < t->n_val;) {
        int *tok = t->val_tokens + (size_t)k * T, *tgt = t->val_targets + (size_t)k * T;
        float *m = t->val_mask + (size_t)k * T;
        int L, a = task_gen_example(t, &vr, seq, &L);
        task_put_row(t, seq, a, L, tok, tgt, m);
        uint64_t h = task_row_hash(tok, tgt, m, t->seq_len);
        /* Examples are uniform over a space >= 2 * n_val, so each draw is new with
         * probability >= 1/2 and this loop ends after < 2 * n_val draws on average. */
        if (task_val_find(t, tok, tgt, m, h) >= 0) continue;
        task_val_insert(t, h, k);
        k++;
    }
}

int task_init_generated(Task *t, const TaskConfig *c) {
    int S = c->symbols;
    if (S < 1 || S > MAX_GEN_SYMBOLS)
        return task_key_error(c, "task.symbols",
                              "%d is out of range; task '%s' needs 1 .. %d symbols", S,
                              task_kind_name(c->kind), MAX_GEN_SYMBOLS);
    if (c->val_size < 0 || c->val_size > MAX_VAL)
        return task_key_error(c, "task.val_size", "%d is out of range (0 .. %d)", c->val_size,
                              MAX_VAL);
    uint64_t space;
    int rc = c->kind == TASK_RECALL ? recall_shape(t, c, &space) : sequence_shape(t, c, &space);
    if (rc != 0 || room_for(t, c, space) != 0) return -1;

    t->n_symbols = S;
    t->sep = S;
    t->pad = S + 1;
    t->vocab_size = S + 2;
    t->scratch = xcalloc((size_t)t->seq_len + 1 + (size_t)S, sizeof(int));
    if (!t->scratch) {
        error_add(NULL, 0, NULL, "task: out of memory");
        return -1;
    }
    if (task_alloc_val(t, c->val_size) != 0) return -1;
    draw_val_set(t, c);
    return 0;
}
