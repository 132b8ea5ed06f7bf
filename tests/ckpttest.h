/* ckpttest.h: helpers shared by the tests of the checkpoint file (test_checkpoint) and of
 * resuming runs through ./train (test_resume): a fresh folder in /tmp, whole-file read and write,
 * the FNV-1a 64 hash checkpoint.h specifies (to rewrite a checkpoint as an older program wrote
 * it), and a small ./train run that can be signalled part-way, resumed, and compared with the run
 * never interrupted.
 *
 * Static inline, so a test program that uses a few of them compiles without unused-function
 * warnings; a header rather than a .c file of tests/ because those are linked into every test
 * program, the double-precision ones too, which do not have the training objects. */
#ifndef SCALEDOT_CKPTTEST_H
#define SCALEDOT_CKPTTEST_H

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

/* The current test's folder (one per test: each runs in its own forked process). */
static char tmpdir[256];

static inline void make_tmpdir(void) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_ckpt_XXXXXX");
}

/* The whole file; fails the test when it cannot be read. */
static inline char *slurp(const char *path, size_t *len) {
    char *buf = tu_read_file(path, len);
    ck_assert_msg(buf != NULL, "cannot read %s", path);
    return buf;
}

static inline void spit(const char *path, const char *buf, size_t len) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    fclose(f);
}

/* FNV-1a 64 as checkpoint.h specifies it, for rewriting a checkpoint's configuration. */
static inline uint64_t fnv1a64(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Writes to path the checkpoint old (len bytes, as read from a file) with its configuration text
 * replaced by text and the hash recomputed (the layout checkpoint.h specifies: 16 bytes of
 * header, the text's length, the text, the tensors, the FNV-1a hash of all before it). */
static inline void write_with_config(const char *path, const unsigned char *old, size_t len,
                                     const char *text) {
    uint64_t clen;
    memcpy(&clen, old + 16, 8);
    size_t nlen = strlen(text), rest = len - 24 - clen - 8, total = 24 + nlen + rest + 8;
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
}

/* Rewrites the configuration text in the checkpoint at path with its first `from` replaced by
 * `to` (the hash recomputed, as checkpoint.h specifies), as another program would have written it. */
static inline void replace_in_config(const char *path, const char *from, const char *to) {
    size_t len;
    unsigned char *old = (unsigned char *)slurp(path, &len);
    uint64_t clen;
    memcpy(&clen, old + 16, 8);
    char *text = calloc(clen + strlen(to) + 1, 1);
    memcpy(text, old + 24, clen);
    char *at = strstr(text, from);
    ck_assert_msg(at != NULL, "no '%s' in the stored config", from);
    memmove(at + strlen(to), at + strlen(from), strlen(at + strlen(from)) + 1);
    memcpy(at, to, strlen(to));
    write_with_config(path, old, len, text);
    free(text);
    free(old);
}

/* The run of these tests but for train.steps (a key set twice by --set is refused). */
#define RUN_ARGS_BASE                                                                              \
    "--set task.name=copy --set task.length=3 --set task.symbols=6 --set task.val_size=64 "      \
    "--set model.d_model=16 --set model.n_heads=2 --set model.n_layers=1 "                       \
    "--set train.batch_size=16 --set train.eval_every=50 --set log.every=5 --set log.progress=0 " \
    "--set train.checkpoint_every=25 --set optim.schedule=cosine --set optim.warmup_steps=20 "    \
    "--set run.threads=1"

static const char RUN_ARGS[] = RUN_ARGS_BASE " --set train.steps=400";

/* The recall run but for task.separator. */
#define RECALL_ARGS_BASE                                                                           \
    "--set task.name=recall --set task.pairs=3 --set task.symbols=6 --set task.val_size=64 "      \
    "--set model.d_model=16 --set model.n_heads=2 "                                              \
    "--set model.n_layers=1 --set train.batch_size=16 --set train.eval_every=10 --set log.every=5 " \
    "--set log.progress=0 --set run.threads=1"

static const char RECALL_ARGS[] = RECALL_ARGS_BASE " --set task.separator=true";

/* More --set arguments for run_full and run_and_signal (the qk-norm tests). */
static const char *extra_args = "";

static inline int sh(const char *fmt, const char *a, const char *b) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* The logs minus the timing columns (elapsed_s, tokens_per_s) of loss.csv. */
static inline void strip_timing(const char *dir, const char *out) {
    char cmd[4096];
    int n = snprintf(cmd, sizeof cmd,
                     "cut -d, -f1-7,10 %s/loss.csv > %s && cat %s/grad_norms.csv %s/attention.csv >> %s",
                     dir, out, dir, dir, out);
    ck_assert(n > 0 && (size_t)n < sizeof cmd);
    ck_assert_int_eq(system(cmd), 0);
}

static inline int wait_for_file(const char *path, double seconds) {
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
static inline int run_and_signal(const char *name, int sig) {
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
static inline void run_full(void) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s %s --set run.dir=%s --set run.name=full 2>/dev/null", tu_train_bin(),
             RUN_ARGS, extra_args, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* The logs of run tmpdir/name, resumed, equal those of tmpdir/full (the timing columns aside;
 * attn_steps.csv whole). */
static inline void assert_logs_match_full(const char *name) {
    char a[600], b[600], dir[600];
    snprintf(a, sizeof a, "%s/full.txt", tmpdir);
    snprintf(b, sizeof b, "%s/%s.txt", tmpdir, name);
    snprintf(dir, sizeof dir, "%s/full", tmpdir);
    strip_timing(dir, a);
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
    strip_timing(dir, b);
    ck_assert_msg(sh("cmp -s %s %s", a, b) == 0, "resumed logs differ from the uninterrupted run's");
    /* attn_steps.csv has no timing column: byte for byte (the resume drops its rows after the
     * checkpoint like the other logs') */
    snprintf(a, sizeof a, "%s/full/attn_steps.csv", tmpdir);
    snprintf(b, sizeof b, "%s/%s/attn_steps.csv", tmpdir, name);
    ck_assert_msg(sh("cmp -s %s %s", a, b) == 0, "resumed attn_steps.csv differs from the "
                                                 "uninterrupted run's");
}

#endif
