/* file_check.h: the one way scaledot opens a file to READ it (a config, a task file, a
 * checkpoint, a log, a sweep's plan.txt, sweep.csv or sweep_result.txt): only when it is a
 * regular file, and only up to a size bound.
 *
 * fopen of a FIFO blocks until a writer appears, and /dev/zero or /dev/urandom never end: read
 * until memory runs out. The type is checked on the open descriptor (O_NONBLOCK, so a FIFO opens
 * at once), before a byte is read. */
#ifndef SCALEDOT_FILE_CHECK_H
#define SCALEDOT_FILE_CHECK_H

#include <stddef.h>
#include <stdio.h>

/* Bounds for the files scaledot reads back: a run's CSV logs and a sweep's sweep.csv (bytes). */
#define FILE_MAX_LOG_BYTES ((size_t)1 << 30)
/* ... and its small text files: config.ini, plan.txt, sweep_result.txt, sweep_wall.txt. */
#define FILE_MAX_TEXT_BYTES ((size_t)1 << 24)

/* Opens path for reading when it is a regular file of at most max_bytes bytes. Returns the
 * descriptor, or -1 with a short reason in why[0..why_n) and errno set: the open's own errno
 * (ENOENT for a missing file, ...), EINVAL for "not a regular file (a FIFO)", "... (a character
 * device)", "... (a folder)", ..., or EFBIG for "larger than N bytes". */
int file_open_regular(const char *path, size_t max_bytes, char *why, size_t why_n);

/* file_open_regular as a stdio stream ("r") for readers that go line by line; NULL as above. A
 * regular file ends: it can grow only as fast as some process appends to it. */
FILE *file_fopen_regular(const char *path, size_t max_bytes, char *why, size_t why_n);

/* Reads the regular file at path whole into a malloc'd buffer with a NUL after the last byte
 * (the caller frees it); *len gets the size in bytes. Returns NULL, with a short reason in
 * why[0..why_n), errno set and nothing allocated, when the file cannot be opened or read
 * (strerror text), is not a regular file or larger than max_bytes (file_open_regular), or
 * memory runs out ("out of memory", ENOMEM). */
char *file_read_regular(const char *path, size_t max_bytes, size_t *len, char *why, size_t why_n);

#endif
