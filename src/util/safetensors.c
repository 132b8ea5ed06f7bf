/* safetensors.c: the safetensors writer (safetensors.h): JSON header, little-endian data, a new
 * file made whole in a temporary file first. */
#include "util/safetensors.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error_list.h"
#include "util/whole_write.h"

_Static_assert(sizeof(float) == 4, "F32 tensors are written from 4-byte floats");

/* Length of the valid UTF-8 sequence at s (2 to 4 bytes; RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when s[0] does not start one. */
static int utf8_sequence(const unsigned char *s) {
    unsigned c = s[0];
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0; /* a NUL ends the string here too */
    if (n == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))) return 0;
    if (n == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))) return 0;
    return n;
}

int safetensors_json_string(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    int bad = fputc('"', f) == EOF;
    while (*p && !bad) {
        unsigned c = *p;
        int n;
        if (c == '"' || c == '\\') {
            bad = fprintf(f, "\\%c", c) < 0;
        } else if (c < 0x20) {
            const char *esc = c == '\b' ? "\\b" : c == '\f' ? "\\f" : c == '\n' ? "\\n"
                            : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
            bad = esc ? fputs(esc, f) == EOF : fprintf(f, "\\u%04x", c) < 0;
        } else if (c < 0x80) {
            bad = fputc((int)c, f) == EOF;
        } else if ((n = utf8_sequence(p)) > 0) {
            bad = fwrite(p, 1, (size_t)n, f) != (size_t)n;
            p += n - 1;
        } else {
            bad = fprintf(f, "\\u%04x", c) < 0; /* not UTF-8: the byte read as Latin-1 */
        }
        p++;
    }
    return bad || fputc('"', f) == EOF ? -1 : 0;
}

/* Elements of t, or 0 with *ok = 0 when the product overflows. */
static size_t numel(const SafetensorsTensor *t, int *ok) {
    size_t n = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] != 0 && n > SIZE_MAX / 4 / t->shape[d]) *ok = 0;
        n *= t->shape[d];
    }
    return *ok ? n : 0;
}

/* Checks the tensors (names, ndim, sizes); -1 after a message. */
static int check_tensors(const char *path, const SafetensorsTensor *t, int n) {
    for (int i = 0; i < n; i++) {
        int ok = 1;
        const char *why = NULL;
        if (!t[i].name || !*t[i].name) why = "has no name";
        else if (strcmp(t[i].name, "__metadata__") == 0) why = "has the reserved name __metadata__";
        else if (t[i].ndim < 0 || t[i].ndim > SAFETENSORS_MAX_DIMS) why = "has too many dimensions";
        else if (t[i].dtype != SAFETENSORS_F32 && t[i].dtype != SAFETENSORS_I32) why = "has an unknown dtype";
        else if ((void)numel(&t[i], &ok), !ok) why = "is too large";
        else if (!t[i].data) why = "has no data";
        for (int j = 0; j < i && !why; j++)
            if (strcmp(t[i].name, t[j].name) == 0) why = "is named twice";
        if (why) {
            error_add(NULL, 0, NULL, "cannot write '%s': tensor %d ('%s') %s", path, i,
                      t[i].name ? t[i].name : "", why);
            return -1;
        }
    }
    return 0;
}

/* The JSON header, padded with spaces so that 8 + its length is a multiple of 8 (malloc'd; the
 * caller frees), or NULL when memory runs out. */
static char *header_json(const SafetensorsTensor *t, int n, const SafetensorsMeta *meta,
                         int n_meta, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) return NULL;
    int bad = fputs("{\"__metadata__\":{", f) == EOF;
    for (int i = 0; i < n_meta && !bad; i++) {
        bad = (i > 0 && fputc(',', f) == EOF) || safetensors_json_string(f, meta[i].key) != 0 ||
              fputc(':', f) == EOF || safetensors_json_string(f, meta[i].value) != 0;
    }
    bad = bad || fputc('}', f) == EOF;
    size_t offset = 0;
    for (int i = 0; i < n && !bad; i++) {
        int ok = 1;
        size_t bytes = 4 * numel(&t[i], &ok);
        bad = fputc(',', f) == EOF || safetensors_json_string(f, t[i].name) != 0 ||
              fprintf(f, ":{\"dtype\":\"%s\",\"shape\":[", t[i].dtype == SAFETENSORS_F32 ? "F32" : "I32") < 0;
        for (int d = 0; d < t[i].ndim && !bad; d++)
            bad = fprintf(f, "%s%zu", d ? "," : "", t[i].shape[d]) < 0;
        bad = bad || fprintf(f, "],\"data_offsets\":[%zu,%zu]}", offset, offset + bytes) < 0;
        offset += bytes;
    }
    bad = bad || fputc('}', f) == EOF;
    if (fflush(f) != 0) bad = 1;
    while (!bad && (8 + *len) % 8 != 0) bad = fputc(' ', f) == EOF || fflush(f) != 0;
    if (fclose(f) != 0) bad = 1;
    if (bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Writes the u64 little-endian header length, the header and every tensor's elements as
 * little-endian 4-byte words, whatever the host's byte order. Returns 0 or -1 (errno set). */
static int write_body(FILE *f, const char *header, size_t header_len, const SafetensorsTensor *t,
                      int n) {
    unsigned char buf[4096];
    for (int k = 0; k < 8; k++) buf[k] = (unsigned char)((uint64_t)header_len >> (8 * k));
    if (fwrite(buf, 1, 8, f) != 8 || fwrite(header, 1, header_len, f) != header_len) return -1;
    for (int i = 0; i < n; i++) {
        int ok = 1;
        size_t count = numel(&t[i], &ok), used = 0;
        const unsigned char *src = t[i].data;
        for (size_t e = 0; e < count; e++) {
            uint32_t w;
            memcpy(&w, src + 4 * e, 4); /* float or int32_t: the same 4 bytes */
            for (int k = 0; k < 4; k++) buf[used++] = (unsigned char)(w >> (8 * k));
            if (used == sizeof buf || e + 1 == count) {
                if (fwrite(buf, 1, used, f) != used) return -1;
                used = 0;
            }
        }
    }
    return 0;
}

int safetensors_write(const char *path, const SafetensorsTensor *tensors, int n_tensors,
                      const SafetensorsMeta *meta, int n_meta) {
    struct stat st;
    if (lstat(path, &st) == 0) {
        error_add(NULL, 0, NULL, "'%s' exists already; it is never overwritten: choose another "
                                 "name or remove it first", path);
        return -1;
    }
    if (errno != ENOENT) {
        error_add(NULL, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    if (check_tensors(path, tensors, n_tensors) != 0) return -1;
    for (int i = 0; i < n_meta; i++)
        if (!meta[i].key || !meta[i].value) {
            error_add(NULL, 0, NULL, "cannot write '%s': metadata entry %d is empty", path, i);
            return -1;
        }
    size_t header_len = 0;
    char *header = header_json(tensors, n_tensors, meta, n_meta, &header_len);
    if (!header) {
        error_add(NULL, 0, NULL, "cannot write '%s': out of memory", path);
        return -1;
    }
    /* the temporary file beside path, named and created as every whole write's (whole_write.h),
     * then linked to path, never replacing what appeared there meanwhile */
    AtomicFile out;
    int rc = -1;
    if (!atomic_open(&out, path)) {
        error_add(NULL, 0, NULL, "cannot write '%s': %s", out.failed, strerror(errno));
    } else if (write_body(out.f, header, header_len, tensors, n_tensors) != 0) {
        int err = errno ? errno : EIO;
        atomic_discard(&out);
        error_add(NULL, 0, NULL, "cannot write '%s': %s", out.tmp, strerror(err));
    } else if (atomic_commit_new(&out, 1) != 0) {
        /* EEXIST: something appeared at path since the check above; it is left alone */
        error_add(NULL, 0, NULL, "cannot write '%s': %s", out.failed,
                  errno == EEXIST ? "it appeared while writing; it is never overwritten"
                                : strerror(errno));
    } else {
        rc = 0;
    }
    free(header);
    return rc;
}
