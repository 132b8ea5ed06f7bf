/* test_tasks.c: the generated tasks' answers and masks, the validation set (distinct, disjoint
 * from the training stream, reproducible), the configuration errors, and the file task (parsing,
 * errors with file and line, deduplication, the held-out split, padding, the shipped data). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "tasks/tasks.h"
#include "testutil.h"

#define MAXT 1024

/* The Makefile passes the source tree, so the shipped data is found from any directory. */
#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

/* ---- helpers ---------------------------------------------------------------------------- */

static Config base_config(TaskKind kind) {
    Config c;
    config_defaults(&c);
    c.task = kind;
    c.task_length = 6;
    c.task_pairs = 4;
    c.task_symbols = 10;
    c.val_size = 64;
    c.max_seq_len = 0;
    c.seed = 1234;
    c.task_file[0] = '\0';
    return c;
}

/* Runs task_init with stderr captured into msg. */
static int init_capture(Task *t, const Config *c, char *msg, size_t n) {
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = task_init(t, c);
    char *text = tu_capture_end(&cap);
    snprintf(msg, n, "%s", text);
    free(text);
    return rc;
}

/* Writes len bytes to a fresh temporary file; its path goes to path. */
static void write_temp(char *path, size_t n, const char *content, size_t len) {
    snprintf(path, n, "/tmp/scaledot_task_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq((long)write(fd, content, len), (long)len);
    close(fd);
}

static Config file_config(const char *path) {
    Config c = base_config(TASK_FILE);
    snprintf(c.task_file, sizeof c.task_file, "%s", path);
    return c;
}

typedef struct {
    int p, L;                      /* prompt length, sequence length */
    int prompt[MAXT], answer[MAXT];
    int na;
} Decoded;

/* Decodes one row and checks its layout: the shift between tokens and targets, SEP after the
 * prompt (or, in a task without a separator, the prompt ending where the first answer target
 * is), padding at the end, and a mask that is 1 exactly at the answer targets. */
static void decode_row(const Task *t, const int *tok, const int *tgt, const float *m, Decoded *d) {
    int T = t->seq_len, s = t->separator;
    int p = -1;
    for (int i = 0; i < T && p < 0; i++)
        if (s ? tok[i] == t->sep : m[i] != 0.0f) p = s ? i : i + 1;
    ck_assert_int_ge(p, 1);
    int last = T;  /* first padded input position, = L - 1 */
    for (int i = 0; i < T; i++)
        if (tok[i] == t->pad) {
            last = i;
            break;
        }
    ck_assert_int_gt(last, p - 1 + s);
    d->p = p;
    d->L = last + 1;
    for (int i = 0; i < p; i++) {
        ck_assert_int_ge(tok[i], 0);
        ck_assert_int_lt(tok[i], t->n_symbols);
        d->prompt[i] = tok[i];
    }
    d->na = 0;
    for (int i = 0; i < T; i++) {
        int answer_pos = i >= p - 1 + s && i < last;
        ck_assert_msg((m[i] == 1.0f) == answer_pos && (m[i] == 0.0f) == !answer_pos,
                      "mask[%d] = %g, prompt %d, L %d", i, (double)m[i], p, d->L);
        if (i < last - 1) ck_assert_int_eq(tgt[i], tok[i + 1]);
        if (i >= last) {
            ck_assert_int_eq(tok[i], t->pad);
            ck_assert_int_eq(tgt[i], t->pad);
        }
        if (i >= p + s && i < last) {
            ck_assert_int_ge(tok[i], 0);
            ck_assert_int_lt(tok[i], t->n_symbols);
        }
        if (answer_pos) {
            ck_assert_int_ge(tgt[i], 0);
            ck_assert_int_lt(tgt[i], t->n_symbols);
            d->answer[d->na++] = tgt[i];
        }
    }
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Recomputes the answer of a generated example from its prompt. */
static void check_answer(const Task *t, const Decoded *d) {
    int expect[MAXT], n;
    if (t->kind == TASK_RECALL) {
        ck_assert_int_eq(d->p, 2 * t->pairs + 1);
        n = 1;
        int q = d->prompt[2 * t->pairs], found = 0;
        for (int i = 0; i < t->pairs; i++) {
            for (int j = 0; j < i; j++) ck_assert_int_ne(d->prompt[2 * i], d->prompt[2 * j]);
            if (d->prompt[2 * i] == q) {
                expect[0] = d->prompt[2 * i + 1];
                found++;
            }
        }
        ck_assert_int_eq(found, 1);
    } else {
        n = t->length;
        ck_assert_int_eq(d->p, n);
        for (int i = 0; i < n; i++)
            expect[i] = t->kind == TASK_REVERSE ? d->prompt[n - 1 - i] : d->prompt[i];
        if (t->kind == TASK_SORT) qsort(expect, (size_t)n, sizeof(int), cmp_int);
    }
    ck_assert_int_eq(d->na, n);
    ck_assert_int_eq(d->L, d->p + t->separator + n);
    for (int i = 0; i < n; i++) ck_assert_int_eq(d->answer[i], expect[i]);
}

typedef struct {
    int *tok, *tgt;
    float *m;
    int B, T;
} Batch;

static Batch batch_new(const Task *t, int B) {
    Batch b = {malloc((size_t)B * (size_t)t->seq_len * sizeof(int)),
               malloc((size_t)B * (size_t)t->seq_len * sizeof(int)),
               malloc((size_t)B * (size_t)t->seq_len * sizeof(float)), B, t->seq_len};
    ck_assert(b.tok && b.tgt && b.m);
    return b;
}

static void batch_free(Batch *b) {
    free(b->tok);
    free(b->tgt);
    free(b->m);
}

static int row_equals_val(const Task *t, const int *tok, const int *tgt, int k) {
    size_t T = (size_t)t->seq_len;
    return memcmp(tok, t->val_tokens + (size_t)k * T, T * sizeof(int)) == 0 &&
           memcmp(tgt, t->val_targets + (size_t)k * T, T * sizeof(int)) == 0;
}

static int val_index_of(const Task *t, const int *tok, const int *tgt) {
    for (int k = 0; k < t->n_val; k++)
        if (row_equals_val(t, tok, tgt, k)) return k;
    return -1;
}

static void check_val_distinct(const Task *t) {
    size_t T = (size_t)t->seq_len;
    for (int a = 0; a < t->n_val; a++)
        for (int b = a + 1; b < t->n_val; b++)
            ck_assert_msg(!row_equals_val(t, t->val_tokens + (size_t)a * T,
                                          t->val_targets + (size_t)a * T, b),
                          "validation examples %d and %d are equal", a, b);
}

/* ---- generated tasks ------------------------------------------------------------------------ */

static const TaskKind GEN_KINDS[] = {TASK_SORT, TASK_REVERSE, TASK_COPY, TASK_RECALL};

START_TEST(test_generated_answers_and_masks) {
    TaskKind kind = GEN_KINDS[_i];
    Config c = base_config(kind);
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.kind, kind);
    ck_assert_int_eq(t.n_symbols, 10);
    ck_assert_int_eq(t.sep, 10);
    ck_assert_int_eq(t.pad, 11);
    ck_assert_int_eq(t.vocab_size, 12);
    /* recall has no separator by default: k1 v1 .. k4 v4 q a, less the last token */
    ck_assert_int_eq(t.seq_len, kind == TASK_RECALL ? 2 * 4 + 1 : 2 * 6);
    ck_assert_int_eq(t.max_answer, kind == TASK_RECALL ? 1 : 6);
    ck_assert_int_eq(t.n_val, 64);
    Batch b = batch_new(&t, 300);
    task_train_batch(&t, b.B, b.tok, b.tgt, b.m);
    Decoded d;
    size_t T = (size_t)t.seq_len;
    for (int i = 0; i < b.B; i++) {
        decode_row(&t, b.tok + i * T, b.tgt + i * T, b.m + i * T, &d);
        check_answer(&t, &d);
    }
    for (int k = 0; k < t.n_val; k++) {
        decode_row(&t, t.val_tokens + k * T, t.val_targets + k * T, t.val_mask + k * T, &d);
        check_answer(&t, &d);
        ck_assert(task_in_val(&t, t.val_tokens + k * T, t.val_targets + k * T, t.val_mask + k * T));
    }
    batch_free(&b);
    task_free(&t);
}
END_TEST

START_TEST(test_sizes_of_default_like_tasks) {
    Config c = base_config(TASK_RECALL);
    c.task_pairs = 8;
    c.task_symbols = 16;
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.seq_len, 17);
    ck_assert_int_eq(t.vocab_size, 18);
    task_free(&t);
    c = base_config(TASK_SORT);
    c.task_length = 8;
    c.task_symbols = 16;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.seq_len, 16);
    ck_assert_int_eq(t.vocab_size, 18);
    task_free(&t);
}
END_TEST

START_TEST(test_format_generated) {
    Config c = base_config(TASK_SORT);
    c.task_length = 3;
    c.task_symbols = 12;
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    /* T = 6: the sequence "11 2 7 SEP 2 7 11" without its last token, and shifted by one */
    ck_assert_int_eq(t.seq_len, 6);
    int tok[6] = {11, 2, 7, t.sep, 2, 7};
    int tgt[6] = {2, 7, t.sep, 2, 7, 11};
    float m[6] = {0, 0, 0, 1, 1, 1};
    char buf[64];
    task_format(&t, tok, tgt, m, buf, sizeof buf);
    ck_assert_str_eq(buf, "11 2 7 | 2 7 11");
    task_format(&t, tok, tgt, m, buf, 6);
    ck_assert_str_eq(buf, "11 2 ");
    task_format(&t, tok, tgt, m, buf, 1);
    ck_assert_str_eq(buf, "");
    task_free(&t);
}
END_TEST

/* Copy of length 3 over 4 symbols has 64 examples; 20 of them are held out, so about one
 * training draw in three would hit the validation set if it were not excluded. */
START_TEST(test_val_never_in_training_stream) {
    Config c = base_config(GEN_KINDS[_i]);
    c.task_length = 3;
    c.task_pairs = 2;
    c.task_symbols = GEN_KINDS[_i] == TASK_RECALL ? 3 : 4;  /* recall: 3*2 * 3^2 * 2 = 108 */
    c.val_size = 20;
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    check_val_distinct(&t);
    Batch b = batch_new(&t, 100);
    size_t T = (size_t)t.seq_len;
    for (int round = 0; round < 200; round++) {
        task_train_batch(&t, b.B, b.tok, b.tgt, b.m);
        for (int i = 0; i < b.B; i++) {
            ck_assert_int_eq(val_index_of(&t, b.tok + i * T, b.tgt + i * T), -1);
            ck_assert(!task_in_val(&t, b.tok + i * T, b.tgt + i * T, b.m + i * T));
        }
    }
    ck_assert_int_gt(t.skipped, 1000);  /* 20000 * 20/64 expected for copy */
    batch_free(&b);
    task_free(&t);
}
END_TEST

/* Half of the space: the distinct draw must keep rejecting repeats. */
START_TEST(test_val_distinct_at_half_the_space) {
    Config c = base_config(TASK_COPY);
    c.task_length = 3;
    c.task_symbols = 4;
    c.val_size = 32;
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.n_val, 32);
    check_val_distinct(&t);
    Batch b = batch_new(&t, 2000);
    task_train_batch(&t, b.B, b.tok, b.tgt, b.m);
    /* the training stream then only ever shows the other 32 examples */
    int seen[64] = {0}, distinct = 0;
    for (int i = 0; i < b.B; i++) {
        const int *r = b.tok + (size_t)i * (size_t)t.seq_len;
        int code = r[0] * 16 + r[1] * 4 + r[2];
        if (!seen[code]++) distinct++;
        ck_assert_int_eq(val_index_of(&t, r, b.tgt + (size_t)i * (size_t)t.seq_len), -1);
    }
    ck_assert_int_eq(distinct, 32);
    batch_free(&b);
    task_free(&t);
}
END_TEST

static void first_batch(TaskKind kind, long seed, Task *t, Batch *b) {
    Config c = base_config(kind);
    c.seed = seed;
    ck_assert_int_eq(task_init(t, &c), 0);
    *b = batch_new(t, 50);
    task_train_batch(t, b->B, b->tok, b->tgt, b->m);
}

START_TEST(test_same_seed_same_data) {
    Task a, b, d;
    Batch ba, bb, bd;
    first_batch(GEN_KINDS[_i], 7, &a, &ba);
    first_batch(GEN_KINDS[_i], 7, &b, &bb);
    first_batch(GEN_KINDS[_i], 8, &d, &bd);
    size_t nv = (size_t)a.n_val * (size_t)a.seq_len, nb = (size_t)ba.B * (size_t)a.seq_len;
    ck_assert(memcmp(a.val_tokens, b.val_tokens, nv * sizeof(int)) == 0);
    ck_assert(memcmp(a.val_targets, b.val_targets, nv * sizeof(int)) == 0);
    ck_assert(memcmp(a.val_mask, b.val_mask, nv * sizeof(float)) == 0);
    ck_assert(memcmp(ba.tok, bb.tok, nb * sizeof(int)) == 0);
    ck_assert(memcmp(ba.tgt, bb.tgt, nb * sizeof(int)) == 0);
    ck_assert(memcmp(a.val_tokens, d.val_tokens, nv * sizeof(int)) != 0);
    ck_assert(memcmp(ba.tok, bd.tok, nb * sizeof(int)) != 0);
    /* the training stream is not the validation stream replayed */
    ck_assert(memcmp(a.val_tokens, ba.tok, nb * sizeof(int)) != 0);
    batch_free(&ba);
    batch_free(&bb);
    batch_free(&bd);
    task_free(&a);
    task_free(&b);
    task_free(&d);
}
END_TEST

START_TEST(test_space_too_small) {
    Config c = base_config(TASK_COPY);
    c.task_length = 2;
    c.task_symbols = 2;  /* 4 examples */
    c.val_size = 3;
    Task t;
    char msg[1024];
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "task.val_size") && strstr(msg, "task.length") &&
                      strstr(msg, "task.symbols") && strstr(msg, "copy") && strstr(msg, " 4"),
                  "message: %s", msg);
    ck_assert_ptr_null(t.val_tokens);
    task_free(&t);
    c.val_size = 2;  /* exactly half the space is allowed */
    ck_assert_int_eq(task_init(&t, &c), 0);
    check_val_distinct(&t);
    task_free(&t);

    c = base_config(TASK_RECALL);
    c.task_pairs = 2;
    c.task_symbols = 2;  /* 2 * 1 * 2^2 * 2 = 16 */
    c.val_size = 9;
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "task.val_size") && strstr(msg, "task.pairs") &&
                      strstr(msg, "16"),
                  "message: %s", msg);
    c.val_size = 8;
    ck_assert_int_eq(task_init(&t, &c), 0);
    task_free(&t);
}
END_TEST

START_TEST(test_recall_pairs_exceed_symbols) {
    Config c = base_config(TASK_RECALL);
    c.task_pairs = 5;
    c.task_symbols = 4;
    Task t;
    char msg[1024];
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "task.pairs") && strstr(msg, "task.symbols"), "message: %s", msg);
    c.task_pairs = 4;  /* every symbol a key */
    c.val_size = 10;
    ck_assert_int_eq(task_init(&t, &c), 0);
    task_free(&t);
}
END_TEST

/* Spaces far beyond 2^64 must saturate rather than wrap around to a small number. */
START_TEST(test_space_saturates) {
    Config c = base_config(TASK_RECALL);
    c.task_pairs = 128;
    c.task_symbols = 4096;
    c.val_size = 4;
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.seq_len, 257);
    task_free(&t);
    c = base_config(TASK_SORT);
    c.task_length = 256;
    c.task_symbols = 2;  /* 2^256 */
    c.val_size = 100;
    ck_assert_int_eq(task_init(&t, &c), 0);
    task_free(&t);
    c.task_length = 64;  /* 2^64: exactly one past UINT64_MAX */
    ck_assert_int_eq(task_init(&t, &c), 0);
    task_free(&t);
}
END_TEST

START_TEST(test_max_seq_len) {
    Config c = base_config(TASK_SORT);
    c.task_length = 8;
    c.task_symbols = 16;
    c.max_seq_len = 15;
    Task t;
    char msg[1024];
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    char origin[512];
    snprintf(origin, sizeof origin, "%s: ", config_origin(&c, "model.max_seq_len"));
    ck_assert_msg(strstr(msg, origin) == msg, "message: %s", msg);
    ck_assert_msg(strstr(msg, "'model.max_seq_len' = 15 is too short for task 'sort' (sequences "
                              "need T = 16 tokens); raise model.max_seq_len or lower task.length"),
                  "message: %s", msg);
    c.max_seq_len = 16;
    ck_assert_int_eq(task_init(&t, &c), 0);
    task_free(&t);

    c = base_config(TASK_RECALL);
    c.max_seq_len = 8;  /* recall with 4 pairs needs 9 */
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "task 'recall'") && strstr(msg, "T = 9") &&
                      strstr(msg, "task.pairs"),
                  "message: %s", msg);
}
END_TEST

/* The errors name where the keys were set: here an INI file read by the config module. */
START_TEST(test_error_names_ini_file_and_line) {
    const char ini[] = "[task]\nname = copy\nlength = 2\nsymbols = 2\n; comment\nval_size = 3\n";
    char path[256];
    write_temp(path, sizeof path, ini, sizeof ini - 1);
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_load_file(&c, path), 0);
    Task t;
    char msg[1024], want[400];
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    snprintf(want, sizeof want, "%s:6: key 'task.val_size'", path);
    ck_assert_msg(strstr(msg, want) == msg, "message: %s", msg);
    snprintf(want, sizeof want, "%s:3", path);
    ck_assert_msg(strstr(msg, want) != NULL, "message: %s", msg);
    snprintf(want, sizeof want, "%s:4", path);
    ck_assert_msg(strstr(msg, want) != NULL, "message: %s", msg);
    unlink(path);
}
END_TEST

/* ---- the file task -------------------------------------------------------------------------- */

/* Formats every example of a file task (validation first, then training) into lines[]. */
static int all_examples(const Task *t, char lines[][128], int max) {
    int n = 0;
    size_t T = (size_t)t->seq_len;
    for (int k = 0; k < t->n_val && n < max; k++, n++)
        task_format(t, t->val_tokens + k * T, t->val_targets + k * T, t->val_mask + k * T,
                    lines[n], 128);
    for (int k = 0; k < t->n_train_file && n < max; k++, n++)
        task_format(t, t->file_tokens + k * T, t->file_targets + k * T, t->file_mask + k * T,
                    lines[n], 128);
    return n;
}

static int contains_line(char lines[][128], int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (strcmp(lines[i], s) == 0) return 1;
    return 0;
}

START_TEST(test_file_parse) {
    const char text[] = "\xEF\xBB\xBF# a comment line\r\n"
                        "c a t | t a c\r\n"
                        "\r\n"
                        "   \t\r\n"
                        "  # indented comment | with a bar\n"
                        "d\to g|g o d\n"
                        "h\xC3\xA9llo world | \xE2\x86\x92 !\r\n"
                        "x | y z w v";  /* no final newline */
    char path[256];
    write_temp(path, sizeof path, text, sizeof text - 1);
    Config c = file_config(path);
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    const char *names[] = {"!", "a", "c", "d", "g", "h\xC3\xA9llo", "o", "t", "v", "w",
                           "world", "x", "y", "z", "\xE2\x86\x92"};
    int ns = (int)(sizeof names / sizeof names[0]);
    ck_assert_int_eq(t.n_symbols, ns);
    for (int i = 0; i < ns; i++) ck_assert_str_eq(t.symbol_names[i], names[i]);
    ck_assert_int_eq(t.sep, ns);
    ck_assert_int_eq(t.pad, ns + 1);
    ck_assert_int_eq(t.vocab_size, ns + 2);
    ck_assert_int_eq(t.seq_len, 6);  /* "c a t | t a c": 7 tokens, T = 6 */
    ck_assert_int_eq(t.max_answer, 4);
    ck_assert_int_eq(t.n_val, 1);  /* 4 examples: max(1, min(64, 4/5)) */
    ck_assert_int_eq(t.n_train_file, 3);
    ck_assert_int_eq(t.n_duplicates, 0);
    char lines[8][128];
    int n = all_examples(&t, lines, 8);
    ck_assert_int_eq(n, 4);
    ck_assert(contains_line(lines, n, "c a t | t a c"));
    ck_assert(contains_line(lines, n, "d o g | g o d"));
    ck_assert(contains_line(lines, n, "h\xC3\xA9llo world | \xE2\x86\x92 !"));
    ck_assert(contains_line(lines, n, "x | y z w v"));
    task_free(&t);
    unlink(path);
}
END_TEST

START_TEST(test_file_ids_do_not_depend_on_line_order) {
    const char a[] = "b a | c\nz | y\n", b[] = "z | y\nb a | c\n";
    char pa[256], pb[256];
    write_temp(pa, sizeof pa, a, sizeof a - 1);
    write_temp(pb, sizeof pb, b, sizeof b - 1);
    Config ca = file_config(pa), cb = file_config(pb);
    Task ta, tb;
    ck_assert_int_eq(task_init(&ta, &ca), 0);
    ck_assert_int_eq(task_init(&tb, &cb), 0);
    ck_assert_int_eq(ta.n_symbols, 5);
    ck_assert_int_eq(tb.n_symbols, 5);
    for (int i = 0; i < 5; i++) ck_assert_str_eq(ta.symbol_names[i], tb.symbol_names[i]);
    ck_assert_str_eq(ta.symbol_names[0], "a");
    ck_assert_str_eq(ta.symbol_names[4], "z");
    task_free(&ta);
    task_free(&tb);
    unlink(pa);
    unlink(pb);
}
END_TEST

START_TEST(test_file_dedup_split_and_padding) {
    /* 50 distinct examples of varying length, each written twice or three times, plus two
     * lines of the same symbols split differently (distinct examples; the same prompt with
     * another answer would be an error). */
    char *text = malloc(1 << 16);
    size_t len = 0;
    for (int rep = 0; rep < 3; rep++)
        for (int i = 0; i < 50; i++) {
            if (rep == 2 && i % 2) continue;
            len += (size_t)sprintf(text + len, "n%d", i);
            for (int k = 0; k < i % 4; k++) len += (size_t)sprintf(text + len, " p%d", k);
            len += (size_t)sprintf(text + len, " | a%d", i % 7);
            for (int k = 0; k < i % 3; k++) len += (size_t)sprintf(text + len, " q");
            len += (size_t)sprintf(text + len, "\n");
        }
    len += (size_t)sprintf(text + len, "p0 | n0 a0\np0 n0 | a0\n");
    char path[256];
    write_temp(path, sizeof path, text, len);
    free(text);
    Config c = file_config(path);
    c.val_size = 100;  /* more than a fifth: capped at 52 / 5 = 10 */
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.n_duplicates, 125 - 50);
    ck_assert_int_eq(t.n_val, 10);
    ck_assert_int_eq(t.n_train_file, 42);
    ck_assert_int_eq(t.seq_len, 1 + 3 + 1 + 2);
    ck_assert_int_eq(t.max_answer, 3);
    char lines[64][128];
    int n = all_examples(&t, lines, 64);
    ck_assert_int_eq(n, 52);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) ck_assert_str_ne(lines[a], lines[b]);
    ck_assert(contains_line(lines, n, "p0 | n0 a0"));
    ck_assert(contains_line(lines, n, "p0 n0 | a0"));
    ck_assert(contains_line(lines, n, "n0 | a0"));
    /* every row is well formed; short ones are padded with PAD and mask 0 */
    size_t T = (size_t)t.seq_len;
    Decoded d;
    int padded = 0;
    for (int k = 0; k < t.n_train_file; k++) {
        const int *tok = t.file_tokens + k * T, *tgt = t.file_targets + k * T;
        const float *m = t.file_mask + k * T;
        decode_row(&t, tok, tgt, m, &d);
        ck_assert_int_eq(val_index_of(&t, tok, tgt), -1);
        if (d.L - 1 < (int)T) {
            padded++;
            for (size_t i = (size_t)d.L - 1; i < T; i++) {
                ck_assert_int_eq(tok[i], t.pad);
                ck_assert_int_eq(tgt[i], t.pad);
                ck_assert(m[i] == 0.0f);
            }
        }
    }
    ck_assert_int_gt(padded, 20);
    for (int k = 0; k < t.n_val; k++)
        decode_row(&t, t.val_tokens + k * T, t.val_targets + k * T, t.val_mask + k * T, &d);
    /* the training batch draws only training examples, and all of them in time */
    Batch b = batch_new(&t, 4000);
    task_train_batch(&t, b.B, b.tok, b.tgt, b.m);
    int hit[64] = {0};
    for (int i = 0; i < b.B; i++) {
        ck_assert_int_eq(val_index_of(&t, b.tok + i * T, b.tgt + i * T), -1);
        int found = -1;
        for (int k = 0; k < t.n_train_file && found < 0; k++)
            if (memcmp(b.tok + i * T, t.file_tokens + k * T, T * sizeof(int)) == 0 &&
                memcmp(b.tgt + i * T, t.file_targets + k * T, T * sizeof(int)) == 0 &&
                memcmp(b.m + i * T, t.file_mask + k * T, T * sizeof(float)) == 0)
                found = k;
        ck_assert_int_ge(found, 0);
        hit[found] = 1;
    }
    for (int k = 0; k < t.n_train_file; k++) ck_assert(hit[k]);
    ck_assert_int_eq(t.skipped, 0);
    batch_free(&b);

    /* same seed, same split; another seed holds out other examples */
    Task t2, t3;
    ck_assert_int_eq(task_init(&t2, &c), 0);
    c.seed = 99;
    ck_assert_int_eq(task_init(&t3, &c), 0);
    size_t nv = (size_t)t.n_val * T;
    ck_assert(memcmp(t.val_tokens, t2.val_tokens, nv * sizeof(int)) == 0);
    ck_assert(memcmp(t.val_tokens, t3.val_tokens, nv * sizeof(int)) != 0);
    task_free(&t);
    task_free(&t2);
    task_free(&t3);
    unlink(path);
}
END_TEST

START_TEST(test_file_format_uses_names) {
    const char text[] = "c a t | t a c\nd o g | g o d\n";
    char path[256];
    write_temp(path, sizeof path, text, sizeof text - 1);
    Config c = file_config(path);
    Task t;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.n_val, 1);
    ck_assert_int_eq(t.n_train_file, 1);
    char v[64], tr[64];
    task_format(&t, t.val_tokens, t.val_targets, t.val_mask, v, sizeof v);
    task_format(&t, t.file_tokens, t.file_targets, t.file_mask, tr, sizeof tr);
    ck_assert_str_ne(v, tr);
    ck_assert(strcmp(v, "c a t | t a c") == 0 || strcmp(v, "d o g | g o d") == 0);
    ck_assert(strcmp(tr, "c a t | t a c") == 0 || strcmp(tr, "d o g | g o d") == 0);
    task_free(&t);
    unlink(path);
}
END_TEST

typedef struct {
    const char *text;
    size_t len;      /* bytes of text; 0 = strlen */
    int line;        /* expected line in the message, 0 = none */
    const char *what;
} FileErrorCase;

static const FileErrorCase FILE_ERRORS[] = {
    {"a | b\n# c\nno bar here\n", 0, 3, "missing '|'"},
    {"a | b\nb | c | d\n", 0, 2, "more than one '|'"},
    {"a | b\r\n  | c\r\n", 0, 2, "empty prompt"},
    {"a | b\nx y |   \n", 0, 2, "empty answer"},
    {"# only\n\n  # comments\n", 0, 0, "no examples"},
    {"a | b\na | b\r\n", 0, 0, "only 1 distinct example"},
    {"a | b\nb \xC3\x28 | c\n", 0, 2, "invalid UTF-8"},
    {"a | b\nb | c\x00\n", 13, 2, "NUL"},
    {"", 0, 0, "no examples"},
};

START_TEST(test_file_errors) {
    const FileErrorCase *e = &FILE_ERRORS[_i];
    size_t len = e->len ? e->len : strlen(e->text);
    char path[256], msg[1024], want[300];
    write_temp(path, sizeof path, e->text, len);
    Config c = file_config(path);
    Task t;
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    if (e->line)
        snprintf(want, sizeof want, "%s:%d: ", path, e->line);
    else
        snprintf(want, sizeof want, "%s: ", path);
    ck_assert_msg(strstr(msg, want) == msg, "want prefix '%s', message: %s", want, msg);
    ck_assert_msg(strstr(msg, e->what), "want '%s', message: %s", e->what, msg);
    ck_assert_msg(strstr(msg, "task.file"), "message: %s", msg);
    ck_assert_ptr_null(t.symbol_names);
    task_free(&t);
    unlink(path);
}
END_TEST

START_TEST(test_file_unreadable) {
    Config c = file_config("/nonexistent/scaledot/none.txt");
    Task t;
    char msg[1024];
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "/nonexistent/scaledot/none.txt: ") == msg &&
                      strstr(msg, "No such file or directory"),
                  "message: %s", msg);
    c = file_config("/tmp");  /* a directory: opens, but cannot be read */
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "/tmp: ") == msg, "message: %s", msg);
    c = file_config("");
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "task.file"), "message: %s", msg);
}
END_TEST

START_TEST(test_file_too_many_symbols) {
    /* 4096 distinct prompts plus the answer symbol 'x' make 4097 symbols: the line that brings
     * the 4097th is named. */
    char *text = malloc(1 << 17);
    size_t len = 0;
    for (int i = 0; i < 4096; i++) len += (size_t)sprintf(text + len, "s%d | x\n", i);
    char path[256], msg[1024], want[300];
    write_temp(path, sizeof path, text, len);
    Config c = file_config(path);
    Task t;
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    snprintf(want, sizeof want, "%s:4096: ", path);
    ck_assert_msg(strstr(msg, want) == msg && strstr(msg, "too many distinct symbols") &&
                      strstr(msg, "4096"),
                  "message: %s", msg);
    unlink(path);
    /* exactly 4096 is accepted */
    len = 0;
    for (int i = 0; i < 4095; i++) len += (size_t)sprintf(text + len, "s%d | x\n", i);
    write_temp(path, sizeof path, text, len);
    free(text);
    c = file_config(path);
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(t.n_symbols, 4096);
    ck_assert_int_eq(t.vocab_size, 4098);
    task_free(&t);
    unlink(path);
}
END_TEST

START_TEST(test_file_max_seq_len) {
    const char text[] = "a b c | d\ne | f g h i\n";
    char path[256], msg[1024];
    write_temp(path, sizeof path, text, sizeof text - 1);
    Config c = file_config(path);
    c.max_seq_len = 4;
    Task t;
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "'model.max_seq_len' = 4 is too short for task 'file' (sequences "
                              "need T = 5 tokens)"),
                  "message: %s", msg);
    c.max_seq_len = 5;
    ck_assert_int_eq(task_init(&t, &c), 0);
    task_free(&t);
    unlink(path);
}
END_TEST

/* The shipped example loads and really is "reverse the letters". */
START_TEST(test_shipped_words_file) {
    Config c = file_config(SCALEDOT_SOURCE_DIR "/data/words.txt");
    Task t;
    ck_assert_msg(task_init(&t, &c) == 0, "%s did not load", c.task_file);
    ck_assert_int_le(t.n_symbols, 26);
    ck_assert_int_ge(t.n_val + t.n_train_file, 200);
    ck_assert_int_eq(t.n_duplicates, 0);
    size_t T = (size_t)t.seq_len;
    Decoded d;
    for (int k = 0; k < t.n_train_file; k++) {
        decode_row(&t, t.file_tokens + k * T, t.file_targets + k * T, t.file_mask + k * T, &d);
        ck_assert_int_eq(d.na, d.p);
        for (int i = 0; i < d.p; i++) ck_assert_int_eq(d.answer[i], d.prompt[d.p - 1 - i]);
    }
    for (int k = 0; k < t.n_val; k++) {
        decode_row(&t, t.val_tokens + k * T, t.val_targets + k * T, t.val_mask + k * T, &d);
        ck_assert_int_eq(d.na, d.p);
        for (int i = 0; i < d.p; i++) ck_assert_int_eq(d.answer[i], d.prompt[d.p - 1 - i]);
    }
    task_free(&t);
}
END_TEST

static Suite *tasks_suite(void) {
    Suite *s = suite_create("tasks");
    TCase *tc = tcase_create("generated");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_generated_answers_and_masks, 0, 4);
    tcase_add_test(tc, test_sizes_of_default_like_tasks);
    tcase_add_test(tc, test_format_generated);
    tcase_add_loop_test(tc, test_val_never_in_training_stream, 0, 4);
    tcase_add_test(tc, test_val_distinct_at_half_the_space);
    tcase_add_loop_test(tc, test_same_seed_same_data, 0, 4);
    tcase_add_test(tc, test_space_too_small);
    tcase_add_test(tc, test_recall_pairs_exceed_symbols);
    tcase_add_test(tc, test_space_saturates);
    tcase_add_test(tc, test_max_seq_len);
    tcase_add_test(tc, test_error_names_ini_file_and_line);
    suite_add_tcase(s, tc);
    TCase *tf = tcase_create("file");
    tcase_set_timeout(tf, 60);
    tcase_add_test(tf, test_file_parse);
    tcase_add_test(tf, test_file_ids_do_not_depend_on_line_order);
    tcase_add_test(tf, test_file_dedup_split_and_padding);
    tcase_add_test(tf, test_file_format_uses_names);
    tcase_add_loop_test(tf, test_file_errors, 0,
                        (int)(sizeof FILE_ERRORS / sizeof FILE_ERRORS[0]));
    tcase_add_test(tf, test_file_unreadable);
    tcase_add_test(tf, test_file_too_many_symbols);
    tcase_add_test(tf, test_file_max_seq_len);
    tcase_add_test(tf, test_shipped_words_file);
    suite_add_tcase(s, tf);
    return s;
}

int main(void) {
    return tu_run(tasks_suite());
}
