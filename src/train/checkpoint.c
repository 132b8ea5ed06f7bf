/* checkpoint.c: save and restore a run's whole state (checkpoint.h), so that --resume
 * continues bitwise as if never interrupted: the file format, written and read. What the stored
 * configuration means is checkpoint_config.c's; the checks on a folder before a resume are
 * resume_checks.c's. */
#include "train/checkpoint.h"

#include "util/error_list.h"
#include "util/file_check.h"
#include "util/whole_write.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "SCALEDOT"
#define VERSION 2u
#define VERSION_NO_CLIP_COUNTS 1u /* written before the QK-clip counters were kept */
#define BYTE_ORDER_MARK 0x01020304u

/* ---- writing: every byte goes through the hash --------------------------------------- */

typedef struct {
    FILE *f;
    uint64_t hash;
    int failed;
} Writer;

static void fnv1a(uint64_t *h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        *h ^= p[i];
        *h *= 0x100000001b3ull;
    }
}

static void put(Writer *w, const void *data, size_t n) {
    if (w->failed || n == 0) return;
    fnv1a(&w->hash, data, n);
    if (fwrite(data, 1, n, w->f) != n) w->failed = 1;
}

static void put_u32(Writer *w, uint32_t v) { put(w, &v, sizeof v); }
static void put_u64(Writer *w, uint64_t v) { put(w, &v, sizeof v); }
static void put_i64(Writer *w, int64_t v) { put(w, &v, sizeof v); }
static void put_f64(Writer *w, double v) { put(w, &v, sizeof v); }

static uint32_t n_state_buffers(const Optimizer *o) { return o->kind == OPTIMIZER_ADAMW ? 2u : 1u; }

/* How many QK-clip counters the model keeps (one per layer and head, none without QK-clip). */
static uint32_t clip_counts(const Model *m) {
    return m->clip_count ? (uint32_t)(m->cfg.n_layers * m->cfg.n_heads) : 0u;
}

int checkpoint_save(const char *path, const char *config_text, const Model *m,
                    const Optimizer *o, const CheckpointState *s) {
    AtomicFile out; /* a temporary file, never through a link, renamed over path when whole */
    Writer w = {atomic_open(&out, path), 0xcbf29ce484222325ull, 0};
    if (!w.f) {
        error_add(NULL, 0, NULL, "cannot write checkpoint '%s': %s", out.failed, strerror(errno));
        return -1;
    }
    put(&w, MAGIC, 8);
    put_u32(&w, VERSION);
    put_u32(&w, BYTE_ORDER_MARK);
    size_t clen = strlen(config_text);
    put_u64(&w, clen);
    put(&w, config_text, clen);
    put_i64(&w, s->step);
    put_f64(&w, s->elapsed_s);
    put_i64(&w, s->skipped);
    for (int i = 0; i < 4; i++) put_u64(&w, s->data_rng.s[i]);
    put_i64(&w, o->t);
    put_u32(&w, (uint32_t)o->kind);
    put_u32(&w, n_state_buffers(o));
    uint32_t n_counts = clip_counts(m);
    put_u32(&w, n_counts);
    for (uint32_t i = 0; i < n_counts; i++) put_i64(&w, m->clip_count[i]);
    put_u32(&w, (uint32_t)m->n_tensors);
    for (int i = 0; i < m->n_tensors; i++) {
        const TensorInfo *t = &m->tensors[i];
        uint32_t len = (uint32_t)strlen(t->name);
        put_u32(&w, len);
        put(&w, t->name, len);
        put_u32(&w, (uint32_t)t->ndim);
        put_u32(&w, (uint32_t)t->shape[0]);
        put_u32(&w, (uint32_t)t->shape[1]);
        put_u64(&w, t->numel);
    }
    put(&w, m->params, m->n_params * sizeof(real));
    put(&w, o->m, m->n_params * sizeof(real));
    if (n_state_buffers(o) == 2) put(&w, o->v, m->n_params * sizeof(real));
    uint64_t h = w.hash;
    if (!w.failed && fwrite(&h, sizeof h, 1, w.f) != 1) w.failed = 1;
    int err = errno;
    if (w.failed) atomic_discard(&out);
    else if (atomic_commit(&out, 1) != 0) { /* flushed to disk (fsync) before the rename */
        w.failed = 1;
        err = errno;
    }
    if (w.failed) {
        error_add(NULL, 0, NULL, "cannot write checkpoint '%s': %s", path, strerror(err));
        return -1;
    }
    return 0;
}

/* ---- reading: the whole file is checked before anything is used ----------------------- */

typedef struct {
    const char *path, *what; /* what: the place of its errors (error_add's), or NULL */
    unsigned char *data;
    size_t size, pos;
    uint32_t version;
    int failed;
} Reader;

static int bad(Reader *r, const char *what) {
    if (!r->failed) error_add(NULL, 0, r->what, "checkpoint '%s': %s", r->path, what);
    r->failed = 1;
    return -1;
}

static void get(Reader *r, void *out, size_t n) {
    if (r->failed) {
        memset(out, 0, n);
        return;
    }
    if (n > r->size - r->pos) {
        memset(out, 0, n);
        bad(r, "file is truncated");
        return;
    }
    memcpy(out, r->data + r->pos, n);
    r->pos += n;
}

static uint32_t get_u32(Reader *r) {
    uint32_t v;
    get(r, &v, sizeof v);
    return v;
}
static uint64_t get_u64(Reader *r) {
    uint64_t v;
    get(r, &v, sizeof v);
    return v;
}
static int64_t get_i64(Reader *r) {
    int64_t v;
    get(r, &v, sizeof v);
    return v;
}
static double get_f64(Reader *r) {
    double v;
    get(r, &v, sizeof v);
    return v;
}

/* Reads the file and checks magic, version, byte order and the hash; errors at place what. */
static int open_checked(Reader *r, const char *path, const char *what) {
    memset(r, 0, sizeof *r);
    r->path = path;
    r->what = what;
    /* a device or a pipe (/dev/zero, a FIFO) is refused before a byte is read: it would be read
     * until memory runs out, or block */
    char why[256];
    r->data = (unsigned char *)file_read_regular(path, SIZE_MAX / 2, &r->size, why, sizeof why);
    if (!r->data) {
        error_add(NULL, 0, what, "cannot open checkpoint '%s': %s", path, why);
        r->failed = 1;
        return -1;
    }
    char magic[8];
    if (r->size < 8 + 4 + 4 + 8) return bad(r, "file is too short to be a checkpoint");
    get(r, magic, 8);
    if (memcmp(magic, MAGIC, 8) != 0) return bad(r, "not a scaledot checkpoint (wrong magic)");
    uint32_t version = r->version = get_u32(r);
    if (version != VERSION && version != VERSION_NO_CLIP_COUNTS) {
        char msg[96];
        snprintf(msg, sizeof msg, "version %u, this program reads versions %u and %u", version,
                 VERSION_NO_CLIP_COUNTS, VERSION);
        return bad(r, msg);
    }
    if (get_u32(r) != BYTE_ORDER_MARK) return bad(r, "written on a machine of another byte order");
    uint64_t h = 0xcbf29ce484222325ull, stored;
    fnv1a(&h, r->data, r->size - sizeof stored);
    memcpy(&stored, r->data + r->size - sizeof stored, sizeof stored);
    if (h != stored) return bad(r, "hash mismatch: the file is corrupt or incomplete");
    r->size -= sizeof stored; /* the hash is not content */
    return 0;
}

static char *get_config(Reader *r) {
    uint64_t len = get_u64(r);
    if (r->failed) return NULL;
    if (len > r->size - r->pos) {
        bad(r, "configuration length exceeds the file");
        return NULL;
    }
    char *text = malloc(len + 1);
    if (!text) {
        bad(r, "out of memory");
        return NULL;
    }
    get(r, text, len);
    text[len] = 0;
    if (strlen(text) != len) {
        free(text);
        bad(r, "configuration text holds a NUL byte");
        return NULL;
    }
    return text;
}

int checkpoint_read_config_at(const char *path, const char *what, char **config_text) {
    Reader r;
    *config_text = NULL;
    if (open_checked(&r, path, what) == 0) *config_text = get_config(&r);
    free(r.data);
    return *config_text ? 0 : -1;
}

int checkpoint_read_config(const char *path, char **config_text) {
    return checkpoint_read_config_at(path, NULL, config_text);
}

/* Reads the tensor headers (name, ndim, shape, numel) and checks each against the model's tensor
 * of the same index; the first difference fails r with a message naming both. */
static void check_tensor_headers(Reader *r, const Model *m) {
    char msg[256];
    for (int i = 0; i < m->n_tensors && !r->failed; i++) {
        const TensorInfo *ti = &m->tensors[i];
        char name[MODEL_NAME_LEN + 1] = {0};
        uint32_t len = get_u32(r);
        if (len > MODEL_NAME_LEN) {
            bad(r, "tensor name too long");
            return;
        }
        get(r, name, len);
        uint32_t ndim = get_u32(r), d0 = get_u32(r), d1 = get_u32(r);
        uint64_t numel = get_u64(r);
        if (!r->failed && (strcmp(name, ti->name) != 0 || ndim != (uint32_t)ti->ndim ||
                           d0 != (uint32_t)ti->shape[0] || d1 != (uint32_t)ti->shape[1] ||
                           numel != ti->numel)) {
            snprintf(msg, sizeof msg, "tensor %d is '%s' [%u, %u], the model expects '%s' [%d, %d]",
                     i, name, d0, d1, ti->name, ti->shape[0], ti->shape[1]);
            bad(r, msg);
        }
    }
}

int checkpoint_load(const char *path, Model *m, Optimizer *o, CheckpointState *s) {
    Reader r;
    if (open_checked(&r, path, NULL) != 0) {
        free(r.data);
        return -1;
    }
    free(get_config(&r));
    s->step = (long)get_i64(&r);
    s->elapsed_s = get_f64(&r);
    s->skipped = (long)get_i64(&r);
    for (int i = 0; i < 4; i++) s->data_rng.s[i] = get_u64(&r);
    int64_t t = get_i64(&r);
    uint32_t kind = get_u32(&r), buffers = get_u32(&r);
    char msg[256];
    /* an older checkpoint has no counters: they stay as built (zero), counted from the resume */
    s->clip_counts_kept = r.version != VERSION_NO_CLIP_COUNTS;
    uint32_t n_counts = s->clip_counts_kept ? get_u32(&r) : clip_counts(m);
    if (!r.failed && n_counts != clip_counts(m)) {
        snprintf(msg, sizeof msg, "%u QK-clip counters, the model has %u", n_counts, clip_counts(m));
        bad(&r, msg);
    }
    for (uint32_t i = 0; s->clip_counts_kept && i < n_counts && !r.failed; i++) {
        int64_t count = get_i64(&r);
        if (!r.failed && (count < 0 || count > s->step)) bad(&r, "impossible QK-clip counter");
        else if (!r.failed) m->clip_count[i] = (int)count;
    }
    uint32_t n_tensors = get_u32(&r);
    /* the hash only says the bytes are as written: a negative step (from a file built by hand,
     * or a bug) would make the training loop start before step 0 */
    if (!r.failed && (s->step < 0 || s->skipped < 0 || s->skipped > s->step || t < 0)) {
        snprintf(msg, sizeof msg, "impossible run state: step %ld, %ld skipped, %lld optimizer steps",
                 s->step, s->skipped, (long long)t);
        bad(&r, msg);
    }
    if (!r.failed && (kind != (uint32_t)o->kind || buffers != n_state_buffers(o)))
        bad(&r, "optimizer kind differs from the configuration's optim.name");
    if (!r.failed && n_tensors != (uint32_t)m->n_tensors) {
        snprintf(msg, sizeof msg, "%u tensors, the model has %d", n_tensors, m->n_tensors);
        bad(&r, msg);
    }
    check_tensor_headers(&r, m);
    size_t bytes = m->n_params * sizeof(real);
    if (!r.failed && r.size - r.pos != bytes * (1 + buffers)) {
        snprintf(msg, sizeof msg, "%zu bytes of tensor data, the model needs %zu", r.size - r.pos,
                 bytes * (1 + buffers));
        bad(&r, msg);
    }
    if (!r.failed) {
        get(&r, m->params, bytes);
        get(&r, o->m, bytes);
        if (buffers == 2) get(&r, o->v, bytes);
        o->t = t;
    }
    free(r.data);
    return r.failed ? -1 : 0;
}
