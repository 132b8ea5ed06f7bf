/* warnings.c: a command's warnings about its input, printed once and kept for its page
 * (read.h). */
#include "report/read/read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_list.h"

static char *g_kept[WARNINGS_KEPT];
static int g_n, g_dropped;

void warn_input(const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    for (int i = 0; i < g_n; i++)
        if (strcmp(g_kept[i], text) == 0) return; /* said already */
    fprintf(stderr, "warning: %s\n", SHOWN(text)); /* the page escapes it its own way */
    if (g_n < WARNINGS_KEPT && (g_kept[g_n] = strdup(text)) != NULL)
        g_n++;
    else
        g_dropped++;
}

int warnings_count(void) { return g_n; }

const char *warnings_at(int i) { return i >= 0 && i < g_n ? g_kept[i] : ""; }

int warnings_dropped(void) { return g_dropped; }

void warnings_clear(void) {
    for (int i = 0; i < g_n; i++) free(g_kept[i]);
    g_n = g_dropped = 0;
}
