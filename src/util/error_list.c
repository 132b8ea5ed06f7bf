/* error_list.c: error lines about bad input, escaped, one at a time or gathered and sorted by
 * argument (error_list.h). */
#include "util/error_list.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence of 2 to 4 bytes at p, else 0: the shortest form only
 * (C0, C1, E0 80-9F, F0 80-8F lead an overlong one), no surrogate (ED A0-BF), nothing above
 * U+10FFFF (F4 90 on, F5 on). A NUL ends the string: it is never a continuation byte. */
static int utf8_len(const unsigned char *p) {
    int n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
            : p[0] >= 0xf0 && p[0] <= 0xf4                                 ? 4
                                                                           : 0;
    unsigned lo = p[0] == 0xe0 ? 0xa0 : p[0] == 0xf0 ? 0x90 : 0x80,
             hi = p[0] == 0xed ? 0x9f : p[0] == 0xf4 ? 0x8f : 0xbf;
    if (n == 0 || p[1] < lo || p[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return n;
}

/* True for the 3-byte character at p (valid UTF-8) that reorders or breaks the line on a terminal
 * while invisible: the bidi marks, embeddings, overrides and isolates U+200E, U+200F,
 * U+202A-U+202E, U+2066-U+2069 (U+202E shows the rest of the line reversed) and the line and
 * paragraph separators U+2028, U+2029. */
static int invisible_layout(const unsigned char *p) {
    if (p[0] != 0xe2) return 0;
    if (p[1] == 0x80)
        return p[2] == 0x8e || p[2] == 0x8f || p[2] == 0xa8 || p[2] == 0xa9 ||
               (p[2] >= 0xaa && p[2] <= 0xae);
    return p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9;
}

/* Room for one character as error lines write it: 3 bytes as \xNN each, and a NUL. */
#define PIECE 13

/* The next character of p as error lines write it, into out (at most 12 bytes and a NUL);
 * returns how many bytes of p it took. */
static int escape_next(const unsigned char *p, char out[PIECE]) {
    int n = *p < 0x80 ? 1 : utf8_len(p);
    if (*p == '\r' || *p == '\n' || *p == '\t') {
        snprintf(out, PIECE, "\\%c", *p == '\r' ? 'r' : *p == '\n' ? 'n' : 't');
    } else if (*p < 0x20 || *p == 0x7f || n == 0) {
        snprintf(out, PIECE, "\\x%02x", *p);
        n = 1;
    } else if (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f) { /* C1: U+0080-U+009F */
        snprintf(out, PIECE, "\\x%02x\\x%02x", p[0], p[1]);
    } else if (n == 3 && invisible_layout(p)) {
        snprintf(out, PIECE, "\\x%02x\\x%02x\\x%02x", p[0], p[1], p[2]);
    } else {
        memcpy(out, p, (size_t)n);
        out[n] = 0;
    }
    return n;
}

void error_put_text(FILE *f, const char *s) {
    char piece[PIECE];
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        p += escape_next(p, piece);
        fputs(piece, f);
    }
}

const char *error_shown(char *buf, size_t n, const char *s) {
    char piece[PIECE];
    size_t whole = 0, len = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; whole += strlen(piece))
        p += escape_next(p, piece);
    size_t room = whole < n ? whole : n - 4; /* all of it, or what leaves room for "..." */
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int took = escape_next(p, piece);
        size_t k = strlen(piece);
        if (len + k > room) break;
        memcpy(buf + len, piece, k);
        len += k;
        p += took;
    }
    memcpy(buf + len, whole < n ? "" : "...", whole < n ? 1 : 4);
    return buf;
}

void error_place(char *buf, size_t n, const char *option, int argn) {
    if (argn > 0) snprintf(buf, n, "%s (argument %d)", option, argn);
    else snprintf(buf, n, argn == 0 ? "%s (default)" : "%s", option);
}

static void put_line(const char *where, const char *text) {
    fputs("error: ", stderr);
    if (where) {
        error_put_text(stderr, where);
        fputs(": ", stderr);
    }
    error_put_text(stderr, text);
    fputc('\n', stderr);
}

/* fmt with ap in a malloc'd string, or NULL when memory runs out. */
static char *format(const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    return s;
}

/* Adds, or writes when l is NULL. */
static void add(ErrorList *l, int order, long line, const char *where, const char *fmt,
                va_list ap) {
    char *text = format(fmt, ap);
    if (!l) {
        put_line(where, text ? text : "(out of memory for the message)");
        free(text);
        return;
    }
    int at = l->n;
    while (at > 0 && (l->e[at - 1].order > order ||
                      (l->e[at - 1].order == order && l->e[at - 1].line > line)))
        at--;
    char *w = where ? strdup(where) : NULL;
    if (at == ERRORS_NAMED || !text || (where && !w)) {
        l->more++;
        free(text);
        free(w);
        return;
    }
    if (l->n == ERRORS_NAMED) { /* the last named one gives way */
        free(l->e[ERRORS_NAMED - 1].text);
        free(l->e[ERRORS_NAMED - 1].where);
        l->n--;
        l->more++;
    }
    memmove(&l->e[at + 1], &l->e[at], (size_t)(l->n - at) * sizeof l->e[0]);
    l->e[at].order = order;
    l->e[at].line = line;
    l->e[at].where = w;
    l->e[at].text = text;
    l->n++;
}

void error_vadd(ErrorList *l, int order, long line, const char *where, const char *fmt,
                va_list ap) {
    int saved = errno; /* the caller may go on to read it (ENOMEM or not) */
    add(l, order, line, where, fmt, ap);
    errno = saved;
}

void error_add(ErrorList *l, int order, const char *where, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_vadd(l, order, 0, where, fmt, ap);
    va_end(ap);
}

void error_add_line(ErrorList *l, int order, long line, const char *where, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_vadd(l, order, line, where, fmt, ap);
    va_end(ap);
}

long error_count(const ErrorList *l) { return l->n + l->more; }

void error_drop(ErrorList *l) {
    for (int i = 0; i < l->n; i++) {
        free(l->e[i].text);
        free(l->e[i].where);
    }
    l->n = 0;
    l->more = 0;
}

long error_flush(ErrorList *l) {
    long total = error_count(l);
    for (int i = 0; i < l->n; i++) put_line(l->e[i].where, l->e[i].text);
    if (l->more) {
        char text[96];
        snprintf(text, sizeof text, "%d errors named; %ld more after this one, not named", l->n,
                 l->more);
        put_line(l->n ? l->e[l->n - 1].where : NULL, text);
    }
    error_drop(l);
    return total;
}
