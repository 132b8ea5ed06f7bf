/* dirs.c: mkdir -p, and the refusal of a folder given as, or under, a symbolic link (see
 * dirs.h). */
#include "util/dirs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error_list.h"

int make_dirs(const char *path) {
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    struct stat st;
    if (stat(buf, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* The current folder as the user reached it: $PWD when it names the same folder as ".", which
 * keeps the links the shell went through (a symlinked home), else getcwd's. Empty on failure. */
static void logical_cwd(char *out, size_t n) {
    const char *pwd = getenv("PWD");
    struct stat a, b;
    if (pwd && pwd[0] == '/' && strlen(pwd) < n && stat(pwd, &a) == 0 && stat(".", &b) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        snprintf(out, n, "%s", pwd);
        return;
    }
    if (!getcwd(out, n)) out[0] = 0;
}

/* 1 when the folder a is p itself or one of its ancestors, by name ("/a/b" of "/a/b/c"). */
static int ancestor_of(const char *a, const char *p) {
    size_t n = strlen(a);
    while (n > 1 && a[n - 1] == '/') n--;
    return n > 0 && p && strncmp(a, p, n) == 0 && (p[n] == '/' || p[n] == 0);
}

int dirs_refuse_link(const char *path, const char *what, const char *where) {
    char buf[4096], cwd[4096];
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--; /* lstat("link/") would follow the link */
    if (n >= sizeof buf) return 0;           /* too long to be made anyway: make_dirs says so */
    memcpy(buf, path, n);
    buf[n] = 0;
    struct stat st;
    if (lstat(buf, &st) == 0 && S_ISLNK(st.st_mode)) {
        error_add(NULL, 0, where, "%s '%s' is a symbolic link: nothing is written through a link. "
                                  "Give the folder itself, or another one; nothing was written",
                  what, path);
        return -1;
    }
    /* Its parents, as an absolute path reached from the current folder: a link among them is
     * refused unless it leads to the current folder or to $HOME (a symlinked home, a project
     * reached through a link: where the user already is). */
    char abs[8192];
    logical_cwd(cwd, sizeof cwd);
    if (buf[0] == '/') snprintf(abs, sizeof abs, "%s", buf);
    else if (snprintf(abs, sizeof abs, "%s/%s", cwd, buf) >= (int)sizeof abs) return 0;
    size_t start = buf[0] == '/' ? 0 : strlen(cwd); /* the current folder's own path: checked
                                                        by the rule below, not walked */
    const char *home = getenv("HOME");
    for (size_t i = start + 1; abs[i]; i++) {
        if (abs[i] != '/') continue;
        abs[i] = 0;
        int link = lstat(abs, &st) == 0 && S_ISLNK(st.st_mode);
        if (link && !ancestor_of(abs, cwd) && !(home && home[0] == '/' && ancestor_of(abs, home))) {
            char to[4096];
            ssize_t k = readlink(abs, to, sizeof to - 1);
            to[k > 0 ? k : 0] = 0;
            error_add(NULL, 0, where, "%s '%s' lies under a symbolic link, '%s' (to '%s'): nothing "
                                      "is written through a link below the current folder or your "
                                      "home. Give the path without the link, or another one; "
                                      "nothing was written", what, path, abs, to);
            return -1;
        }
        abs[i] = '/';
    }
    return 0;
}

int dirs_normalise(const char *path, char *out, size_t n) {
    size_t len = 0;
    int absolute = path[0] == '/';
    if (n == 0) goto too_long;
    if (absolute) out[len++] = '/';
    for (const char *p = path; *p;) {
        p += strspn(p, "/");
        size_t part = strcspn(p, "/");
        if (part == 0 || (part == 1 && p[0] == '.')) { /* "" (the end) or "." */
            p += part;
            continue;
        }
        size_t sep = len > (size_t)absolute; /* a '/' before every part but the first */
        if (len + sep + part >= n) goto too_long;
        if (sep) out[len++] = '/';
        memcpy(out + len, p, part);
        len += part;
        p += part;
    }
    if (len == 0 && path[0]) { /* only "." parts: the current folder */
        if (n < 2) goto too_long;
        out[len++] = '.';
    }
    out[len] = 0;
    return 0;
too_long:
    if (n) out[0] = 0;
    errno = ENAMETOOLONG;
    return -1;
}

int dirs_join(char *out, size_t n, const char *dir, const char *name) {
    size_t len = strlen(dir);
    while (len > 0 && dir[len - 1] == '/') len--;
    int root = len == 0 && dir[0] == '/';
    int w = !dir[0] ? snprintf(out, n, "%s", name)
                    : snprintf(out, n, "%.*s/%s", (int)len, root ? "" : dir, name);
    return w >= 0 && (size_t)w < n ? 0 : -1;
}
