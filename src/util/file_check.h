/* file_check.h: reading a whole input file (a config, a task file, a checkpoint) only when it is
 * a regular file, and only up to a size bound.
 *
 * fopen of a FIFO blocks until a writer appears, and /dev/zero or /dev/urandom never end: read
 * until memory runs out. The type is checked on the open descriptor (O_NONBLOCK, so a FIFO opens
 * at once), before a byte is read. */
#ifndef SCALEDOT_FILE_CHECK_H
#define SCALEDOT_FILE_CHECK_H

#include <stddef.h>

/* Reads the regular file at path whole into a malloc'd buffer with a NUL after the last byte
 * (the caller frees it); *len gets the size in bytes. Returns NULL, with a short reason in
 * why[0..why_n) and nothing allocated, when the file cannot be opened or read (strerror text),
 * is not a regular file ("not a regular file (a FIFO)", "... (a character device)", "... (a
 * folder)", ...), is larger than max_bytes ("larger than N bytes"), or memory runs out. */
char *file_read_regular(const char *path, size_t max_bytes, size_t *len, char *why, size_t why_n);

#endif
