/* file_parse.c: a task file's text into examples: read it (or take it from memory), check the
 * bytes (UTF-8, no NUL), skip blank and '#' lines and comments, split each line at its one '|'
 * and intern the symbols. The format is in tasks.h; file_task.c turns the examples into a task.
 * Part of the task stage (config -> task -> model). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks/file_parse.h"
#include "tasks/tasks_internal.h"
#include "util/error_list.h"
#include "util/file_check.h"

int task_file_error(const TaskConfig *c, const char *path, int line, const char *fmt, ...) {
    Origin o = task_set_at(c, "task.file");
    char where[4200], text[4096]; /* a path as long as PATH_MAX and its line; the message */
    snprintf(where, sizeof where, line > 0 ? "%s:%d" : "%s", path, line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return task_error_at(where, "%s (task.file, %s)", text, o.s);
}

FileParse *task_parse_new(void) {
    FileParse *fp = calloc(1, sizeof *fp);
    if (fp) {
        for (int i = 0; i < 2 * TASK_MAX_FILE_SYMBOLS; i++) fp->slots[i] = -1;
        fp->names = calloc(TASK_MAX_FILE_SYMBOLS, sizeof(char *));
    }
    if (!fp || !fp->names) {
        error_add(NULL, 0, NULL, "task: out of memory");
        task_parse_free(fp);
        return NULL;
    }
    return fp;
}

void task_parse_free(FileParse *fp) {
    if (!fp) return;
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

static int read_all(FileParse *fp, const TaskConfig *c, const char *path) {
    char why[256];
    fp->text = file_read_regular(path, MAX_TASK_FILE_BYTES, &fp->size, why, sizeof why);
    if (!fp->text) return task_file_error(c, path, 0, "cannot read the task file: %s", why);
    return 0;
}

/* The task file's content given in memory, copied as read_all would have read it. */
static int copy_text(FileParse *fp, const TaskConfig *c, const char *path, const char *text,
                     size_t len) {
    char *buf = len < SIZE_MAX ? malloc(len + 1) : NULL;
    if (!buf) return task_file_error(c, path, 0, "out of memory reading the task file");
    if (len) memcpy(buf, text, len);
    buf[len] = '\0';
    fp->text = buf;
    fp->size = len;
    return 0;
}

int task_parse_load(FileParse *fp, const TaskConfig *c, const char *path, const char *text,
                    size_t len) {
    return text ? copy_text(fp, c, path, text, len) : read_all(fp, c, path);
}

/* One example line's content p..stop (comment cut off): its one '|', the symbols on either side
 * interned and appended to fp. Returns 0, or -1 after a message naming the line. */
static int parse_example(FileParse *fp, const TaskConfig *c, const char *path, int line,
                         const char *p, const char *stop) {
    int bars = 0;
    for (const char *q = p; q < stop; q++) bars += *q == '|';
    if (bars == 0)
        return task_file_error(c, path, line, "missing '|' (expected 'prompt | answer')");
    if (bars > 1)
        return task_file_error(c, path, line,
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
            return task_file_error(c, path, line, "more than %d symbols on one line",
                                   TASK_MAX_FILE_LINE_SYMBOLS);
        int id = intern(fp, w, (size_t)(q - w));
        if (id == -1)
            return task_file_error(c, path, line,
                                   "too many distinct symbols: '%.*s' would be symbol "
                                   "number %d, the limit is %d",
                                   (int)(q - w), w, TASK_MAX_FILE_SYMBOLS + 1,
                                   TASK_MAX_FILE_SYMBOLS);
        if (id < 0 || push_id(fp, id) != 0) return task_file_error(c, path, line, "out of memory");
        count[side]++;
    }
    if (count[0] == 0) return task_file_error(c, path, line, "empty prompt (nothing before '|')");
    if (count[1] == 0) return task_file_error(c, path, line, "empty answer (nothing after '|')");
    if (push_example(fp, start, count[0], count[1], line) != 0)
        return task_file_error(c, path, line, "out of memory");
    return 0;
}

int task_parse_lines(FileParse *fp, const TaskConfig *c, const char *path) {
    const char *s = fp->text, *end = fp->text + fp->size;
    if (fp->size >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) s += 3;
    for (int line = 1; s < end; line++) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e) e = end;
        if (memchr(s, '\0', (size_t)(e - s)))
            return task_file_error(c, path, line, "contains a NUL byte; task files are UTF-8 text");
        long bad = utf8_invalid((const unsigned char *)s, (size_t)(e - s));
        if (bad >= 0)
            return task_file_error(c, path, line, "invalid UTF-8 at byte %ld of the line", bad + 1);
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
        if (parse_example(fp, c, path, line, p, stop) != 0) return -1;
        s = e + 1;
    }
    if (fp->n_ex == 0)
        return task_file_error(c, path, 0, "no examples (only blank lines and '#' comments)");
    return 0;
}
