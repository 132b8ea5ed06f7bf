/* svg.c: the report stage's SVG writer (plot.h): a document built in memory, escaped text, well-formed
 * XML. */
#include "report/plot/plot.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/whole_write.h"

static int reserve(Svg *s, size_t extra) {
    if (s->failed) return -1;
    if (s->len + extra + 1 <= s->cap) return 0;
    size_t n = s->cap ? s->cap : 4096;
    while (n < s->len + extra + 1) n *= 2;
    char *p = realloc(s->buf, n);
    if (!p) {
        s->failed = 1;
        return -1;
    }
    s->buf = p;
    s->cap = n;
    return 0;
}

static void append(Svg *s, const char *text, size_t n) {
    if (reserve(s, n)) return;
    memcpy(s->buf + s->len, text, n);
    s->len += n;
    s->buf[s->len] = '\0';
}

void svg_raw(Svg *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        s->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        append(s, small, (size_t)n);
        return;
    }
    if (reserve(s, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(s->buf + s->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}

/* The entity for c, or NULL when c can be written as is. */
static const char *entity(unsigned char c) {
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    case '\t': case '\n': case '\r': return NULL;
    default: return c < 0x20 || c == 0x7f ? "?" : NULL;
    }
}

/* The length (2 to 4) of the well-formed UTF-8 sequence at p (RFC 3629: no overlong form, no
 * surrogate, nothing above U+10FFFF), or 0 when the bytes there are not one. p[0] >= 0x80. */
static int utf8_len(const unsigned char *p) {
    unsigned char c = p[0];
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (n == 0) return 0;
    /* the second byte's range narrows after E0 (overlong), ED (surrogates), F0 (overlong), F4 */
    unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (p[1] < lo || p[1] > hi) return 0;
    for (int k = 2; k < n; k++)
        if (p[k] < 0x80 || p[k] > 0xbf) return 0;
    if (c == 0xef && p[1] == 0xbf && p[2] >= 0xbe) return 0; /* U+FFFE, U+FFFF: not XML 1.0 */
    return n;
}

/* U+FFFD REPLACEMENT CHARACTER, in place of each byte that does not begin a well-formed sequence */
static const char REPLACEMENT[] = "\xef\xbf\xbd";

/* Calls put(ctx, text, n) for each piece of the escaped text: runs written as they are, entities,
 * and U+FFFD for each invalid byte. */
static void escape(const char *text, void (*put)(void *, const char *, size_t), void *ctx) {
    if (!text) return;
    const char *run = text;
    for (const char *p = text; *p;) {
        const unsigned char c = (unsigned char)*p;
        const char *e = NULL;
        int n = 1;
        if (c >= 0x80) {
            n = utf8_len((const unsigned char *)p);
            if (n == 0) e = REPLACEMENT, n = 1;
        } else
            e = entity(c);
        if (e) {
            put(ctx, run, (size_t)(p - run));
            put(ctx, e, strlen(e));
            run = p + n;
        }
        p += n;
    }
    put(ctx, run, strlen(run));
}

/* The opening of every SVG svg_begin writes, before and after its sizes (svg_is_ours). */
#define SVG_HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
#define SVG_HEAD_END "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"

static void put_svg(void *ctx, const char *text, size_t n) { append(ctx, text, n); }

static void put_file(void *ctx, const char *text, size_t n) {
    if (n) fwrite(text, 1, n, ctx);
}

void svg_escaped(Svg *s, const char *text) { escape(text, put_svg, s); }

void xml_escape_file(FILE *f, const char *text) { escape(text, put_file, f); }

void svg_begin(Svg *s, double width, double height, const char *title) {
    memset(s, 0, sizeof *s);
    svg_raw(s, SVG_HEAD "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" " SVG_HEAD_END,
            width, height, width, height);
    if (title) {
        svg_raw(s, "<title>");
        svg_escaped(s, title);
        svg_raw(s, "</title>\n");
    }
    svg_raw(s, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", width,
            height);
}

void svg_text(Svg *s, double x, double y, const char *attrs, const char *text) {
    svg_raw(s, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", x, y, attrs ? " " : "", attrs ? attrs : "");
    svg_escaped(s, text);
    svg_raw(s, "</text>\n");
}

void svg_line(Svg *s, double x1, double y1, double x2, double y2, const char *attrs) {
    svg_raw(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"%s%s/>\n", x1, y1, x2, y2,
            attrs ? " " : "", attrs ? attrs : "");
}

void svg_rect(Svg *s, double x, double y, double w, double h, const char *attrs) {
    svg_raw(s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"%s%s/>\n", x, y, w, h,
            attrs ? " " : "", attrs ? attrs : "");
}

int svg_new_id(Svg *s) { return ++s->next_id; }

int svg_end(Svg *s) {
    svg_raw(s, "</svg>\n");
    return s->failed ? -1 : 0;
}

int svg_save(const Svg *s, const char *path) { return svg_save_why(s, path, NULL, 0); }

int svg_save_why(const Svg *s, const char *path, char *failed, size_t n) {
    if (s->failed || !s->buf) {
        if (failed && n > 0) snprintf(failed, n, "%s", path);
        errno = ENOMEM;
        return -1;
    }
    /* whole or not at all: a full disk leaves the old figure (or none), never a torn one */
    return file_write_atomic_why(path, s->buf, s->len, failed, n);
}

void svg_free(Svg *s) {
    free(s->buf);
    memset(s, 0, sizeof *s);
}

int svg_is_ours(const char *text) {
    size_t n = strlen(SVG_HEAD);
    if (strncmp(text, SVG_HEAD, n) != 0) return 0;
    const char *eol = strchr(text + n, '\n'), *end = strstr(text + n, SVG_HEAD_END);
    return eol && end && end + strlen(SVG_HEAD_END) == eol + 1;
}
