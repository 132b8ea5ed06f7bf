/* out_dir.c: the default report folder name of ./train --compare (see page_internal.h). */
#include "report/page/page_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int plain(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

/* Appends the sanitized name to buf (len used of cap); returns the new length. */
static size_t append_clean(char *buf, size_t len, size_t cap, const char *name) {
    size_t start = len;
    for (const unsigned char *p = (const unsigned char *)name; *p && len + 1 < cap; p++) {
        if (plain(*p) && !(len == start && *p == '.')) /* no hidden or ".." folder */
            buf[len++] = (char)*p;
        else if (len > start && buf[len - 1] != '_')
            buf[len++] = '_';
    }
    while (len > start && buf[len - 1] == '_') len--;
    if (len == start && len + 4 < cap) len += (size_t)snprintf(buf + len, cap - len, "run");
    buf[len] = 0;
    return len;
}

void out_dir_default(char *out, size_t n, const char *const *names, int n_names) {
    char buf[4 * OUT_DIR_MAX_NAME];
    size_t len = 0;
    int changed = 0;
    for (int i = 0; i < n_names && len + 8 < sizeof buf; i++) {
        if (i) len += (size_t)snprintf(buf + len, sizeof buf - len, "_vs_");
        size_t before = len;
        len = append_clean(buf, len, sizeof buf, names[i]);
        changed |= strlen(names[i]) != len - before || strncmp(names[i], buf + before, len - before);
    }
    if (len <= OUT_DIR_MAX_NAME && !changed) {
        snprintf(out, n, "reports/%s", buf);
        return;
    }
    /* Too long, or a name had to be changed (so two lists might now read alike): the hash of
     * the names as given tells them apart. */
    uint32_t h = 2166136261u;
    for (int i = 0; i < n_names; i++)
        for (const unsigned char *p = (const unsigned char *)names[i];; p++) {
            h = (h ^ *p) * 16777619u;
            if (!*p) break;
        }
    char first[OUT_DIR_MAX_NAME / 2 + 8];
    append_clean(first, 0, OUT_DIR_MAX_NAME / 2, n_names > 0 ? names[0] : "");
    if (len <= OUT_DIR_MAX_NAME)
        snprintf(out, n, "reports/%s_%08x", buf, (unsigned)h);
    else
        snprintf(out, n, "reports/%s_vs_%d_more_%08x", first, n_names - 1, (unsigned)h);
}
