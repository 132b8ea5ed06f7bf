/* tasks.c: generated and file tasks, the validation set and the training stream (their text
 * form is in format.c). */
#include "tasks/tasks.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks/file_conflict.h"
#include "util/file_check.h"

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

const char *task_kind_name(TaskKind k) {
    switch (k) {
    case TASK_SORT: return "sort";
    case TASK_REVERSE: return "reverse";
    case TASK_COPY: return "copy";
    case TASK_RECALL: return "recall";
    case TASK_FILE: return "file";
    }
    return "?";
}

/* ---- small helpers ---------------------------------------------------------------------- */

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Mixing the seed before the XOR means two runs share a stream only for one pseudo-random pair of
 * seeds, never for neighbours like 1 and 2. */
static void seed_stream(Rng *r, long seed, uint64_t stream) {
    rng_seed(r, mix64((uint64_t)seed + 0x9E3779B97F4A7C15ull) ^ stream);
}

/* config_origin may return a static buffer, so two origins in one message are copied first. */
typedef struct {
    char s[CONFIG_STR + 64];
} Origin;

static Origin origin_of(const Config *c, const char *key) {
    Origin o;
    const char *s = config_origin(c, key);
    snprintf(o.s, sizeof o.s, "%s", s ? s : "default");
    return o;
}

/* "set at FILE:LINE" or "default", for a second key named inside a message. */
static Origin set_at(const Config *c, const char *key) {
    Origin o = origin_of(c, key), r;
    if (strcmp(o.s, "default") == 0) return o;
    snprintf(r.s, sizeof r.s, "set at %.*s", (int)sizeof o.s - 8, o.s);
    return r;
}

/* "ORIGIN: key 'KEY': message" -- the same shape as the config reader's errors. */
static PRINTF_LIKE(3, 4) int key_error(const Config *c, const char *key, const char *fmt, ...) {
    Origin o = origin_of(c, key);
    fprintf(stderr, "%s: key '%s': ", o.s, key);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

/* "FILE:LINE: message (task.file, set at ORIGIN)"; line 0 = the file as a whole. */
static PRINTF_LIKE(4, 5) int file_error(const Config *c, const char *path, int line,
                                        const char *fmt, ...) {
    Origin o = set_at(c, "task.file");
    if (line > 0)
        fprintf(stderr, "%s:%d: ", path, line);
    else
        fprintf(stderr, "%s: ", path);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (task.file, %s)\n", o.s);
    return -1;
}

/* calloc of at least one element, so a zero-sized set is still a valid, freeable pointer. */
static void *xcalloc(size_t n, size_t size) { return calloc(n ? n : 1, size); }

static uint64_t mul_sat(uint64_t a, uint64_t b) {
    if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
    return a * b;
}

static uint64_t pow_sat(uint64_t base, int e) {
    uint64_t r = 1;
    for (int i = 0; i < e && r != UINT64_MAX; i++) r = mul_sat(r, base);
    return r;
}

/* ---- rows and the validation hash set ------------------------------------------------------ */

/* Lays out seq (the prompt, SEP when the task has one, the answer; total length L; the answer
 * starts at seq[a]) as one [T] row: targets[i] = seq[i + 1] is an answer token from i = a - 1 on,
 * that is at SEP with a separator and at the prompt's last token without. */
static void put_row(const Task *t, const int *seq, int a, int L, int *tok, int *tgt, float *m) {
    int T = t->seq_len;
    for (int i = 0; i < T; i++) {
        int real = i < L - 1;
        tok[i] = real ? seq[i] : t->pad;
        tgt[i] = real ? seq[i + 1] : t->pad;
        m[i] = (real && i >= a - 1) ? 1.0f : 0.0f;
    }
}

/* tokens and targets hold the whole sequence and its padding; the mask is part of the example
 * too: without a separator the file lines 'a b | c' and 'a | b c' differ only in it. */
static uint64_t row_hash(const int *tok, const int *tgt, const float *m, int T) {
    uint64_t h = 0x243F6A8885A308D3ull;
    for (int i = 0; i < T; i++) h = mix64(h + (uint32_t)tok[i]);
    for (int i = 0; i < T; i++) h = mix64(h + (uint32_t)tgt[i]);
    for (int i = 0; i < T; i++) h = mix64(h + (m[i] != 0.0f));
    return h;
}

static int rows_equal(const Task *t, int k, const int *tok, const int *tgt, const float *m) {
    size_t T = (size_t)t->seq_len;
    if (memcmp(t->val_tokens + (size_t)k * T, tok, T * sizeof(int)) != 0 ||
        memcmp(t->val_targets + (size_t)k * T, tgt, T * sizeof(int)) != 0)
        return 0;
    const float *vm = t->val_mask + (size_t)k * T;
    for (size_t i = 0; i < T; i++)
        if ((vm[i] != 0.0f) != (m[i] != 0.0f)) return 0;
    return 1;
}

static int val_find(const Task *t, const int *tok, const int *tgt, const float *m, uint64_t h) {
    if (t->n_val_hashes_cap == 0) return -1;
    size_t mask = (size_t)t->n_val_hashes_cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        int k = t->val_slots[i];
        if (k < 0) return -1;
        if (t->val_hashes[i] == h && rows_equal(t, k, tok, tgt, m)) return k;
    }
}

static void val_insert(Task *t, uint64_t h, int k) {
    size_t mask = (size_t)t->n_val_hashes_cap - 1;
    size_t i = h & mask;
    while (t->val_slots[i] >= 0) i = (i + 1) & mask;
    t->val_slots[i] = k;
    t->val_hashes[i] = h;
}

int task_in_val(const Task *t, const int *tokens, const int *targets, const float *mask) {
    if (t->n_val == 0) return 0;
    return val_find(t, tokens, targets, mask, row_hash(tokens, targets, mask, t->seq_len)) >= 0;
}

/* Allocates the validation rows and an empty hash set with load factor <= 1/2. */
static int alloc_val(Task *t, int n_val) {
    size_t T = (size_t)t->seq_len;
    t->n_val = n_val;
    t->val_tokens = xcalloc((size_t)n_val * T, sizeof(int));
    t->val_targets = xcalloc((size_t)n_val * T, sizeof(int));
    t->val_mask = xcalloc((size_t)n_val * T, sizeof(float));
    int cap = 16;
    while (cap < 2 * n_val) cap *= 2;
    t->n_val_hashes_cap = cap;
    t->val_hashes = xcalloc((size_t)cap, sizeof(uint64_t));
    t->val_slots = malloc((size_t)cap * sizeof(int));
    if (!t->val_tokens || !t->val_targets || !t->val_mask || !t->val_hashes || !t->val_slots) {
        fprintf(stderr, "task: out of memory for %d validation examples of %d tokens\n", n_val,
                t->seq_len);
        return -1;
    }
    for (int i = 0; i < cap; i++) t->val_slots[i] = -1;
    return 0;
}

/* ---- generated tasks ------------------------------------------------------------------------ */

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Draws one example into seq (prompt, SEP if the task has one, answer); returns where the answer
 * starts, sets *L. */
static int gen_example(Task *t, Rng *r, int *seq, int *L) {
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

static int init_generated(Task *t, const Config *c) {
    const char *name = task_kind_name(c->task);
    int S = c->task_symbols;
    if (S < 1 || S > MAX_GEN_SYMBOLS)
        return key_error(c, "task.symbols", "%d is out of range; task '%s' needs 1 .. %d symbols",
                         S, name, MAX_GEN_SYMBOLS);
    if (c->val_size < 0 || c->val_size > MAX_VAL)
        return key_error(c, "task.val_size", "%d is out of range (0 .. %d)", c->val_size,
                         MAX_VAL);
    uint64_t space;
    const char *len_key;
    int len_val;
    if (c->task == TASK_RECALL) {
        int n = c->task_pairs;
        len_key = "task.pairs";
        len_val = n;
        if (n < 1 || n > (MAX_SEQ - 3) / 2)
            return key_error(c, "task.pairs", "%d is out of range (1 .. %d)", n, (MAX_SEQ - 3) / 2);
        if (n > S) {
            Origin os = set_at(c, "task.symbols");
            return key_error(c, "task.pairs",
                             "%d pairs need %d distinct keys, but task.symbols = %d (%s) "
                             "has only %d symbols; lower task.pairs or raise task.symbols",
                             n, n, S, os.s, S);
        }
        /* Ordered distinct keys, any values, any of the n keys as the query. */
        uint64_t keys = 1;
        for (int i = 0; i < n && keys != UINT64_MAX; i++) keys = mul_sat(keys, (uint64_t)(S - i));
        space = mul_sat(mul_sat(keys, pow_sat((uint64_t)S, n)), (uint64_t)n);
        t->pairs = n;
        t->seq_len = 2 * n + 1 + t->separator;
        t->max_answer = 1;
    } else {
        int n = c->task_length;
        len_key = "task.length";
        len_val = n;
        if (n < 1 || n > MAX_SEQ / 2)
            return key_error(c, "task.length", "%d is out of range (1 .. %d)", n, MAX_SEQ / 2);
        space = pow_sat((uint64_t)S, n);
        t->length = n;
        t->seq_len = 2 * n - 1 + t->separator;
        t->max_answer = n;
    }
    /* A training stream that must avoid the validation set needs room left over; half the
     * space keeps both the distinct-validation draw and the skipping cheap. */
    uint64_t need = 2 * (uint64_t)c->val_size;
    if (space < need) {
        Origin ol = set_at(c, len_key), os = set_at(c, "task.symbols");
        return key_error(c, "task.val_size",
                         "%d validation examples need a space of at least %llu distinct examples, "
                         "but task '%s' with %s = %d (%s) and task.symbols = %d (%s) "
                         "has only %llu; lower task.val_size or raise %s or task.symbols",
                         c->val_size, (unsigned long long)need, name, len_key, len_val, ol.s, S,
                         os.s, (unsigned long long)space, len_key);
    }
    if (c->max_seq_len != 0 && t->seq_len > c->max_seq_len) {
        Origin om = origin_of(c, "model.max_seq_len");
        fprintf(stderr,
                "%s: 'model.max_seq_len' = %d is too short for task '%s' (sequences need T = %d "
                "tokens); raise model.max_seq_len or lower %s\n",
                om.s, c->max_seq_len, name, t->seq_len, len_key);
        return -1;
    }

    t->n_symbols = S;
    t->sep = S;
    t->pad = S + 1;
    t->vocab_size = S + 2;
    t->scratch = xcalloc((size_t)t->seq_len + 1 + (size_t)S, sizeof(int));
    if (!t->scratch) {
        fprintf(stderr, "task: out of memory\n");
        return -1;
    }
    if (alloc_val(t, c->val_size) != 0) return -1;

    Rng vr;
    seed_stream(&vr, c->seed, STREAM_VAL);
    seed_stream(&t->rng, c->seed, STREAM_TRAIN);
    size_t T = (size_t)t->seq_len;
    int *seq = t->scratch;
    for (int k = 0; k < t->n_val;) {
        int *tok = t->val_tokens + (size_t)k * T, *tgt = t->val_targets + (size_t)k * T;
        float *m = t->val_mask + (size_t)k * T;
        int L, a = gen_example(t, &vr, seq, &L);
        put_row(t, seq, a, L, tok, tgt, m);
        uint64_t h = row_hash(tok, tgt, m, t->seq_len);
        /* Examples are uniform over a space >= 2 * n_val, so each draw is new with
         * probability >= 1/2 and this loop ends after < 2 * n_val draws on average. */
        if (val_find(t, tok, tgt, m, h) >= 0) continue;
        val_insert(t, h, k);
        k++;
    }
    return 0;
}

/* ---- the file task -------------------------------------------------------------------------- */

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

static void parse_free(FileParse *fp) {
    free(fp->text);
    if (fp->names)
        for (int i = 0; i < fp->n_names; i++) free(fp->names[i]);
    free(fp->names);
    free(fp->ids);
    free(fp->start);
    free(fp->plen);
    free(fp->alen);
    free(fp->line);
    free(fp->order);
    free(fp->ex_slots);
    free(fp);
}

static int is_space(unsigned char ch) {
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

static uint64_t bytes_hash(const char *s, size_t n) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001B3ull;
    return mix64(h);
}

/* Byte offset of the first invalid UTF-8 sequence in s[0..n), or -1 if it is all valid. */
static long utf8_invalid(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned char b = s[i];
        size_t len;
        unsigned lo = 0x80, hi = 0xBF;
        if (b < 0x80) {
            i++;
            continue;
        } else if (b >= 0xC2 && b <= 0xDF) {
            len = 2;
        } else if (b >= 0xE0 && b <= 0xEF) {
            len = 3;
            if (b == 0xE0) lo = 0xA0;  /* overlong */
            if (b == 0xED) hi = 0x9F;  /* surrogates */
        } else if (b >= 0xF0 && b <= 0xF4) {
            len = 4;
            if (b == 0xF0) lo = 0x90;  /* overlong */
            if (b == 0xF4) hi = 0x8F;  /* beyond U+10FFFF */
        } else {
            return (long)i;
        }
        if (i + len > n) return (long)i;
        if (s[i + 1] < lo || s[i + 1] > hi) return (long)i;
        for (size_t k = 2; k < len; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF) return (long)i;
        i += len;
    }
    return -1;
}

/* Id of the symbol s[0..n), added if new; -1 when it would exceed the limit, -2 out of memory. */
static int intern(FileParse *fp, const char *s, size_t n) {
    size_t mask = 2 * TASK_MAX_FILE_SYMBOLS - 1;
    size_t i = bytes_hash(s, n) & mask;
    for (; fp->slots[i] >= 0; i = (i + 1) & mask) {
        const char *name = fp->names[fp->slots[i]];
        if (strlen(name) == n && memcmp(name, s, n) == 0) return fp->slots[i];
    }
    if (fp->n_names == TASK_MAX_FILE_SYMBOLS) return -1;
    char *copy = malloc(n + 1);
    if (!copy) return -2;
    memcpy(copy, s, n);
    copy[n] = '\0';
    fp->names[fp->n_names] = copy;
    fp->slots[i] = fp->n_names;
    return fp->n_names++;
}

static int push_id(FileParse *fp, int id) {
    if (fp->n_ids == fp->cap_ids) {
        size_t cap = fp->cap_ids ? 2 * fp->cap_ids : 1024;
        int *p = realloc(fp->ids, cap * sizeof(int));
        if (!p) return -1;
        fp->ids = p;
        fp->cap_ids = cap;
    }
    fp->ids[fp->n_ids++] = id;
    return 0;
}

static int push_example(FileParse *fp, size_t start, int plen, int alen, int line) {
    if (fp->n_ex == fp->cap_ex) {
        if (fp->cap_ex > INT_MAX / 2) return -1;
        int cap = fp->cap_ex ? 2 * fp->cap_ex : 256;
        size_t *s = realloc(fp->start, (size_t)cap * sizeof(size_t));
        if (!s) return -1;
        fp->start = s;
        int *p = realloc(fp->plen, (size_t)cap * sizeof(int));
        if (!p) return -1;
        fp->plen = p;
        int *a = realloc(fp->alen, (size_t)cap * sizeof(int));
        if (!a) return -1;
        fp->alen = a;
        int *l = realloc(fp->line, (size_t)cap * sizeof(int));
        if (!l) return -1;
        fp->line = l;
        fp->cap_ex = cap;
    }
    fp->start[fp->n_ex] = start;
    fp->plen[fp->n_ex] = plen;
    fp->alen[fp->n_ex] = alen;
    fp->line[fp->n_ex] = line;
    fp->n_ex++;
    return 0;
}

/* A task file of a million lines of a few symbols is tens of MB; 1 GiB bounds a wrong path. */
#define MAX_TASK_FILE_BYTES ((size_t)1 << 30)

static int read_all(FileParse *fp, const Config *c, const char *path) {
    char why[256];
    fp->text = file_read_regular(path, MAX_TASK_FILE_BYTES, &fp->size, why, sizeof why);
    if (!fp->text) return file_error(c, path, 0, "cannot read the task file: %s", why);
    return 0;
}

/* Splits the text into examples of interned symbol ids (ids in order of first appearance). */
static int parse_lines(FileParse *fp, const Config *c, const char *path) {
    const char *s = fp->text, *end = fp->text + fp->size;
    if (fp->size >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) s += 3;
    for (int line = 1; s < end; line++) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e) e = end;
        if (memchr(s, '\0', (size_t)(e - s)))
            return file_error(c, path, line, "contains a NUL byte; task files are UTF-8 text");
        long bad = utf8_invalid((const unsigned char *)s, (size_t)(e - s));
        if (bad >= 0)
            return file_error(c, path, line, "invalid UTF-8 at byte %ld of the line", bad + 1);
        const char *p = s;
        while (p < e && is_space((unsigned char)*p)) p++;
        if (p == e || *p == '#') {
            s = e + 1;
            continue;
        }
        /* '#' after whitespace starts a comment, as in the INI files; "a#b" stays a symbol */
        const char *stop = e;
        for (const char *q = p + 1; q < e; q++)
            if (*q == '#' && is_space((unsigned char)q[-1])) {
                stop = q;
                break;
            }
        int bars = 0;
        for (const char *q = p; q < stop; q++) bars += *q == '|';
        if (bars == 0)
            return file_error(c, path, line, "missing '|' (expected 'prompt | answer')");
        if (bars > 1)
            return file_error(c, path, line,
                              "more than one '|' (expected 'prompt | answer'; '|' cannot be a "
                              "symbol)");
        size_t start = fp->n_ids;
        int count[2] = {0, 0}, side = 0;
        for (const char *q = p; q < stop;) {
            if (is_space((unsigned char)*q)) {
                q++;
                continue;
            }
            if (*q == '|') {
                side = 1;
                q++;
                continue;
            }
            const char *w = q;
            while (q < stop && !is_space((unsigned char)*q) && *q != '|') q++;
            if (count[0] + count[1] >= TASK_MAX_FILE_LINE_SYMBOLS)
                return file_error(c, path, line, "more than %d symbols on one line",
                                  TASK_MAX_FILE_LINE_SYMBOLS);
            int id = intern(fp, w, (size_t)(q - w));
            if (id == -1)
                return file_error(c, path, line,
                                  "too many distinct symbols: '%.*s' would be symbol number %d, "
                                  "the limit is %d",
                                  (int)(q - w), w, TASK_MAX_FILE_SYMBOLS + 1,
                                  TASK_MAX_FILE_SYMBOLS);
            if (id < 0 || push_id(fp, id) != 0)
                return file_error(c, path, line, "out of memory");
            count[side]++;
        }
        if (count[0] == 0) return file_error(c, path, line, "empty prompt (nothing before '|')");
        if (count[1] == 0) return file_error(c, path, line, "empty answer (nothing after '|')");
        if (push_example(fp, start, count[0], count[1], line) != 0)
            return file_error(c, path, line, "out of memory");
        s = e + 1;
    }
    if (fp->n_ex == 0)
        return file_error(c, path, 0, "no examples (only blank lines and '#' comments)");
    return 0;
}

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
    put_row(t, seq, p + s, p + a + s, tok, tgt, m);
}

/* The task file's content given in memory, copied as read_all would have read it. */
static int copy_text(FileParse *fp, const Config *c, const char *path, const char *text,
                     size_t len) {
    char *buf = len < SIZE_MAX ? malloc(len + 1) : NULL;
    if (!buf) return file_error(c, path, 0, "out of memory reading the task file");
    if (len) memcpy(buf, text, len);
    buf[len] = '\0';
    fp->text = buf;
    fp->size = len;
    return 0;
}

/* The file task from path; text = NULL reads the file, else text[0..len) is its content. */
static int init_file(Task *t, const Config *c, const char *path, const char *text, size_t len) {
    if (!text && path[0] == '\0')
        return key_error(c, "task.file", "is empty, but task.name = file needs a task file");
    if (c->val_size < 0 || c->val_size > MAX_VAL)
        return key_error(c, "task.val_size", "%d is out of range (0 .. %d)", c->val_size,
                         MAX_VAL);
    FileParse *fp = calloc(1, sizeof *fp);
    if (!fp) {
        fprintf(stderr, "task: out of memory\n");
        return -1;
    }
    int rc = -1;
    for (int i = 0; i < 2 * TASK_MAX_FILE_SYMBOLS; i++) fp->slots[i] = -1;
    fp->names = calloc(TASK_MAX_FILE_SYMBOLS, sizeof(char *));
    if (!fp->names) {
        fprintf(stderr, "task: out of memory\n");
        goto done;
    }
    if ((text ? copy_text(fp, c, path, text, len) : read_all(fp, c, path)) != 0 ||
        parse_lines(fp, c, path) != 0)
        goto done;
    int first, second;
    int conflict = task_file_conflict(fp->ids, fp->start, fp->plen, fp->alen, fp->n_ex, &first,
                                      &second);
    if (conflict != 0) {
        if (conflict < 0)
            fprintf(stderr, "task: out of memory\n");
        else
            file_error(c, path, fp->line[second],
                       "the same prompt as line %d with a different answer (each prompt needs one "
                       "answer)", fp->line[first]);
        goto done;
    }

    /* Ids by strcmp order, so the same set of lines gives the same ids in any order. */
    int S = fp->n_names;
    char **sorted = malloc((size_t)S * sizeof(char *));
    int *remap = malloc((size_t)S * sizeof(int));
    if (!sorted || !remap) {
        free(sorted);
        free(remap);
        fprintf(stderr, "task: out of memory\n");
        goto done;
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

    /* Deduplicate, keeping the first occurrence of each example. */
    int cap = 16;
    while (cap < 2 * fp->n_ex) cap *= 2;
    fp->ex_slots = malloc((size_t)cap * sizeof(int));
    fp->order = malloc((size_t)fp->n_ex * sizeof(int));
    if (!fp->ex_slots || !fp->order) {
        fprintf(stderr, "task: out of memory\n");
        goto done;
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
    if (n < 2) {
        file_error(c, path, 0,
                   "only %d distinct example; holding out a validation set needs at least 2", n);
        goto done;
    }
    if (c->max_seq_len != 0 && T > c->max_seq_len) {
        Origin om = origin_of(c, "model.max_seq_len");
        fprintf(stderr,
                "%s: 'model.max_seq_len' = %d is too short for task 'file' (sequences need T = %d "
                "tokens); raise model.max_seq_len or shorten the longest lines of %s\n",
                om.s, c->max_seq_len, T, path);
        goto done;
    }

    Rng vr;
    seed_stream(&vr, c->seed, STREAM_VAL);
    seed_stream(&t->rng, c->seed, STREAM_TRAIN);
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(&vr, (uint32_t)(i + 1));
        int tmp = fp->order[i];
        fp->order[i] = fp->order[j];
        fp->order[j] = tmp;
    }
    /* A fifth at most, so a small file keeps most of its examples for training. */
    int n_val = c->val_size < n / 5 ? c->val_size : n / 5;
    if (n_val < 1) n_val = 1;
    if (alloc_val(t, n_val) != 0) goto done;
    t->n_train_file = n - n_val;
    size_t Tz = (size_t)T;
    t->file_tokens = xcalloc((size_t)t->n_train_file * Tz, sizeof(int));
    t->file_targets = xcalloc((size_t)t->n_train_file * Tz, sizeof(int));
    t->file_mask = xcalloc((size_t)t->n_train_file * Tz, sizeof(float));
    t->scratch = xcalloc(Tz + 1, sizeof(int));
    if (!t->file_tokens || !t->file_targets || !t->file_mask || !t->scratch) {
        fprintf(stderr, "task: out of memory for %d examples of %d tokens\n", n, T);
        goto done;
    }
    for (int k = 0; k < n_val; k++) {
        int *tok = t->val_tokens + (size_t)k * Tz, *tgt = t->val_targets + (size_t)k * Tz;
        float *m = t->val_mask + (size_t)k * Tz;
        file_row(t, fp, fp->order[k], t->scratch, tok, tgt, m);
        val_insert(t, row_hash(tok, tgt, m, T), k);
    }
    for (int k = 0; k < t->n_train_file; k++)
        file_row(t, fp, fp->order[n_val + k], t->scratch, t->file_tokens + (size_t)k * Tz,
                 t->file_targets + (size_t)k * Tz, t->file_mask + (size_t)k * Tz);
    rc = 0;
done:
    parse_free(fp);
    return rc;
}

/* ---- public --------------------------------------------------------------------------------- */

/* Whether the task's sequences hold SEP between prompt and answer (see SeparatorMode). */
static int has_separator(const Config *c, TaskKind kind) {
    if (c->task_separator == SEPARATOR_TRUE) return 1;
    if (c->task_separator == SEPARATOR_FALSE) return 0;
    return kind != TASK_RECALL;
}

int task_has_separator(const Config *c) { return has_separator(c, c->task); }

int task_init(Task *t, const Config *c) {
    memset(t, 0, sizeof *t);
    t->kind = c->task;
    t->separator = has_separator(c, c->task);
    int rc;
    switch (c->task) {
    case TASK_SORT:
    case TASK_REVERSE:
    case TASK_COPY:
    case TASK_RECALL: rc = init_generated(t, c); break;
    case TASK_FILE: rc = init_file(t, c, c->task_file, NULL, 0); break;
    default: rc = key_error(c, "task.name", "unknown task kind %d", (int)c->task); break;
    }
    if (rc != 0) task_free(t);
    return rc;
}

int task_init_text(Task *t, const Config *c, const char *name, const char *text, size_t len) {
    memset(t, 0, sizeof *t);
    t->kind = TASK_FILE;
    t->separator = has_separator(c, TASK_FILE);
    int rc = init_file(t, c, name, text, len);
    if (rc != 0) task_free(t);
    return rc;
}

void task_train_batch(Task *t, int B, int *tokens, int *targets, float *mask) {
    size_t T = (size_t)t->seq_len;
    for (int b = 0; b < B; b++) {
        int *tok = tokens + (size_t)b * T, *tgt = targets + (size_t)b * T;
        float *m = mask + (size_t)b * T;
        if (t->kind == TASK_FILE) {
            size_t k = rng_below(&t->rng, (uint32_t)t->n_train_file);
            memcpy(tok, t->file_tokens + k * T, T * sizeof(int));
            memcpy(tgt, t->file_targets + k * T, T * sizeof(int));
            memcpy(m, t->file_mask + k * T, T * sizeof(float));
            continue;
        }
        for (;;) {
            int L, a = gen_example(t, &t->rng, t->scratch, &L);
            put_row(t, t->scratch, a, L, tok, tgt, m);
            if (!task_in_val(t, tok, tgt, m)) break;
            t->skipped++;
        }
    }
}

void task_free(Task *t) {
    free(t->val_tokens);
    free(t->val_targets);
    free(t->val_mask);
    free(t->val_hashes);
    free(t->val_slots);
    free(t->file_tokens);
    free(t->file_targets);
    free(t->file_mask);
    if (t->symbol_names)
        for (int i = 0; i < t->n_symbols; i++) free(t->symbol_names[i]);
    free(t->symbol_names);
    free(t->scratch);
    memset(t, 0, sizeof *t);
}
