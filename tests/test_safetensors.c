/* test_safetensors.c: the safetensors writer (src/util/safetensors.c), read back by the
 * independent reader of streader.h: header length, JSON header, every tensor's dtype, shape and
 * byte range, the data tiled exactly, the values bit for bit; the JSON escaping of awkward
 * metadata, table-driven with the expected text written by hand; and the paths it refuses. */
#include "util/safetensors.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streader.h"
#include "testutil.h"

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_safetensors.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* Writes with stderr captured; returns the writer's result and what it printed in *err. */
static int write_quiet(const char *path, const SafetensorsTensor *t, int n,
                       const SafetensorsMeta *m, int n_meta, char **err) {
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = safetensors_write(path, t, n, m, n_meta);
    char *e = tu_capture_end(&cap);
    if (err) *err = e;
    else free(e);
    return rc;
}

/* How many entries the folder holds besides . and .. (-1 when ls fails). */
static int entries_in(const char *dir) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1) n = -1;
        pclose(p);
    }
    return n;
}

/* Four tensors of every kind the writer supports: 2-D and 1-D float, int32 with negative
 * values, a 0-dim scalar; read back, each dtype, shape, range and value must be what was
 * given, the ranges must tile the data and the data start must be a multiple of 8. */
START_TEST(test_round_trip) {
    float a[2][3] = {{1.5f, -2.0f, 3.25f}, {0.0f, -0.0f, 1e-30f}};
    float b[5] = {7, 8, 9, 10, 11};
    int32_t c[2][2] = {{-1, 2147483647}, {-2147483647 - 1, 0}};
    float s = 6.0f;
    const SafetensorsTensor t[] = {
        {"blocks.0.attn.qkv.weight", SAFETENSORS_F32, 2, {2, 3}, a},
        {"ln_f.bias", SAFETENSORS_F32, 1, {5}, b},
        {"tokens", SAFETENSORS_I32, 2, {2, 2}, c},
        {"scalar", SAFETENSORS_F32, 0, {0}, &s},
    };
    const SafetensorsMeta meta[] = {{"format", "pt"}, {"note", "x"}};
    char path[128];
    snprintf(path, sizeof path, "%s/m.safetensors", g_tmp);
    ck_assert_int_eq(write_quiet(path, t, 4, meta, 2, NULL), 0);
    size_t len;
    unsigned char *buf = (unsigned char *)tu_read_file(path, &len);
    ck_assert_ptr_nonnull(buf);
    StrFile f;
    str_parse(buf, len, &f);
    ck_assert_msg(f.error == NULL, "reader: %s", f.error);
    ck_assert_uint_eq((8 + f.header_len) % 8, 0);
    /* data: 6 + 5 + 4 + 1 elements of 4 bytes, right after the header */
    ck_assert_uint_eq(f.data_len, 64);
    ck_assert_uint_eq(len, 8 + f.header_len + 64);
    ck_assert_int_eq(f.n_tensors, 4);
    static const char *const dtype[] = {"F32", "F32", "I32", "F32"};
    static const int ndim[] = {2, 1, 2, 0};
    static const uint64_t shape[][2] = {{2, 3}, {5, 0}, {2, 2}, {0, 0}};
    for (int i = 0; i < 4; i++) {
        const StrTensor *r = str_find(&f, t[i].name);
        ck_assert_msg(r != NULL, "%s missing", t[i].name);
        ck_assert_str_eq(r->dtype, dtype[i]);
        ck_assert_int_eq(r->ndim, ndim[i]);
        for (int d = 0; d < ndim[i]; d++) ck_assert_uint_eq(r->shape[d], shape[i][d]);
    }
    /* values, bit for bit, through the reader's own little-endian decoding */
    const StrTensor *ra = str_find(&f, "blocks.0.attn.qkv.weight"), *rb = str_find(&f, "ln_f.bias"),
                    *rc = str_find(&f, "tokens"), *rs = str_find(&f, "scalar");
    for (int e = 0; e < 6; e++) {
        float want = a[e / 3][e % 3], got = str_f32(&f, ra, (uint64_t)e);
        ck_assert_msg(memcmp(&want, &got, 4) == 0, "a[%d]: %g, want %g", e, got, want);
    }
    for (int e = 0; e < 5; e++) ck_assert_float_eq(str_f32(&f, rb, (uint64_t)e), b[e]);
    for (int e = 0; e < 4; e++)
        ck_assert_int_eq((int32_t)str_word(&f, rc, (uint64_t)e), c[e / 2][e % 2]);
    ck_assert_float_eq(str_f32(&f, rs, 0), 6.0f);
    /* the known byte pattern of 1.5f = 0x3fc00000, little-endian: 00 00 c0 3f */
    static const unsigned char one_and_half[4] = {0x00, 0x00, 0xc0, 0x3f};
    ck_assert_int_eq(memcmp(f.data + ra->begin, one_and_half, 4), 0);
    ck_assert_str_eq(str_meta(&f, "format"), "pt");
    ck_assert_str_eq(str_meta(&f, "note"), "x");
    ck_assert_int_eq(entries_in(g_tmp), 1); /* no temporary file left behind */
    struct stat st; /* the mode fopen would give a new file, not mkstemp's 0600 */
    mode_t mask = umask(0);
    umask(mask);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0666 & ~mask);
    str_free(&f);
    free(buf);
}
END_TEST

/* The whole file by hand: with no tensors and no metadata the header is {"__metadata__":{}}
 * (19 bytes) padded with 5 spaces to 24 (8 + 24 = 32, a multiple of 8), so the file is the
 * length 24 = 0x18 least significant byte first, 18 00 00 00 00 00 00 00, then the header. */
START_TEST(test_empty_file_bytes) {
    char path[128];
    snprintf(path, sizeof path, "%s/e.safetensors", g_tmp);
    ck_assert_int_eq(write_quiet(path, NULL, 0, NULL, 0, NULL), 0);
    size_t len;
    char *buf = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(buf);
    static const char want[] = "\x18\0\0\0\0\0\0\0{\"__metadata__\":{}}     ";
    ck_assert_uint_eq(len, sizeof want - 1);
    ck_assert_int_eq(memcmp(buf, want, len), 0);
    free(buf);
}
END_TEST

/* A name the folder takes (here 253 and 255 bytes, NAME_MAX) can be written: the temporary
 * name (NAME.tmp.PID.K, whole_write.h) is cut to fit, and is gone afterwards (issue 33: a legal
 * 252-byte name failed with "File name too long"). */
START_TEST(test_long_names) {
    static const int lens[] = {253, 255};
    for (int i = 0; i < 2; i++) {
        char name[300], path[400];
        memset(name, 'n', (size_t)lens[i]);
        name[lens[i]] = 0;
        snprintf(path, sizeof path, "%s/%s", g_tmp, name);
        char *err = NULL;
        int rc = write_quiet(path, NULL, 0, NULL, 0, &err);
        ck_assert_msg(rc == 0, "%d bytes: %s", lens[i], err);
        free(err);
        ck_assert_int_eq(access(path, F_OK), 0);
        ck_assert_int_eq(entries_in(g_tmp), i + 1); /* no temporary file left */
    }
}
END_TEST

/* JSON escaping, one row per awkward string: the text the writer must produce (by hand, from
 * RFC 8259: '"' and '\' escaped, bytes below 0x20 as a short escape or \u00XX, the rest as it
 * is) and, through the reader, the string it decodes back to (itself, but for bytes that are
 * not UTF-8, which become the Latin-1 code point of the same value). */
typedef struct {
    const char *in, *json, *decoded;
} EscCase;

static const EscCase ESC[] = {
    {"plain", "\"plain\"", "plain"},
    {"a \"quoted\" word", "\"a \\\"quoted\\\" word\"", "a \"quoted\" word"},
    {"C:\\path\\", "\"C:\\\\path\\\\\"", "C:\\path\\"},
    {"line1\nline2\r\n", "\"line1\\nline2\\r\\n\"", "line1\nline2\r\n"},
    {"tab\there", "\"tab\\there\"", "tab\there"},
    {"\b\f", "\"\\b\\f\"", "\b\f"},
    {"\x01\x1f", "\"\\u0001\\u001f\"", "\x01\x1f"},
    {"del\x7f", "\"del\x7f\"", "del\x7f"},                  /* 0x7f needs no escape */
    {"/slash", "\"/slash\"", "/slash"},
    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},           /* é € 😀: valid UTF-8 kept */
    {"\xff", "\"\\u00ff\"", "\xc3\xbf"},                    /* not UTF-8: U+00FF */
    {"\xc3", "\"\\u00c3\"", "\xc3\x83"},                    /* a sequence cut short */
    {"\xc0\xaf", "\"\\u00c0\\u00af\"", "\xc3\x80\xc2\xaf"}, /* overlong '/' */
    {"\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"", "\xc3\xad\xc2\xa0\xc2\x80"}, /* surrogate */
    {"\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"",
     "\xc3\xb4\xc2\x90\xc2\x80\xc2\x80"},                   /* above U+10FFFF */
    {"", "\"\"", ""},
};

START_TEST(test_json_escaping) {
    for (size_t k = 0; k < sizeof ESC / sizeof *ESC; k++) {
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(safetensors_json_string(f, ESC[k].in), 0);
        fclose(f);
        ck_assert_msg(strcmp(buf, ESC[k].json) == 0, "case %zu: wrote [%s], want [%s]", k, buf,
                      ESC[k].json);
        StrJson j = {buf, buf + n, NULL};
        char *back = strj_string(&j);
        ck_assert_msg(back && strcmp(back, ESC[k].decoded) == 0, "case %zu: decodes to [%s]", k,
                      back ? back : j.error);
        free(back);
        free(buf);
    }
}
END_TEST

/* The same strings as metadata keys and values and as a tensor name, in a whole file. */
START_TEST(test_awkward_metadata_in_file) {
    enum { N = sizeof ESC / sizeof *ESC };
    SafetensorsMeta meta[N];
    char keys[N][16];
    for (int k = 0; k < N; k++) {
        snprintf(keys[k], sizeof keys[k], "k%d", k);
        meta[k] = (SafetensorsMeta){keys[k], ESC[k].in};
    }
    float x = 1;
    const SafetensorsTensor t[] = {{"we\"ird\\name\n", SAFETENSORS_F32, 1, {1}, &x}};
    char path[128];
    snprintf(path, sizeof path, "%s/w.safetensors", g_tmp);
    ck_assert_int_eq(write_quiet(path, t, 1, meta, N, NULL), 0);
    size_t len;
    unsigned char *buf = (unsigned char *)tu_read_file(path, &len);
    StrFile f;
    str_parse(buf, len, &f);
    ck_assert_msg(f.error == NULL, "reader: %s", f.error);
    ck_assert_int_eq(f.n_meta, N);
    for (int k = 0; k < N; k++) ck_assert_str_eq(str_meta(&f, keys[k]), ESC[k].decoded);
    ck_assert_ptr_nonnull(str_find(&f, "we\"ird\\name\n"));
    str_free(&f);
    free(buf);
}
END_TEST

/* Refused: what is at the path stays as it was, nothing is written through a link, and no
 * temporary is left behind. */
START_TEST(test_refusals) {
    float x = 1;
    const SafetensorsTensor one = {"x", SAFETENSORS_F32, 1, {1}, &x};
    char file[128], link_path[128], target[128], folder[128], nodir[128];
    snprintf(file, sizeof file, "%s/exists.safetensors", g_tmp);
    snprintf(link_path, sizeof link_path, "%s/link.safetensors", g_tmp);
    snprintf(target, sizeof target, "%s/target", g_tmp);
    snprintf(folder, sizeof folder, "%s/folder", g_tmp);
    snprintf(nodir, sizeof nodir, "%s/no/such.safetensors", g_tmp);
    tu_write_file(file, "precious");
    ck_assert_int_eq(symlink(target, link_path), 0); /* dangling: target does not exist */
    ck_assert_int_eq(mkdir(folder, 0700), 0);
    const struct {
        const char *path, *needle;
    } paths[] = {
        {file, "exists already"},
        {link_path, "exists already"},
        {folder, "exists already"},
        {nodir, "No such file or directory"},
    };
    for (size_t k = 0; k < sizeof paths / sizeof *paths; k++) {
        char *err;
        ck_assert_int_eq(write_quiet(paths[k].path, &one, 1, NULL, 0, &err), -1);
        ck_assert_msg(strstr(err, paths[k].needle) && strstr(err, paths[k].path),
                      "case %zu: %s", k, err);
        free(err);
    }
    char *text = tu_read_file(file, NULL);
    ck_assert_str_eq(text, "precious");
    free(text);
    ck_assert_int_eq(access(target, F_OK), -1); /* not created through the link */
    ck_assert_int_eq(entries_in(g_tmp), 3);     /* exists, link, folder: no temporary */

    /* invalid tensor tables: nothing is written */
    char path[128];
    snprintf(path, sizeof path, "%s/bad.safetensors", g_tmp);
    const SafetensorsTensor dup[] = {one, one};
    const SafetensorsTensor reserved[] = {{"__metadata__", SAFETENSORS_F32, 1, {1}, &x}};
    const SafetensorsTensor deep[] = {{"deep", SAFETENSORS_F32, 9, {1}, &x}};
    const SafetensorsTensor huge[] = {{"huge", SAFETENSORS_F32, 2, {SIZE_MAX / 2, 3}, &x}};
    const struct {
        const SafetensorsTensor *t;
        int n;
        const char *needle;
    } tables[] = {
        {dup, 2, "tensor 1 ('x') is named twice"},
        {reserved, 1, "reserved name"},
        {deep, 1, "too many dimensions"},
        {huge, 1, "too large"},
    };
    for (size_t k = 0; k < sizeof tables / sizeof *tables; k++) {
        char *err;
        ck_assert_int_eq(write_quiet(path, tables[k].t, tables[k].n, NULL, 0, &err), -1);
        ck_assert_msg(strstr(err, tables[k].needle), "table %zu: %s", k, err);
        free(err);
        ck_assert_int_eq(access(path, F_OK), -1);
    }
}
END_TEST

TU_MAIN_FIXTURE("safetensors", make_tmp, remove_tmp, test_round_trip, test_empty_file_bytes,
                test_json_escaping, test_awkward_metadata_in_file, test_refusals, test_long_names);
