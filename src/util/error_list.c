/* error_list.c: error lines about bad input, escaped, one at a time or gathered and sorted by
 * argument (error_list.h). */
#include "util/error_list.h"

#include <stdlib.h>
#include <string.h>

void error_put_text(FILE *f, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x20 && *p != 0x7f) fputc(*p, f);
        else if (*p == '\r') fputs("\\r", f);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\t') fputs("\\t", f);
        else fprintf(f, "\\x%02x", *p);
    }
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

void error_vadd(ErrorList *l, int order, const char *where, const char *fmt, va_list ap) {
    char *text = format(fmt, ap);
    if (!l) {
        put_line(where, text ? text : "(out of memory for the message)");
        free(text);
        return;
    }
    int at = l->n;
    while (at > 0 && l->e[at - 1].order > order) at--;
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
    l->e[at].where = w;
    l->e[at].text = text;
    l->n++;
}

void error_add(ErrorList *l, int order, const char *where, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_vadd(l, order, where, fmt, ap);
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
