/* ini.c: reading an INI file (or its text) into a Config: lines, comments, [section] headers,
 * key = value, CRLF and a byte-order mark, each error naming FILE:LINE and the key. The first
 * step of the config stage (config -> task -> model -> ...); --set (set.c) applies after it. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "util/error_list.h"
#include "util/file_check.h"

/* Room for a place: a path as long as PATH_MAX, and its line. */
#define PLACE_MAX 4200

typedef struct {
    const char *path;
    long line;
    char section[CONFIG_STR];
    long first_line[CONFIG_MAX_KEYS]; /* 0 = not yet seen in this file */
    /* line of a section's header, at its first key's index; 0 = none */
    long section_line[CONFIG_MAX_KEYS];
    /* under a header that was refused: its keys are not read (nor reported), so each is marked
     * unsure where it may belong: in section skipped when that is known (a section given
     * twice), else in every section that has a key of its name */
    int skip;
    char skipped[CONFIG_STR];
    ErrorList *errs; /* where the file's errors go (order 0: a file is read before --set; then
                      * by line) */
} Reader;

static int line_error(const Reader *r, const char *msg) {
    char where[PLACE_MAX];
    snprintf(where, sizeof where, "%s:%ld", r->path, r->line);
    error_add_line(r->errs, 0, r->line, where, "%s", msg);
    return -1;
}

static int key_error(const Reader *r, int i, const char *msg) {
    char text[MSG + 160];
    snprintf(text, sizeof text, "'%s.%s': %s", cfg_keys[i].section, cfg_keys[i].key, msg);
    return line_error(r, text);
}

/* A ';' or '#' at the start or after whitespace, outside double quotes, starts a comment, so
 * values such as "a#b" survive. Returns -1 on an unterminated quote. */
static int strip_comment(char *s) {
    bool quoted = false;
    for (char *p = s; *p; p++) {
        if (*p == '"') quoted = !quoted;
        else if (!quoted && (*p == ';' || *p == '#') && (p == s || isspace((unsigned char)p[-1]))) {
            *p = '\0';
            return 0;
        }
    }
    return quoted ? -1 : 0;
}

static int read_header(Reader *r, char *s) {
    r->section[0] = '\0';
    r->skipped[0] = '\0';
    r->skip = 1; /* until this header is known good */
    char *close = strchr(s, ']');
    if (!close) return line_error(r, "section header without closing ']'");
    *close = '\0';
    char *rest = cfg_trim(close + 1);
    if (*rest && *rest != ';' && *rest != '#') {
        char msg[MSG];
        snprintf(msg, sizeof msg, "unexpected text '%s' after the section header", rest);
        return line_error(r, msg);
    }
    char *name = cfg_trim(s + 1);
    if (!*name) return line_error(r, "empty section name '[]'");
    if (!cfg_section_exists(name)) {
        char msg[MSG];
        cfg_unknown_section_msg(name, msg, sizeof msg);
        return line_error(r, msg);
    }
    /* A second [model] far below the first reads as a fresh start but would silently mix
     * with the first (or hit "set twice" on a key): name both headers instead. */
    int first_key = 0;
    while (strcmp(cfg_keys[first_key].section, name)) first_key++;
    if (r->section_line[first_key]) {
        snprintf(r->skipped, sizeof r->skipped, "%s", name);
        char msg[MSG];
        snprintf(msg, sizeof msg, "section [%s] appears twice (first at line %ld); put its keys "
                 "under one header", name, r->section_line[first_key]);
        return line_error(r, msg);
    }
    r->section_line[first_key] = r->line;
    snprintf(r->section, sizeof r->section, "%s", name);
    r->skip = 0;
    return 0;
}

static int read_assignment(Reader *r, Config *c, char *s, char *eq) {
    char msg[MSG];
    *eq = '\0';
    char *key = cfg_trim(s);
    if (r->skip) {
        if (*r->skipped) {
            int i = cfg_find_key(r->skipped, key);
            if (i >= 0) c->unsure[i] = 1;
        } else {
            cfg_mark_unread(c, -1, key); /* of a section not known */
        }
        return 0;
    }
    if (!*key) return line_error(r, "missing key name before '='");
    if (!*r->section) {
        cfg_mark_unread(c, -1, key); /* of no section */
        snprintf(msg, sizeof msg, "key '%s' appears before any [section] header", key);
        return line_error(r, msg);
    }
    int i = cfg_find_key(r->section, key);
    if (i < 0) {
        cfg_mark_unread(c, cfg_unknown_key_msg(r->section, key, msg, sizeof msg), key);
        return line_error(r, msg);
    }
    if (r->first_line[i]) {
        c->unsure[i] = 1; /* which of the two values is meant cannot be known */
        snprintf(msg, sizeof msg, "set twice in this file (first at line %ld)", r->first_line[i]);
        return key_error(r, i, msg);
    }
    r->first_line[i] = r->line; /* a bad value too: set again below is still twice */
    char *value = eq + 1;
    if (strip_comment(value)) {
        c->unsure[i] = 1; /* a value was given, none stored */
        return key_error(r, i, "unterminated double quote");
    }
    char origin[PLACE_MAX]; /* whole: cfg_assign keeps its end when it is too long for Config */
    snprintf(origin, sizeof origin, "%s:%ld", r->path, r->line);
    if (cfg_assign(c, i, cfg_trim(value), origin, 0, r->line, msg, sizeof msg))
        return key_error(r, i, msg);
    return 0;
}

static int read_line(Reader *r, Config *c, char *s) {
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = '\0';
    if (r->line == 1 && !strncmp(s, "\xEF\xBB\xBF", 3)) s += 3;
    s = cfg_trim(s);
    if (!*s || *s == ';' || *s == '#') return 0;
    if (*s == '[') return read_header(r, s);
    char *eq = strchr(s, '=');
    if (eq) return read_assignment(r, c, s, eq);
    char msg[MSG], quoted[CFG_QUOTED];
    snprintf(msg, sizeof msg, "expected '[section]', 'key = value' or a comment, got '%s'",
             error_shown(quoted, sizeof quoted, s));
    return line_error(r, msg);
}

/* config_load_text with the errors added to errs; keep: c gets what was read even when the text
 * has errors (config_load_file_to), else c is unchanged then. */
static int load_text(Config *c, const char *name, const char *text, size_t len, ErrorList *errs,
                     int keep) {
    Reader r = {.path = name, .errs = errs};
    Config work = *c; /* so that a failed load can leave c as it was */
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    /* One line at a time into a NUL-terminated copy, since the line parser edits in place; on
     * past an error, so that every error of the file is reported at once (work is then dropped;
     * past ERRORS_NAMED the list counts them, to say how many more there are) */
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) + 1 : len - pos;
        if (n + 1 > cap) {
            size_t want = n + 1 > 2 * cap ? n + 1 : 2 * cap;
            char *p = realloc(line, want);
            if (!p) {
                r.line++;
                line_error(&r, "out of memory");
                rc = -1;
                break;
            }
            line = p;
            cap = want;
        }
        memcpy(line, text + pos, n);
        line[n] = '\0';
        pos += n;
        r.line++;
        /* a NUL byte would silently end the line for the parser below */
        if ((memchr(line, '\0', n) ? line_error(&r, "a NUL byte in the line (not a text file?)")
                                    : read_line(&r, &work, line)) != 0)
            rc = -1;
    }
    free(line);
    if (rc == 0 || keep) *c = work;
    return rc;
}

int config_load_text(Config *c, const char *name, const char *text, size_t len) {
    ErrorList errs = {0};
    int rc = load_text(c, name, text, len, &errs, 0);
    error_flush(&errs);
    return rc;
}

/* config_load_file (keep 0) and config_load_file_to (keep 1). */
static int load_file(Config *c, const char *path, ErrorList *errs, int keep) {
    /* a config of every key with long comments is a few kB; 1 MiB bounds a wrong path */
    char why[256];
    size_t len;
    char *buf = file_read_regular(path, (size_t)1 << 20, &len, why, sizeof why);
    if (!buf) {
        error_add(errs, 0, NULL, "cannot open '%s': %s", path, why);
        /* none of its values was read, and which keys it sets cannot be known */
        if (keep) memset(c->unsure, 1, sizeof c->unsure);
        return -1;
    }
    int rc = load_text(c, path, buf, len, errs, keep);
    free(buf);
    return rc;
}

int config_load_file_to(Config *c, const char *path, ErrorList *errs) {
    return load_file(c, path, errs, 1);
}

int config_load_file(Config *c, const char *path) {
    ErrorList errs = {0};
    int rc = load_file(c, path, &errs, 0);
    error_flush(&errs);
    return rc;
}
