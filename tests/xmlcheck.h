/* xmlcheck.h: a small, strict XML well-formedness checker for the tests of the SVG writer, the
 * plots and the compare report (header-only so only the tests that include it carry it).
 *
 * Checks: one root element; start and end tags balanced and properly nested; names well formed;
 * every attribute quoted, no attribute twice on an element; '&' only as one of the five named
 * entities or a numeric character reference; no raw '<' in attribute values and no raw '>' in
 * text or attribute values (stricter than XML, which allows '>' in text: our writer escapes it and
 * the tests hold it to that). Comments, the <?xml ...?> declaration and a <!DOCTYPE ...> before the
 * root are accepted, so the XHTML-style index.html can be checked too. The whole document must be
 * well-formed UTF-8 (XML's default encoding) without U+FFFE / U+FFFF. */
#ifndef SCALEDOT_TEST_XMLCHECK_H
#define SCALEDOT_TEST_XMLCHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XMLCHECK_MAX_DEPTH 256
#define XMLCHECK_MAX_NAME 64
#define XMLCHECK_MAX_ATTRS 64

static inline int xmlcheck_name_start(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':';
}

static inline int xmlcheck_name_char(char c) {
    return xmlcheck_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

static inline int xmlcheck_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Length of the valid entity or character reference at p (which points at '&'), or 0. */
static inline size_t xmlcheck_entity(const char *p) {
    static const char *const NAMED[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (size_t i = 0; i < sizeof NAMED / sizeof *NAMED; i++)
        if (strncmp(p, NAMED[i], strlen(NAMED[i])) == 0) return strlen(NAMED[i]);
    if (p[1] != '#') return 0;
    size_t i = 2;
    int hex = p[2] == 'x';
    if (hex) i++;
    size_t digits = 0;
    for (;; i++, digits++) {
        char c = p[i];
        int ok = (c >= '0' && c <= '9') ||
                 (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
        if (!ok) break;
    }
    return digits > 0 && p[i] == ';' ? i + 1 : 0;
}

/* Reads a name at *p into out; returns 0 on success. */
static inline int xmlcheck_read_name(const char **p, char out[XMLCHECK_MAX_NAME]) {
    const char *s = *p;
    if (!xmlcheck_name_start(*s)) return -1;
    size_t n = 0;
    while (xmlcheck_name_char(s[n])) n++;
    if (n >= XMLCHECK_MAX_NAME) return -1;
    memcpy(out, s, n);
    out[n] = '\0';
    *p = s + n;
    return 0;
}

/* Checks that [p, end) is character data without raw '<', '>' or a bad '&'. */
static inline const char *xmlcheck_chars(const char *p, const char *end, const char **at) {
    for (; p < end; p++) {
        if (*p == '<') {
            *at = p;
            return "raw '<' in text or attribute value";
        }
        if (*p == '>') {
            *at = p;
            return "raw '>' in text or attribute value";
        }
        if (*p == '&') {
            size_t n = xmlcheck_entity(p);
            if (!n || p + n > end) {
                *at = p;
                return "'&' that is not an entity";
            }
            p += n - 1;
        }
    }
    return NULL;
}

/* The first byte of doc that is not part of well-formed UTF-8, or NULL. Decodes each sequence
 * and checks the code point (not the writer's byte-range table): the shortest form for its value,
 * not a surrogate, at most U+10FFFF, not U+FFFE / U+FFFF. */
static inline const char *xmlcheck_bad_utf8(const char *doc) {
    const unsigned char *p = (const unsigned char *)doc;
    while (*p) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        int n = (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
        if (!n) return (const char *)p;
        unsigned long cp = *p & (0x7fu >> n);
        for (int k = 1; k < n; k++) {
            if ((p[k] & 0xc0) != 0x80) return (const char *)p;
            cp = cp << 6 | (p[k] & 0x3fu);
        }
        static const unsigned long MIN[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < MIN[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || cp == 0xfffe ||
            cp == 0xffff)
            return (const char *)p;
        p += n;
    }
    return NULL;
}

/* NULL when doc is well-formed; else a message, and *offset is where the problem is. */
static inline const char *xml_check(const char *doc, size_t *offset) {
    char stack[XMLCHECK_MAX_DEPTH][XMLCHECK_MAX_NAME];
    int depth = 0, roots = 0;
    const char *p = doc, *at = doc, *msg = NULL;
    if (strncmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    const char *bad = xmlcheck_bad_utf8(doc);
    if (bad) {
        if (offset) *offset = (size_t)(bad - doc);
        return "bytes that are not well-formed UTF-8";
    }
    while (*p && !msg) {
        at = p;
        if (*p != '<') {
            const char *e = strchr(p, '<');
            if (!e) e = p + strlen(p);
            if (depth == 0) {
                for (const char *q = p; q < e; q++)
                    if (!xmlcheck_space(*q)) {
                        at = q;
                        msg = "text outside the root element";
                        break;
                    }
            } else {
                msg = xmlcheck_chars(p, e, &at);
            }
            p = e;
            continue;
        }
        if (strncmp(p, "<!--", 4) == 0) {
            const char *e = strstr(p + 4, "--");
            if (!e || e[2] != '>') msg = "bad or unterminated comment";
            else p = e + 3;
            continue;
        }
        if (strncmp(p, "<?", 2) == 0) {
            const char *e = strstr(p, "?>");
            if (!e || roots || depth) msg = "misplaced or unterminated <?...?>";
            else p = e + 2;
            continue;
        }
        if (strncmp(p, "<!DOCTYPE", 9) == 0) {
            const char *e = strchr(p, '>');
            if (!e || roots || depth) msg = "misplaced or unterminated <!DOCTYPE>";
            else p = e + 1;
            continue;
        }
        if (p[1] == '/') {
            char name[XMLCHECK_MAX_NAME];
            p += 2;
            if (xmlcheck_read_name(&p, name)) {
                msg = "bad end-tag name";
                continue;
            }
            while (xmlcheck_space(*p)) p++;
            if (*p != '>') msg = "end tag not closed by '>'";
            else if (depth == 0) msg = "end tag without a start tag";
            else if (strcmp(stack[depth - 1], name) != 0) msg = "end tag does not match the open element";
            else depth--, p++;
            continue;
        }
        /* start tag */
        char name[XMLCHECK_MAX_NAME], attrs[XMLCHECK_MAX_ATTRS][XMLCHECK_MAX_NAME];
        int n_attrs = 0;
        p++;
        if (xmlcheck_read_name(&p, name)) {
            msg = "bad element name";
            continue;
        }
        if (depth == 0 && roots++) {
            msg = "more than one root element";
            continue;
        }
        for (;;) {
            int had_space = 0;
            while (xmlcheck_space(*p)) p++, had_space = 1;
            if (*p == '>' || (p[0] == '/' && p[1] == '>')) break;
            at = p;
            if (!had_space) {
                msg = "attributes must be separated by white space";
                break;
            }
            char an[XMLCHECK_MAX_NAME];
            if (xmlcheck_read_name(&p, an)) {
                msg = "bad attribute name";
                break;
            }
            for (int i = 0; i < n_attrs && !msg; i++)
                if (strcmp(attrs[i], an) == 0) msg = "attribute given twice";
            if (msg) break;
            if (n_attrs < XMLCHECK_MAX_ATTRS) strcpy(attrs[n_attrs++], an);
            while (xmlcheck_space(*p)) p++;
            if (*p != '=') {
                msg = "attribute without '='";
                break;
            }
            p++;
            while (xmlcheck_space(*p)) p++;
            char q = *p;
            if (q != '"' && q != '\'') {
                msg = "unquoted attribute value";
                break;
            }
            const char *e = strchr(p + 1, q);
            if (!e) {
                msg = "unterminated attribute value";
                break;
            }
            if ((msg = xmlcheck_chars(p + 1, e, &at))) break;
            p = e + 1;
        }
        if (msg) break;
        if (*p == '/') {
            p += 2;
        } else {
            if (depth == XMLCHECK_MAX_DEPTH) {
                msg = "nested too deeply";
                break;
            }
            strcpy(stack[depth++], name);
            p++;
        }
    }
    if (!msg && depth > 0) msg = "unclosed element at end of document", at = p;
    if (!msg && roots == 0) msg = "no root element", at = p;
    if (offset) *offset = (size_t)(at - doc);
    return msg;
}

/* Counts the non-overlapping occurrences of needle in hay. */
static inline int xmlcheck_count(const char *hay, const char *needle) {
    int n = 0;
    size_t len = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle)) n++;
    return n;
}

#endif
