/* config_internal.h: what the files of src/config/ share and nothing outside it may use: the
 * key table's row type and the table itself (keys.c), one value's parsing (value.c) and the
 * "did you mean" messages (suggest.c). The public API is config.h. */
#ifndef SCALEDOT_CONFIG_INTERNAL_H
#define SCALEDOT_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"

typedef enum { T_INT, T_LONG, T_DOUBLE, T_STR, T_ENUM, T_SCALE } KeyType;

/* One key: everything about it (type, field, default, range, accepted names, help) in one row,
 * so the parser, config_write, the defaults and the reference table
 * (docs/configuration.md) cannot disagree. */
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

/* The table (keys.c), grouped by section in the order config_write prints it; cfg_n_keys rows.
 * A row's index is also its index in Config.origin[]. */
extern const KeySpec cfg_keys[];
extern const int cfg_n_keys;

#define MSG 512 /* room for one error message body */

/* Room for a line or a --set that an error quotes (error_shown): 200 bytes whole, a longer one
 * cut after a whole character with "..." */
#define CFG_QUOTED 204

/* The field of c that key k stores into. */
static inline void *cfg_field(Config *c, const KeySpec *k) { return (char *)c + k->offset; }
static inline const void *cfg_cfield(const Config *c, const KeySpec *k) {
    return (const char *)c + k->offset;
}

/* ---- keys.c: lookups in the table */

/* Index of section + key, or -1 when the table has no such key. */
int cfg_find_key(const char *section, const char *key);

/* True when some key of the table lives in section. */
bool cfg_section_exists(const char *section);

/* ---- value.c: one value's text */

/* s without leading and trailing white space: the start moves forward, the end is cut in place. */
char *cfg_trim(char *s);

/* The allowed values of key k in words ("integer in [1, 8192]", "one of adamw, sgd"), into buf
 * (n bytes); shared by error messages, config_write's comments and the reference table. */
void cfg_describe_allowed(const KeySpec *k, char *buf, size_t n);

/* Parses text (edited in place: quotes are stripped) as the value of key number i and stores it
 * into c, recording origin as where it came from and order and line as where its errors sort
 * (an argument's number, 0 for a file; the file's line, 0 for none), and clearing its unsure mark.
 * On error writes why into msg
 * (n bytes), leaves c's settings unchanged, marks key i unsure (c does not hold the value given)
 * and returns -1; 0 on success. */
int cfg_assign(Config *c, int i, char *text, const char *origin, int order, long line, char *msg,
               size_t n);

/* ---- suggest.c: messages for names that are not in the table */

/* "unknown section [x]; did you mean [y]?", or the list of sections when none is close. */
void cfg_unknown_section_msg(const char *section, char *msg, size_t n);

/* "unknown key 's.k'; did you mean ...?", or the keys of the section when none is close.
 * Returns the index of the key suggested, or -1 when none is. */
int cfg_unknown_key_msg(const char *section, const char *key, char *msg, size_t n);

/* Marks unsure what a key given under a name not in the table may have meant (its value was not
 * read, so a check between keys would judge a default): key suggested (an index, from
 * cfg_unknown_key_msg), else every key named key in any section ("lr" under a refused header:
 * optim.lr). */
void cfg_mark_unread(Config *c, int suggested, const char *key);

/* ---- write.c */

/* v in the shortest %g form that reads back to the same double (1e-05, not
 * 1.0000000000000001e-05; 1.0000000001, not %g's 1), into buf (32 bytes are enough): as
 * config_write writes it, and as a message quotes a value it refuses. */
void cfg_format_double(char *buf, size_t n, double v);

/* ---- validate.c */

/* Where key i got its value (Config.origin[i]), or "default". */
const char *cfg_origin_of(const Config *c, int i);

#endif
