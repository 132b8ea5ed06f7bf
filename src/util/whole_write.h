/* whole_write.h: the one way scaledot WRITES a file: a whole file through a temporary file and a
 * rename (readers see the old file or the new one, never a torn or 0-byte one), a log by
 * appending whole rows. Neither ever writes through a symbolic link: the temporary file is
 * created with O_EXCL (which refuses an existing name, a link included), a rename replaces a link
 * at the destination instead of following it, and a log is opened with O_NOFOLLOW and refused
 * unless it is a regular file. */
#ifndef SCALEDOT_WHOLE_WRITE_H
#define SCALEDOT_WHOLE_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* Writes text[0..len) (one or more '\n'-terminated rows) at the end of the file open for writing
 * on fd, with write(2) directly (no stdio buffer that could be flushed half later). When a write
 * fails part way (a full disk: ENOSPC, a file-size limit: EFBIG), the file is cut back to the end
 * of the last whole row it holds, so a reader never sees half a row. Returns 0, or -1 with errno
 * of the failed write (the file then ends where it ended before, plus any whole rows of text). */
int whole_write(int fd, const char *text, size_t len);

/* The temporary file of a whole-file write is NAME.tmp.PID.K beside NAME: PID the writing
 * process's id, K the first of 0, 1, 2, ... whose name is free (created with O_CREAT | O_EXCL |
 * O_NOFOLLOW, so a name that exists, a link included, is never opened: the next K is tried).
 * Why this, and not one fixed NAME.tmp: two processes writing one file at once (two --compare
 * into one folder, a sweep and a run by hand) each write a temporary file of their own, and the
 * rename publishes one whole version, never the other's half. Why the pid, and not mkstemp's
 * random letters: a leftover says which process left it. A leftover of a killed writer is never
 * removed (it may be a live writer's of another PID namespace sharing the folder), never listed
 * in a folder's manifest (owned_dir.h claims NAME, not its temporary name), never read, and
 * never blocks a write (its name is skipped); atomic_is_temp_name lets a folder check pass over
 * it. NAME is cut, in the temporary name only, so that it fits one file name (NAME_MAX). */
#define ATOMIC_TEMP_MARK ".tmp."

/* The most bytes the temporary name adds to NAME's path: ATOMIC_TEMP_MARK, then PID and K in at
 * most 10 digits each (a pid_t and an int), and the '.' between them. A command that will write
 * a path checks that it fits with these before any work starts (a path that fits PATH_MAX alone
 * would fail at its temporary name, after the work). */
#define ATOMIC_TEMP_SUFFIX_MAX (sizeof ATOMIC_TEMP_MARK - 1 + 10 + 1 + 10)

/* Temporary names (K = 0 .. ATOMIC_TEMP_TRIES - 1) tried before atomic_open gives up with
 * EEXIST: only leftovers of earlier processes that had this pid, or planted names, take them. */
#define ATOMIC_TEMP_TRIES 100

/* The temporary name of attempt k for path, by process pid, into out[0..n). Returns 0, or -1
 * (ENAMETOOLONG) when it does not fit. */
int atomic_temp_name(const char *path, long pid, int k, char *out, size_t n);

/* 1 when name (a file name, no folder) is a temporary name of atomic_open's: NAME.tmp.PID.K, or
 * NAME.tmp of a version before it; else 0. */
int atomic_is_temp_name(const char *name);

/* 1 when name is a temporary name of atomic_open's for the file named of (no folder):
 * of.tmp.PID.K, or of.tmp of a version before it; else 0. Why beside atomic_is_temp_name: a
 * folder check that passes over leftovers must pass over only its own files' (a user's
 * "thesis.tmp" is the user's file, not a leftover of ours). */
int atomic_is_temp_name_of(const char *name, const char *of);

/* A file being written whole: the stream writes the temporary file (above), atomic_commit
 * renames it over PATH. */
typedef struct {
    FILE *f;
    char path[4096], tmp[4096 + 48];
    const char *failed; /* after a failure: tmp or path, the file it was at (for the message) */
} AtomicFile;

/* Starts writing path: creates its temporary file (above; mode 0666 less the umask). Returns the
 * stream to write to (also a->f), or NULL with errno set (ENAMETOOLONG for a path of 4096 bytes
 * or more; EACCES when path is a regular file without any write permission bit, made read-only
 * to keep it, also when running as root) and nothing created. */
FILE *atomic_open(AtomicFile *a, const char *path);

/* Flushes and closes the stream (fsync first when sync is nonzero) and renames the temporary
 * file over path, replacing whatever was there (a symbolic link is replaced, the file it points
 * at is not touched). Returns 0, or -1 with errno of the first failure (a full disk: ENOSPC),
 * path left as it was and the temporary file removed. */
int atomic_commit(AtomicFile *a, int sync);

/* atomic_commit for a file that must be new: the temporary file is linked to path (link(2)),
 * which fails with EEXIST instead of replacing anything that appeared at path meanwhile (a
 * file, a folder, a link: none is touched), then removed. Why beside atomic_commit: --export
 * never overwrites, and its temporary file is named and created as every other's (above).
 * Returns 0, or -1 with errno (the first failure) and path as it was. */
int atomic_commit_new(AtomicFile *a, int sync);

/* Abandons the write: closes the stream and removes the temporary file; path is left as it was. */
void atomic_discard(AtomicFile *a);

/* Replaces the file at path with text[0..len) whole (atomic_open, one write, atomic_commit).
 * Returns 0, or -1 with errno set, path unchanged and no temporary file left. Prints nothing. */
int file_write_atomic(const char *path, const char *text, size_t len);

/* file_write_atomic that also names, on failure, the file the failure was at in failed[0..n):
 * the temporary file when it could not be created or written (a full disk), else path (made
 * read-only, or the rename onto it refused), so that the message names the file to look at. */
int file_write_atomic_why(const char *path, const char *text, size_t len, char *failed, size_t n);

/* Opens the log at path for appending with whole_write: O_WRONLY | O_APPEND | O_CREAT, never
 * through a symbolic link (O_NOFOLLOW) and only when it is a regular file (checked on the open
 * descriptor; a FIFO is opened with O_NONBLOCK so that it cannot block). With fresh nonzero, a
 * file already at path is first removed (a link is removed, not followed) and the log starts
 * empty. Returns the descriptor (close-on-exec), or -1 with a short reason in why[0..why_n)
 * ("a symbolic link: not written through", "not a regular file", strerror text) and errno. */
int file_open_log(const char *path, int fresh, char *why, size_t why_n);

/* Removes path, a regular file this very command created a moment ago (an export whose second
 * file failed: no half export is left); a link or anything else there is left alone. Returns 0,
 * or -1 with errno. */
int file_remove_made(const char *path);

/* The owner rule of the folders the program writes (util/owned_dir.h), as this writer asks it:
 * claim before a file is created under a name (0: it may be written, else -1 with errno), wrote
 * after it was written whole. owned_dir_open sets it (owned_claim, owned_wrote): passed in, not
 * called, because owned_dir.c writes its manifest through this writer. Until it is set every
 * name may be written and nothing is recorded (no folder is under the rule then). */
typedef struct {
    int (*claim)(const char *path);
    void (*wrote)(const char *path);
} FileOwnerRule;

void file_write_set_owner_rule(const FileOwnerRule *rule);

#endif
