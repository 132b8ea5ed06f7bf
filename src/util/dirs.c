/* dirs.c: mkdir -p, and the refusal of a folder given as a symbolic link (see dirs.h). */
#include "util/dirs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int make_dirs(const char *path) {
    char buf[1024];
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

int dirs_refuse_link(const char *path, const char *what) {
    char buf[4096];
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--; /* lstat("link/") would follow the link */
    if (n >= sizeof buf) return 0;           /* too long to be made anyway: make_dirs says so */
    memcpy(buf, path, n);
    buf[n] = 0;
    struct stat st;
    if (lstat(buf, &st) != 0 || !S_ISLNK(st.st_mode)) return 0;
    fprintf(stderr, "error: %s '%s' is a symbolic link: nothing is written through a link. Give "
                    "the folder itself, or another one; nothing was written\n", what, path);
    return -1;
}
