/* set.c: the command line's --set section.key=value overrides, applied after the INI file with
 * the same value rules, each error naming the argument. Config stage of the pipeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

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

int config_assignment_sets(const char *assignment, const char *key) {
    char *buf, *s, *k, *v;
    const char *why, *dot = strchr(key, '.');
    if (!dot || !(buf = strdup(assignment))) return 0;
    int sets = split_assignment(buf, &s, &k, &v, &why) == 0 && strlen(s) == (size_t)(dot - key) &&
               strncmp(s, key, (size_t)(dot - key)) == 0 && strcmp(k, dot + 1) == 0;
    free(buf);
    return sets;
}

/* config_set on buf, a writable copy of assignment; errors at where, origin recorded. */
static int set_from(Config *c, char *buf, const char *assignment, const char *where,
                    const char *origin, ErrorList *errs, int order) {
    char msg[MSG];
    char *section, *key, *value;
    const char *why;
    if (split_assignment(buf, &section, &key, &value, &why) != 0) {
        error_add(errs, order, where, "expected section.key=value, got '%.200s%s' (%s)",
                  assignment, strlen(assignment) > 200 ? "..." : "", why);
        return -1;
    }
    if (!cfg_section_exists(section)) {
        cfg_unknown_section_msg(section, msg, sizeof msg);
        error_add(errs, order, where, "%s", msg);
        return -1;
    }
    int i = cfg_find_key(section, key);
    if (i < 0) {
        cfg_unknown_key_msg(section, key, msg, sizeof msg);
        error_add(errs, order, where, "%s", msg);
        return -1;
    }
    if (cfg_assign(c, i, value, origin, msg, sizeof msg)) {
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
    char where[sizeof c->origin[0]], origin[sizeof c->origin[0]];
    if (argn > 0) snprintf(where, sizeof where, "%s (argument %d)", option, argn);
    else snprintf(where, sizeof where, argn < 0 ? "%s" : "%s (default)", option);
    if (argn < 0) snprintf(origin, sizeof origin, "%s", option);
    else snprintf(origin, sizeof origin, "%s argument %d", option, argn);
    int order = argn > 0 ? argn : 0;
    /* any length: a value over the limit is refused by the key's own check, which names it */
    char *buf = strdup(assignment);
    if (!buf) {
        error_add(errs, order, where, "out of memory");
        return -1;
    }
    int rc = set_from(c, buf, assignment, where, origin, errs, order);
    free(buf);
    return rc;
}

const char *const config_resumable_keys[] = {"train.steps", "run.threads", "log.progress", NULL};
