/* sweep_page.c: index.html of a sweep (see page_internal.h), built from the text of the sweep report
 * so the page and summary.txt never disagree. Every text from the report goes through
 * xml_escape_file. */
#include "report/page/page_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plot/plot.h"
#include "report/figure/figure.h"
#include "util/error_list.h"
#include "util/whole_write.h"

/* One section of the report text: [start, end), its heading the first line up to ':' or " (". */
typedef struct {
    const char *start, *end;
} Section;

#define MAX_SECTIONS 32

/* Splits text at blank lines followed by an unindented line. Returns the number of sections. */
static int split_sections(const char *text, Section *s, int cap) {
    int n = 0;
    const char *p = text;
    while (*p == '\n') p++;
    while (*p && n < cap) {
        const char *q = p, *next = NULL;
        while ((q = strstr(q, "\n\n")) != NULL) {
            const char *r = q;
            while (*r == '\n') r++;
            if (!*r || *r != ' ') {
                next = r;
                break;
            }
            q = r;
        }
        s[n++] = (Section){p, next ? q + 1 : p + strlen(p)};
        if (!next) break;
        p = next;
    }
    return n;
}

static int heading_len(const Section *s) {
    int n = (int)strcspn(s->start, ":\n");
    const char *paren = strstr(s->start, " (");
    if (paren && paren - s->start < n) n = (int)(paren - s->start);
    return n;
}

static int starts(const Section *s, const char *prefix) {
    return strncmp(s->start, prefix, strlen(prefix)) == 0;
}

static void text_block(FILE *f, const Section *s, const char *from) {
    char *copy = strndup(from, (size_t)(s->end - from));
    fprintf(f, "<pre class=\"text\">");
    xml_escape_file(f, copy ? copy : "(out of memory)");
    fprintf(f, "</pre>\n");
    free(copy);
}

/* The sections shown before the others, not as sections of their own: the header, the verdict
 * and the figures. */
static int top_section(const Section *s) {
    return starts(s, "sweep report of") || starts(s, "verdict: ") || starts(s, "figures in");
}

/* The verdict section (verdict.c) as the page's first paragraph: "Verdict:" in bold, then its
 * lines (the first without "verdict: ", the others unindented), one per line. */
static void verdict(FILE *f, const Section *s) {
    fprintf(f, "<p class=\"verdict\" id=\"verdict\"><b>Verdict:</b> ");
    const char *p = s->start + strlen("verdict: ");
    while (p < s->end && *p != '\n') {
        const char *eol = memchr(p, '\n', (size_t)(s->end - p));
        if (!eol) eol = s->end;
        while (p < eol && *p == ' ') p++;
        char *line = strndup(p, (size_t)(eol - p));
        xml_escape_file(f, line ? line : "?");
        free(line);
        p = eol + 1;
        if (p < s->end && *p != '\n') fprintf(f, "<br/>\n");
    }
    fprintf(f, "</p>\n");
}

/* The "figures in DIR/:" section: each "FILE.svg: caption" line after the heading inlined with
 * its caption (the heading holds the sweep's folder, which may itself hold ".svg: "). */
static void figures(FILE *f, const char *dir, const Section *s) {
    int any = 0;
    const char *first = memchr(s->start, '\n', (size_t)(s->end - s->start));
    for (const char *line = first ? first + 1 : s->end; line < s->end;) {
        const char *eol = memchr(line, '\n', (size_t)(s->end - line));
        if (!eol) eol = s->end;
        const char *colon = memchr(line, ':', (size_t)(eol - line));
        if (colon && colon - line > 4 && strncmp(colon - 4, ".svg", 4) == 0 && colon[1] == ' ') {
            char *file = strndup(line, (size_t)(colon - line));
            char *caption = strndup(colon + 2, (size_t)(eol - colon - 2));
            if (file && caption) {
                char title[128];
                snprintf(title, sizeof title, "%.*s", (int)strcspn(file, "."), file);
                size_t k = strlen(SWEEP_FIGURE_NOT_WRITTEN), len = strlen(caption);
                if (strncmp(caption, SWEEP_FIGURE_NOT_WRITTEN, k) == 0 && len > k) {
                    caption[len - 1] = '\0'; /* the closing ')' */
                    html_figure_missing(f, file, title, caption + k);
                } else {
                    html_figure(f, dir, file, title, caption, 0);
                }
                any = 1;
            }
            free(file);
            free(caption);
        }
        line = eol + 1;
    }
    if (!any) fprintf(f, "<p>No figure: no column but the seed varied over two trained "
                         "values.</p>\n");
}

int sweep_page_write(const char *dir, const char *text) {
    char path[4096];
    snprintf(path, sizeof path, "%s/index.html", dir);
    Section sec[MAX_SECTIONS];
    int n = split_sections(text, sec, MAX_SECTIONS);
    AtomicFile out; /* whole or not at all (path.tmp renamed over path), never through a link */
    FILE *f = atomic_open(&out, path);
    if (!f) {
        error_add(NULL, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
               SWEEP_PAGE_MARK);
    xml_escape_file(f, dir);
    fprintf(f, "</title>\n");
    html_head(f);
    fprintf(f, "</head>\n<body>\n<h1>Sweep <code>");
    xml_escape_file(f, dir);
    fprintf(f, "</code></h1>\n<p class=\"note\">Report of the sweep (<code>summary.txt</code> "
               "beside this page holds the same text; <code>sweep.csv</code> one row per run).</p>"
               "\n");
    for (int i = 0; i < n; i++)
        if (starts(&sec[i], "verdict: ")) verdict(f, &sec[i]);
    if (n > 0 && starts(&sec[0], "sweep report of")) text_block(f, &sec[0], sec[0].start);
    fprintf(f, "<nav><a href=\"#figures\">Figures</a>");
    for (int i = 0; i < n; i++)
        if (!top_section(&sec[i])) {
            fprintf(f, " &#183; <a href=\"#section%d\">", i);
            char *h = strndup(sec[i].start, (size_t)heading_len(&sec[i]));
            xml_escape_file(f, h ? h : "?");
            free(h);
            fprintf(f, "</a>");
        }
    fprintf(f, "</nav>\n<h2 id=\"figures\">Figures</h2>\n<p class=\"note\">Hover a line for its "
               "value; untick a group to hide its lines in every figure.</p>\n"
               "<div id=\"run-toggles\" class=\"toggles\" hidden=\"hidden\"></div>\n");
    int any_fig = 0;
    for (int i = 0; i < n; i++)
        if (starts(&sec[i], "figures in")) figures(f, dir, &sec[i]), any_fig = 1;
    if (!any_fig) fprintf(f, "<p>No figure.</p>\n");
    for (int i = 0; i < n; i++) {
        if (top_section(&sec[i])) continue;
        char *h = strndup(sec[i].start, (size_t)heading_len(&sec[i]));
        if (h && h[0] >= 'a' && h[0] <= 'z') h[0] = (char)(h[0] - 'a' + 'A');
        fprintf(f, "<h2 id=\"section%d\">", i);
        xml_escape_file(f, h ? h : "?");
        fprintf(f, "</h2>\n");
        free(h);
        text_block(f, &sec[i], sec[i].start);
    }
    fprintf(f, "</body>\n</html>\n");
    if (atomic_commit(&out, 0) != 0) {
        error_add(NULL, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
