/* csv_write.c: the writer of a run's CSV logs (csv_write.h): logs opened never through a link,
 * rows appended whole, fields with nan / inf / empty spelled the way csv_read.c reads them, and a
 * resumed log cut back to the rows before the checkpoint. */
#include "runlog/csv_write.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "util/error_list.h"
#include "util/file_check.h"

/* The log at path as a FILE for appending (util/whole_write.h's file_open_log: never through a
 * link, regular files only; fresh nonzero: replaced by an empty one). The FILE only holds the
 * descriptor: rows go out with whole_write. NULL after a message "cannot <verb> 'path'". */
static FILE *open_log_file(const char *path, int fresh, const char *verb) {
    char why[128];
    int fd = file_open_log(path, fresh, why, sizeof why);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "a");
    if (fd >= 0 && !f) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        close(fd);
    }
    if (!f) error_add(NULL, 0, NULL, "cannot %s '%s': %s", verb, path, why);
    return f;
}

FILE *csv_log_create(const char *path) { return open_log_file(path, 1, "write"); }

FILE *csv_log_append(const char *path) { return open_log_file(path, 0, "append to"); }

int csv_log_row(FILE *f, const char *path, const char *line) {
    /* unbuffered: the FILE only holds the descriptor */
    if (whole_write(fileno(f), line, strlen(line)) != 0) {
        error_add(NULL, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

size_t csv_log_field(char *buf, size_t cap, size_t len, int present, double v, const char *fmt) {
    if (len >= cap) return len;
    if (!present) return len + (size_t)snprintf(buf + len, cap - len, ",");
    if (isnan(v)) return len + (size_t)snprintf(buf + len, cap - len, ",nan");
    if (isinf(v)) return len + (size_t)snprintf(buf + len, cap - len, v > 0 ? ",inf" : ",-inf");
    int n = snprintf(buf + len, cap - len, ",");
    return len + (size_t)n + (size_t)snprintf(buf + len + n, cap - len - (size_t)n, fmt, v);
}

/* What is wrong with a log's first line (n bytes read by getline, n <= 0 for none): NULL when
 * it is a whole header, "step,..." and its '\n'. Rows appended to a log without its whole header
 * could never be read back by column. */
static const char *header_problem(const char *line, ssize_t n) {
    return n <= 0                ? "missing (the file is empty)"
           : line[n - 1] != '\n' ? "torn (cut before its end)"
           : strncmp(line, "step,", 5) != 0 ? "not a header"
                                           : NULL;
}

/* Column k (0 first, below header_columns(h)) of the header line h ('\n' ended): *at, and its
 * length returned. */
static int header_column(const char *h, int k, const char **at) {
    for (; k > 0; h++)
        if (*h == ',') k--;
    *at = h;
    return (int)strcspn(h, ",\n");
}

/* Columns of the header line h ('\n' ended). */
static int header_columns(const char *h) {
    int n = 1;
    for (; *h != '\n'; h++) n += *h == ',';
    return n;
}

/* Where the header line have ('\n' ended) first differs from want (the header this run writes,
 * '\n' ended), into why (n bytes): the first column that differs (shown to 64 bytes), and the
 * counts. */
static void header_difference(const char *have, const char *want, char *why, size_t n) {
    int ca = header_columns(have), cb = header_columns(want), k = 0, la = 0, lb = 0;
    const char *a = NULL, *b = NULL;
    for (; k < ca && k < cb; k++) {
        la = header_column(have, k, &a);
        lb = header_column(want, k, &b);
        if (la != lb || memcmp(a, b, (size_t)la) != 0) break;
    }
    if (k < ca && k < cb)
        snprintf(why, n, "column %d is '%.*s' where this run writes '%.*s'; %d columns, this run "
                 "writes %d", k + 1, la < 64 ? la : 64, a, lb < 64 ? lb : 64, b, ca, cb);
    else if (k < cb) {
        lb = header_column(want, k, &b);
        snprintf(why, n, "it ends after %d columns, before this run's '%.*s'", ca,
                 lb < 64 ? lb : 64, b);
    } else if (k < ca) {
        la = header_column(have, k, &a);
        snprintf(why, n, "column %d is '%.*s', past this run's last of %d", k + 1,
                 la < 64 ? la : 64, a, cb);
    } else { /* the same columns as text: a NUL byte inside one */
        snprintf(why, n, "a NUL byte in it");
    }
}

/* A log opened for a resume, its first line read. */
typedef struct {
    FILE *in;
    char *line; /* getline's buffer (cap bytes), its n bytes read */
    size_t cap;
    ssize_t n;
} LogHead;

/* Opens the log at path into h and reads its first line (messages at where, error_add's). Returns 0 (close h->in, free h->line),
 * or after the message of a log no resume can continue ("cannot resume: 'path': ...", h then
 * holds nothing) -2 when the log is refused (not a regular file, larger than
 * FILE_MAX_LOG_BYTES, no whole header, a header other than want when want is not NULL) or -1
 * for another failure to read it. */
static int open_log_header(const char *path, LogHead *h, const char *want, const char *where) {
    char why[128];
    *h = (LogHead){0};
    if (!(h->in = file_fopen_regular(path, FILE_MAX_LOG_BYTES, why, sizeof why))) {
        int refused = errno == EINVAL || errno == EFBIG; /* not a regular file, or too large */
        error_add(NULL, 0, where, "cannot resume: '%s': %s", path, why);
        return refused ? -2 : -1;
    }
    h->n = getline(&h->line, &h->cap, h->in);
    const char *problem = header_problem(h->line, h->n);
    if (!problem && (!want || strcmp(h->line, want) == 0)) return 0;
    if (problem) {
        error_add(NULL, 0, where, "cannot resume: '%s': its header line is %s (a log of this "
                                 "program starts with a whole 'step,...' line); nothing was changed",
                  path, problem);
    } else { /* rows appended under another header would not be of its columns */
        char why[320];
        header_difference(h->line, want, why, sizeof why);
        error_add(NULL, 0, where, "cannot resume: '%s': its header is not the one this run writes "
                                 "(%s): a log of another run or configuration? Put back this "
                                 "run's own log; nothing was changed",
                  path, why);
    }
    free(h->line);
    fclose(h->in);
    *h = (LogHead){0};
    return -2;
}

int csv_log_check_header(const char *path, const char *want, const char *where) {
    LogHead h;
    int rc = open_log_header(path, &h, want, where);
    if (rc == 0) {
        free(h.line);
        fclose(h.in);
    }
    return rc;
}

int csv_log_keep_before(const char *path, long resume_step, const char *want, AtomicFile *out) {
    LogHead h;
    int rc = open_log_header(path, &h, want, NULL);
    if (rc != 0) return rc;
    FILE *in = h.in;
    char *line = h.line;
    size_t cap = h.cap;
    ssize_t n = h.n;
    if (!atomic_open(out, path)) {
        error_add(NULL, 0, NULL, "cannot write '%s': %s", out->failed, strerror(errno));
        free(line);
        fclose(in);
        return -1;
    }
    int first = 1, bad = 0;
    do {
        if (line[n - 1] != '\n') break;
        /* a blank line (one added by hand) holds no row; kept, strtol's 0 would put it before
         * the rows the resume appends, in the middle of the log */
        int blank = line[strspn(line, " \t\r\n")] == '\0';
        if (first || (!blank && strtol(line, NULL, 10) < resume_step))
            bad |= fputs(line, out->f) == EOF;
        first = 0;
    } while ((n = getline(&line, &cap, in)) > 0);
    free(line);
    bad |= ferror(in) != 0;
    fclose(in);
    if (bad) {
        error_add(NULL, 0, NULL, "cannot rewrite '%s': %s", path, strerror(errno));
        atomic_discard(out);
        return -1;
    }
    return 0;
}

long csv_log_last_step_before(const char *path, long before) {
    char why[128];
    FILE *f = file_fopen_regular(path, FILE_MAX_LOG_BYTES, why, sizeof why);
    if (!f) return -2;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, f);
    long last = header_problem(line, n) ? -2 : -1;
    while (last > -2 && (n = getline(&line, &cap, f)) > 0) {
        char *end;
        long step = strtol(line, &end, 10);
        /* a row: its step, then a comma, the line whole (a torn last line is dropped on resume) */
        if (end != line && *end == ',' && line[n - 1] == '\n' && step < before && step > last)
            last = step;
    }
    free(line);
    fclose(f);
    return last;
}

FILE *csv_log_keep_commit(const char *path, AtomicFile *prepared) {
    if (atomic_commit(prepared, 0) != 0) {
        error_add(NULL, 0, NULL, "cannot rewrite '%s': %s", path, strerror(errno));
        return NULL;
    }
    return csv_log_append(path);
}

int csv_log_header_is(const char *path, const char *want) {
    char why[128];
    FILE *f = file_fopen_regular(path, FILE_MAX_LOG_BYTES, why, sizeof why);
    if (!f) return 0;
    char *line = NULL;
    size_t cap = 0;
    int same = getline(&line, &cap, f) > 0 && strcmp(line, want) == 0;
    free(line);
    fclose(f);
    return same;
}

void csv_write_text(FILE *f, const char *text, int first) {
    if (!first) fputc(',', f);
    if (!text[strcspn(text, ",\"\r\n")]) {
        fputs(text, f);
        return;
    }
    fputc('"', f);
    for (const char *p = text; *p; p++) {
        if (*p == '"') fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}
