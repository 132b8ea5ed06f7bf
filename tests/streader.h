/* streader.h: an independent reader of safetensors files for the tests of the writer
 * (test_safetensors) and of ./train --export (test_cmd_export). Written from the format's
 * description, not from src/util/safetensors.c: the u64 header length read byte by byte as
 * little-endian, a minimal JSON parser (objects, strings with every escape JSON has, arrays of
 * non-negative integers) and checks that the tensors' byte ranges cover the data exactly.
 *
 * Static inline, like ckpttest.h: a header rather than a .c of tests/, which would be linked into
 * every test program. */
#ifndef SCALEDOT_STREADER_H
#define SCALEDOT_STREADER_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STR_MAX_TENSORS 256
#define STR_MAX_META 32

typedef struct {
    char *name, *dtype;
    int ndim;
    uint64_t shape[8];
    uint64_t begin, end;  /* data_offsets, relative to the data start */
} StrTensor;

typedef struct {
    uint64_t header_len;       /* N */
    const unsigned char *data; /* the data start: file + 8 + N */
    uint64_t data_len;
    int n_tensors, n_meta;
    StrTensor t[STR_MAX_TENSORS];
    char *meta_key[STR_MAX_META], *meta_val[STR_MAX_META];
    const char *error; /* NULL when the file is valid */
} StrFile;

typedef struct {
    const char *p, *end;
    const char *error;
} StrJson;

static inline void strj_ws(StrJson *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static inline int strj_expect(StrJson *j, char c) {
    strj_ws(j);
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return 1;
    }
    if (!j->error) j->error = "unexpected character in JSON";
    return 0;
}

static inline int strj_hex4(const char *s, unsigned *v) {
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return 0;
        *v = *v * 16 + (unsigned)d;
    }
    return 1;
}

/* Appends code point u as UTF-8. */
static inline char *strj_utf8(char *o, unsigned u) {
    if (u < 0x80) *o++ = (char)u;
    else if (u < 0x800) *o++ = (char)(0xc0 | u >> 6), *o++ = (char)(0x80 | (u & 0x3f));
    else if (u < 0x10000)
        *o++ = (char)(0xe0 | u >> 12), *o++ = (char)(0x80 | ((u >> 6) & 0x3f)),
        *o++ = (char)(0x80 | (u & 0x3f));
    else
        *o++ = (char)(0xf0 | u >> 18), *o++ = (char)(0x80 | ((u >> 12) & 0x3f)),
        *o++ = (char)(0x80 | ((u >> 6) & 0x3f)), *o++ = (char)(0x80 | (u & 0x3f));
    return o;
}

/* A JSON string, decoded (malloc'd, NUL-terminated); NULL with j->error set when invalid (raw
 * control bytes are invalid in JSON). */
static inline char *strj_string(StrJson *j) {
    if (!strj_expect(j, '"')) return NULL;
    char *out = malloc((size_t)(j->end - j->p) + 1), *o = out;
    ck_assert_ptr_nonnull(out);
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p++;
        if (c < 0x20) { j->error = "raw control byte in a JSON string"; break; }
        if (c != '\\') { *o++ = (char)c; continue; }
        if (j->p >= j->end) break;
        char e = *j->p++;
        unsigned u;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u':
            if (j->end - j->p < 4 || !strj_hex4(j->p, &u)) { j->error = "bad \\u escape"; break; }
            j->p += 4;
            o = strj_utf8(o, u); /* the writer needs no surrogate pairs: none are decoded */
            break;
        default: j->error = "unknown escape in a JSON string";
        }
        if (j->error) break;
    }
    if (j->error || j->p >= j->end) {
        if (!j->error) j->error = "unterminated JSON string";
        free(out);
        return NULL;
    }
    j->p++; /* the closing quote */
    *o = 0;
    return out;
}

static inline int strj_uint(StrJson *j, uint64_t *v) {
    strj_ws(j);
    if (j->p >= j->end || *j->p < '0' || *j->p > '9') {
        j->error = "expected a number";
        return 0;
    }
    *v = 0;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') *v = *v * 10 + (uint64_t)(*j->p++ - '0');
    return 1;
}

/* [n, n, ...] into v (at most max); returns the count, -1 on error. */
static inline int strj_uint_array(StrJson *j, uint64_t *v, int max) {
    if (!strj_expect(j, '[')) return -1;
    strj_ws(j);
    int n = 0;
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        return 0;
    }
    do {
        if (n == max || !strj_uint(j, &v[n++])) return j->error = "array too long or bad", -1;
        strj_ws(j);
    } while (j->p < j->end && *j->p == ',' && j->p++);
    return strj_expect(j, ']') ? n : -1;
}

static inline void str_fail(StrFile *f, const char *why) {
    if (!f->error) f->error = why;
}

/* One tensor's {"dtype":..., "shape":[...], "data_offsets":[b, e]}. */
static inline void str_tensor(StrJson *j, StrFile *f, StrTensor *t) {
    int have = 0;
    if (!strj_expect(j, '{')) return;
    do {
        char *key = strj_string(j);
        if (!key || !strj_expect(j, ':')) { free(key); return; }
        if (strcmp(key, "dtype") == 0) t->dtype = strj_string(j), have |= 1;
        else if (strcmp(key, "shape") == 0) t->ndim = strj_uint_array(j, t->shape, 8), have |= 2;
        else if (strcmp(key, "data_offsets") == 0) {
            uint64_t o[3];
            if (strj_uint_array(j, o, 3) != 2) str_fail(f, "data_offsets is not [begin, end]");
            t->begin = o[0], t->end = o[1], have |= 4;
        } else str_fail(f, "unknown key in a tensor entry");
        free(key);
        strj_ws(j);
    } while (!j->error && j->p < j->end && *j->p == ',' && j->p++);
    strj_expect(j, '}');
    if (have != 7) str_fail(f, "a tensor entry lacks dtype, shape or data_offsets");
}

/* Parses the file buf[0..len) into *f (f->error NULL when valid); checks that every tensor's
 * range lies in the data, has the size its dtype and shape say, and that the ranges, sorted,
 * tile the data from 0 to its end with no gap and no overlap. */
static inline void str_parse(const unsigned char *buf, size_t len, StrFile *f) {
    memset(f, 0, sizeof *f);
    if (len < 8) return str_fail(f, "shorter than 8 bytes");
    for (int k = 7; k >= 0; k--) f->header_len = f->header_len << 8 | buf[k];
    if (f->header_len > len - 8) return str_fail(f, "header length beyond the file");
    const char *h = (const char *)buf + 8;
    if (f->header_len == 0 || h[0] != '{') return str_fail(f, "header does not start with '{'");
    f->data = buf + 8 + f->header_len;
    f->data_len = len - 8 - f->header_len;
    StrJson j = {h, h + f->header_len, NULL};
    strj_expect(&j, '{');
    do {
        char *key = strj_string(&j);
        if (!key || !strj_expect(&j, ':')) { free(key); break; }
        if (strcmp(key, "__metadata__") == 0) {
            free(key);
            if (!strj_expect(&j, '{')) break;
            strj_ws(&j);
            if (j.p < j.end && *j.p == '}') { j.p++; goto next; }
            do {
                if (f->n_meta == STR_MAX_META) { str_fail(f, "too much metadata"); break; }
                f->meta_key[f->n_meta] = strj_string(&j);
                if (!strj_expect(&j, ':')) break;
                f->meta_val[f->n_meta++] = strj_string(&j); /* a non-string value fails here */
                strj_ws(&j);
            } while (!j.error && j.p < j.end && *j.p == ',' && j.p++);
            strj_expect(&j, '}');
        } else {
            if (f->n_tensors == STR_MAX_TENSORS) { free(key); str_fail(f, "too many tensors"); break; }
            StrTensor *t = &f->t[f->n_tensors++];
            t->name = key;
            str_tensor(&j, f, t);
        }
    next:
        strj_ws(&j);
    } while (!j.error && j.p < j.end && *j.p == ',' && j.p++);
    strj_expect(&j, '}');
    if (j.error) return str_fail(f, j.error);
    for (; j.p < j.end; j.p++) /* only spaces may follow the object */
        if (*j.p != ' ') return str_fail(f, "header has bytes after its JSON object");
    for (int i = 0; i < f->n_tensors; i++) {
        StrTensor *t = &f->t[i];
        uint64_t n = 1, size = t->dtype && (!strcmp(t->dtype, "F32") || !strcmp(t->dtype, "I32")) ? 4 : 0;
        for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
        if (!size) return str_fail(f, "a dtype other than F32 or I32");
        if (t->begin > t->end || t->end > f->data_len) return str_fail(f, "range outside the data");
        if (t->end - t->begin != n * size) return str_fail(f, "range size differs from shape x dtype");
        for (int k = 0; k < i; k++)
            if (!strcmp(f->t[k].name, t->name)) return str_fail(f, "a tensor name twice");
    }
    /* tiling: walk from 0, each step to the end of the one range that begins there */
    uint64_t at = 0;
    for (int used = 0; used < f->n_tensors; used++) {
        int found = -1;
        for (int i = 0; i < f->n_tensors; i++)
            if (f->t[i].begin == at && (f->t[i].end > at || found < 0)) found = i;
        if (found < 0) return str_fail(f, "a gap or overlap between tensor ranges");
        at = f->t[found].end;
    }
    if (at != f->data_len) return str_fail(f, "the tensors do not end where the file ends");
}

static inline void str_free(StrFile *f) {
    for (int i = 0; i < f->n_tensors; i++) free(f->t[i].name), free(f->t[i].dtype);
    for (int i = 0; i < f->n_meta; i++) free(f->meta_key[i]), free(f->meta_val[i]);
}

static inline const StrTensor *str_find(const StrFile *f, const char *name) {
    for (int i = 0; i < f->n_tensors; i++)
        if (strcmp(f->t[i].name, name) == 0) return &f->t[i];
    return NULL;
}

static inline const char *str_meta(const StrFile *f, const char *key) {
    for (int i = 0; i < f->n_meta; i++)
        if (f->meta_key[i] && strcmp(f->meta_key[i], key) == 0) return f->meta_val[i];
    return NULL;
}

/* Element e of tensor t as the 32-bit little-endian word it is stored as. */
static inline uint32_t str_word(const StrFile *f, const StrTensor *t, uint64_t e) {
    const unsigned char *p = f->data + t->begin + 4 * e;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline float str_f32(const StrFile *f, const StrTensor *t, uint64_t e) {
    uint32_t w = str_word(f, t, e);
    float x;
    memcpy(&x, &w, 4);
    return x;
}

#endif
