/* figure_caption.c: appending to a figure's caption (figure_internal.h). */
#include "report/figure/figure_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void caption_add(FigureInfo *fi, const char *fmt, ...) {
    size_t len = strlen(fi->caption);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fi->caption + len, sizeof fi->caption - len, fmt, ap);
    va_end(ap);
}

void caption_escaped(FigureInfo *fi, const char *text) {
    for (const char *p = text; *p; p++) {
        const char *e = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;"
                      : *p == '"' ? "&quot;" : *p == '\'' ? "&#39;" : NULL;
        if (e) caption_add(fi, "%s", e);
        else caption_add(fi, "%c", *p);
    }
}
