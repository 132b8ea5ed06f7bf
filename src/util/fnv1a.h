/* fnv1a.h: FNV-1a, 64 bits, the one hash of a task file's bytes (the plan's task-file lines,
 * config.ini's task-file line, the checks of --resume, --eval and --sweep-run). Fed in pieces:
 * h = FNV1A64_BASIS, then h = fnv1a64(h, piece, n) for each piece in order. */
#ifndef SCALEDOT_FNV1A_H
#define SCALEDOT_FNV1A_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_BASIS 14695981039346656037ull

static inline uint64_t fnv1a64(uint64_t h, const void *bytes, size_t n) {
    const unsigned char *p = bytes;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

#endif
