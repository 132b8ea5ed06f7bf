/* configcheck.h: helpers shared by the tests of src/config/ (test_keys, test_value, test_suggest,
 * test_ini, test_set, test_validate, test_write, test_readme_table): calls with stderr captured,
 * one loop body for tables of error cases, a field-by-field comparison of two Configs and a file
 * that sets every key. Static inline (as xmlcheck.h): the double-precision test programs link no
 * config object, so this cannot be one of the tests/ sources compiled into every test. */
#ifndef SCALEDOT_CONFIGCHECK_H
#define SCALEDOT_CONFIGCHECK_H

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "testutil.h"

/* The name config_load_text is given by cc_load: messages start "case.ini:LINE: ". */
#define CC_NAME "case.ini"

/* The text searched is cut to 2000 characters in the message: Check refuses longer ones. */
#define cc_assert_contains(hay, needle) \
    ck_assert_msg(strstr((hay), (needle)) != NULL, "expected '%s' in: %.2000s", (needle), (hay))

/* What stderr received during the call, into out (n bytes, truncated). */
static inline void cc_capture_end(TuCapture *cap, char *out, size_t n) {
    char *text = tu_capture_end(cap);
    snprintf(out, n, "%s", text);
    free(text);
}

/* config_load_text of len bytes of text (len 0: strlen) as CC_NAME; stderr into err. */
static inline int cc_load(Config *c, const char *text, size_t len, char *err, size_t en) {
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = config_load_text(c, CC_NAME, text, len ? len : strlen(text));
    cc_capture_end(&cap, err, en);
    return rc;
}

/* cc_load that must succeed without a word on stderr. */
static inline void cc_load_ok(Config *c, const char *text) {
    char err[4096];
    int rc = cc_load(c, text, 0, err, sizeof err);
    ck_assert_msg(rc == 0, "load failed: %s", err);
    ck_assert_str_eq(err, "");
}

static inline int cc_set(Config *c, const char *assignment, int argn, char *err, size_t en) {
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = config_set(c, assignment, argn);
    cc_capture_end(&cap, err, en);
    return rc;
}

static inline int cc_validate(const Config *c, char *err, size_t en) {
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = config_validate(c);
    cc_capture_end(&cap, err, en);
    return rc;
}

/* One refused input: file text (argn 0) or a --set assignment (argn > 0, the argument number).
 * The message must start with "case.ini:LINE: " or "--set (argument N): ", contain piece1 and
 * piece2 (either may be NULL) and leave the Config as it was. len: bytes of text for a file that
 * holds a NUL byte, else 0. */
typedef struct {
    const char *name;
    const char *text;
    int argn, line;
    const char *piece1, *piece2;
    size_t len;
} CcErrorCase;

static inline void cc_check_error(const CcErrorCase *e) {
    Config c;
    config_defaults(&c);
    Config before = c;
    char err[4096], start[64];
    int rc;
    if (e->argn) {
        rc = cc_set(&c, e->text, e->argn, err, sizeof err);
        snprintf(start, sizeof start, "error: --set (argument %d): ", e->argn);
    } else {
        rc = cc_load(&c, e->text, e->len, err, sizeof err);
        snprintf(start, sizeof start, "error: " CC_NAME ":%d: ", e->line);
    }
    ck_assert_msg(rc == -1, "%s: accepted (rc %d)", e->name, rc);
    ck_assert_msg(strncmp(err, start, strlen(start)) == 0, "%s: expected '%s' at the start of: %s",
                  e->name, start, err);
    if (e->piece1)
        ck_assert_msg(strstr(err, e->piece1), "%s: expected '%s' in: %s", e->name, e->piece1, err);
    if (e->piece2)
        ck_assert_msg(strstr(err, e->piece2), "%s: expected '%s' in: %s", e->name, e->piece2, err);
    ck_assert_msg(err[strlen(err) - 1] == '\n', "%s: message should end in a newline: %s",
                  e->name, err);
    for (const char *p = err; *p; p++) /* only the line ends: user text is quoted escaped */
        ck_assert_msg((unsigned char)*p >= 0x20 || *p == '\n', "%s: a raw control byte 0x%02x in: %s",
                      e->name, (unsigned char)*p, err);
    /* its settings: a refused value of a known key marks it unsure (config.h) */
    ck_assert_msg(memcmp(&before, &c, CONFIG_SETTINGS_SIZE) == 0,
                  "%s: a refused input changed the config", e->name);
}

#define CC_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Every field of Config but origin[], by offset and kind: scale_value as well as every key's
 * field (attention.scale fills two), so CC_FIELDS has config_key_count() + 1 rows. */
typedef enum { CC_INT, CC_LONG, CC_DOUBLE, CC_STR } CcKind;
typedef struct {
    const char *name;
    size_t offset;
    CcKind kind;
} CcField;

#define CC_F(f, kind) {#f, offsetof(Config, f), kind}
static const CcField CC_FIELDS[] = {
    CC_F(run_name, CC_STR), CC_F(run_dir, CC_STR), CC_F(seed, CC_LONG), CC_F(threads, CC_INT),
    CC_F(task, CC_INT), CC_F(task_length, CC_INT), CC_F(task_pairs, CC_INT),
    CC_F(task_symbols, CC_INT), CC_F(task_file, CC_STR), CC_F(task_seq_len, CC_INT),
    CC_F(val_fraction, CC_DOUBLE), CC_F(val_size, CC_INT),
    CC_F(task_separator, CC_INT),
    CC_F(d_model, CC_INT), CC_F(n_heads, CC_INT), CC_F(n_layers, CC_INT), CC_F(d_ff, CC_INT),
    CC_F(max_seq_len, CC_INT), CC_F(ln_eps, CC_DOUBLE), CC_F(block, CC_INT),
    CC_F(matmul, CC_INT), CC_F(param, CC_INT), CC_F(base_width, CC_INT), CC_F(v_norm, CC_INT),
    CC_F(scale_mode, CC_INT), CC_F(scale_value, CC_DOUBLE), CC_F(scale_init, CC_DOUBLE),
    CC_F(qk_norm, CC_INT), CC_F(softcap, CC_DOUBLE), CC_F(qk_clip, CC_DOUBLE), CC_F(window, CC_INT),
    CC_F(init, CC_INT), CC_F(init_std, CC_DOUBLE), CC_F(init_q_mult, CC_DOUBLE),
    CC_F(init_k_mult, CC_DOUBLE),
    CC_F(optim, CC_INT), CC_F(lr, CC_DOUBLE), CC_F(beta1, CC_DOUBLE), CC_F(beta2, CC_DOUBLE),
    CC_F(eps, CC_DOUBLE), CC_F(weight_decay, CC_DOUBLE), CC_F(momentum, CC_DOUBLE),
    CC_F(grad_clip, CC_DOUBLE), CC_F(warmup_steps, CC_INT), CC_F(schedule, CC_INT),
    CC_F(min_lr, CC_DOUBLE), CC_F(lr_q_mult, CC_DOUBLE), CC_F(lr_k_mult, CC_DOUBLE),
    CC_F(steps, CC_INT), CC_F(batch_size, CC_INT), CC_F(eval_every, CC_INT),
    CC_F(checkpoint_every, CC_INT), CC_F(on_divergence, CC_INT),
    CC_F(log_every, CC_INT), CC_F(progress, CC_INT),
    CC_F(guard_logit_std_max, CC_DOUBLE), CC_F(guard_max_weight_max, CC_DOUBLE),
    CC_F(guard_grad_norm_min, CC_DOUBLE), CC_F(guard_grad_norm_max, CC_DOUBLE),
    CC_F(guard_action, CC_INT),
};
#undef CC_F

/* a and b hold the same value in every field (doubles bit for bit); origins are compared
 * separately where they matter. what names the comparison in a failure. */
static inline void cc_assert_config_eq(const Config *a, const Config *b, const char *what) {
    ck_assert_int_eq(CC_COUNT(CC_FIELDS), config_key_count() + 1); /* a new key: add its field */
    for (int i = 0; i < CC_COUNT(CC_FIELDS); i++) {
        const CcField *f = &CC_FIELDS[i];
        const char *pa = (const char *)a + f->offset, *pb = (const char *)b + f->offset;
        switch (f->kind) {
        case CC_INT:
            ck_assert_msg(*(const int *)pa == *(const int *)pb, "%s: %s %d != %d", what, f->name,
                          *(const int *)pa, *(const int *)pb);
            break;
        case CC_LONG:
            ck_assert_msg(*(const long *)pa == *(const long *)pb, "%s: %s %ld != %ld", what,
                          f->name, *(const long *)pa, *(const long *)pb);
            break;
        case CC_DOUBLE:
            ck_assert_msg(memcmp(pa, pb, sizeof(double)) == 0, "%s: %s %.17g != %.17g", what,
                          f->name, *(const double *)pa, *(const double *)pb);
            break;
        case CC_STR:
            ck_assert_msg(strcmp(pa, pb) == 0, "%s: %s '%s' != '%s'", what, f->name, pa, pb);
            break;
        }
    }
}

/* Every key set to something other than its default, except attention.scale_init and
 * attention.qk_clip, which config_validate refuses beside scale = 0.1 and qk_norm = layernorm
 * (test_validate covers them); line numbers are used by the tests. */
static const char *const CC_FULL =
    "[run]\n"                                   /* 1 */
    "name = my-run_1.x\n"                       /* 2 */
    "dir = \"out dir\"\n"                       /* 3 */
    "seed = 123456789012\n"                     /* 4 */
    "threads = 3\n"                             /* 5 */
    "[task]\n"                                  /* 6 */
    "name = file\n"                             /* 7 */
    "length = 17\n"                             /* 8 */
    "pairs = 5\n"                               /* 9 */
    "symbols = 33\n"                            /* 10 */
    "file = \"data/x y.txt\"\n"                 /* 11 */
    "val_size = 77\n"                           /* 12 */
    "separator = false\n"                       /* 13 */
    "[model]\n"                                 /* 14 */
    "d_model = 96\n"                            /* 15 */
    "n_heads = 3\n"                             /* 16 */
    "n_layers = 4\n"                            /* 17 */
    "d_ff = 100\n"                              /* 18 */
    "max_seq_len = 50\n"                        /* 19 */
    "ln_eps = 1.2345678901234567e-7\n"          /* 20 */
    "block = llama\n"                           /* 21 */
    "matmul = bf16\n"                           /* 22 */
    "[attention]\n"                             /* 23 */
    "scale = 0.1\n"                             /* 24 */
    "qk_norm = layernorm\n"                     /* 25 */
    "softcap = 30\n"                            /* 26 */
    "window = 5\n"                              /* 27 */
    "[init]\n"                                  /* 28 */
    "scheme = gpt2\n"                           /* 29 */
    "std = 0.1\n"                               /* 30 */
    "[optim]\n"                                 /* 31 */
    "name = sgd\n"                              /* 32 */
    "lr = 0.3\n"                                /* 33 */
    "beta1 = 0.1\n"                             /* 34 */
    "beta2 = 0.7\n"                             /* 35 */
    "eps = 3e-9\n"                              /* 36 */
    "weight_decay = 0.01\n"                     /* 37 */
    "momentum = 0.95\n"                         /* 38 */
    "grad_clip = 1.5\n"                         /* 39 */
    "warmup_steps = 11\n"                       /* 40 */
    "schedule = cosine\n"                       /* 41 */
    "min_lr = 1e-5\n"                           /* 42 */
    "[train]\n"                                 /* 43 */
    "steps = 5\n"                               /* 44 */
    "batch_size = 7\n"                          /* 45 */
    "eval_every = 9\n"                          /* 46 */
    "checkpoint_every = 13\n"                   /* 47 */
    "on_divergence = skip\n"                    /* 48 */
    "[log]\n"                                   /* 49 */
    "every = 3\n"                               /* 50 */
    "progress = 0\n"                            /* 51 */
    "[guard]\n"                                 /* 52 */
    "logit_std_max = 25.5\n"                    /* 53 */
    "max_weight_max = 0.875\n"                  /* 54 */
    "grad_norm_min = 1e-9\n"                    /* 55 */
    "grad_norm_max = 1e4\n"                     /* 56 */
    "action = stop\n";                          /* 57 */

#endif
