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

/* A file being written whole: the stream writes PATH.tmp, atomic_commit renames it over PATH. */
typedef struct {
    FILE *f;
    char path[4096], tmp[4100];
    const char *failed; /* after a failure: tmp or path, the file it was at (for the message) */
} AtomicFile;

/* Starts writing path: removes a stale path.tmp (a link there is removed, not followed) and
 * creates it anew (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0666 less the umask). Returns the stream
 * to write to (also a->f), or NULL with errno set (ENAMETOOLONG for a path of 4096 bytes or
 * more; EACCES when path is a regular file without any write permission bit, made read-only to
 * keep it, also when running as root) and nothing created. */
FILE *atomic_open(AtomicFile *a, const char *path);

/* Flushes and closes the stream (fsync first when sync is nonzero) and renames path.tmp over
 * path, replacing whatever was there (a symbolic link is replaced, the file it points at is not
 * touched). Returns 0, or -1 with errno of the first failure (a full disk: ENOSPC), path left as
 * it was and path.tmp removed. */
int atomic_commit(AtomicFile *a, int sync);

/* Abandons the write: closes the stream and removes path.tmp; path is left as it was. */
void atomic_discard(AtomicFile *a);

/* Replaces the file at path with text[0..len) whole (atomic_open, one write, atomic_commit).
 * Returns 0, or -1 with errno set, path unchanged and no path.tmp left. Prints nothing. */
int file_write_atomic(const char *path, const char *text, size_t len);

/* file_write_atomic that also names, on failure, the file the failure was at in failed[0..n):
 * path.tmp when the temporary file could not be removed, created or written (a folder of that
 * name, a full disk), else path (made read-only, or the rename onto it refused), so that the
 * message names the file to look at. */
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
