/* file_check.c: whole-file reads that refuse FIFOs, devices and folders before reading, and stop
 * at a size bound (see file_check.h). */
#include "util/file_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *type_name(mode_t m) {
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISDIR(m)) return "a folder";
    if (S_ISSOCK(m)) return "a socket";
    return "not a plain file";
}

int file_open_regular(const char *path, size_t max_bytes, char *why, size_t why_n) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_n, "%s", strerror(errno));
        return -1;
    }
    struct stat sb;
    int err = 0;
    if (fstat(fd, &sb) != 0) {
        err = errno;
        snprintf(why, why_n, "%s", strerror(err));
    } else if (!S_ISREG(sb.st_mode)) {
        err = EINVAL;
        snprintf(why, why_n, "not a regular file (%s)", type_name(sb.st_mode));
    } else if ((unsigned long long)sb.st_size > max_bytes) {
        err = EFBIG;
        snprintf(why, why_n, "larger than %zu bytes", max_bytes);
    } else {
        /* a regular file never blocks; reads from here on are plain blocking reads */
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        return fd;
    }
    close(fd);
    errno = err;
    return -1;
}

FILE *file_fopen_regular(const char *path, size_t max_bytes, char *why, size_t why_n) {
    int fd = file_open_regular(path, max_bytes, why, why_n);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        int err = errno;
        snprintf(why, why_n, "%s", strerror(err));
        close(fd);
        errno = err;
    }
    return f;
}

char *file_read_regular(const char *path, size_t max_bytes, size_t *len, char *why, size_t why_n) {
    *len = 0;
    int fd = file_open_regular(path, max_bytes, why, why_n);
    if (fd < 0) return NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0) sb.st_size = 0;
    /* the size from fstat is a first guess only (a file may grow, /proc files say 0) */
    size_t cap = sb.st_size > 0 && (unsigned long long)sb.st_size < max_bytes ? (size_t)sb.st_size + 1 : 4096;
    char *buf = malloc(cap + 1);
    size_t n = 0;
    while (buf) {
        if (n == cap) {
            size_t want = cap > max_bytes / 2 ? max_bytes + 1 : 2 * cap;
            char *p = want > cap ? realloc(buf, want + 1) : NULL;
            if (!p) break;
            buf = p;
            cap = want;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int err = errno;
            snprintf(why, why_n, "%s", strerror(err));
            free(buf);
            close(fd);
            errno = err;
            return NULL;
        }
        if (got == 0) break;
        n += (size_t)got;
        if (n > max_bytes) {
            snprintf(why, why_n, "larger than %zu bytes", max_bytes);
            free(buf);
            close(fd);
            errno = EFBIG;
            return NULL;
        }
    }
    close(fd);
    if (!buf || n == cap) { /* out of memory, or the realloc above failed mid-file */
        free(buf);
        snprintf(why, why_n, "out of memory");
        errno = ENOMEM;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
