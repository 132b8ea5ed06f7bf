/* set.c: the command line's --set section.key=value overrides, applied after the INI file with
 * the same value rules, each error naming the argument. Config stage of the pipeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "util/error_list.h"

/* Splits "section . key = value" text (buf is edited) into its trimmed section and key; the
 * value is what follows the first '='. The one rule for the blanks of a --set: around the names
 * and the dot they are dropped, so "optim .lr" is optim.lr (config_set, config_same_key).
 * Returns -1, naming the problem in *why, when the text has no '=' or no '.' in its name. */
static int split_assignment(char *buf, char **section, char **key, char **value, const char **why) {
    char *eq = strchr(buf, '=');
    if (!eq) {
        *why = "missing '='";
        return -1;
    }
    *eq = '\0';
    char *name = cfg_trim(buf), *dot = strchr(name, '.');
    if (!dot) {
        *why = "missing '.' between section and key";
        return -1;
    }
    *dot = '\0';
    *section = cfg_trim(name);
    *key = cfg_trim(dot + 1);
    *value = cfg_trim(eq + 1);
    return 0;
}

/* The section and key of assignment (split_assignment's) into a malloc'd copy *buf (the caller
 * frees it, also on error). Returns 0, or -1 when the text is no assignment or memory runs out. */
static int key_of(const char *assignment, char **buf, char **section, char **key) {
    char *value;
    const char *why;
    *buf = strdup(assignment);
    return *buf && split_assignment(*buf, section, key, &value, &why) == 0 ? 0 : -1;
}

int config_assignment_sets(const char *assignment, const char *key) {
    char *buf, *s, *k;
    const char *dot = strchr(key, '.');
    int sets = dot && key_of(assignment, &buf, &s, &k) == 0 &&
               strlen(s) == (size_t)(dot - key) && strncmp(s, key, (size_t)(dot - key)) == 0 &&
               strcmp(k, dot + 1) == 0;
    if (dot) free(buf);
    return sets;
}

int config_assignment_key(const char *assignment, char *key, size_t n) {
    char *buf, *s, *k;
    int rc = key_of(assignment, &buf, &s, &k);
    if (rc == 0 && (size_t)snprintf(key, n, "%s.%s", s, k) >= n) rc = -1;
    free(buf);
    return rc;
}

int config_same_key(const char *a, const char *b) {
    char *buf_a, *buf_b, *sa, *ka, *sb, *kb;
    int ok_a = key_of(a, &buf_a, &sa, &ka) == 0, ok_b = key_of(b, &buf_b, &sb, &kb) == 0;
    int same = ok_a && ok_b && strcmp(sa, sb) == 0 && strcmp(ka, kb) == 0;
    free(buf_a);
    free(buf_b);
    return same;
}

/* config_set on buf, a writable copy of assignment; errors at where, which is also the origin
 * recorded. */
static int set_from(Config *c, char *buf, const char *assignment, const char *where,
                    ErrorList *errs, int order) {
    char msg[MSG];
    char *section, *key, *value;
    const char *why;
    if (split_assignment(buf, &section, &key, &value, &why) != 0) {
        char quoted[CFG_QUOTED];
        error_add(errs, order, where, "expected section.key=value, got '%s' (%s)",
                  error_shown(quoted, sizeof quoted, assignment), why);
        return -1;
    }
    if (!cfg_section_exists(section)) {
        cfg_mark_unread(c, -1, key);
        cfg_unknown_section_msg(section, msg, sizeof msg);
        error_add(errs, order, where, "%s", msg);
        return -1;
    }
    int i = cfg_find_key(section, key);
    if (i < 0) {
        cfg_mark_unread(c, cfg_unknown_key_msg(section, key, msg, sizeof msg), key);
        error_add(errs, order, where, "%s", msg);
        return -1;
    }
    if (cfg_assign(c, i, value, where, order, 0, msg, sizeof msg)) {
        error_add(errs, order, where, "'%s.%s': %s", cfg_keys[i].section, cfg_keys[i].key, msg);
        return -1;
    }
    return 0;
}

int config_set(Config *c, const char *assignment, int argn) {
    return config_set_as(c, assignment, "--set", argn, NULL);
}

int config_set_as(Config *c, const char *assignment, const char *option, int argn,
                  ErrorList *errs) {
    char where[sizeof c->origin[0]];
    error_place(where, sizeof where, option, argn);
    int order = argn > 0 ? argn : 0;
    /* any length: a value over the limit is refused by the key's own check, which names it */
    char *buf = strdup(assignment);
    if (!buf) {
        error_add(errs, order, where, "out of memory");
        return -1;
    }
    int rc = set_from(c, buf, assignment, where, errs, order);
    free(buf);
    return rc;
}

const char *const config_resumable_keys[] = {"train.steps", "run.threads", "log.progress", NULL};
