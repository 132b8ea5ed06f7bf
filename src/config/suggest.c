/* suggest.c: the error text for a section or key that is not in the table, with the nearest
 * valid name ("did you mean [attention]?") or the list of valid ones. Used by the INI reader
 * (ini.c) and --set (set.c), the config stage of the pipeline. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

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

void cfg_unknown_section_msg(const char *section, char *msg, size_t n) {
    const char *best = NULL;
    int best_d = INT_MAX;
    for (int i = 0; i < cfg_n_keys; i++) {
        int d = name_distance(section, cfg_keys[i].section);
        if (d < best_d) best_d = d, best = cfg_keys[i].section;
    }
    if (best && close_enough(best_d, section, best)) {
        snprintf(msg, n, "unknown section [%s]; did you mean [%s]?", section, best);
        return;
    }
    size_t len = (size_t)snprintf(msg, n, "unknown section [%s]; the sections are", section);
    for (int i = 0; i < cfg_n_keys && len < n; i++)
        if (i == 0 || strcmp(cfg_keys[i].section, cfg_keys[i - 1].section))
            len += (size_t)snprintf(msg + len, n - len, "%s [%s]", i ? "," : "",
                                    cfg_keys[i].section);
}

/* Prefers a close key of the same section; a key of another section only when it is strictly
 * closer (typically the right key put under the wrong header). */
int cfg_unknown_key_msg(const char *section, const char *key, char *msg, size_t n) {
    int in_best = -1, in_d = INT_MAX, out_best = -1, out_d = INT_MAX;
    for (int i = 0; i < cfg_n_keys; i++) {
        int d = name_distance(key, cfg_keys[i].key);
        if (!strcmp(cfg_keys[i].section, section)) {
            if (d < in_d) in_d = d, in_best = i;
        } else if (d < out_d) {
            out_d = d, out_best = i;
        }
    }
    if (out_best >= 0 && out_d < in_d && close_enough(out_d, key, cfg_keys[out_best].key)) {
        snprintf(msg, n, "unknown key '%s.%s'; did you mean '%s.%s' (section [%s])?", section, key,
                 cfg_keys[out_best].section, cfg_keys[out_best].key, cfg_keys[out_best].section);
        return out_best;
    }
    if (in_best >= 0 && close_enough(in_d, key, cfg_keys[in_best].key)) {
        snprintf(msg, n, "unknown key '%s.%s'; did you mean '%s.%s'?", section, key, section,
                 cfg_keys[in_best].key);
        return in_best;
    }
    size_t len = (size_t)snprintf(msg, n, "unknown key '%s.%s'; the keys of [%s] are", section, key,
                                  section);
    bool first = true;
    for (int i = 0; i < cfg_n_keys && len < n; i++)
        if (!strcmp(cfg_keys[i].section, section)) {
            len += (size_t)snprintf(msg + len, n - len, "%s %s", first ? "" : ",", cfg_keys[i].key);
            first = false;
        }
    return -1;
}

void cfg_mark_unread(Config *c, int suggested, const char *key) {
    if (suggested >= 0) {
        c->unsure[suggested] = 1;
        return;
    }
    for (int i = 0; i < cfg_n_keys; i++)
        if (!strcmp(cfg_keys[i].key, key)) c->unsure[i] = 1;
}
