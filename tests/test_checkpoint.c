/* test_checkpoint.c: checkpoints round-trip exactly, bad files are rejected with a clear error,
 * a run killed (kill -9) or interrupted (SIGINT) and then resumed logs rows bitwise identical
 * to the run never interrupted (the timing columns aside), and a checkpoint written before
 * task.separator existed keeps the separator it was trained with. */
#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "train/checkpoint.h"
#include "train/train.h"

static char tmpdir[256];

static void make_tmpdir(void) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_ckpt_XXXXXX");
}

static void build_small(Model *m, Optimizer *o, int d_model) {
    ModelConfig mc = {.vocab_size = 7, .d_model = d_model, .n_heads = 2, .n_layers = 2, .d_ff = 12,
                      .max_seq_len = 5, .ln_eps = 1e-5f, .scale = 0.5f};
    ck_assert_int_eq(model_build(m, &mc, 2), 0);
    Rng rng;
    rng_seed(&rng, 5);
    model_init_fan_in(m, &rng);
    ck_assert_int_eq(optim_init(o, OPT_ADAMW, 0.9, 0.999, 1e-8, 0.1, 0, m->n_params), 0);
    for (size_t i = 0; i < m->n_params; i++) {
        o->m[i] = (real)rng_normal(&rng);
        o->v[i] = (real)rng_uniform(&rng);
    }
    o->t = 17;
}

/* The whole file; fails the test when it cannot be read. */
static char *slurp(const char *path, size_t *len) {
    char *buf = tu_read_file(path, len);
    ck_assert_msg(buf != NULL, "cannot read %s", path);
    return buf;
}

static void spit(const char *path, const char *buf, size_t len) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    fclose(f);
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
    CheckpointState st = {123, 4.5, 2, {{1, 2, 3, 4}}}, back;
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
    /* no temporary file is left behind */
    char tmp[320];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    struct stat sb;
    ck_assert_int_ne(stat(tmp, &sb), 0);
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
    CheckpointState st = {1, 0, 0, {{0}}};
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

static const char *RUN_ARGS =
    "--set task.name=copy --set task.length=3 --set task.symbols=6 --set task.val_size=64 "
    "--set model.d_model=16 --set model.n_heads=2 --set model.n_layers=1 --set train.batch_size=16 "
    "--set train.steps=400 --set train.eval_every=50 --set log.every=5 --set log.progress=0 "
    "--set train.checkpoint_every=25 --set optim.schedule=cosine --set optim.warmup_steps=20 "
    "--set run.threads=1";

/* More --set arguments for run_full and run_and_signal (the qk-norm tests). */
static const char *extra_args = "";

static int sh(const char *fmt, const char *a, const char *b) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* The logs minus the timing columns (elapsed_s, tokens_per_s) of loss.csv. */
static void strip_timing(const char *dir, const char *out) {
    char cmd[4096];
    int n = snprintf(cmd, sizeof cmd,
                     "cut -d, -f1-7,10 %s/loss.csv > %s && cat %s/grad_norms.csv %s/attention.csv >> %s",
                     dir, out, dir, dir, out);
    ck_assert(n > 0 && (size_t)n < sizeof cmd);
    ck_assert_int_eq(system(cmd), 0);
}

static int wait_for_file(const char *path, double seconds) {
    struct stat sb;
    struct timespec ts = {0, 2000000};
    for (double t = 0; t < seconds; t += 0.002) {
        if (stat(path, &sb) == 0) return 1;
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* Starts ./train in the background, sends sig once the first checkpoint exists, waits. Returns
 * the exit status word. */
static int run_and_signal(const char *name, int sig) {
    char cmd[4096], ck[600];
    snprintf(cmd, sizeof cmd, "exec %s %s %s --set run.dir=%s --set run.name=%s", tu_train_bin(), RUN_ARGS,
             extra_args, tmpdir, name);
    snprintf(ck, sizeof ck, "%s/%s/checkpoint.bin", tmpdir, name);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stderr);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    /* "exec" makes pid ./train itself, so the signal reaches it and not the shell */
    ck_assert_msg(wait_for_file(ck, 60), "no checkpoint appeared");
    kill(pid, sig);
    int st;
    waitpid(pid, &st, 0);
    return st;
}

/* The run never interrupted, into tmpdir/full. */
static void run_full(void) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s %s --set run.dir=%s --set run.name=full 2>/dev/null", tu_train_bin(),
             RUN_ARGS, extra_args, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* The logs of run tmpdir/name, resumed, equal those of tmpdir/full (the timing columns aside). */
static void assert_logs_match_full(const char *name) {
    char a[600], b[600], dir[600];
    snprintf(a, sizeof a, "%s/full.txt", tmpdir);
    snprintf(b, sizeof b, "%s/%s.txt", tmpdir, name);
    snprintf(dir, sizeof dir, "%s/full", tmpdir);
    strip_timing(dir, a);
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
    strip_timing(dir, b);
    ck_assert_msg(sh("cmp -s %s %s", a, b) == 0, "resumed logs differ from the uninterrupted run's");
}

START_TEST(test_resume_after_kill_is_bitwise_identical) {
    make_tmpdir();
    run_full();

    int st = run_and_signal("killed", SIGKILL);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the run was killed");
    char dir[600];
    snprintf(dir, sizeof dir, "%s/killed", tmpdir);
    /* it was killed part-way: its log is shorter than the full run's, and every line is whole */
    ck_assert_int_ne(sh("cmp -s %s/full/loss.csv %s/loss.csv", tmpdir, dir), 0);
    ck_assert_int_eq(sh("test \"$(tail -c1 %s/loss.csv | od -An -c | tr -d ' ')\" = '\\n'%s", dir, ""), 0);
    ck_assert_int_eq(sh("%s --resume %s 2>/dev/null", tu_train_bin(), dir), 0);
    assert_logs_match_full("killed");
}
END_TEST

START_TEST(test_sigint_writes_checkpoint_and_resumes) {
    make_tmpdir();
    run_full();

    int st = run_and_signal("int", SIGINT);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130, "SIGINT exits with 130 (status %d)", st);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/int", tmpdir);
    ck_assert_int_eq(sh("%s --eval %s > /dev/null 2>&1", tu_train_bin(), dir), 0);
    ck_assert_int_eq(sh("%s --resume %s 2>/dev/null", tu_train_bin(), dir), 0);
    assert_logs_match_full("int");
}
END_TEST

START_TEST(test_eval_prints_accuracy_and_examples) {
    make_tmpdir();
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s %s --set train.steps=30 --set run.dir=%s --set run.name=e 2>/dev/null && %s --eval %s/e > %s/eval.txt",
             tu_train_bin(), RUN_ARGS, tmpdir, tu_train_bin(), tmpdir, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    char path[400];
    snprintf(path, sizeof path, "%s/eval.txt", tmpdir);
    size_t len;
    char *out = slurp(path, &len);
    ck_assert_msg(strstr(out, "answer accuracy") && strstr(out, "model:") && strstr(out, " | "), "%s", out);
    free(out);
    ck_assert_int_eq(sh("%s --eval %s/nothing-here 2>/dev/null", tu_train_bin(), tmpdir), EXIT_CONFIG);
}
END_TEST

/* qk-norm survives config.ini and the checkpoint: a run with attention.qk_norm = layernorm,
 * killed and resumed, logs what the run never interrupted logs. */
START_TEST(test_qk_norm_resume_is_bitwise_identical) {
    make_tmpdir();
    extra_args = "--set attention.qk_norm=layernorm";
    run_full();
    int st = run_and_signal("killed", SIGKILL);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the run was killed");
    char dir[600], path[700];
    snprintf(dir, sizeof dir, "%s/killed", tmpdir);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    ck_assert_msg(tu_file_contains(path, "\nqk_norm = layernorm\n"), "config.ini keeps qk_norm");
    /* the tensors exist (in the table of grad_norms.csv) */
    snprintf(path, sizeof path, "%s/grad_norms.csv", dir);
    ck_assert(tu_file_contains(path, ",blocks.0.attn.qkv.bias,blocks.0.attn.q_norm.weight,"
                                     "blocks.0.attn.q_norm.bias,blocks.0.attn.k_norm.weight,"
                                     "blocks.0.attn.k_norm.bias,blocks.0.attn.proj.weight,"));
    ck_assert_int_eq(sh("%s --resume %s 2>/dev/null", tu_train_bin(), dir), 0);
    assert_logs_match_full("killed");
    extra_args = "";
}
END_TEST

static uint64_t fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

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
    uint64_t h = fnv1a((unsigned char *)buf, len - 8);
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

/* A copied run folder is resumed in the copy; the original is not touched. A fresh run in an
 * old folder removes the old checkpoint, so it can never be resumed against the new logs. */
START_TEST(test_resume_writes_into_the_given_folder) {
    make_tmpdir();
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s %s --set train.steps=30 --set run.dir=%s --set run.name=orig 2>/dev/null && "
             "cp -r %s/orig %s/copy && cp %s/orig/loss.csv %s/orig.before && "
             "%s --resume %s/copy/ --set train.steps=50 2>/dev/null && "
             "cmp -s %s/orig/loss.csv %s/orig.before && ! cmp -s %s/copy/loss.csv %s/orig.before",
             tu_train_bin(), RUN_ARGS, tmpdir, tmpdir, tmpdir, tmpdir, tmpdir, tu_train_bin(), tmpdir,
             tmpdir, tmpdir, tmpdir, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    /* a new run stopped by a guard at step 0, before it writes any checkpoint of its own */
    snprintf(cmd, sizeof cmd,
             "%s %s --set run.dir=%s --set run.name=orig --set guard.logit_std_max=1e-9 "
             "--set guard.action=stop 2>/dev/null",
             tu_train_bin(), RUN_ARGS, tmpdir);
    int st = system(cmd);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == EXIT_GUARD);
    ck_assert_int_eq(sh("%s --eval %s/orig > /dev/null 2>&1", tu_train_bin(), tmpdir), EXIT_CONFIG);
}
END_TEST

/* train.on_divergence = skip: the run goes on, the bad steps are counted, parameters stay finite. */
START_TEST(test_divergence_skip_counts_steps) {
    make_tmpdir();
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s --set task.name=copy --set task.length=3 --set task.symbols=6 --set task.val_size=64 "
             "--set model.d_model=16 --set optim.name=sgd --set optim.lr=10 --set optim.momentum=0.99 "
             "--set init.scheme=gpt2 --set init.std=10 --set train.steps=40 --set log.every=1 "
             "--set log.progress=0 --set train.on_divergence=skip --set run.dir=%s 2>/dev/null",
             tu_train_bin(), tmpdir);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 0);
    char path[400];
    snprintf(path, sizeof path, "%s/run/loss.csv", tmpdir);
    size_t len;
    char *csv = slurp(path, &len);
    /* the last row's skipped_steps (last field) counts the skipped updates */
    char *lastrow = csv + len - 1;
    while (lastrow > csv && lastrow[-1] != '\n') lastrow--;
    char *lastfield = strrchr(lastrow, ',');
    ck_assert_ptr_nonnull(lastfield);
    ck_assert_msg(atoi(lastfield + 1) > 0, "some updates were skipped: %s", lastrow);
    free(csv);
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
};

START_TEST(test_old_checkpoint_config_keeps_its_separator) {
    const StoredConfigCase *sc = &STORED[_i];
    make_tmpdir();
    Model a;
    Optimizer oa;
    build_small(&a, &oa, 8);
    CheckpointState st = {1, 0, 0, {{0}}};
    char path[300];
    snprintf(path, sizeof path, "%s/ck.bin", tmpdir);
    ck_assert_int_eq(checkpoint_save(path, sc->text, &a, &oa, &st), 0);
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(checkpoint_load_config(path, &c), 0);
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

/* FNV-1a 64 as checkpoint.h specifies it, for rewriting a checkpoint's configuration. */
static uint64_t fnv1a64(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

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
    size_t nlen = strlen(text), rest = len - 24 - clen - 8;
    size_t total = 24 + nlen + rest + 8;
    unsigned char *out = malloc(total);
    uint64_t n64 = nlen;
    memcpy(out, old, 16);
    memcpy(out + 16, &n64, 8);
    memcpy(out + 24, text, nlen);
    memcpy(out + 24 + nlen, old + 24 + clen, rest);
    uint64_t h = fnv1a64(out, total - 8);
    memcpy(out + total - 8, &h, 8);
    spit(path, (const char *)out, total);
    free(out);
    free(text);
    free(old);
}

static const char *RECALL_ARGS =
    "--set task.name=recall --set task.pairs=3 --set task.symbols=6 --set task.val_size=64 "
    "--set task.separator=true --set model.d_model=16 --set model.n_heads=2 "
    "--set model.n_layers=1 --set train.batch_size=16 --set train.eval_every=10 --set log.every=5 "
    "--set log.progress=0 --set run.threads=1";

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

/* --eval of a recall run without separator: the prompt is the pairs and the query, the answer
 * one token; config.ini stores the format auto resolved to. */
START_TEST(test_eval_recall_without_separator) {
    make_tmpdir();
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s %s --set task.separator=auto --set train.steps=10 --set run.dir=%s --set "
             "run.name=r 2>/dev/null && %s --eval %s/r > %s/eval.txt",
             tu_train_bin(), RECALL_ARGS, tmpdir, tu_train_bin(), tmpdir, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    char path[400];
    snprintf(path, sizeof path, "%s/eval.txt", tmpdir);
    size_t len;
    char *out = slurp(path, &len);
    char *line = strstr(out, "model:");
    ck_assert_msg(line != NULL, "%s", out);
    while (line > out && line[-1] != '\n') line--;
    int syms[6] = {0}, v[4], n = sscanf(line, " %d %d %d %d %d %d %d | %d   model: %d", &syms[0],
                                        &syms[1], &syms[2], &syms[3], &syms[4], &syms[5], &v[0],
                                        &v[1], &v[2]);
    ck_assert_msg(n == 9, "'k v k v k v q | a   model: b' expected, got: %.80s", line);
    ck_assert_msg(strstr(line, "<sep>") == NULL, "%.80s", line);
    free(out);
    /* the run's config.ini says which format auto chose, so no later default can change it */
    snprintf(path, sizeof path, "%s/r/config.ini", tmpdir);
    ck_assert(tu_file_contains(path, "\nseparator = false\n"));
}
END_TEST

int main(void) {
    Suite *s = suite_create("checkpoint");
    TCase *tc = tcase_create("checkpoint");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_round_trip_is_exact);
    tcase_add_test(tc, test_bad_files_are_rejected);
    tcase_add_test(tc, test_resume_after_kill_is_bitwise_identical);
    tcase_add_test(tc, test_sigint_writes_checkpoint_and_resumes);
    tcase_add_test(tc, test_eval_prints_accuracy_and_examples);
    tcase_add_test(tc, test_divergence_skip_counts_steps);
    tcase_add_test(tc, test_resume_writes_into_the_given_folder);
    tcase_add_loop_test(tc, test_old_checkpoint_config_keeps_its_separator, 0,
                        (int)(sizeof STORED / sizeof STORED[0]));
    tcase_add_test(tc, test_old_recall_checkpoint_resumes_as_before);
    tcase_add_test(tc, test_eval_recall_without_separator);
    tcase_add_test(tc, test_qk_norm_resume_is_bitwise_identical);
    tcase_add_test(tc, test_checkpoint_without_qk_norm_key_resumes);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
