/* config.c: the key table, the INI reader, --set overrides, cross-key checks and the writer.
 *
 * Everything about a key (type, field, default, range, accepted names, help) lives in one row of
 * KEYS, so the parser, config_write, the defaults and the README table cannot disagree. */
#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "util/file_check.h"

typedef enum { T_INT, T_LONG, T_DOUBLE, T_STR, T_ENUM, T_SCALE } KeyType;

typedef struct {
    const char *section, *key;
    KeyType type;
    size_t offset;
    const char *def;                  /* default, in file syntax */
    long long imin, imax;             /* T_INT, T_LONG: inclusive */
    double dmin, dmax;                /* T_DOUBLE; dmax = INFINITY for "no upper bound" */
    bool dmin_open, dmax_open;        /* exclusive bounds */
    const char *const *names;         /* T_ENUM: NULL-terminated, index = enum value */
    const char *(*check)(const char *s); /* T_STR: extra rule, returns a message or NULL */
    const char *help;
} KeySpec;

/* offsetof plus a compile-time check that the field has the size the key type stores through
 * (catches an enum or long field declared with the wrong key type). */
#define FIELD(f, size) \
    (offsetof(Config, f) + 0 * sizeof(char[sizeof(((Config *)0)->f) == (size) ? 1 : -1]))

#define KEY_INT(sec, k, f, d, lo, hi, h) \
    { .section = sec, .key = k, .type = T_INT, .offset = FIELD(f, sizeof(int)), .def = d, \
      .imin = lo, .imax = hi, .help = h }
#define KEY_LONG(sec, k, f, d, lo, hi, h) \
    { .section = sec, .key = k, .type = T_LONG, .offset = FIELD(f, sizeof(long)), .def = d, \
      .imin = lo, .imax = hi, .help = h }
#define KEY_DBL(sec, k, f, d, lo, lo_open, hi, hi_open, h) \
    { .section = sec, .key = k, .type = T_DOUBLE, .offset = FIELD(f, sizeof(double)), .def = d, \
      .dmin = lo, .dmin_open = lo_open, .dmax = hi, .dmax_open = hi_open, .help = h }
#define KEY_STR(sec, k, f, d, chk, h) \
    { .section = sec, .key = k, .type = T_STR, .offset = FIELD(f, CONFIG_STR), .def = d, \
      .check = chk, .help = h }
#define KEY_ENUM(sec, k, f, d, nm, h) \
    { .section = sec, .key = k, .type = T_ENUM, .offset = FIELD(f, sizeof(int)), .def = d, \
      .names = nm, .help = h }

static const char *const TASK_NAMES[] = {"sort", "reverse", "copy", "recall", "file", NULL};
static const char *const QK_NORM_NAMES[] = {"none", "layernorm", NULL};
static const char *const INIT_NAMES[] = {"fan_in", "gpt2", NULL};
static const char *const OPTIM_NAMES[] = {"adamw", "sgd", NULL};
static const char *const SCHED_NAMES[] = {"constant", "cosine", NULL};
static const char *const GUARD_NAMES[] = {"warn", "stop", NULL};
static const char *const DIVERGENCE_NAMES[] = {"stop", "skip", NULL};
/* Indexed by SeparatorMode. */
static const char *const SEPARATOR_NAMES[] = {"auto", "true", "false", NULL};
/* Indexed by ScaleMode; SCALE_VALUE has no name, it is written as the number. */
static const char *const SCALE_NAMES[] = {"sqrt_dk", "none", "inv_dk", NULL};

static const char *check_run_name(const char *s);
static const char *check_nonempty(const char *s);

static const KeySpec KEYS[] = {
    KEY_STR("run", "name", run_name, "run", check_run_name,
            "Folder name of this run under run.dir; letters, digits, '.', '_' and '-' only"),
    KEY_STR("run", "dir", run_dir, "runs", check_nonempty, "Parent folder of the run folders"),
    KEY_LONG("run", "seed", seed, "1", 0, LONG_MAX,
             "Seeds the initialisation, the training data and the validation set"),
    KEY_INT("run", "threads", threads, "0", 0, 256, "OpenMP threads; 0 = OpenMP's default"),

    KEY_ENUM("task", "name", task, "recall", TASK_NAMES, "Which task to learn"),
    KEY_INT("task", "length", task_length, "8", 1, 256,
            "Symbols in the input of sort, reverse and copy"),
    KEY_INT("task", "pairs", task_pairs, "8", 1, 128, "Key-value pairs shown in recall"),
    KEY_INT("task", "symbols", task_symbols, "16", 2, 4096, "Alphabet size of the generated tasks"),
    KEY_STR("task", "file", task_file, "", NULL,
            "Path of a 'prompt | answer' file, used when task.name = file"),
    KEY_INT("task", "val_size", val_size, "512", 1, 1000000, "Held-out validation examples"),
    KEY_ENUM("task", "separator", task_separator, "auto", SEPARATOR_NAMES,
             "A separator token between prompt and answer: auto = the task's own (sort, reverse, "
             "copy, file: true; recall: false, the answer is predicted at the query key), true, "
             "false"),

    KEY_INT("model", "d_model", d_model, "64", 1, 8192, "Width of the residual stream"),
    KEY_INT("model", "n_heads", n_heads, "1", 1, 1024,
            "Attention heads per layer; must divide model.d_model"),
    KEY_INT("model", "n_layers", n_layers, "2", 1, 64, "Transformer blocks"),
    KEY_INT("model", "d_ff", d_ff, "0", 0, 65536, "Hidden width of the MLP; 0 = 4 * model.d_model"),
    KEY_INT("model", "max_seq_len", max_seq_len, "0", 0, 8192,
            "Positions with a learned embedding; 0 = the task's sequence length"),
    KEY_DBL("model", "ln_eps", ln_eps, "1e-5", 0.0, true, 1.0, true,
            "Epsilon added to the variance in layer norm"),

    {.section = "attention", .key = "scale", .type = T_SCALE,
     .offset = FIELD(scale_mode, sizeof(int)), .def = "sqrt_dk", .names = SCALE_NAMES,
     .help = "Factor on q.k: sqrt_dk = 1/sqrt(d_k), none = 1, inv_dk = 1/d_k, or a number in "
             "[1e-6, 1e6]"},
    KEY_ENUM("attention", "qk_norm", qk_norm, "none", QK_NORM_NAMES,
             "LayerNorm on each head's q and k before q.k, with learned weight and bias [d_k] "
             "shared by the heads (Dehghani et al. 2023); the scale still multiplies q.k"),

    KEY_ENUM("init", "scheme", init, "fan_in", INIT_NAMES,
             "Weight initialisation: fan_in = N(0, 1/fan_in), gpt2 = N(0, init.std^2) with scaled "
             "residual projections"),
    KEY_DBL("init", "std", init_std, "0.02", 0.0, true, 10.0, false,
            "Standard deviation of the gpt2 initialisation"),

    KEY_ENUM("optim", "name", optim, "adamw", OPTIM_NAMES, "Optimiser"),
    KEY_DBL("optim", "lr", lr, "1e-3", 0.0, true, 10.0, false, "Peak learning rate"),
    KEY_DBL("optim", "beta1", beta1, "0.9", 0.0, false, 1.0, true, "AdamW first-moment decay"),
    KEY_DBL("optim", "beta2", beta2, "0.999", 0.0, false, 1.0, true, "AdamW second-moment decay"),
    KEY_DBL("optim", "eps", eps, "1e-8", 0.0, true, INFINITY, false, "AdamW denominator epsilon"),
    KEY_DBL("optim", "weight_decay", weight_decay, "0", 0.0, false, 10.0, false,
            "Decoupled weight decay on weight matrices and embeddings (AdamW and SGD)"),
    KEY_DBL("optim", "momentum", momentum, "0.9", 0.0, false, 1.0, true, "SGD momentum"),
    KEY_DBL("optim", "grad_clip", grad_clip, "0", 0.0, false, INFINITY, false,
            "Clip the global gradient norm to this; 0 = off"),
    KEY_INT("optim", "warmup_steps", warmup_steps, "0", 0, INT_MAX,
            "Steps of linear warm-up from 0 to optim.lr"),
    KEY_ENUM("optim", "schedule", schedule, "constant", SCHED_NAMES,
             "Learning rate after warm-up: constant, or cosine decay to optim.min_lr"),
    KEY_DBL("optim", "min_lr", min_lr, "0", 0.0, false, INFINITY, false,
            "Final learning rate of the cosine schedule"),

    KEY_INT("train", "steps", steps, "2000", 0, 100000000, "Optimiser steps"),
    KEY_INT("train", "batch_size", batch_size, "64", 1, 65536, "Examples per step"),
    KEY_INT("train", "eval_every", eval_every, "100", 1, INT_MAX,
            "Steps between validation passes"),
    KEY_INT("train", "checkpoint_every", checkpoint_every, "500", 0, INT_MAX,
            "Steps between checkpoints (runs/<name>/checkpoint.bin); 0 = only at the end"),
    KEY_ENUM("train", "on_divergence", on_divergence, "stop", DIVERGENCE_NAMES,
             "Non-finite loss or gradient: stop (exit code 3) or skip the update and go on"),

    KEY_INT("log", "every", log_every, "10", 1, INT_MAX,
            "Steps between rows of loss.csv and grad_norms.csv"),
    KEY_INT("log", "progress", progress, "1", 0, 1, "1 = progress lines on stderr"),

    KEY_DBL("guard", "logit_std_max", guard_logit_std_max, "0", 0.0, false, INFINITY, false,
            "Trip when a head's attention-logit std exceeds this; 0 = off"),
    KEY_DBL("guard", "max_weight_max", guard_max_weight_max, "0", 0.0, false, 1.0, false,
            "Trip when a head's mean row-maximum attention weight exceeds this; 0 = off"),
    KEY_DBL("guard", "grad_norm_min", guard_grad_norm_min, "0", 0.0, false, INFINITY, false,
            "Trip when the global gradient norm falls below this; 0 = off"),
    KEY_DBL("guard", "grad_norm_max", guard_grad_norm_max, "0", 0.0, false, INFINITY, false,
            "Trip when the global gradient norm rises above this; 0 = off"),
    KEY_ENUM("guard", "action", guard_action, "warn", GUARD_NAMES,
             "What a tripped guard does: warn (one line on stderr) or stop (exit code 4)"),
};

enum { N_KEYS = (int)(sizeof KEYS / sizeof KEYS[0]) };
_Static_assert(N_KEYS <= CONFIG_MAX_KEYS, "raise CONFIG_MAX_KEYS");

#define MSG 512 /* room for one error message body */

/* ---------------------------------------------------------------- small string helpers */

static void *field(Config *c, const KeySpec *k) { return (char *)c + k->offset; }
static const void *cfield(const Config *c, const KeySpec *k) { return (const char *)c + k->offset; }

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

static const char *check_nonempty(const char *s) { return *s ? NULL : "must not be empty"; }

static const char *check_run_name(const char *s) {
    if (!*s) return "must not be empty";
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
            return "may only contain letters, digits, '.', '_' and '-' (it names a folder)";
    if (!strcmp(s, ".") || !strcmp(s, "..")) return "must not be '.' or '..' (it names a folder)";
    return NULL;
}

/* ---------------------------------------------------------------- table lookups */

static int find_key(const char *section, const char *key) {
    for (int i = 0; i < N_KEYS; i++)
        if (!strcmp(KEYS[i].section, section) && !strcmp(KEYS[i].key, key)) return i;
    return -1;
}

static bool section_exists(const char *section) {
    for (int i = 0; i < N_KEYS; i++)
        if (!strcmp(KEYS[i].section, section)) return true;
    return false;
}

/* Edit distance; names longer than this are not worth a suggestion. */
#define LEV_MAX 64
static int levenshtein(const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    if (na > LEV_MAX || nb > LEV_MAX) return INT_MAX;
    int row[LEV_MAX + 1];
    for (size_t j = 0; j <= nb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

/* Edit distance, except that an abbreviation or an extension of a name ("optimiser" for
 * "optim", "warmup" for "warmup_steps") counts as one edit: those are typical slips too. */
static int name_distance(const char *typed, const char *name) {
    size_t a = strlen(typed), b = strlen(name), shorter = a < b ? a : b;
    if (shorter >= 3 && !strncmp(typed, name, shorter)) return a == b ? 0 : 1;
    return levenshtein(typed, name);
}

/* A suggestion further away than this is noise rather than help. */
static bool close_enough(int dist, const char *a, const char *b) {
    size_t n = strlen(a) > strlen(b) ? strlen(a) : strlen(b);
    return dist <= 1 + (int)(n / 4);
}

static void unknown_section_msg(const char *section, char *msg, size_t n) {
    const char *best = NULL;
    int best_d = INT_MAX;
    for (int i = 0; i < N_KEYS; i++) {
        int d = name_distance(section, KEYS[i].section);
        if (d < best_d) best_d = d, best = KEYS[i].section;
    }
    if (best && close_enough(best_d, section, best)) {
        snprintf(msg, n, "unknown section [%s]; did you mean [%s]?", section, best);
        return;
    }
    size_t len = (size_t)snprintf(msg, n, "unknown section [%s]; the sections are", section);
    for (int i = 0; i < N_KEYS && len < n; i++)
        if (i == 0 || strcmp(KEYS[i].section, KEYS[i - 1].section))
            len += (size_t)snprintf(msg + len, n - len, "%s [%s]", i ? "," : "", KEYS[i].section);
}

/* Prefers a close key of the same section; a key of another section only when it is strictly
 * closer (typically the right key put under the wrong header). */
static void unknown_key_msg(const char *section, const char *key, char *msg, size_t n) {
    int in_best = -1, in_d = INT_MAX, out_best = -1, out_d = INT_MAX;
    for (int i = 0; i < N_KEYS; i++) {
        int d = name_distance(key, KEYS[i].key);
        if (!strcmp(KEYS[i].section, section)) {
            if (d < in_d) in_d = d, in_best = i;
        } else if (d < out_d) {
            out_d = d, out_best = i;
        }
    }
    if (out_best >= 0 && out_d < in_d && close_enough(out_d, key, KEYS[out_best].key)) {
        snprintf(msg, n, "unknown key '%s.%s'; did you mean '%s.%s' (section [%s])?", section, key,
                 KEYS[out_best].section, KEYS[out_best].key, KEYS[out_best].section);
        return;
    }
    if (in_best >= 0 && close_enough(in_d, key, KEYS[in_best].key)) {
        snprintf(msg, n, "unknown key '%s.%s'; did you mean '%s.%s'?", section, key, section,
                 KEYS[in_best].key);
        return;
    }
    size_t len = (size_t)snprintf(msg, n, "unknown key '%s.%s'; the keys of [%s] are", section, key,
                                  section);
    bool first = true;
    for (int i = 0; i < N_KEYS && len < n; i++)
        if (!strcmp(KEYS[i].section, section)) {
            len += (size_t)snprintf(msg + len, n - len, "%s %s", first ? "" : ",", KEYS[i].key);
            first = false;
        }
}

/* ---------------------------------------------------------------- value parsing */

/* The allowed values of a key in words, shared by error messages and the reference table. */
static void describe_allowed(const KeySpec *k, char *buf, size_t n) {
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
        if (k->type == T_SCALE && len < n) snprintf(buf + len, n - len, ", or a number in [1e-6, 1e6]");
        break;
    }
    }
}

typedef struct {
    long long i;
    double d;
    const char *s;
} Value;

static int parse_integer(const KeySpec *k, const char *s, Value *v, char *msg, size_t n) {
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end) {
        bool hex = end != s && (*end == 'x' || *end == 'X');
        snprintf(msg, n, "expected an integer%s, got '%s'", hex ? " in base 10" : "", s);
        return -1;
    }
    char allowed[128];
    describe_allowed(k, allowed, sizeof allowed);
    if (errno == ERANGE) {
        snprintf(msg, n, "integer overflow: '%s' does not fit in 64 bits; allowed: %s", s, allowed);
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

/* Parses a finite decimal number; range checks are the caller's. */
static int parse_number(const char *s, double *out, char *msg, size_t n) {
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end) {
        snprintf(msg, n, "expected a number, got '%s'", s);
        return -1;
    }
    if (!isfinite(x)) {
        snprintf(msg, n, "'%s' is not a finite number", s);
        return -1;
    }
    if (strpbrk(s, "xX")) {
        snprintf(msg, n, "expected a decimal number, got '%s'", s);
        return -1;
    }
    if (errno == ERANGE) {
        snprintf(msg, n, "'%s' is too small in magnitude to be represented", s);
        return -1;
    }
    *out = x;
    return 0;
}

static int parse_double(const KeySpec *k, const char *s, Value *v, char *msg, size_t n) {
    double x;
    if (parse_number(s, &x, msg, n)) return -1;
    bool low = k->dmin_open ? !(x > k->dmin) : !(x >= k->dmin);
    bool high = k->dmax_open ? !(x < k->dmax) : !(x <= k->dmax);
    if (low || high) {
        char allowed[128];
        describe_allowed(k, allowed, sizeof allowed);
        snprintf(msg, n, "%s is out of range; allowed: %s", s, allowed);
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
    char allowed[256];
    describe_allowed(k, allowed, sizeof allowed);
    snprintf(msg, n, "unknown value '%s'; expected %s", s, allowed);
    return -1;
}

static int parse_scale(const KeySpec *k, const char *s, Value *v, char *msg, size_t n) {
    for (int i = 0; k->names[i]; i++)
        if (!strcmp(s, k->names[i])) {
            v->i = i; /* v->d stays 0: no stale number once a named mode is chosen */
            return 0;
        }
    char ignored[MSG];
    double x;
    /* beyond these bounds float logits overflow at once, or the factor rounds to 0 in float */
    if (parse_number(s, &x, ignored, sizeof ignored) || !(x >= 1e-6 && x <= 1e6)) {
        snprintf(msg, n, "expected sqrt_dk, none, inv_dk or a number in [1e-6, 1e6], got '%s'", s);
        return -1;
    }
    v->i = SCALE_VALUE;
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
    const char *why = k->check ? k->check(s) : NULL;
    if (why) {
        snprintf(msg, n, "'%s' %s", s, why);
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
            snprintf(msg, n, "unterminated double quote in %s", v);
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
    void *p = field(c, k);
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

/* Parses and stores text for key i, recording where it came from; on error msg says why. */
static int assign(Config *c, int i, char *text, const char *origin, char *msg, size_t n) {
    Value v = {0};
    if (parse_value(&KEYS[i], text, &v, msg, n)) return -1;
    store_value(c, &KEYS[i], &v);
    snprintf(c->origin[i], sizeof c->origin[i], "%s", origin);
    return 0;
}

/* ---------------------------------------------------------------- public: defaults */

void config_defaults(Config *c) {
    memset(c, 0, sizeof *c);
    for (int i = 0; i < N_KEYS; i++) {
        char text[CONFIG_STR + 2], msg[MSG];
        snprintf(text, sizeof text, "\"%s\"", KEYS[i].def); /* quoted so "" is accepted */
        if (assign(c, i, text, "", msg, sizeof msg)) {
            fprintf(stderr, "config.c: bad default of %s.%s: %s\n", KEYS[i].section, KEYS[i].key,
                    msg);
            abort(); /* a broken table is a programming error, not user input */
        }
    }
}

/* ---------------------------------------------------------------- public: file reader */

typedef struct {
    const char *path;
    long line;
    char section[CONFIG_STR];
    long first_line[N_KEYS]; /* 0 = not yet seen in this file */
    long section_line[N_KEYS]; /* line of a section's header, at its first key's index; 0 = none */
} Reader;

static int line_error(const Reader *r, const char *msg) {
    fprintf(stderr, "%s:%ld: %s\n", r->path, r->line, msg);
    return -1;
}

static int key_error(const Reader *r, int i, const char *msg) {
    fprintf(stderr, "%s:%ld: '%s.%s': %s\n", r->path, r->line, KEYS[i].section, KEYS[i].key, msg);
    return -1;
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
    char *close = strchr(s, ']');
    if (!close) return line_error(r, "section header without closing ']'");
    *close = '\0';
    char *rest = trim(close + 1);
    if (*rest && *rest != ';' && *rest != '#') {
        char msg[MSG];
        snprintf(msg, sizeof msg, "unexpected text '%s' after the section header", rest);
        return line_error(r, msg);
    }
    char *name = trim(s + 1);
    if (!*name) return line_error(r, "empty section name '[]'");
    if (!section_exists(name)) {
        char msg[MSG];
        unknown_section_msg(name, msg, sizeof msg);
        return line_error(r, msg);
    }
    /* A second [model] far below the first reads as a fresh start but would silently mix
     * with the first (or hit "set twice" on a key): name both headers instead. */
    int first_key = 0;
    while (strcmp(KEYS[first_key].section, name)) first_key++;
    if (r->section_line[first_key]) {
        char msg[MSG];
        snprintf(msg, sizeof msg, "section [%s] appears twice (first at line %ld); put its keys "
                 "under one header", name, r->section_line[first_key]);
        return line_error(r, msg);
    }
    r->section_line[first_key] = r->line;
    snprintf(r->section, sizeof r->section, "%s", name);
    return 0;
}

static int read_assignment(Reader *r, Config *c, char *s, char *eq) {
    char msg[MSG];
    *eq = '\0';
    char *key = trim(s);
    if (!*key) return line_error(r, "missing key name before '='");
    if (!*r->section) {
        snprintf(msg, sizeof msg, "key '%s' appears before any [section] header", key);
        return line_error(r, msg);
    }
    int i = find_key(r->section, key);
    if (i < 0) {
        unknown_key_msg(r->section, key, msg, sizeof msg);
        return line_error(r, msg);
    }
    if (r->first_line[i]) {
        snprintf(msg, sizeof msg, "set twice in this file (first at line %ld)", r->first_line[i]);
        return key_error(r, i, msg);
    }
    char *value = eq + 1;
    if (strip_comment(value)) return key_error(r, i, "unterminated double quote");
    char origin[sizeof c->origin[0]];
    snprintf(origin, sizeof origin, "%s:%ld", r->path, r->line);
    if (assign(c, i, trim(value), origin, msg, sizeof msg)) return key_error(r, i, msg);
    r->first_line[i] = r->line;
    return 0;
}

static int read_line(Reader *r, Config *c, char *s) {
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = '\0';
    if (r->line == 1 && !strncmp(s, "\xEF\xBB\xBF", 3)) s += 3;
    s = trim(s);
    if (!*s || *s == ';' || *s == '#') return 0;
    if (*s == '[') return read_header(r, s);
    char *eq = strchr(s, '=');
    if (eq) return read_assignment(r, c, s, eq);
    char msg[MSG];
    snprintf(msg, sizeof msg, "expected '[section]', 'key = value' or a comment, got '%.200s'", s);
    return line_error(r, msg);
}

int config_load_text(Config *c, const char *name, const char *text, size_t len) {
    Reader r = {.path = name};
    Config work = *c; /* so that a failed load leaves c as it was */
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    /* One line at a time into a NUL-terminated copy, since the line parser edits in place. */
    for (size_t pos = 0; rc == 0 && pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) + 1 : len - pos;
        if (n + 1 > cap) {
            size_t want = n + 1 > 2 * cap ? n + 1 : 2 * cap;
            char *p = realloc(line, want);
            if (!p) {
                fprintf(stderr, "%s:%ld: out of memory\n", name, r.line + 1);
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
        rc = memchr(line, '\0', n) ? line_error(&r, "a NUL byte in the line (not a text file?)")
                                   : read_line(&r, &work, line);
    }
    free(line);
    if (rc == 0) *c = work;
    return rc;
}

int config_load_file(Config *c, const char *path) {
    /* a config of every key with long comments is a few kB; 1 MiB bounds a wrong path */
    char why[256];
    size_t len;
    char *buf = file_read_regular(path, (size_t)1 << 20, &len, why, sizeof why);
    if (!buf) {
        fprintf(stderr, "cannot open '%s': %s\n", path, why);
        return -1;
    }
    int rc = config_load_text(c, path, buf, len);
    free(buf);
    return rc;
}

/* ---------------------------------------------------------------- public: --set */

/* Splits "section . key = value" text (buf is edited) into its trimmed section and key; the
 * value is what follows the first '='. Returns -1, naming the problem in *why, when the text has
 * no '=' or no '.' in its name. */
static int split_assignment(char *buf, char **section, char **key, char **value, const char **why) {
    char *eq = strchr(buf, '=');
    if (!eq) {
        *why = "missing '='";
        return -1;
    }
    *eq = '\0';
    char *name = trim(buf), *dot = strchr(name, '.');
    if (!dot) {
        *why = "missing '.' between section and key";
        return -1;
    }
    *dot = '\0';
    *section = trim(name);
    *key = trim(dot + 1);
    *value = trim(eq + 1);
    return 0;
}

int config_assignment_sets(const char *assignment, const char *key) {
    char *buf, *s, *k, *v;
    const char *why, *dot = strchr(key, '.');
    if (!dot || !(buf = strdup(assignment))) return 0;
    int sets = split_assignment(buf, &s, &k, &v, &why) == 0 && strlen(s) == (size_t)(dot - key) &&
               strncmp(s, key, (size_t)(dot - key)) == 0 && strcmp(k, dot + 1) == 0;
    free(buf);
    return sets;
}

/* config_set on buf, a writable copy of assignment. */
static int set_from(Config *c, char *buf, const char *assignment, const char *where, int argn) {
    char msg[MSG];
    char *section, *key, *value;
    const char *why;
    if (split_assignment(buf, &section, &key, &value, &why) != 0) {
        fprintf(stderr, "%s: expected section.key=value, got '%.200s%s' (%s)\n", where, assignment,
                strlen(assignment) > 200 ? "..." : "", why);
        return -1;
    }
    if (!section_exists(section)) {
        unknown_section_msg(section, msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", where, msg);
        return -1;
    }
    int i = find_key(section, key);
    if (i < 0) {
        unknown_key_msg(section, key, msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", where, msg);
        return -1;
    }
    char origin[64];
    snprintf(origin, sizeof origin, "--set argument %d", argn);
    if (assign(c, i, value, origin, msg, sizeof msg)) {
        fprintf(stderr, "%s: '%s.%s': %s\n", where, KEYS[i].section, KEYS[i].key, msg);
        return -1;
    }
    return 0;
}

int config_set(Config *c, const char *assignment, int argn) {
    char where[64];
    snprintf(where, sizeof where, "--set (argument %d)", argn);
    /* any length: a value over the limit is refused by the key's own check, which names it */
    char *buf = strdup(assignment);
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", where);
        return -1;
    }
    int rc = set_from(c, buf, assignment, where, argn);
    free(buf);
    return rc;
}

/* ---------------------------------------------------------------- public: cross-key checks */

/* The origin of key i, or "default"; used where a message names where a value came from. */
static const char *origin_of(const Config *c, int i) {
    return *c->origin[i] ? c->origin[i] : "default";
}

/* "set at FILE:LINE" or "default", for the parenthesised second key of a message. */
static const char *set_at(const Config *c, int i, char *buf, size_t n) {
    if (!*c->origin[i]) return "default";
    snprintf(buf, n, "set at %s", c->origin[i]);
    return buf;
}

static int check_heads(const Config *c) {
    if (c->d_model % c->n_heads == 0) return 0;
    int dm = find_key("model", "d_model"), nh = find_key("model", "n_heads");
    char at[sizeof c->origin[0] + 8];
    /* Lead with the key the user set, so the location points at something editable. */
    if (*c->origin[dm])
        fprintf(stderr, "%s: 'model.d_model' = %d is not divisible by 'model.n_heads' = %d (%s)\n",
                origin_of(c, dm), c->d_model, c->n_heads, set_at(c, nh, at, sizeof at));
    else
        fprintf(stderr, "%s: 'model.n_heads' = %d does not divide 'model.d_model' = %d (%s)\n",
                origin_of(c, nh), c->n_heads, c->d_model, set_at(c, dm, at, sizeof at));
    return -1;
}

static int check_task_file(const Config *c) {
    int tn = find_key("task", "name"), tf = find_key("task", "file");
    char at[sizeof c->origin[0] + 8];
    /* a task.file the generated task would silently ignore: the user meant task.name = file */
    if (c->task != TASK_FILE && c->task_file[0]) {
        fprintf(stderr, "%s: 'task.file' = '%s' is set, but 'task.name' is not file (%s): set "
                        "task.name = file to train on the file, or remove task.file\n",
                origin_of(c, tf), c->task_file, set_at(c, tn, at, sizeof at));
        return -1;
    }
    if (c->task != TASK_FILE || c->task_file[0]) return 0;
    fprintf(stderr, "%s: 'task.name' = file needs a path in 'task.file', which is empty (%s)\n",
            origin_of(c, tn), set_at(c, tf, at, sizeof at));
    return -1;
}

static int check_min_lr(const Config *c) {
    if (c->schedule != SCHED_COSINE || c->min_lr <= c->lr) return 0;
    int ml = find_key("optim", "min_lr"), lr = find_key("optim", "lr");
    char at[sizeof c->origin[0] + 8];
    fprintf(stderr, "%s: 'optim.min_lr' = %g is larger than 'optim.lr' = %g (%s); the cosine "
                    "schedule decays from optim.lr down to optim.min_lr\n",
            origin_of(c, ml), c->min_lr, c->lr, set_at(c, lr, at, sizeof at));
    return -1;
}

int config_validate(const Config *c) {
    int bad = 0;
    bad |= check_heads(c);
    bad |= check_task_file(c);
    bad |= check_min_lr(c);
    return bad ? -1 : 0;
}

/* ---------------------------------------------------------------- public: writer */

/* The shortest %g form that reads back to the same double (1e-05, not
 * 1.0000000000000001e-05), so the written file round-trips exactly and stays readable. */
static void write_double(FILE *f, double v) {
    char buf[40];
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, f);
}

static void write_value(const Config *c, const KeySpec *k, FILE *f) {
    const void *p = cfield(c, k);
    switch (k->type) {
    case T_INT: fprintf(f, "%d", *(const int *)p); break;
    case T_LONG: fprintf(f, "%ld", *(const long *)p); break;
    case T_DOUBLE: write_double(f, *(const double *)p); break;
    case T_STR: fprintf(f, "\"%s\"", (const char *)p); break;
    case T_ENUM: fprintf(f, "%s", k->names[*(const int *)p]); break;
    case T_SCALE:
        if (c->scale_mode == SCALE_VALUE) write_double(f, c->scale_value);
        else fprintf(f, "%s", k->names[c->scale_mode]);
        break;
    }
}

char *config_text(const Config *c) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    config_write(c, f);
    return fclose(f) == 0 ? buf : (free(buf), NULL);
}

void config_write(const Config *c, FILE *f) {
    fprintf(f, "; scaledot configuration: every key, defaults included\n");
    for (int i = 0; i < N_KEYS; i++) {
        const KeySpec *k = &KEYS[i];
        if (i == 0 || strcmp(k->section, KEYS[i - 1].section)) fprintf(f, "\n[%s]\n", k->section);
        char allowed[256];
        describe_allowed(k, allowed, sizeof allowed);
        fprintf(f, "; %s (%s)\n%s = ", k->help, allowed, k->key);
        write_value(c, k, f);
        fputc('\n', f);
    }
}

const char *config_origin(const Config *c, const char *section_key) {
    int i = config_key_index(section_key);
    return i < 0 ? "(unknown key)" : origin_of(c, i);
}

double config_attention_scale(const Config *c, int d_k) {
    switch (c->scale_mode) {
    case SCALE_SQRT_DK: return 1.0 / sqrt((double)d_k);
    case SCALE_NONE: return 1.0;
    case SCALE_INV_DK: return 1.0 / (double)d_k;
    case SCALE_VALUE: return c->scale_value;
    }
    return 1.0 / sqrt((double)d_k);
}

/* ---------------------------------------------------------------- public: key table access */

int config_key_count(void) { return N_KEYS; }

int config_key_info(int index, ConfigKeyInfo *info) {
    if (index < 0 || index >= N_KEYS) return -1;
    info->section = KEYS[index].section;
    info->key = KEYS[index].key;
    info->default_text = KEYS[index].def;
    info->help = KEYS[index].help;
    return 0;
}

int config_key_index(const char *section_key) {
    const char *dot = strchr(section_key, '.');
    if (!dot) return -1;
    size_t n = (size_t)(dot - section_key);
    for (int i = 0; i < N_KEYS; i++)
        if (strlen(KEYS[i].section) == n && !strncmp(KEYS[i].section, section_key, n) &&
            !strcmp(KEYS[i].key, dot + 1))
            return i;
    return -1;
}

/* Markdown table cells break on '|'. */
static void put_cell(const char *s, FILE *f) {
    for (; *s; s++) {
        if (*s == '|') fputc('\\', f);
        fputc(*s, f);
    }
}

void config_write_reference_table(FILE *f) {
    fprintf(f, "| key | default | meaning |\n|---|---|---|\n");
    for (int i = 0; i < N_KEYS; i++) {
        const KeySpec *k = &KEYS[i];
        char allowed[256];
        describe_allowed(k, allowed, sizeof allowed);
        fprintf(f, "| `%s.%s` | ", k->section, k->key);
        if (*k->def) {
            fputc('`', f);
            put_cell(k->def, f);
            fputc('`', f);
        } else {
            fputs("`\"\"`", f);
        }
        fputs(" | ", f);
        put_cell(k->help, f);
        fputs(" (", f);
        put_cell(allowed, f);
        fputs(") |\n", f);
    }
}
