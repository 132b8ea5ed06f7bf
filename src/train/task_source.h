/* task_source.h: which task file a run was trained on. For task.name = file or text, each run's
 * config.ini and checkpoint carry a comment line
 *     ; task file: /absolute/path fnv1a64 0123456789abcdef
 * (the file's absolute path and a 64-bit FNV-1a hash of its bytes), and --resume and --eval
 * compare it with the file they are about to read: different content is refused (the numbers
 * would belong to another task), a different path with the same content is only noted (a run
 * folder and its file moved together). A checkpoint without the line (before 0.11) is not
 * checked. */
#ifndef SCALEDOT_TASK_SOURCE_H
#define SCALEDOT_TASK_SOURCE_H

#include <stdint.h>
#include <stdio.h>

#include "config/config.h"

#define TASK_SOURCE_PREFIX "; task file: "

/* FNV-1a, 64 bits, of the whole file at path into *hash. Returns 0, or -1 (errno set). */
int task_source_hash(const char *path, uint64_t *hash);

/* Writes the comment line for c's task file to f (nothing unless task.name = file or text), with
 * hash the hash of the bytes the task was built from (Task.file_hash): never the file read a
 * second time, which may have changed since. */
void task_source_write(FILE *f, const Config *c, uint64_t hash);

/* Compares the line in stored (a checkpoint's configuration text) with c's task file now. what
 * names the command ("--resume", "--eval") for the message. Returns 0 (same, moved with the same
 * content: a note on stderr, or nothing to compare), or -1 after an error naming both paths
 * when the content differs or the file cannot be read. */
int task_source_check(const char *stored, const Config *c, const char *what);

/* The absolute path in stored's task-file line (a checkpoint's configuration text) into buf.
 * Returns 0, or -1 when there is no such line or the path does not fit n. */
int task_source_stored_path(const char *stored, char *buf, size_t n);

#endif
