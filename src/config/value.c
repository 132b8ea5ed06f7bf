/* value.c: one value's text turned into its key's field: quotes, type (integer, number, text,
 * name, attention scale), range and the key's own rule, each refusal with a message saying why.
 * Shared by the INI reader (ini.c), --set (set.c) and the defaults (config_defaults, here, from
 * keys.c's table), so a value means the same wherever it is written; the config stage of the
 * pipeline. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

char *cfg_trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

/* ---------------------------------------------------------------- value parsing */

/* The allowed values of a key in words, shared by error messages and the reference table. */
void cfg_describe_allowed(const KeySpec *k, char *buf, size_t n) {
    switch (k->type) {
    case T_INT:
    case T_LONG: {
        long long type_max = k->type == T_INT ? INT_MAX : LONG_MAX;
        if (k->imax == type_max) snprintf(buf, n, "integer >= %lld", k->imin);
        else snprintf(buf, n, "integer in [%lld, %lld]", k->imin, k->imax);
        break;
    }
    case T_DOUBLE:
        if (isinf(k->dmax)) snprintf(buf, n, "number %s %g", k->dmin_open ? ">" : ">=", k->dmin);
        else
            snprintf(buf, n, "number in %c%g, %g%c", k->dmin_open ? '(' : '[', k->dmin, k->dmax,
                     k->dmax_open ? ')' : ']');
        break;
    case T_STR:
        snprintf(buf, n, "text of at most %d characters", CONFIG_STR - 1);
        break;
    case T_ENUM:
    case T_SCALE: {
        size_t len = (size_t)snprintf(buf, n, "one of");
        for (int i = 0; k->names[i] && len < n; i++)
            len += (size_t)snprintf(buf + len, n - len, "%s %s", i ? "," : "", k->names[i]);
        if (k->type == T_SCALE && len < n)
            snprintf(buf + len, n - len, ", C%s with C in [1e-6, 1e6], or a number in [1e-6, 1e6]",
                     CONFIG_SCALE_OVER_DK);
        break;
    }
    }
}

typedef struct {
    long long i;
    double d;
    const char *s;
} Value;

/* The longest value a message quotes whole; a longer one is shown by its first SHOWN_HEAD and
 * last SHOWN_TAIL bytes around "...", so that the message (at most MSG bytes with its prefix)
 * keeps its reason after a 300-digit number. */
#define SHOWN_HEAD 40
#define SHOWN_TAIL 16
#define SHOWN_BUF (SHOWN_HEAD + SHOWN_TAIL + 8)

/* s as a message quotes it, into buf (SHOWN_BUF bytes) when shortened; never cut inside a UTF-8
 * character. */
static const char *shown(const char *s, char *buf) {
    size_t len = strlen(s), head = SHOWN_HEAD, tail = len - SHOWN_TAIL;
    if (len <= SHOWN_HEAD + SHOWN_TAIL + 3) return s;
    while (head > 0 && (s[head] & 0xC0) == 0x80) head--;  /* s[head] starts a character */
    while (tail < len && (s[tail] & 0xC0) == 0x80) tail++;
    snprintf(buf, SHOWN_BUF, "%.*s...%s", (int)head, s, s + tail);
    return buf;
}

static int parse_integer(const KeySpec *k, const char *s, Value *v, char *msg, size_t n) {
    char *end, buf[SHOWN_BUF];
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end) {
        bool hex = end != s && (*end == 'x' || *end == 'X');
        snprintf(msg, n, "expected an integer%s, got '%s'", hex ? " in base 10" : "",
                 shown(s, buf));
        return -1;
    }
    char allowed[128];
    cfg_describe_allowed(k, allowed, sizeof allowed);
    if (errno == ERANGE) {
        snprintf(msg, n, "integer overflow: '%s' does not fit in 64 bits; allowed: %s", shown(s, buf),
                 allowed);
        return -1;
    }
    long long type_max = k->type == T_INT ? INT_MAX : LONG_MAX;
    if (x > k->imax && k->imax == type_max) {
        snprintf(msg, n, "integer overflow: %lld does not fit; the largest accepted value is %lld",
                 x, type_max);
        return -1;
    }
    if (x < k->imin || x > k->imax) {
        snprintf(msg, n, "%lld is out of range; allowed: %s", x, allowed);
        return -1;
    }
    v->i = x;
    return 0;
}

int config_parse_number(const char *s, double *out, char *msg, size_t n) {
    char *end, buf[SHOWN_BUF];
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end) {
        snprintf(msg, n, "expected a number, got '%s'", shown(s, buf));
        return -1;
    }
    if (!isfinite(x)) {
        snprintf(msg, n, "'%s' is not a finite number", shown(s, buf));
        return -1;
    }
    if (strpbrk(s, "xX")) {
        snprintf(msg, n, "expected a decimal number, got '%s'", shown(s, buf));
        return -1;
    }
    if (errno == ERANGE) {
        snprintf(msg, n, "'%s' is too small in magnitude to be represented", shown(s, buf));
        return -1;
    }
    *out = x == 0 ? 0.0 : x; /* -0 is 0: one value, one text (a --grid of 0,-0 is one run) */
    return 0;
}

static int parse_double(const KeySpec *k, const char *s, Value *v, char *msg, size_t n) {
    double x;
    char buf[SHOWN_BUF];
    if (config_parse_number(s, &x, msg, n)) return -1;
    bool low = k->dmin_open ? !(x > k->dmin) : !(x >= k->dmin);
    bool high = k->dmax_open ? !(x < k->dmax) : !(x <= k->dmax);
    if (low || high) {
        char allowed[128];
        cfg_describe_allowed(k, allowed, sizeof allowed);
        snprintf(msg, n, "%s is out of range; allowed: %s", shown(s, buf), allowed);
        return -1;
    }
    /* the model and optimizer compute in float32: a value that becomes 0 or subnormal there
     * (ln_eps = 1e-300: NaN at step 0; init.std = 1e-300: all-zero weights) passes the double
     * range above but is not the value the user asked for */
    if (x != 0 && fabs(x) < FLT_MIN) {
        /* 0 is offered only where the key's range holds it (weight_decay, not a multiplier) */
        bool zero_ok = (k->dmin_open ? 0.0 > k->dmin : 0.0 >= k->dmin) &&
                       (k->dmax_open ? 0.0 < k->dmax : 0.0 <= k->dmax);
        snprintf(msg, n, "%s is 0 or subnormal in float32, in which training computes (the "
                         "smallest normal float32 is %g); use %sa larger magnitude",
                 shown(s, buf), (double)FLT_MIN, zero_ok ? "0 or " : "");
        return -1;
    }
    v->d = x;
    return 0;
}

static int parse_enum(const KeySpec *k, const char *s, Value *v, char *msg, size_t n) {
    for (int i = 0; k->names[i]; i++)
        if (!strcmp(s, k->names[i])) {
            v->i = i;
            return 0;
        }
    char allowed[256], buf[SHOWN_BUF];
    cfg_describe_allowed(k, allowed, sizeof allowed);
    snprintf(msg, n, "unknown value '%s'; expected %s", shown(s, buf), allowed);
    return -1;
}

/* A number in [1e-6, 1e6]: beyond these bounds float logits overflow at once, or the factor
 * rounds to 0 in float. */
static int scale_number(const char *s, double *x) {
    char ignored[MSG];
    return config_parse_number(s, x, ignored, sizeof ignored) == 0 && *x >= 1e-6 && *x <= 1e6;
}

/* A name of the table, "C/d_k" (C a number as above: SCALE_OVER_DK), or a number. */
static int parse_scale(const KeySpec *k, const char *s, Value *v, char *msg, size_t n) {
    for (int i = 0; k->names[i]; i++)
        if (!strcmp(s, k->names[i])) {
            v->i = i; /* v->d stays 0: no stale number once a named mode is chosen */
            return 0;
        }
    size_t len = strlen(s), suffix = strlen(CONFIG_SCALE_OVER_DK);
    char c[64];
    int over_dk = len > suffix && len - suffix < sizeof c &&
                  strcmp(s + len - suffix, CONFIG_SCALE_OVER_DK) == 0;
    if (over_dk) snprintf(c, sizeof c, "%.*s", (int)(len - suffix), s);
    double x;
    if (!scale_number(over_dk ? c : s, &x)) {
        char names[64], buf[SHOWN_BUF];
        config_scale_names(names, sizeof names, ", ");
        snprintf(msg, n, "expected %s, C%s with C in [1e-6, 1e6], or a number in [1e-6, 1e6], "
                         "got '%s'", names, CONFIG_SCALE_OVER_DK, shown(s, buf));
        return -1;
    }
    v->i = over_dk ? SCALE_OVER_DK : SCALE_VALUE;
    v->d = x;
    return 0;
}

static int parse_string(const KeySpec *k, const char *s, Value *v, char *msg, size_t n) {
    size_t len = strlen(s);
    if (len >= CONFIG_STR) {
        snprintf(msg, n, "value is %zu characters long; at most %d are allowed", len,
                 CONFIG_STR - 1);
        return -1;
    }
    /* Only --set can carry one (a file line cannot hold '\n'); config_write could not write it
     * back as one line, so the run's config.ini would not load. */
    if (strpbrk(s, "\r\n")) {
        snprintf(msg, n, "contains a line break; a text value must fit on one line");
        return -1;
    }
    /* an ESC or another control byte would reach the printed config and config.ini raw (a
     * terminal acts on it), and --sweep's --out refuses them for that reason: none in any text */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f) {
            snprintf(msg, n, "contains the control byte 0x%02x; a text value may hold none", *p);
            return -1;
        }
    const char *why = k->check ? k->check(s) : NULL;
    if (why) {
        char buf[SHOWN_BUF];
        snprintf(msg, n, "'%s' %s", shown(s, buf), why);
        return -1;
    }
    v->s = s;
    return 0;
}

/* Strips optional surrounding double quotes in place. Quotes anywhere else are refused so that
 * config_write, which always quotes strings, reads back exactly. Empty values are refused except
 * an explicit "" for a string. */
static int unquote(const KeySpec *k, char **s, char *msg, size_t n) {
    char *v = *s;
    size_t len = strlen(v);
    if (len == 0) {
        snprintf(msg, n, "empty value%s",
                 k->type == T_STR ? " (write \"\" for an empty text)" : "");
        return -1;
    }
    if (v[0] == '"') {
        if (len < 2 || v[len - 1] != '"') {
            char buf[SHOWN_BUF];
            snprintf(msg, n, "unterminated double quote in %s", shown(v, buf));
            return -1;
        }
        v[len - 1] = '\0';
        v++;
    }
    if (strchr(v, '"')) {
        snprintf(msg, n, "double quotes are only allowed around the whole value");
        return -1;
    }
    if (!*v && k->type != T_STR) {
        snprintf(msg, n, "empty value");
        return -1;
    }
    *s = v;
    return 0;
}

static int parse_value(const KeySpec *k, char *text, Value *v, char *msg, size_t n) {
    if (unquote(k, &text, msg, n)) return -1;
    switch (k->type) {
    case T_INT:
    case T_LONG: return parse_integer(k, text, v, msg, n);
    case T_DOUBLE: return parse_double(k, text, v, msg, n);
    case T_STR: return parse_string(k, text, v, msg, n);
    case T_ENUM: return parse_enum(k, text, v, msg, n);
    case T_SCALE: return parse_scale(k, text, v, msg, n);
    }
    return -1;
}

static void store_value(Config *c, const KeySpec *k, const Value *v) {
    void *p = cfg_field(c, k);
    switch (k->type) {
    case T_INT:
    case T_ENUM: *(int *)p = (int)v->i; break;
    case T_LONG: *(long *)p = (long)v->i; break;
    case T_DOUBLE: *(double *)p = v->d; break;
    case T_STR: memcpy(p, v->s, strlen(v->s) + 1); break;
    case T_SCALE:
        c->scale_mode = (ScaleMode)v->i;
        c->scale_value = v->d;
        break;
    }
}

/* origin into dst (n bytes, n > 4) whole, or when too long its end (the file's tail and its
 * ":LINE", which name the place) after "...", cut after a whole UTF-8 character. */
static void keep_tail(char *dst, size_t n, const char *origin) {
    size_t len = strlen(origin), from = 0;
    if (len >= n) {
        from = len - (n - 4);
        while (from < len && ((unsigned char)origin[from] & 0xC0) == 0x80) from++;
    }
    snprintf(dst, n, "%s%s", from ? "..." : "", origin + from);
}

/* Parses and stores text for key i, recording where it came from; on error msg says why. */
int cfg_assign(Config *c, int i, char *text, const char *origin, int order, long line, char *msg,
               size_t n) {
    Value v = {0};
    if (parse_value(&cfg_keys[i], text, &v, msg, n)) {
        c->unsure[i] = 1; /* the value given is not the one c holds */
        return -1;
    }
    store_value(c, &cfg_keys[i], &v);
    keep_tail(c->origin[i], sizeof c->origin[i], origin);
    c->origin_order[i] = order;
    c->origin_line[i] = line;
    c->unsure[i] = 0;
    return 0;
}

/* ---------------------------------------------------------------- public: defaults */

/* Every key's default text (keys.c's table) read through cfg_assign, as a user's value would be. */
void config_defaults(Config *c) {
    memset(c, 0, sizeof *c);
    for (int i = 0; i < config_key_count(); i++) {
        char text[CONFIG_STR + 2], msg[MSG];
        snprintf(text, sizeof text, "\"%s\"", cfg_keys[i].def); /* quoted so "" is accepted */
        if (cfg_assign(c, i, text, "", 0, 0, msg, sizeof msg)) {
            fprintf(stderr, "config/keys.c: bad default of %s.%s: %s\n", cfg_keys[i].section,
                    cfg_keys[i].key, msg);
            abort(); /* a broken table is a programming error, not user input */
        }
    }
}
