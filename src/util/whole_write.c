/* whole_write.c: appends rows to a log file whole, or cuts a partial write back to its last
 * complete row; writes whole files through a temporary file and a rename; never through a link
 * (see whole_write.h). */
#include "util/whole_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* The owner rule (file_write_set_owner_rule); none set: any name, nothing recorded. */
static FileOwnerRule g_rule;

void file_write_set_owner_rule(const FileOwnerRule *rule) { g_rule = *rule; }

static int claim_name(const char *path) { return g_rule.claim ? g_rule.claim(path) : 0; }

static void wrote_name(const char *path) {
    if (g_rule.wrote) g_rule.wrote(path);
}


int whole_write(int fd, const char *text, size_t len) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return -1;
    off_t start = sb.st_size; /* logs are only ever appended to, so this is where text goes */
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            size_t keep = done; /* back to just after the last '\n' that was written */
            while (keep > 0 && text[keep - 1] != '\n') keep--;
            if (ftruncate(fd, start + (off_t)keep) != 0) { /* nothing better to do: keep err */ }
            lseek(fd, 0, SEEK_END);
            errno = err;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

int atomic_temp_name(const char *path, long pid, int k, char *out, size_t n) {
    char suffix[48];
    int slen = snprintf(suffix, sizeof suffix, ATOMIC_TEMP_MARK "%ld.%d", pid, k);
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0, base_len = strlen(path) - dir_len;
    if (base_len + (size_t)slen > NAME_MAX) base_len = NAME_MAX - (size_t)slen;
    if (snprintf(out, n, "%.*s%s", (int)(dir_len + base_len), path, suffix) >= (int)n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int atomic_is_temp_name(const char *name) {
    size_t n = strlen(name);
    if (n > 4 && strcmp(name + n - 4, ".tmp") == 0) return 1; /* a version before this one's */
    const char *mark = NULL;
    for (const char *p = strstr(name, ATOMIC_TEMP_MARK); p; p = strstr(p + 1, ATOMIC_TEMP_MARK))
        mark = p; /* the last one: NAME itself may hold ".tmp." */
    if (!mark || mark == name) return 0;
    const char *p = mark + strlen(ATOMIC_TEMP_MARK);
    size_t pid = strspn(p, "0123456789");
    if (pid == 0 || p[pid] != '.') return 0;
    size_t k = strspn(p + pid + 1, "0123456789");
    return k > 0 && p[pid + 1 + k] == '\0';
}

int atomic_is_temp_name_of(const char *name, const char *of) {
    size_t n = strlen(of), m = strlen(ATOMIC_TEMP_MARK);
    if (strncmp(name, of, n) != 0 || !atomic_is_temp_name(name)) return 0;
    const char *rest = name + n; /* the mark must follow of itself, not a longer name */
    if (strcmp(rest, ".tmp") == 0) return 1;
    return strncmp(rest, ATOMIC_TEMP_MARK, m) == 0 &&
           rest[m + strspn(rest + m, "0123456789.")] == '\0';
}

FILE *atomic_open(AtomicFile *a, const char *path) {
    a->f = NULL;
    a->failed = a->path;
    if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    /* a file made read-only (no write bit for anyone) is kept, as open(2) keeps it from anyone
     * but root: the rename would replace it, and the new one would come back writable */
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && !(st.st_mode & 0222)) {
        errno = EACCES;
        return NULL;
    }
    /* a folder under the owner rule (owned_dir.h): the name goes into its manifest first */
    if (claim_name(path) != 0) return NULL;
    a->failed = a->tmp; /* from here on, the temporary file is what can fail */
    /* a name taken (a leftover of a killed writer, a planted link or folder) is skipped, never
     * removed nor followed: O_EXCL makes sure the name we write is ours alone */
    int fd = -1;
    for (int k = 0; fd < 0 && k < ATOMIC_TEMP_TRIES; k++) {
        if (atomic_temp_name(path, (long)getpid(), k, a->tmp, sizeof a->tmp) != 0) return NULL;
        fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) return NULL;
    }
    if (fd < 0) return NULL; /* EEXIST: every name tried is taken */
    a->f = fdopen(fd, "w");
    if (!a->f) {
        int err = errno;
        close(fd);
        unlink(a->tmp);
        errno = err;
    }
    return a->f;
}

/* atomic_commit (replace nonzero: rename over path) and atomic_commit_new (0: link, never
 * replacing). */
static int commit(AtomicFile *a, int sync, int replace) {
    if (!a->f) {
        errno = EBADF;
        return -1;
    }
    a->failed = a->tmp;
    int err = 0;
    if (ferror(a->f)) err = errno ? errno : EIO;
    if (!err && fflush(a->f) != 0) err = errno;
    if (!err && sync && fsync(fileno(a->f)) != 0) err = errno;
    if (fclose(a->f) != 0 && !err) err = errno;
    a->f = NULL;
    if (!err && (replace ? rename(a->tmp, a->path) : link(a->tmp, a->path)) != 0)
        err = errno, a->failed = a->path;
    if (err || !replace) unlink(a->tmp);
    if (err) {
        errno = err;
        return -1;
    }
    wrote_name(a->path);
    return 0;
}

int atomic_commit(AtomicFile *a, int sync) { return commit(a, sync, 1); }

int atomic_commit_new(AtomicFile *a, int sync) { return commit(a, sync, 0); }

void atomic_discard(AtomicFile *a) {
    if (!a->f) return;
    int err = errno;
    fclose(a->f);
    a->f = NULL;
    unlink(a->tmp);
    errno = err;
}

int file_write_atomic(const char *path, const char *text, size_t len) {
    return file_write_atomic_why(path, text, len, NULL, 0);
}

int file_write_atomic_why(const char *path, const char *text, size_t len, char *failed, size_t n) {
    AtomicFile a;
    int rc = 0;
    if (!atomic_open(&a, path)) {
        rc = -1;
    } else if (len > 0 && fwrite(text, 1, len, a.f) != len) {
        atomic_discard(&a);
        if (!errno) errno = EIO;
        rc = -1;
    } else {
        rc = atomic_commit(&a, 0);
    }
    if (rc != 0 && failed && n > 0) {
        int err = errno;
        snprintf(failed, n, "%s", a.failed);
        errno = err;
    }
    return rc;
}

int file_open_log(const char *path, int fresh, char *why, size_t why_n) {
    if (claim_name(path) != 0) {
        snprintf(why, why_n, "%s", errno == EEXIST ? "not a file ./train wrote here" : strerror(errno));
        return -1;
    }
    if (fresh && unlink(path) != 0 && errno != ENOENT) {
        snprintf(why, why_n, "%s", strerror(errno));
        return -1;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
                            (fresh ? O_EXCL : 0), 0666);
    if (fd < 0) {
        int err = errno;
        if (err == ELOOP) snprintf(why, why_n, "a symbolic link: not written through");
        else snprintf(why, why_n, "%s", strerror(err));
        errno = err;
        return -1;
    }
    struct stat sb;
    int err = fstat(fd, &sb) != 0 ? errno : !S_ISREG(sb.st_mode) ? EINVAL : 0;
    if (err) {
        if (err == EINVAL) snprintf(why, why_n, "not a regular file");
        else snprintf(why, why_n, "%s", strerror(err));
        close(fd);
        errno = err;
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    wrote_name(path);
    return fd;
}

int file_remove_made(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return -1;
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return -1;
    }
    return unlink(path);
}
