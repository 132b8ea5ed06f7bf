/* corpus_match.c: a text config's task.file against the lr map's corpus (corpus_match.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "train/corpus_match.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/self_exe.h"

/* path, canonical, into out (PATH_MAX bytes): realpath of the longest part that exists, then the
 * missing rest as written (nothing missing can be a link, so the rest names one place: a corpus
 * not made yet is placed, issue 45). Returns 0, or -1 when the place cannot be told: a missing
 * part that is ".", ".." or empty, a dangling link, a part that cannot be searched or is no
 * folder. */
static int resolved_path(const char *path, char *out) {
    struct stat st;
    if (realpath(path, out)) return 0;
    if (errno != ENOENT || lstat(path, &st) == 0) return -1;
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) return -1;
    char dir[PATH_MAX];
    size_t len = slash ? (size_t)(slash - path) : 0;
    if (len >= sizeof dir) return -1;
    memcpy(dir, path, len);
    snprintf(dir + len, sizeof dir - len, "%s", !slash ? "." : len ? "" : "/");
    if (resolved_path(dir, out) != 0) return -1;
    size_t k = strlen(out);
    int n = snprintf(out + k, PATH_MAX - k, "%s%s", out[k - 1] == '/' ? "" : "/", base);
    return n >= 0 && (size_t)n < PATH_MAX - k ? 0 : -1;
}

/* path made absolute from the folder base (path itself when absolute), into out (PATH_MAX
 * bytes), as text: nothing resolved. Returns 0, or -1 when it does not fit. */
static int from(const char *base, const char *path, char *out) {
    int n = path[0] == '/' ? snprintf(out, PATH_MAX, "%s", path)
                           : snprintf(out, PATH_MAX, "%s/%s", base, path);
    return n >= 0 && n < PATH_MAX ? 0 : -1;
}

LrCorpus corpus_match(const char *mine, const char *map, const char *map_base) {
    char cwd[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
    if ((map[0] != '/' && !map_base) || (mine[0] != '/' && !getcwd(cwd, sizeof cwd)) ||
        from(cwd, mine, a) != 0 || from(map_base, map, b) != 0)
        return LR_CORPUS_UNTOLD;
    if (strcmp(a, b) == 0) return LR_CORPUS_SAME; /* one path: one file */
    char ra[PATH_MAX], rb[PATH_MAX];
    if (resolved_path(a, ra) != 0 || resolved_path(b, rb) != 0) return LR_CORPUS_UNTOLD;
    struct stat sa, sb;
    if (strcmp(ra, rb) == 0 || (stat(ra, &sa) == 0 && stat(rb, &sb) == 0 &&
                                sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino))
        return LR_CORPUS_SAME;
    return LR_CORPUS_OTHER;
}

const char *corpus_map_base(char *out, size_t n) {
    if (self_exe_dir(out, n) != 0) return NULL;
    char dir[PATH_MAX], mark[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s", out);
    for (;;) { /* up from the program's folder to the checkout that defines the map */
        snprintf(mark, sizeof mark, "%s/" CORPUS_CHECKOUT_MARK, strcmp(dir, "/") ? dir : "");
        if (access(mark, F_OK) == 0) return snprintf(out, n, "%s", dir) < (int)n ? out : NULL;
        char *slash = strrchr(dir, '/');
        if (!slash || strcmp(dir, "/") == 0) return NULL; /* in no checkout: the map's corpus
                                                             * is nowhere to be found */
        slash[slash == dir] = '\0';
    }
}
