/* run_lock.c: the lock that marks a run folder as being trained (see run_lock.h). */
#include "util/run_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int lock_path(char *buf, size_t n, const char *dir) {
    int k = snprintf(buf, n, "%s/" RUN_LOCK_FILE, dir);
    if (k < 0 || (size_t)k >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int run_lock_take(const char *dir, pid_t *holder) {
    char path[4096];
    if (lock_path(path, sizeof path, dir) != 0) return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_SETLK, &fl) == 0) return fd;
    int err = errno;
    if (err == EACCES || err == EAGAIN) {
        struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
        if (holder) *holder = fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK ? q.l_pid : 0;
        close(fd);
        return -2;
    }
    close(fd);
    errno = err;
    return -1;
}

pid_t run_lock_holder(const char *dir) {
    char path[4096];
    if (lock_path(path, sizeof path, dir) != 0) return 0;
    /* a link is not followed (to a FIFO, open would wait for a writer): no lock of a run */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return 0;
    /* F_GETLK with a read lock: only a writer (a training ./train) conflicts */
    struct flock q = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    pid_t pid = fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK ? q.l_pid : 0;
    close(fd);
    return pid;
}
