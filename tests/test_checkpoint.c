/* test_checkpoint.c: the checkpoint file of src/train/checkpoint.c. Checkpoints round-trip
 * exactly, bad files are rejected with a clear error, and a checkpoint as an older program wrote
 * it (no attention.qk_norm key, no task.separator key in its stored configuration) still loads
 * with the meaning it was trained with. Resuming and evaluating runs through ./train is
 * test_resume.c's job. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpttest.h"
#include "temp_names.h"
#include "testutil.h"
#include "train/checkpoint.h"
#include "train/checkpoint_config.h"
#include "train/train.h"

static void build_small(Model *m, Optimizer *o, int d_model) {
    ModelConfig mc = {.vocab_size = 7, .d_model = d_model, .n_heads = 2, .n_layers = 2, .d_ff = 12,
                      .max_seq_len = 5, .ln_eps = 1e-5f, .scale = 0.5f};
    ck_assert_int_eq(model_build(m, &mc, 2), 0);
    Rng rng;
    rng_seed(&rng, 5);
    model_init_fan_in(m, &rng);
    ck_assert_int_eq(optim_init(o, OPTIMIZER_ADAMW, 0.9, 0.999, 1e-8, 0.1, 0, m->n_params), 0);
    for (size_t i = 0; i < m->n_params; i++) {
        o->m[i] = (real)rng_normal(&rng);
        o->v[i] = (real)rng_uniform(&rng);
    }
    o->t = 17;
}

/* Runs checkpoint_load with stderr captured; returns its result and leaves the message in msg. */
static int load_capture(const char *path, Model *m, Optimizer *o, char *msg, size_t cap) {
    TuCapture c;
    tu_capture_begin(&c, 2);
    CheckpointState st;
    int rc = checkpoint_load(path, m, o, &st);
    char *text = tu_capture_end(&c);
    snprintf(msg, cap, "%s", text);
    free(text);
    return rc;
}

START_TEST(test_round_trip_is_exact) {
    make_tmpdir();
    Model a, b;
    Optimizer oa, ob;
    build_small(&a, &oa, 8);
    build_small(&b, &ob, 8);
    memset(b.params, 0, b.n_params * sizeof(real));
    memset(ob.m, 0, b.n_params * sizeof(real));
    memset(ob.v, 0, b.n_params * sizeof(real));
    ob.t = 0;
    CheckpointState st = {123, 4.5, 2, {{1, 2, 3, 4}}, 1}, back;
    char path[300];
    snprintf(path, sizeof path, "%s/ck.bin", tmpdir);
    ck_assert_int_eq(checkpoint_save(path, "[run]\nname = x\n", &a, &oa, &st), 0);
    ck_assert_int_eq(checkpoint_load(path, &b, &ob, &back), 0);
    ck_assert_int_eq(memcmp(a.params, b.params, a.n_params * sizeof(real)), 0);
    ck_assert_int_eq(memcmp(oa.m, ob.m, a.n_params * sizeof(real)), 0);
    ck_assert_int_eq(memcmp(oa.v, ob.v, a.n_params * sizeof(real)), 0);
    ck_assert_int_eq(ob.t, 17);
    ck_assert_int_eq(back.step, 123);
    ck_assert_int_eq(back.skipped, 2);
    ck_assert(back.elapsed_s == 4.5);
    ck_assert(back.data_rng.s[3] == 4);
    char *cfg = NULL;
    ck_assert_int_eq(checkpoint_read_config(path, &cfg), 0);
    ck_assert_str_eq(cfg, "[run]\nname = x\n");
    free(cfg);
    temp_names_assert_none(tmpdir); /* no temporary file is left behind */
    optim_free(&oa);
    optim_free(&ob);
    model_free(&a);
    model_free(&b);
}
END_TEST

START_TEST(test_bad_files_are_rejected) {
    make_tmpdir();
    Model a, other;
    Optimizer oa, oo;
    build_small(&a, &oa, 8);
    CheckpointState st = {1, 0, 0, {{0}}, 1};
    char path[300], badpath[300], msg[1024];
    snprintf(path, sizeof path, "%s/ck.bin", tmpdir);
    snprintf(badpath, sizeof badpath, "%s/bad.bin", tmpdir);
    ck_assert_int_eq(checkpoint_save(path, "cfg", &a, &oa, &st), 0);
    size_t len;
    char *good = slurp(path, &len);
    char *buf = malloc(len);

    memcpy(buf, good, len);
    buf[len / 2] ^= 0x40; /* one flipped bit in the tensor data */
    spit(badpath, buf, len);
    ck_assert_int_eq(load_capture(badpath, &a, &oa, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "hash mismatch") && strstr(msg, "bad.bin"), "%s", msg);

    spit(badpath, good, len - 100); /* torn write */
    ck_assert_int_eq(load_capture(badpath, &a, &oa, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "bad.bin") != NULL, "%s", msg);

    memcpy(buf, good, len);
    memcpy(buf, "NOTSCALE", 8);
    spit(badpath, buf, len);
    ck_assert_int_eq(load_capture(badpath, &a, &oa, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "magic") != NULL, "%s", msg);

    memcpy(buf, good, len);
    buf[8] = 9; /* version 9 */
    spit(badpath, buf, len);
    ck_assert_int_eq(load_capture(badpath, &a, &oa, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "version 9") != NULL, "%s", msg);

    spit(badpath, good, 10);
    ck_assert_int_eq(load_capture(badpath, &a, &oa, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "too short") != NULL, "%s", msg);

    /* a model of another shape */
    build_small(&other, &oo, 12);
    ck_assert_int_eq(load_capture(path, &other, &oo, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "tok_emb") != NULL, "names the first mismatching tensor: %s", msg);

    snprintf(badpath, sizeof badpath, "%s/missing.bin", tmpdir);
    ck_assert_int_eq(load_capture(badpath, &a, &oa, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "missing.bin") != NULL, "%s", msg);

    /* a device would be read until memory runs out; a folder is not a checkpoint either */
    ck_assert_int_eq(load_capture("/dev/zero", &a, &oa, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "not a regular file") != NULL, "%s", msg);
    ck_assert_int_eq(load_capture(tmpdir, &a, &oa, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "not a regular file") != NULL, "%s", msg);

    free(buf);
    free(good);
    optim_free(&oa);
    optim_free(&oo);
    model_free(&a);
    model_free(&other);
}
END_TEST

/* ---- checkpoints written before task.separator existed ------------------------------------ */

typedef struct {
    const char *text;    /* the configuration stored in the checkpoint */
    SeparatorMode mode;  /* what checkpoint_load_config must make of it */
} StoredConfigCase;

static const StoredConfigCase STORED[] = {
    {"[task]\nname = recall\n", SEPARATOR_TRUE},  /* old: recall had a separator then */
    {"[task]\nname = sort\n", SEPARATOR_TRUE},
    {"[task]\nname = recall\nseparator = false\n", SEPARATOR_FALSE},
    {"[task]\nname = recall\nseparator = auto\n", SEPARATOR_AUTO},
    /* issue 33: older programs recorded true for every text run (meaning nothing there); read
     * as false, which config_validate accepts for text (true it refuses) */
    {"[task]\nname = text\nfile = t.txt\nseparator = true\n", SEPARATOR_FALSE},
    {"[task]\nname = text\nfile = t.txt\n", SEPARATOR_FALSE},
};

START_TEST(test_old_checkpoint_config_keeps_its_separator) {
    const StoredConfigCase *sc = &STORED[_i];
    make_tmpdir();
    Model a;
    Optimizer oa;
    build_small(&a, &oa, 8);
    CheckpointState st = {1, 0, 0, {{0}}, 1};
    char path[300];
    snprintf(path, sizeof path, "%s/ck.bin", tmpdir);
    ck_assert_int_eq(checkpoint_save(path, sc->text, &a, &oa, &st), 0);
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(checkpoint_load_config(path, &c, NULL), 0);
    ck_assert_int_eq(c.task_separator, sc->mode);
    if (c.task == TASK_RECALL && sc->mode == SEPARATOR_TRUE) {
        Task t;
        ck_assert_int_eq(task_init(&t, &c), 0);
        ck_assert_int_eq(t.separator, 1);
        ck_assert_int_eq(t.seq_len, 2 * 8 + 2);  /* k1 v1 .. k8 v8 q SEP a, less the last */
        task_free(&t);
    }
    optim_free(&oa);
    model_free(&a);
}
END_TEST

/* ---- checkpoints written before attention.qk_norm existed -------------------------------- */

/* Rewrites the checkpoint at path as a program from before attention.qk_norm would have: its
 * configuration text without the key and its help line, length and hash fixed up (the format
 * of checkpoint.h: magic, version, byte order, u64 length, text, ..., u64 hash). */
static void strip_qk_norm_key(const char *path) {
    size_t len;
    char *buf = slurp(path, &len);
    uint64_t clen;
    memcpy(&clen, buf + 16, 8);
    char *text = buf + 24, *key = strstr(text, "\nqk_norm = none\n");
    ck_assert_msg(key && key < text + clen, "the checkpoint's configuration has qk_norm = none");
    char *from = key; /* back to the start of the help comment line above the key */
    while (from > text && from[-1] != '\n') from--;
    ck_assert(*from == ';');
    size_t cut = (size_t)(key + strlen("\nqk_norm = none") - from) + 1;
    memmove(from, from + cut, len - (size_t)(from + cut - buf));
    len -= cut;
    clen -= cut;
    memcpy(buf + 16, &clen, 8);
    uint64_t h = fnv1a64((unsigned char *)buf, len - 8);
    memcpy(buf + len - 8, &h, 8);
    ck_assert_ptr_null(strstr(buf + 24, "qk_norm"));
    spit(path, buf, len);
    free(buf);
}

/* A checkpoint whose configuration has no attention.qk_norm (written before the key existed)
 * resumes as the plain model, bitwise as if never interrupted. */
START_TEST(test_checkpoint_without_qk_norm_key_resumes) {
    make_tmpdir();
    run_full();
    int st = run_and_signal("old", SIGINT);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130, "SIGINT exits with 130 (status %d)", st);
    char dir[600], path[700];
    snprintf(dir, sizeof dir, "%s/old", tmpdir);
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    strip_qk_norm_key(path);
    ck_assert_int_eq(sh("%s --resume %s 2>/dev/null", tu_train_bin(), dir), 0);
    assert_logs_match_full("old");
}
END_TEST

/* ---- an old recall checkpoint, rewritten without task.separator -------------------------- */

/* Rewrites the checkpoint at path without the task.separator lines (the key and its help
 * comment) and the provenance comments in its configuration, as a checkpoint written before the
 * key existed. */
static void drop_separator_key(const char *path) {
    size_t len;
    unsigned char *old = (unsigned char *)slurp(path, &len);
    uint64_t clen;
    memcpy(&clen, old + 16, 8);
    char *text = malloc(clen + 1);
    memcpy(text, old + 24, clen);
    text[clen] = '\0';
    char *key = strstr(text, "\nseparator = true\n");
    ck_assert_msg(key != NULL, "the stored config has 'separator = true'");
    char *comment = key;
    while (comment > text && comment[-1] != '\n') comment--;  /* start of "; A separator ..." */
    comment--;
    ck_assert(strncmp(comment, "\n; A separator", 14) == 0);
    memmove(comment + 1, key + strlen("\nseparator = true\n"),
            strlen(key + strlen("\nseparator = true\n")) + 1);
    /* an old checkpoint has no provenance comments either (their command line names the key) */
    for (char *pv; (pv = strstr(text, "; provenance: ")) != NULL;) {
        char *end = strchr(pv, '\n');
        memmove(pv, end ? end + 1 : pv + strlen(pv), strlen(end ? end + 1 : pv + strlen(pv)) + 1);
    }
    ck_assert_ptr_null(strstr(text, "separator"));
    write_with_config(path, old, len, text);
    free(text);
    free(old);
}

/* An old recall checkpoint (a separator before the answer, no task.separator key) resumes with
 * its separator and logs what the uninterrupted run logs. */
START_TEST(test_old_recall_checkpoint_resumes_as_before) {
    make_tmpdir();
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s %s --set train.steps=40 --set run.dir=%s --set run.name=full 2>/dev/null && "
             "%s %s --set train.steps=20 --set run.dir=%s --set run.name=old 2>/dev/null",
             tu_train_bin(), RECALL_ARGS, tmpdir, tu_train_bin(), RECALL_ARGS, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    char ck[400], ini[400];
    snprintf(ck, sizeof ck, "%s/old/checkpoint.bin", tmpdir);
    drop_separator_key(ck);
    snprintf(cmd, sizeof cmd, "%s --resume %s/old --set train.steps=40 >/dev/null 2>&1",
             tu_train_bin(), tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    assert_logs_match_full("old");
    snprintf(ini, sizeof ini, "%s/old/config.ini", tmpdir);
    ck_assert(tu_file_contains(ini, "\nseparator = true\n"));
}
END_TEST

/* issue 33: a text run of an older program, whose checkpoint says task.separator = true (as
 * every text run's did), killed before its first new checkpoint after a resume by this program
 * had rewritten config.ini (false): still evaluated, exported and resumed, not refused as
 * another configuration or as a separator text cannot have. */
START_TEST(test_old_text_checkpoint_with_separator_true) {
    make_tmpdir();
    char args[2048];
    snprintf(args, sizeof args,
             "--set task.name=text --set task.file=%s/data/prose.txt --set task.seq_len=16 "
             "--set model.d_model=16 --set train.steps=4 --set train.batch_size=4 "
             "--set run.threads=1 --set log.progress=0 --set run.dir=%s --set run.name=old",
             SCALEDOT_SOURCE_DIR, tmpdir);
    ck_assert_int_eq(sh("%s %s >/dev/null 2>&1", tu_train_bin(), args), 0);
    char ck[400];
    snprintf(ck, sizeof ck, "%s/old/checkpoint.bin", tmpdir);
    replace_in_config(ck, "\nseparator = false\n", "\nseparator = true\n");
    ck_assert_int_eq(sh("%s --eval %s/old >/dev/null 2>&1", tu_train_bin(), tmpdir), 0);
    snprintf(args, sizeof args, "%s/old %s/old.safetensors", tmpdir, tmpdir);
    ck_assert_int_eq(sh("%s --export %s >/dev/null 2>&1", tu_train_bin(), args), 0);
    ck_assert_int_eq(sh("%s --resume %s/old --set train.steps=6 >/dev/null 2>&1", tu_train_bin(),
                        tmpdir), 0);
    snprintf(ck, sizeof ck, "%s/old/config.ini", tmpdir);
    ck_assert(tu_file_contains(ck, "\nseparator = false\n")); /* as this program writes it */
}
END_TEST

TU_MAIN_TIMEOUT("checkpoint", 300, test_round_trip_is_exact, test_bad_files_are_rejected,
                TU_LOOP(test_old_checkpoint_config_keeps_its_separator, 0,
                        (int)(sizeof STORED / sizeof STORED[0])),
                test_checkpoint_without_qk_norm_key_resumes,
                test_old_recall_checkpoint_resumes_as_before,
                test_old_text_checkpoint_with_separator_true);
