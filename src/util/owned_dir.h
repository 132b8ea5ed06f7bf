/* owned_dir.h: the one owner rule of every folder ./train writes (a run folder, a sweep folder, a
 * --compare report, a regime map): what a writer wrote there is listed in the folder's manifest,
 * OWNED_MANIFEST, one name a line; a writer replaces or removes only what the manifest names, and
 * refuses, before it writes anything, a folder that holds a file it did not write under a name it
 * would use. Files under other names are never touched.
 *
 * How it is used: a writer describes itself (OwnedWriter: the names it uses), checks the folder
 * (owned_dir_check) before any work, and opens it (owned_dir_open: created, optionally locked
 * like a run folder, checked again, registered) before it writes. While a folder is registered,
 * util/whole_write.c asks owned_claim before it creates a file there (the name is added to the
 * manifest first, so a write cut short leaves a name the manifest still claims, never a file of
 * ours it does not) and tells owned_wrote after each file written whole; owned_remove removes a
 * file only when the manifest names it. tests/test_owned_dir.c greps src/ for writes that bypass
 * these.
 *
 * A folder without a manifest was written by a version before it (or not by us): a file under a
 * name the writer uses is adopted when the writer's adopt() says its content is one it writes
 * (an SVG svg.c began, a config.ini config_write began, ...), else the folder is refused. */
#ifndef SCALEDOT_OWNED_DIR_H
#define SCALEDOT_OWNED_DIR_H

#include <stddef.h>

/* The manifest's name inside each folder. */
#define OWNED_MANIFEST ".scaledot-manifest"

/* The first line of every manifest (a comment: '#' lines are skipped when it is read). */
#define OWNED_MANIFEST_HEAD "# files ./train wrote in this folder; it replaces or removes only these"

/* One writer of a folder. Several may share one (a run folder: ./train and a sweep's run
 * command); the manifest lists, on lines "@ID", the writers that have taken the folder since it
 * has one, so that each adopts its own files of an earlier version once. */
typedef struct {
    const char *id;             /* the writer's name in the manifest: "compare", "run" */
    const char *what;           /* "report folder", "run folder": the messages' word for it */
    const char *who;            /* "./train --compare": "'DIR/NAME' is not a file WHO wrote" */
    const char *would;          /* "the report would replace it" */
    const char *const *names;   /* the names it writes: exact, or with one '*' (any characters
                                   but '/'), relative to the folder: "sweep_*.svg" */
    int n_names;
    /* for a folder without a manifest: 1 when dir/name (a name of names[], present) holds what
     * this writer writes there, so that it is adopted; NULL adopts nothing */
    int (*adopt)(const char *dir, const char *name);
    const char *advice;         /* the refusal's last words: what to do ("Use another --out, or
                                   move it away") */
} OwnedWriter;

/* 1 when name matches pattern (names[] syntax above), else 0. */
int owned_name_matches(const char *pattern, const char *name);

/* Checks, writing nothing, that w may write into dir: dir is no symbolic link nor under one
 * (util/dirs.h), its lock file (util/run_lock.h) no symbolic link, and every file in it under a
 * name of w's is listed in its manifest, or (no manifest) adopted. Returns 0 (also for a folder
 * that does not exist yet), or -1 after an error on stderr at where (error_add's place: the
 * argument that named dir, "--resume (argument 2)"; NULL: none) naming the folder, the first
 * such file (strcmp order) and w->advice, or the linked lock file. */
int owned_dir_check(const char *dir, const OwnedWriter *w, const char *where);

/* lock of owned_dir_open: none (the caller holds the folder's lock: a run folder), the lock or a
 * refusal when another process holds it, the lock once the other process lets it go (a report
 * folder: two --compare into one folder at once write one after the other). */
enum { OWNED_NO_LOCK = 0, OWNED_LOCK = 1, OWNED_LOCK_WAIT = 2 };

/* Opens dir (which must exist) for w: with lock (above) takes its lock (util/run_lock.h: the
 * lock a run folder has while it trains), checks it again under the lock (owned_dir_check),
 * writes the manifest of a folder whose files were adopted, and registers it, so that
 * whole_write.c's writes into it are claimed. Returns a handle >= 0, -2 when refused (another
 * process holds the lock: said, with its pid; or the check failed) or -1 on an I/O error
 * (said; each at where, as owned_dir_check). */
int owned_dir_open(const char *dir, const OwnedWriter *w, int lock, const char *where);

/* Removes every file the manifest names that matches one of names[0..n) (patterns as in
 * OwnedWriter) and that this process has not written since owned_dir_open: an earlier report's
 * figure this one did not draw, an earlier run's checkpoint. A read-only one is kept, as every
 * whole-file write keeps it. Returns the number removed. */
int owned_dir_remove_stale(int h, const char *const *names, int n);

/* The id of the first writer dir's manifest lists (its first "@ID" line: the writer that made
 * the folder, "run", "sweep", "compare", ...) into id (n bytes). Returns 1, or 0 when dir has no
 * readable manifest or it lists no writer (id then unset). */
int owned_dir_writer(const char *dir, char *id, size_t n);

/* Unregisters the folder and releases its lock. Harmless on -1 and -2. */
void owned_dir_close(int h);

/* For util/whole_write.c, before it creates path: 0 when path lies in no registered folder
 * under one of its writer's names, or its name is in the manifest, or nothing is at path (the
 * name is then added to the manifest before returning); -1 with errno EEXIST when a file not in
 * the manifest is there (it appeared after the check), or errno of a manifest write. */
int owned_claim(const char *path);

/* For util/whole_write.c: path (claimed) was written whole by this process. */
void owned_wrote(const char *path);

/* Removes path when a registered folder's manifest names it (and drops it from the manifest);
 * a file the manifest does not name, or a read-only one, is kept. Returns 0 (removed, or
 * nothing there), 1 (kept), or -1 with errno. */
int owned_remove(const char *path);

#endif
