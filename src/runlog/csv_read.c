/* csv_read.c: the reader of a run's CSV logs (csv_read.h): one file in memory, split in place,
 * cells by column name. */
#include "runlog/csv_read.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_list.h"
#include "util/file_check.h"

/* Growable list of field pointers plus the number of fields on each line. */
typedef struct {
    char **field;
    size_t n_field, cap_field;
    int *row_len;
    int *row_line;   /* the file line each row starts on (1-based) */
    size_t n_row, cap_row;
} Fields;

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap * 2 : 64;
    while (n < need) n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Splits one line starting at *pos into NUL-terminated fields, unquoting in place (the write
 * pointer never passes the read pointer, so one buffer suffices). Advances *pos past the line. */
static int split_line(char **pos, char *end, Fields *f, int *line) {
    int start_line = *line;
    char *r = *pos;
    int n = 0;
    for (;;) {
        char *field = r, *w = r;
        if (r < end && *r == '"') {
            r++;
            while (r < end) {
                if (*r == '"') {
                    if (r + 1 < end && r[1] == '"') {
                        *w++ = '"';
                        r += 2;
                        continue;
                    }
                    r++;
                    break;
                }
                *line += *r == '\n';
                *w++ = *r++;
            }
        }
        /* Anything after a closing quote is kept: a reader of logs should be lenient. */
        while (r < end && *r != ',' && *r != '\n') *w++ = *r++;
        char term = r < end ? *r : '\n';
        /* A CRLF line end, but not a \r inside quotes. */
        if (term == '\n' && w > field && w[-1] == '\r' && r[-1] == '\r') w--;
        *w = '\0';
        if (grow((void **)&f->field, &f->cap_field, f->n_field + 1, sizeof *f->field)) return -1;
        f->field[f->n_field++] = field;
        n++;
        if (r < end) r++;
        if (term == '\n') break;
    }
    *pos = r;
    (*line)++;
    size_t cap = f->cap_row;
    if (grow((void **)&f->row_len, &f->cap_row, f->n_row + 1, sizeof *f->row_len)) return -1;
    if (f->cap_row != cap) {
        int *p = realloc(f->row_line, f->cap_row * sizeof *f->row_line);
        if (!p) return -1;
        f->row_line = p;
    }
    f->row_line[f->n_row] = start_line;
    f->row_len[f->n_row++] = n;
    return 0;
}

/* A NUL byte in buf[0..len) would end a cell silently: refused, naming its line in t->problem
 * (errno EILSEQ). Returns 0 when there is none, else -1. */
static int refuse_nul(Csv *t, const char *buf, size_t len) {
    const char *nul = memchr(buf, '\0', len);
    int line = 1;
    if (nul) { /* a cell would end at it, silently: refused, naming the line */
        for (const char *p = buf; p < nul; p++) line += *p == '\n';
        snprintf(t->problem, sizeof t->problem, "line %d: a NUL byte (a torn or binary file, "
                 "not a log ./train wrote)", line);
        errno = EILSEQ;
        return -1;
    }
    return 0;
}

/* Splits every line of r..end into f (blank lines skipped, LF or CRLF ends). Returns 0, or -1
 * when out of memory. */
static int split_lines(char *r, char *end, Fields *f) {
    int line = 1;
    while (r < end) {
        if (*r == '\n') {
            r++;
            line++;
            continue;
        }
        if (*r == '\r' && r + 1 < end && r[1] == '\n') {
            r += 2;
            line++;
            continue;
        }
        if (split_line(&r, end, f, &line)) return -1;
    }
    return 0;
}

/* The fields of f as t's table of rows of the header's width; short rows padded with the empty
 * string at end (the buffer's closing NUL). Returns 0, or -1 when out of memory. */
static int as_table(Csv *t, const Fields *f, char *end) {
    int cols = f->row_len[0];
    size_t rows = f->n_row;
    t->cell = malloc(rows * (size_t)cols * sizeof *t->cell);
    t->line = malloc(rows * sizeof *t->line);
    t->width = malloc(rows * sizeof *t->width);
    if (!t->cell || !t->line || !t->width) return -1;
    memcpy(t->line, f->row_line, rows * sizeof *t->line);
    memcpy(t->width, f->row_len, rows * sizeof *t->width);
    size_t k = 0;
    for (size_t i = 0; i < rows; i++) {
        for (int c = 0; c < f->row_len[i]; c++, k++)
            if (c < cols) t->cell[i * (size_t)cols + (size_t)c] = f->field[k];
        for (int c = f->row_len[i]; c < cols; c++) t->cell[i * (size_t)cols + (size_t)c] = end;
    }
    t->n_cols = cols;
    t->n_rows = (int)rows - 1;
    return 0;
}

/* A header naming one column twice (csv_col would give the first of two): t freed, the problem
 * kept, errno ENOTUNIQ, -1; else 0. */
static int refuse_twice_named(Csv *t) {
    int cols = t->n_cols;
    for (int a = 0; a < cols; a++)
        for (int b = a + 1; b < cols && t->cell[a][0]; b++)
            if (strcmp(t->cell[a], t->cell[b]) == 0) {
                char problem[sizeof t->problem];
                snprintf(problem, sizeof problem, "line %d: column '%.60s' named twice (fields %d "
                         "and %d)", t->line[0], t->cell[a], a + 1, b + 1);
                csv_free(t);
                memcpy(t->problem, problem, sizeof problem);
                errno = ENOTUNIQ;
                return -1;
            }
    return 0;
}

static void fields_free(Fields *f) {
    free(f->field);
    free(f->row_len);
    free(f->row_line);
}

int csv_parse(Csv *t, const char *text, size_t len) {
    memset(t, 0, sizeof *t);
    Fields f = {0};
    char *buf = malloc(len + 1);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (refuse_nul(t, buf, len) != 0) {
        free(buf);
        return -1;
    }
    char *start = buf + (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0);
    if (split_lines(start, buf + len, &f) != 0) goto oom;
    if (f.n_row == 0) {
        free(buf);
        errno = EINVAL;
        return -1;
    }
    if (as_table(t, &f, buf + len) != 0) goto oom;
    t->text = buf;
    fields_free(&f);
    return refuse_twice_named(t);
oom:
    fields_free(&f);
    free(buf);
    free(t->cell);
    free(t->line);
    free(t->width);
    t->cell = NULL;
    t->line = t->width = NULL;
    errno = ENOMEM;
    return -1;
}

int csv_load(Csv *t, const char *path) {
    memset(t, 0, sizeof *t);
    char why[128];
    size_t len = 0;
    char *data = file_read_regular(path, FILE_MAX_LOG_BYTES, &len, why, sizeof why);
    if (!data) {
        /* a FIFO, a device, a folder or a file past the bound: refused before a byte is read */
        int err = errno;
        if (err == EINVAL || err == EFBIG) {
            error_add(NULL, 0, NULL, "'%s': %s", path, why);
            err = ECANCELED;
        }
        errno = err;
        return -1;
    }
    int rc = csv_parse(t, data, len);
    int saved = errno;
    free(data);
    if (rc != 0 && (saved == EILSEQ || saved == ENOTUNIQ)) {
        error_add(NULL, 0, NULL, "'%s': %s", path, t->problem);
        saved = ECANCELED; /* refused, named */
    }
    errno = saved;
    return rc;
}

void csv_free(Csv *t) {
    free(t->text);
    free(t->cell);
    free(t->line);
    free(t->width);
    memset(t, 0, sizeof *t);
}

void csv_remove_row(Csv *t, int row) {
    if (row < 0 || row >= t->n_rows) return;
    size_t cols = (size_t)t->n_cols, k = (size_t)row + 1, rest = (size_t)t->n_rows - (size_t)row - 1;
    memmove(t->cell + k * cols, t->cell + (k + 1) * cols, rest * cols * sizeof *t->cell);
    memmove(t->line + k, t->line + k + 1, rest * sizeof *t->line);
    memmove(t->width + k, t->width + k + 1, rest * sizeof *t->width);
    t->n_rows--;
}

int csv_col(const Csv *t, const char *name) {
    for (int c = 0; c < t->n_cols; c++)
        if (strcmp(t->cell[c], name) == 0) return c;
    return -1;
}

const char *csv_str(const Csv *t, int row, int col) {
    if (row < 0 || row >= t->n_rows || col < 0 || col >= t->n_cols) return "";
    return t->cell[(size_t)(row + 1) * (size_t)t->n_cols + (size_t)col];
}

int csv_empty(const Csv *t, int row, int col) {
    const char *s = csv_str(t, row, col);
    while (*s == ' ' || *s == '\t') s++;
    return *s == '\0';
}

double csv_num(const Csv *t, int row, int col) {
    const char *s = csv_str(t, row, col);
    char *end;
    double v = strtod(s, &end);
    if (end == s) return NAN;
    while (*end == ' ' || *end == '\t') end++;
    return *end ? NAN : v;
}

int csv_int(const Csv *t, int row, int col, int fallback) {
    double v = csv_num(t, row, col);
    return isfinite(v) && v > INT_MIN - 1.0 && v < INT_MAX + 1.0 ? (int)v : fallback;
}
