/* svg.h: a minimal SVG writer that builds a document in memory.
 *
 * The writer only guarantees well-formed XML for what it writes itself: every text and attribute
 * value that comes from data (run names, tokens, labels) goes through the escaping functions.
 * Markup passed to svg_raw is the caller's responsibility. Allocation failures are sticky: the
 * writer stops appending and svg_end reports -1, so callers check once at the end. */
#ifndef SCALEDOT_SVG_H
#define SCALEDOT_SVG_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    char *buf;      /* the document so far, NUL-terminated (NULL before the first write) */
    size_t len, cap;
    int failed;     /* an allocation failed; nothing more is appended */
    int next_id;    /* counter for unique element ids (clip paths) within this document */
} Svg;

/* Starts a document of width x height user units (= CSS pixels), with a white background and a
 * default font, and an accessible <title> (escaped; may be NULL). */
void svg_begin(Svg *s, double width, double height, const char *title);

/* 1 when text (NUL-terminated) opens the way svg_begin opens every SVG (the XML declaration, then
 * an <svg> tag of our attributes on one line): a figure a report of ours wrote, which a report
 * into the same folder may replace. */
int svg_is_ours(const char *text);

/* Appends printf-formatted markup verbatim. Numbers only, or text the caller knows is safe. */
void svg_raw(Svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends text with &, <, >, " and ' replaced by entities, so it is safe both as element text and
 * inside a double-quoted attribute value. Control characters other than tab, CR and LF (not
 * allowed in XML 1.0) become '?'; a byte that does not begin well-formed UTF-8 (RFC 3629; a
 * folder name in another encoding) becomes U+FFFD, so the document stays well-formed. */
void svg_escaped(Svg *s, const char *text);

/* <text x y ATTRS>escaped text</text>; attrs is raw markup such as
 * "class=\"tick\" text-anchor=\"end\"" (may be NULL). */
void svg_text(Svg *s, double x, double y, const char *attrs, const char *text);

/* <line> from (x1,y1) to (x2,y2) and <rect> with raw attributes (may be NULL). */
void svg_line(Svg *s, double x1, double y1, double x2, double y2, const char *attrs);
void svg_rect(Svg *s, double x, double y, double w, double h, const char *attrs);

/* Returns a fresh id number for this document (for clipPath ids and the like). */
int svg_new_id(Svg *s);

/* Closes the root element. Returns 0, or -1 if any allocation failed while writing. */
int svg_end(Svg *s);

/* Writes the document to path whole (util/whole_write.h: a temporary file renamed over path, never
 * through a link). Returns 0, or -1 with errno set, path unchanged (the message is the caller's). */
int svg_save(const Svg *s, const char *path);

/* svg_save that also names, on failure, the file the failure was at (path or its temporary
 * file, file_write_atomic_why) in failed[0..n), for the message. */
int svg_save_why(const Svg *s, const char *path, char *failed, size_t n);

/* Frees the document; s is empty afterwards and may be reused with svg_begin. */
void svg_free(Svg *s);

/* The same escaping as svg_escaped, to a stream (for the HTML page). */
void xml_escape_file(FILE *f, const char *text);

#endif
