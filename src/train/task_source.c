/* task_source.c: the task file's path and content hash, written and checked (task_source.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "train/task_source.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_list.h"
#include "util/file_check.h"
#include "util/fnv1a.h"

int task_source_hash(const char *path, uint64_t *hash) {
    char why[128]; /* regular files only, 1 GiB as the task file's loader (tasks/file_parse.c) */
    FILE *f = file_fopen_regular(path, FILE_MAX_LOG_BYTES, why, sizeof why);
    if (!f) return -1;
    uint64_t h = FNV1A64_BASIS;
    unsigned char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) h = fnv1a64(h, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        errno = EIO;
        return -1;
    }
    *hash = h;
    return 0;
}

/* The tasks that read task.file: file and text. */
static int reads_file(const Config *c) { return c->task == TASK_FILE || c->task == TASK_TEXT; }

/* The absolute path of c's task file (realpath), or the path as given when that fails. */
static void absolute(const Config *c, char *out, size_t n) {
    char buf[PATH_MAX];
    snprintf(out, n, "%s", realpath(c->task_file, buf) ? buf : c->task_file);
}

void task_source_write(FILE *f, const Config *c, uint64_t h) {
    if (!reads_file(c)) return;
    char abs[PATH_MAX];
    absolute(c, abs, sizeof abs);
    /* one line: a newline in the path would end the comment */
    fputs(TASK_SOURCE_PREFIX, f);
    for (const char *p = abs; *p; p++) fputc(*p == '\n' || *p == '\r' ? '?' : *p, f);
    fprintf(f, " fnv1a64 %016llx\n", (unsigned long long)h);
}

int task_source_check(const char *stored, const Config *c, const char *what) {
    if (!reads_file(c) || !stored) return 0;
    const char *line = NULL;
    size_t plen = strlen(TASK_SOURCE_PREFIX);
    for (const char *p = stored; *p;) {
        if (strncmp(p, TASK_SOURCE_PREFIX, plen) == 0) {
            line = p + plen;
            break;
        }
        p += strcspn(p, "\n");
        if (*p) p++;
    }
    if (!line) return 0; /* a checkpoint from before the line existed */
    size_t len = strcspn(line, "\n");
    const char *tag = NULL;
    for (const char *q = line; q + 8 <= line + len; q++)
        if (strncmp(q, " fnv1a64 ", 9) == 0) tag = q; /* the last one: the path may hold spaces */
    if (!tag) return 0;
    char then_path[PATH_MAX], now_path[PATH_MAX];
    snprintf(then_path, sizeof then_path, "%.*s", (int)(tag - line), line);
    unsigned long long then_hash = strtoull(tag + 9, NULL, 16);
    uint64_t now_hash;
    if (task_source_hash(c->task_file, &now_hash) != 0) {
        /* EINVAL, EFBIG: refused by util/file_check.h before a byte was read */
        error_add(NULL, 0, NULL, "%s: the run was trained on task.file '%s' (%s), which cannot be "
                                 "read now: %s", what, c->task_file, then_path,
                  errno == EINVAL ? "not a regular file (a FIFO, a device or a folder)"
                  : errno == EFBIG ? "larger than 1 GiB" : strerror(errno));
        return -1;
    }
    absolute(c, now_path, sizeof now_path);
    if (now_hash != then_hash) {
        error_add(NULL, 0, NULL, "%s: task.file '%s' changed since the run was trained on it (hash "
                                 "%016llx then, %016llx now; trained on %s); its numbers would "
                                 "belong to another task. Restore the file, or train a new run on "
                                 "it",
                  what, now_path, then_hash, (unsigned long long)now_hash, then_path);
        return -1;
    }
    if (strcmp(now_path, then_path) != 0)
        fprintf(stderr, "note: %s: task.file is now %s (trained on %s); same content\n", what,
                SHOWN(now_path), SHOWN(then_path));
    return 0;
}

int task_source_stored_path(const char *stored, char *buf, size_t n) {
    size_t plen = strlen(TASK_SOURCE_PREFIX);
    for (const char *p = stored; p && *p;) {
        if (strncmp(p, TASK_SOURCE_PREFIX, plen) == 0) {
            const char *line = p + plen, *tag = NULL;
            size_t len = strcspn(line, "\n");
            for (const char *q = line; q + 9 <= line + len; q++)
                if (strncmp(q, " fnv1a64 ", 9) == 0) tag = q; /* the last: paths may hold spaces */
            if (!tag || (size_t)(tag - line) >= n) return -1;
            memcpy(buf, line, (size_t)(tag - line));
            buf[tag - line] = '\0';
            return 0;
        }
        p += strcspn(p, "\n");
        if (*p) p++;
    }
    return -1;
}
