/* owned_dir.c: the one owner rule of the folders ./train writes: the manifest, the checks, the
 * registry whole_write.c asks (see owned_dir.h). Reading order: lists of names, the manifest on
 * disk, the check, the registry, claiming and removing. */
#include "util/owned_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/dirs.h"
#include "util/error_list.h"
#include "util/file_check.h"
#include "util/run_lock.h"
#include "util/whole_write.h"

/* ------------------------------------------------------------------ lists of names */

typedef struct {
    char **v;
    int n, cap;
} Names;

static int names_has(const Names *l, const char *s) {
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0) return 1;
    return 0;
}

static int names_add(Names *l, const char *s) {
    if (names_has(l, s)) return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, sizeof *v * (size_t)cap);
        if (!v) return -1;
        l->v = v, l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(s))) return -1;
    l->n++;
    return 0;
}

static void names_drop(Names *l, const char *s) {
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0) {
            free(l->v[i]);
            l->v[i] = l->v[--l->n];
            return;
        }
}

static void names_free(Names *l) {
    for (int i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    *l = (Names){0};
}

int owned_name_matches(const char *pattern, const char *name) {
    const char *star = strchr(pattern, '*');
    if (!star) return strcmp(pattern, name) == 0;
    size_t pre = (size_t)(star - pattern), post = strlen(star + 1), n = strlen(name);
    if (n < pre + post || strncmp(name, pattern, pre) != 0 ||
        strcmp(name + n - post, star + 1) != 0)
        return 0;
    return memchr(name + pre, '/', n - pre - post) == NULL; /* '*' stays in its folder */
}

static int writer_uses(const OwnedWriter *w, const char *name) {
    for (int i = 0; i < w->n_names; i++)
        if (owned_name_matches(w->names[i], name)) return 1;
    return 0;
}

/* ------------------------------------------------------------------ the manifest on disk */

/* Reads dir's manifest into files (names) and writers ("@ID" lines). Returns 1 when there is
 * one, 0 when there is none, -1 when it cannot be read (a link, a folder, ...: why says). A
 * name that could leave the folder (absolute, or with a ".." part) is never taken. */
static int manifest_read(const char *dir, Names *files, Names *writers, char *why, size_t why_n) {
    char path[4200];
    snprintf(path, sizeof path, "%s/" OWNED_MANIFEST, dir);
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return 0;
        snprintf(why, why_n, "%s", strerror(errno));
        return -1;
    }
    size_t len;
    char *text = S_ISREG(st.st_mode) ? file_read_regular(path, FILE_MAX_TEXT_BYTES, &len, why, why_n)
                                     : NULL;
    if (!S_ISREG(st.st_mode)) snprintf(why, why_n, "not a regular file");
    if (!text) return -1;
    int rc = 1;
    for (char *line = text, *next; rc == 1 && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (!*line || line[0] == '#') continue;
        if (line[0] == '@') {
            if (names_add(writers, line + 1) != 0) rc = -1;
        } else if (line[0] != '/' && strcmp(line, "..") != 0 && strncmp(line, "../", 3) != 0 &&
                   !strstr(line, "/../") &&
                   !(strlen(line) >= 3 && strcmp(line + strlen(line) - 3, "/..") == 0)) {
            if (names_add(files, line) != 0) rc = -1;
        }
    }
    if (rc < 0) snprintf(why, why_n, "out of memory");
    free(text);
    return rc;
}

int owned_dir_writer(const char *dir, char *id, size_t n) {
    Names files = {0}, writers = {0};
    char why[128];
    int found = manifest_read(dir, &files, &writers, why, sizeof why) == 1 && writers.n > 0 &&
                (size_t)snprintf(id, n, "%s", writers.v[0]) < n;
    names_free(&files);
    names_free(&writers);
    return found;
}

static int manifest_write(const char *dir, const Names *files, const Names *writers) {
    char path[4200], *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/" OWNED_MANIFEST, dir);
    FILE *m = open_memstream(&text, &len);
    if (!m) return -1;
    fputs(OWNED_MANIFEST_HEAD "\n", m);
    for (int i = 0; i < writers->n; i++) fprintf(m, "@%s\n", writers->v[i]);
    for (int i = 0; i < files->n; i++) fprintf(m, "%s\n", files->v[i]);
    if (fclose(m) != 0 || !text) {
        free(text);
        errno = ENOMEM;
        return -1;
    }
    int rc = file_write_atomic(path, text, len);
    int err = errno;
    free(text);
    errno = err;
    return rc;
}

/* ------------------------------------------------------------------ the check */

/* Each file in dir under one of w's names (the folder part of a name with a '/' looked into),
 * its name relative to dir given to fn(ctx, name); stops at fn's nonzero return. */
static int each_file_named(const char *dir, const OwnedWriter *w,
                           int (*fn)(void *ctx, const char *name), void *ctx) {
    for (int i = 0; i < w->n_names; i++) {
        const char *pat = w->names[i], *slash = strrchr(pat, '/');
        int part = slash ? (int)(slash - pat) : 0;
        char sub[4200], name[4200];
        snprintf(sub, sizeof sub, "%s%s%.*s", dir, part ? "/" : "", part, pat);
        DIR *d = opendir(sub);
        if (!d) continue;
        int stop = 0;
        for (struct dirent *e; !stop && (e = readdir(d));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(name, sizeof name, "%.*s%s%s", part, pat, part ? "/" : "", e->d_name);
            /* a name of an earlier pattern was seen there */
            int seen = 0;
            for (int k = 0; k < i && !seen; k++) seen = owned_name_matches(w->names[k], name);
            if (!seen && owned_name_matches(pat, name)) stop = fn(ctx, name);
        }
        closedir(d);
        if (stop) return stop;
    }
    return 0;
}

typedef struct {
    const char *dir;
    const OwnedWriter *w;
    Names files;     /* the manifest's names, and the adopted ones */
    int legacy;      /* this writer has not taken the folder since it has a manifest */
    int adopted;     /* names added by adoption */
    char first[256]; /* the first file (strcmp order) that is not ours */
} Check;

static int check_one(void *ctx, const char *name) {
    Check *c = ctx;
    /* a name of ours, whatever is there now (a link is replaced, never followed) */
    if (names_has(&c->files, name)) return 0;
    if (c->legacy && c->w->adopt && c->w->adopt(c->dir, name)) {
        c->adopted++;
        return names_add(&c->files, name) != 0;
    }
    if (!c->first[0] || strcmp(name, c->first) < 0) snprintf(c->first, sizeof c->first, "%s", name);
    return 0;
}

/* -1 after an error when dir's lock file (util/run_lock.h) is a symbolic link: the lock of a
 * run, sweep or report folder is taken in it, never through a link; else 0. */
static int lock_is_link(const char *dir, const OwnedWriter *w, const char *where) {
    char lock[4200];
    struct stat st;
    snprintf(lock, sizeof lock, "%s/" RUN_LOCK_FILE, dir);
    if (lstat(lock, &st) != 0 || !S_ISLNK(st.st_mode)) return 0;
    error_add(NULL, 0, where, "'%s' is a symbolic link, and the %s's lock is never taken through "
                              "one. Remove the link (the lock file is made anew); nothing was "
                              "written", lock, w->what);
    return -1;
}

/* The check of owned_dir_check, its errors at where; on success (0) c->files and writers hold
 * the manifest as it is to be, the caller frees them. */
static int check_folder(const char *dir, const OwnedWriter *w, const char *where, Check *c,
                        Names *writers) {
    *c = (Check){.dir = dir, .w = w};
    *writers = (Names){0};
    if (dirs_refuse_link(dir, w->what, where) != 0) return -1;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return 0; /* made later, or make_dirs says */
    if (lock_is_link(dir, w, where) != 0) return -1;
    char why[128];
    int have = manifest_read(dir, &c->files, writers, why, sizeof why);
    if (have < 0) {
        error_add(NULL, 0, where, "'%s/" OWNED_MANIFEST "' cannot be read (%s): the list of the "
                                  "files ./train wrote in this %s. Move it away, or use another "
                                  "folder; nothing was written", dir, why, w->what);
        names_free(&c->files);
        names_free(writers);
        return -1;
    }
    c->legacy = !names_has(writers, w->id);
    if (each_file_named(dir, w, check_one, c) != 0) {
        error_add(NULL, 0, where, "out of memory checking '%s'", dir);
        c->first[0] = 0;
        names_free(&c->files);
        names_free(writers);
        return -1;
    }
    if (!c->first[0]) return 0;
    error_add(NULL, 0, where, "'%s/%s' is not a file %s wrote, and %s. %s; nothing was written",
              dir, c->first, w->who, w->would, w->advice);
    names_free(&c->files);
    names_free(writers);
    return -1;
}

int owned_dir_check(const char *dir, const OwnedWriter *w, const char *where) {
    Check c;
    Names writers;
    if (check_folder(dir, w, where, &c, &writers) != 0) return -1;
    names_free(&c.files);
    names_free(&writers);
    return 0;
}

/* ------------------------------------------------------------------ the registry */

#define OWNED_MAX 8

typedef struct {
    int used;
    char dir[4096];
    const OwnedWriter *w;
    int lock_fd;
    Names written; /* names this process wrote whole since owned_dir_open */
} Entry;

static Entry g_reg[OWNED_MAX];

int owned_dir_open(const char *dir, const OwnedWriter *w, int lock, const char *where) {
    int h = 0;
    while (h < OWNED_MAX && g_reg[h].used) h++;
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    if (h == OWNED_MAX || n >= sizeof g_reg[h].dir) {
        error_add(NULL, 0, where, "cannot open %s '%s': %s", w->what, dir,
                  h == OWNED_MAX ? "too many open" : strerror(ENAMETOOLONG));
        return -1;
    }
    Entry *e = &g_reg[h];
    *e = (Entry){.w = w, .lock_fd = -1};
    memcpy(e->dir, dir, n);
    e->dir[n] = 0;
    if (lock) {
        pid_t holder = 0;
        for (int said = 0; (e->lock_fd = run_lock_take(e->dir, &holder)) == -2 &&
                           lock == OWNED_LOCK_WAIT; said = 1) {
            if (!said)
                fprintf(stderr, "note: %s '%s' is being written by another process (pid %ld); "
                                "waiting for it to end\n", w->what, SHOWN(dir), (long)holder);
            struct timespec nap = {0, 100000000};
            nanosleep(&nap, NULL);
        }
        if (e->lock_fd == -2) {
            error_add(NULL, 0, where, "%s '%s' is being written by another process (pid %ld); wait "
                                      "for it to end, or use another folder; nothing was written",
                      w->what, dir, (long)holder);
            return -2;
        }
        if (e->lock_fd == -1) {
            error_add(NULL, 0, where, "cannot lock %s '%s': %s", w->what, dir, strerror(errno));
            return -1;
        }
    }
    Check c;
    Names writers;
    if (check_folder(e->dir, w, where, &c, &writers) != 0) {
        if (e->lock_fd >= 0) close(e->lock_fd);
        return -2;
    }
    int rc = 0;
    if (c.legacy) { /* taken by this writer from now on: its files are the manifest's */
        rc = names_add(&writers, w->id) != 0 ? -1 : manifest_write(e->dir, &c.files, &writers);
        if (rc) error_add(NULL, 0, where, "cannot write '%s/" OWNED_MANIFEST "': %s", e->dir,
                          strerror(errno));
    }
    names_free(&c.files);
    names_free(&writers);
    if (rc) {
        if (e->lock_fd >= 0) close(e->lock_fd);
        return -1;
    }
    e->used = 1;
    /* every file the one writer creates asks the rule first, and is recorded once written */
    file_write_set_owner_rule(&(FileOwnerRule){owned_claim, owned_wrote});
    return h;
}

void owned_dir_close(int h) {
    if (h < 0 || h >= OWNED_MAX || !g_reg[h].used) return;
    Entry *e = &g_reg[h];
    if (e->lock_fd >= 0) close(e->lock_fd);
    names_free(&e->written);
    e->used = 0;
}

/* The registered folder path lies in under a name of its writer's (*name: that name), or NULL. */
static Entry *entry_of(const char *path, const char **name) {
    for (int h = 0; h < OWNED_MAX; h++) {
        Entry *e = &g_reg[h];
        size_t n = strlen(e->dir);
        if (!e->used || strncmp(path, e->dir, n) != 0 || path[n] != '/') continue;
        const char *rel = path + n;
        while (*rel == '/') rel++;
        if (writer_uses(e->w, rel)) {
            *name = rel;
            return e;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ claiming and removing */

int owned_claim(const char *path) {
    const char *name;
    Entry *e = entry_of(path, &name);
    if (!e) return 0;
    Names files = {0}, writers = {0};
    char why[128];
    int rc = manifest_read(e->dir, &files, &writers, why, sizeof why) < 0 ? -1 : 0;
    if (rc) errno = EIO;
    struct stat st;
    if (!rc && !names_has(&files, name)) {
        if (lstat(path, &st) == 0) {
            errno = EEXIST; /* not ours: it appeared after the folder was checked */
            rc = -1;
        } else {
            rc = names_add(&files, name) != 0 || names_add(&writers, e->w->id) != 0
                     ? -1
                     : manifest_write(e->dir, &files, &writers);
        }
    }
    int err = errno;
    names_free(&files);
    names_free(&writers);
    errno = err;
    return rc;
}

void owned_wrote(const char *path) {
    const char *name;
    Entry *e = entry_of(path, &name);
    if (e && names_add(&e->written, name) != 0) { /* out of memory: counted as not written,
                                                      so at worst removed as stale */ }
}

int owned_remove(const char *path) {
    const char *name;
    Entry *e = entry_of(path, &name);
    if (!e) return 1;
    Names files = {0}, writers = {0};
    char why[128];
    if (manifest_read(e->dir, &files, &writers, why, sizeof why) <= 0 || !names_has(&files, name)) {
        names_free(&files);
        names_free(&writers);
        return 1;
    }
    struct stat st;
    int rc = 0;
    if (lstat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && !(st.st_mode & 0222))) rc = 1;
        else if (unlink(path) != 0) rc = -1; /* a link is removed, never followed */
    }
    if (rc == 0) {
        names_drop(&files, name);
        if (manifest_write(e->dir, &files, &writers) != 0) rc = -1;
    }
    int err = errno;
    names_free(&files);
    names_free(&writers);
    errno = err;
    return rc;
}

int owned_dir_remove_stale(int h, const char *const *names, int n) {
    if (h < 0 || h >= OWNED_MAX || !g_reg[h].used) return 0;
    Entry *e = &g_reg[h];
    Names files = {0}, writers = {0};
    char why[128], path[8400];
    int removed = 0;
    if (manifest_read(e->dir, &files, &writers, why, sizeof why) > 0)
        for (int i = 0; i < files.n; i++) {
            int match = 0;
            for (int k = 0; k < n && !match; k++) match = owned_name_matches(names[k], files.v[i]);
            if (!match || names_has(&e->written, files.v[i])) continue;
            snprintf(path, sizeof path, "%s/%s", e->dir, files.v[i]);
            removed += owned_remove(path) == 0;
        }
    names_free(&files);
    names_free(&writers);
    return removed;
}
