/* test_text_task.c: the text task (src/tasks/text_task.c and its training windows in stream.c):
 * the split into a training part and a held-out tail and the validation windows, re-derived here
 * from the file's bytes with integer arithmetic; training windows that never reach the tail over
 * many draws, reproducible by seed; the byte token names; bits per byte in loss.csv against
 * val_loss / ln 2; every bad input refused with the file named and exit code 2; --resume and
 * --eval refusing a text that changed; --compare reading text and sort runs together. */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "configcheck.h"
#include "runlog/csv_read.h"
#include "tasks/tasks.h"
#include "tasktest.h"
#include "testutil.h"

static char tmpdir[256];

static void setup(void) { tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/test_text_task.XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmpdir); }

/* n pseudo-random bytes (every value 0..255 occurs; windows of 9 or more bytes are unique with
 * overwhelming probability, so a window's place in the file is known from its bytes). */
static unsigned char *random_bytes(size_t n, unsigned seed) {
    unsigned char *b = malloc(n);
    ck_assert_ptr_nonnull(b);
    unsigned long long x = 0x9E3779B97F4A7C15ull ^ seed;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = (unsigned char)(x >> 56);
    }
    return b;
}

static Config text_config(const char *path, int T, double f, int val_size) {
    Config c = base_config(TASK_TEXT);
    snprintf(c.task_file, sizeof c.task_file, "%.200s", path);
    c.task_seq_len = T;
    c.val_fraction = f;
    c.val_size = val_size;
    return c;
}

/* Split and validation windows: n bytes, T, val_fraction = num / den, task.val_size. */
static const struct {
    size_t n;
    int T, num, den, val_size;
} SPLITS[] = {
    {3000, 16, 1, 10, 512}, /* tail 300: (300 - 1) / 16 = 18 windows */
    {3000, 16, 1, 10, 5},   /* capped by task.val_size */
    {200, 8, 1, 4, 512},    /* tail 50: 6 windows; train 150 */
    {1001, 7, 3, 10, 512},  /* tail 300 (1001 * 3 / 10 = 300.3) */
    {34, 16, 1, 2, 512},    /* the smallest: both parts exactly T + 1 = 17 */
};

START_TEST(test_text_split_and_windows) {
    size_t n = SPLITS[_i].n;
    int T = SPLITS[_i].T;
    unsigned char *b = random_bytes(n, (unsigned)_i);
    char path[256];
    write_temp(path, sizeof path, (const char *)b, n);
    Config c = text_config(path, T, (double)SPLITS[_i].num / SPLITS[_i].den, SPLITS[_i].val_size);
    Task t;
    char msg[2048];
    ck_assert_msg(init_capture(&t, &c, msg, sizeof msg) == 0, "%s", msg);
    /* independent: the tail is floor(n * num / den) in whole numbers */
    size_t tail = n * (size_t)SPLITS[_i].num / (size_t)SPLITS[_i].den, train = n - tail;
    size_t fit = (tail - 1) / (size_t)T;
    int want_val = fit < (size_t)SPLITS[_i].val_size ? (int)fit : SPLITS[_i].val_size;
    ck_assert_int_eq(t.kind, TASK_TEXT);
    ck_assert_int_eq(t.vocab_size, 256);
    ck_assert_int_eq(t.n_symbols, 256);
    ck_assert_int_eq(t.seq_len, T);
    ck_assert_uint_eq(t.text_size, n);
    ck_assert_uint_eq(t.text_train, train);
    ck_assert_int_eq(t.n_val, want_val);
    /* window k: bytes train + k*T .. train + k*T + T; every position scored */
    for (int k = 0; k < t.n_val; k++)
        for (int i = 0; i < T; i++) {
            size_t at = train + (size_t)k * T + i, r = (size_t)k * T + i;
            TU_CHECK_INT_EQ(t.val_tokens[r], b[at]);
            TU_CHECK_INT_EQ(t.val_targets[r], b[at + 1]);
            TU_CHECK(t.val_mask[r] == 1.0f);
        }
    task_free(&t);
    unlink(path);
    free(b);
}
END_TEST

/* Where in b[0..n) the window (tok, tgt) of T tokens starts: the first match, or -1. */
static long window_start(const unsigned char *b, size_t n, const int *tok, const int *tgt, int T) {
    for (size_t s = 0; s + (size_t)T < n; s++) {
        int ok = 1;
        for (int i = 0; i < T && ok; i++) ok = tok[i] == b[s + i] && tgt[i] == b[s + i + 1];
        if (ok) return (long)s;
    }
    return -1;
}

/* Over many draws every training window is a window of the file that ends before the tail, the
 * draws reach both ends of the training part, and the same seed gives the same windows. */
START_TEST(test_text_training_windows_avoid_tail) {
    size_t n = SPLITS[_i].n;
    int T = SPLITS[_i].T, B = 16;
    unsigned char *b = random_bytes(n, (unsigned)_i);
    char path[256];
    write_temp(path, sizeof path, (const char *)b, n);
    Config c = text_config(path, T, (double)SPLITS[_i].num / SPLITS[_i].den, SPLITS[_i].val_size);
    Task t, u;
    ck_assert_int_eq(task_init(&t, &c), 0);
    ck_assert_int_eq(task_init(&u, &c), 0);
    size_t train = n - n * (size_t)SPLITS[_i].num / (size_t)SPLITS[_i].den;
    long last_start = (long)train - T - 1, lo = last_start, hi = 0; /* s + T <= train - 1 */
    Batch x = batch_new(&t, B), y = batch_new(&u, B);
    for (int draw = 0; draw < 400; draw++) {
        task_train_batch(&t, B, x.tok, x.tgt, x.m);
        task_train_batch(&u, B, y.tok, y.tgt, y.m);
        ck_assert(memcmp(x.tok, y.tok, sizeof(int) * (size_t)B * T) == 0);
        for (int r = 0; r < B; r++) {
            const int *tok = x.tok + (size_t)r * T, *tgt = x.tgt + (size_t)r * T;
            for (int i = 0; i < T; i++) TU_CHECK(x.m[(size_t)r * T + i] == 1.0f);
            long s = window_start(b, n, tok, tgt, T);
            ck_assert_msg(s >= 0, "draw %d row %d is no window of the file", draw, r);
            ck_assert_msg(s <= last_start, "a training window starts at %ld: its last target, "
                          "byte %ld, is in the held-out tail (from byte %zu)", s, s + T, train);
            if (s < lo) lo = s;
            if (s > hi) hi = s;
        }
    }
    /* 6400 draws: the ends of the range are reached when it has a few hundred starts */
    if (last_start < 400) {
        ck_assert_int_eq(lo, 0);
        ck_assert_int_eq(hi, last_start);
    }
    /* another seed, other windows (where there is more than one) */
    if (last_start == 0) goto done;
    Config c2 = c;
    c2.seed = c.seed + 1;
    Task v;
    ck_assert_int_eq(task_init(&v, &c2), 0);
    task_train_batch(&v, B, y.tok, y.tgt, y.m);
    task_train_batch(&t, B, x.tok, x.tgt, x.m);
    ck_assert(memcmp(x.tok, y.tok, sizeof(int) * (size_t)B * T) != 0);
    task_free(&v);
done:
    batch_free(&x);
    batch_free(&y);
    task_free(&t);
    task_free(&u);
    unlink(path);
    free(b);
}
END_TEST

START_TEST(test_text_token_names) {
    static const struct {
        int token;
        const char *name;
    } CASES[] = {{'a', "a"}, {'~', "~"}, {' ', "\xe2\x90\xa3"}, {'\n', "\\n"}, {'\t', "\\t"},
                 {'\r', "\\r"}, {'\\', "\\\\"}, {0, "\\x00"}, {0x7f, "\\x7f"}, {0xe2, "\\xe2"},
                 {255, "\\xff"}, {256, "?"}, {-1, "?"}};
    Task t;
    memset(&t, 0, sizeof t);
    t.kind = TASK_TEXT;
    t.n_symbols = 256;
    t.sep = t.pad = -1;
    char buf[32];
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        task_token_name(&t, CASES[i].token, buf, sizeof buf);
        ck_assert_msg(strcmp(buf, CASES[i].name) == 0, "token %d: '%s', expected '%s'",
                      CASES[i].token, buf, CASES[i].name);
    }
}
END_TEST

/* model.max_seq_len shorter than task.seq_len is refused naming both keys. */
START_TEST(test_text_max_seq_len) {
    char path[512];
    snprintf(path, sizeof path, "%s/data/prose.txt", SCALEDOT_SOURCE_DIR);
    Config c = text_config(path, 64, 0.1, 512);
    c.max_seq_len = 32;
    Task t;
    char msg[2048];
    ck_assert_int_eq(init_capture(&t, &c, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "'model.max_seq_len' = 32 is too short for task 'text'") &&
                      strstr(msg, "task.seq_len = 64"), "%s", msg);
    c.max_seq_len = 64;
    ck_assert_int_eq(task_init(&t, &c), 0);
    /* the shipped test text: 10 % tail, 64-byte windows */
    size_t n = t.text_size, tail = n / 10;
    ck_assert_uint_ge(n, 4000);
    ck_assert_uint_eq(t.text_train, n - tail);
    ck_assert_int_eq(t.n_val, (int)((tail - 1) / 64));
    task_free(&t);
}
END_TEST

/* The shipped pair: both load, are the text task on data/kjv.txt with d_k 64, and differ only in
 * attention.scale (and run.name). */
START_TEST(test_text_configs_differ_in_scale_only) {
    Config a, b;
    config_defaults(&a);
    config_defaults(&b);
    ck_assert_int_eq(config_load_file(&a, SCALEDOT_SOURCE_DIR "/configs/text_scaled.ini"), 0);
    ck_assert_int_eq(config_load_file(&b, SCALEDOT_SOURCE_DIR "/configs/text_unscaled.ini"), 0);
    ck_assert_int_eq(config_validate(&a), 0);
    ck_assert_int_eq(a.task, TASK_TEXT);
    ck_assert_str_eq(a.task_file, "data/kjv.txt");
    ck_assert_int_eq(a.d_model / a.n_heads, 64);
    ck_assert_int_eq(a.scale_mode, SCALE_SQRT_DK);
    ck_assert_int_eq(b.scale_mode, SCALE_NONE);
    ck_assert_str_eq(a.run_name, "text_scaled");
    ck_assert_str_eq(b.run_name, "text_unscaled");
    b.scale_mode = a.scale_mode;
    memcpy(b.run_name, a.run_name, sizeof a.run_name);
    cc_assert_config_eq(&a, &b, "text_scaled.ini and text_unscaled.ini");
}
END_TEST

/* ---- end to end: ./train -------------------------------------------------------------- */

static const char *TINY = "--set task.name=text --set task.seq_len=16 --set model.d_model=16 "
                          "--set train.steps=4 --set train.batch_size=4 --set train.eval_every=2 "
                          "--set log.every=2 --set train.checkpoint_every=2 --set run.threads=1 "
                          "--set log.progress=0";

/* Bad input: exit code 2, the file named, no run folder. */
START_TEST(test_text_bad_input) {
    char empty[400], shrt[400], fifo[400], folder[400], missing[400];
    snprintf(empty, sizeof empty, "%s/empty.txt", tmpdir);
    snprintf(shrt, sizeof shrt, "%s/short.txt", tmpdir);
    snprintf(fifo, sizeof fifo, "%s/fifo.txt", tmpdir);
    snprintf(folder, sizeof folder, "%s/folder.txt", tmpdir);
    snprintf(missing, sizeof missing, "%s/missing.txt", tmpdir);
    tu_write_file(empty, "");
    /* T = 16, tail 10 %: the tail needs 17 bytes, so 170 bytes in all; 169 is one short */
    char text[200];
    memset(text, 'a', 169);
    text[169] = 0;
    tu_write_file(shrt, text);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(mkdir(folder, 0700), 0);
    const struct {
        const char *path, *why;
    } CASES[] = {
        {empty, "is empty; task.name = text needs at least 170 bytes"},
        {shrt, "is 169 bytes, too short for task.seq_len = 16"},
        {shrt, "the file needs at least 170 bytes"},
        {fifo, "not a regular file (a FIFO)"},
        {"/dev/zero", "not a regular file (a character device)"},
        {folder, "not a regular file (a folder)"},
        {missing, "cannot be read: No such file or directory"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char args[1200];
        snprintf(args, sizeof args, "%s --set task.file=%s --set run.dir=%s/runs --set run.name=r",
                 TINY, CASES[i].path, tmpdir);
        ck_assert_int_eq(tu_run_train(tmpdir, args), EXIT_CONFIG);
        ck_assert_msg(tu_train_output_contains(tmpdir, CASES[i].path), "case %zu: no file named",
                      i);
        ck_assert_msg(tu_train_output_contains(tmpdir, CASES[i].why), "case %zu: no '%s'", i,
                      CASES[i].why);
        char run[600];
        snprintf(run, sizeof run, "%s/runs/r", tmpdir);
        ck_assert_msg(access(run, F_OK) != 0, "case %zu: a run folder was created", i);
    }
    /* a missing relative path names the folder it was looked for from; the shipped configs'
     * data/kjv.txt, missing in a checkout (a folder with experiments/text_corpus.sh), names the
     * script that makes it; from another folder, another name or an absolute path, not */
    char args0[1200], want[600];
    snprintf(args0, sizeof args0, "%s --set task.file=data/kjv.txt", TINY);
    ck_assert_int_eq(tu_run_train(tmpdir, args0), EXIT_CONFIG);
    snprintf(want, sizeof want, "No such file or directory (a relative path: from the current "
             "folder, %s)\n", tmpdir);
    ck_assert_msg(tu_train_output_contains(tmpdir, want), "no '%s'", want);
    char script[600];
    snprintf(script, sizeof script, "%s/experiments", tmpdir);
    ck_assert_int_eq(mkdir(script, 0700), 0);
    snprintf(script, sizeof script, "%s/experiments/text_corpus.sh", tmpdir);
    tu_write_file(script, "");
    ck_assert_int_eq(tu_run_train(tmpdir, args0), EXIT_CONFIG);
    snprintf(want, sizeof want, "No such file or directory (a relative path: from the current "
             "folder, %s); the King James Bible corpus is made by experiments/text_corpus.sh", tmpdir);
    ck_assert_msg(tu_train_output_contains(tmpdir, want), "no '%s'", want);
    snprintf(args0, sizeof args0, "%s --set task.file=%s/data/kjv.txt", TINY, tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args0), EXIT_CONFIG);
    ck_assert(!tu_train_output_contains(tmpdir, "relative path"));
    ck_assert(!tu_train_output_contains(tmpdir, "experiments/text_corpus.sh"));
    /* a dangling link says so (the name is there, its file is not) */
    char link_path[600];
    snprintf(link_path, sizeof link_path, "%s/dangling.txt", tmpdir);
    ck_assert_int_eq(symlink("no_such_target.txt", link_path), 0);
    snprintf(args0, sizeof args0, "%s --set task.file=%s", TINY, link_path);
    ck_assert_int_eq(tu_run_train(tmpdir, args0), EXIT_CONFIG);
    ck_assert(tu_train_output_contains(tmpdir, "No such file or directory (a symbolic link to a "
                                               "file that is not there)\n"));
    snprintf(args0, sizeof args0, "%s --set task.file=notkjv.txt", TINY);
    ck_assert_int_eq(tu_run_train(tmpdir, args0), EXIT_CONFIG);
    ck_assert(tu_train_output_contains(tmpdir, "(a relative path: from the current folder"));
    ck_assert(!tu_train_output_contains(tmpdir, "experiments/text_corpus.sh"));
    /* one byte more and it trains */
    text[169] = 'a';
    text[170] = 0;
    tu_write_file(shrt, text);
    char args[1200];
    snprintf(args, sizeof args, "%s --set task.file=%s --set run.dir=%s/runs --set run.name=r",
             TINY, shrt, tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    /* issue 33: a task.val_fraction no text the program reads would satisfy (1e-9 asked for a
     * 33 GB file) names the key and the smallest fraction that works for this text (17 / 170
     * rounded up: 0.1); 0.1 then trains (above) */
    snprintf(args, sizeof args, "%s --set task.file=%s --set run.dir=%s/runs --set run.name=f "
             "--set task.val_fraction=1e-9", TINY, shrt, tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), EXIT_CONFIG);
    ck_assert_msg(tu_train_output_contains(tmpdir, "'task.val_fraction': 1e-09 holds out 0 "
                                                   "bytes of the 170-byte text"), "key not named");
    ck_assert(tu_train_output_contains(tmpdir, "use task.val_fraction >= 0.1\n"));
    ck_assert(!tu_train_output_contains(tmpdir, "the file needs at least"));
}
END_TEST

/* loss.csv of a text run: val_bpb = val_loss / ln 2 (computed here) on every validation row,
 * answer accuracy = token accuracy; a sort run's loss.csv has no val_bpb; --compare reads both and
 * shows a val bpb row. */
START_TEST(test_text_loss_csv_and_compare) {
    char text[600], args[1600];
    snprintf(text, sizeof text, "%s/data/prose.txt", SCALEDOT_SOURCE_DIR);
    snprintf(args, sizeof args, "%s --set task.file=%s --set run.dir=%s/runs --set run.name=t",
             TINY, text, tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    char path[700];
    snprintf(path, sizeof path, "%s/runs/t/loss.csv", tmpdir);
    Csv l;
    ck_assert_int_eq(csv_load(&l, path), 0);
    ck_assert_int_eq(csv_col(&l, "val_bpb"), csv_col(&l, "val_loss") + 1);
    int cl = csv_col(&l, "val_loss"), cb = csv_col(&l, "val_bpb");
    int ct = csv_col(&l, "val_token_acc"), ca = csv_col(&l, "val_answer_acc");
    int rows = 0;
    for (int r = 0; r < l.n_rows; r++) {
        if (csv_empty(&l, r, cl)) {
            ck_assert(csv_empty(&l, r, cb));
            continue;
        }
        double nats = csv_num(&l, r, cl), bits = csv_num(&l, r, cb);
        ck_assert_msg(fabs(bits - nats / log(2.0)) <= 1e-5 * bits, "row %d: %g nats, %g bpb", r,
                      nats, bits);
        ck_assert_str_eq(csv_str(&l, r, ct), csv_str(&l, r, ca));
        rows++;
    }
    ck_assert_int_eq(rows, 3); /* steps 0, 2, 4 */
    csv_free(&l);
    snprintf(args, sizeof args,
             "--set task.name=copy --set task.length=2 --set task.symbols=4 --set task.val_size=8 "
             "--set model.d_model=8 --set train.steps=2 --set train.batch_size=2 "
             "--set run.threads=1 --set log.progress=0 --set run.dir=%s/runs --set run.name=s",
             tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    snprintf(path, sizeof path, "%s/runs/s/loss.csv", tmpdir);
    char *sort_csv = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(sort_csv);
    ck_assert(strncmp(sort_csv, "step,train_loss,val_loss,val_token_acc,val_answer_acc,lr,"
                                "grad_norm,elapsed_s,tokens_per_s,skipped_steps\n",
                      strlen("step,train_loss,val_loss,val_token_acc,")) == 0);
    free(sort_csv);
    snprintf(args, sizeof args, "--compare %s/runs/t %s/runs/s --out %s/report", tmpdir, tmpdir,
             tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    ck_assert(tu_train_output_contains(tmpdir, "validation bits per byte"));
    ck_assert(tu_train_output_contains(tmpdir, "val bpb, final (step 4)"));
}
END_TEST

/* The text's path and hash are recorded; --resume and --eval refuse a text that changed. */
START_TEST(test_text_resume_refuses_changed_file) {
    char text[600], args[1600];
    snprintf(text, sizeof text, "%s/prose.txt", tmpdir);
    char *prose = tu_read_file(SCALEDOT_SOURCE_DIR "/data/prose.txt", NULL);
    ck_assert_ptr_nonnull(prose);
    tu_write_file(text, prose);
    snprintf(args, sizeof args, "%s --set task.file=%s --set run.dir=%s/runs --set run.name=t",
             TINY, text, tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    char ini[700];
    snprintf(ini, sizeof ini, "%s/runs/t/config.ini", tmpdir);
    ck_assert(tu_file_contains(ini, "; task file: "));
    ck_assert(tu_file_contains(ini, "prose.txt fnv1a64 "));
    /* unchanged: --eval works, and prints bits per byte */
    snprintf(args, sizeof args, "--eval %s/runs/t", tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    ck_assert(tu_train_output_contains(tmpdir, "bits per byte"));
    /* no answers to list for text (no "WRONG" windows), and a prompt without --generate is
     * refused naming --generate, before the model is loaded */
    ck_assert(tu_train_output_contains(tmpdir, "has no answers to list"));
    ck_assert(!tu_train_output_contains(tmpdir, "WRONG"));
    snprintf(args, sizeof args, "--eval %s/runs/t --prompt \"In the\"", tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 2);
    ck_assert(tu_train_output_contains(tmpdir, "error: --prompt (argument 4): on a text run goes "
                                               "with --generate N"));
    snprintf(args, sizeof args, "--eval %s/runs/t --prompt \"In the\" --generate 5 --temperature 0",
             tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    ck_assert(tu_train_output_contains(tmpdir, "In the"));
    /* and --resume goes on, its rows with val_bpb too */
    snprintf(args, sizeof args, "--resume %s/runs/t --set train.steps=6", tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    char loss[700];
    snprintf(loss, sizeof loss, "%s/runs/t/loss.csv", tmpdir);
    Csv l;
    ck_assert_int_eq(csv_load(&l, loss), 0);
    int last = l.n_rows - 1;
    ck_assert_int_eq(csv_int(&l, last, csv_col(&l, "step"), -1), 6);
    ck_assert(!csv_empty(&l, last, csv_col(&l, "val_bpb")));
    csv_free(&l);
    /* one byte changed */
    prose[10] = prose[10] == 'x' ? 'y' : 'x';
    tu_write_file(text, prose);
    free(prose);
    const char *cmds[] = {"--resume", "--eval"};
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "%s %s/runs/t --set train.steps=8", cmds[i], tmpdir);
        ck_assert_int_eq(tu_run_train(tmpdir, args), EXIT_CONFIG);
        ck_assert(tu_train_output_contains(tmpdir, "changed since the run was trained on it"));
        ck_assert(tu_train_output_contains(tmpdir, "prose.txt"));
    }
}
END_TEST


/* A text run of `base` (TINY, or the like) on a copy of data/prose.txt at dir/prose.txt, into
 * dir/runs/NAME. */
static void train_prose_run(const char *name, const char *base) {
    char text[600], args[2000];
    snprintf(text, sizeof text, "%s/prose.txt", tmpdir);
    char *prose = tu_read_file(SCALEDOT_SOURCE_DIR "/data/prose.txt", NULL);
    ck_assert_ptr_nonnull(prose);
    tu_write_file(text, prose);
    free(prose);
    snprintf(args, sizeof args, "%s --set task.file=%s --set run.dir=%s/runs --set run.name=%s",
             base, text, tmpdir, name);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
}

/* issue 33: --export and --eval --generate of a text run need only the model and the byte
 * vocabulary (fixed: the 256 byte values), not the corpus; with the corpus moved away they used
 * to refuse. Now they work, and print and write what they did with it there (same greedy bytes,
 * the same export); what needs the data (--eval's validation loss, --export --val) still refuses,
 * naming task.file and the path. */
START_TEST(test_text_generate_and_export_without_corpus) {
    train_prose_run("t", TINY);
    char args[1600], moved[700], text[2600];
    snprintf(args, sizeof args, "--eval %s/runs/t --prompt \"In the\" --generate 40 --temperature 0",
             tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    char out[700];
    snprintf(out, sizeof out, "%s/gen_with", tmpdir);
    snprintf(text, sizeof text, "cd %s && %s %s > gen_with 2>/dev/null", tmpdir, tu_train_bin(), args);
    ck_assert_int_eq(system(text), 0);
    snprintf(text, sizeof text, "%s/prose.txt", tmpdir);
    snprintf(moved, sizeof moved, "%s/prose.moved", tmpdir);
    ck_assert_int_eq(rename(text, moved), 0);
    snprintf(text, sizeof text, "cd %s && %s %s > gen_without", tmpdir, tu_train_bin(), args);
    ck_assert_int_eq(system(text), 0);
    char *with = tu_read_file(out, NULL);
    snprintf(out, sizeof out, "%s/gen_without", tmpdir);
    char *without = tu_read_file(out, NULL);
    ck_assert_ptr_nonnull(with);
    ck_assert_ptr_nonnull(without);
    ck_assert_int_eq(strncmp(with, "In the", 6), 0);
    ck_assert_str_eq(with, without);
    free(with);
    free(without);
    snprintf(args, sizeof args, "--export %s/runs/t %s/t.safetensors", tmpdir, tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    snprintf(out, sizeof out, "%s/t.safetensors", tmpdir);
    ck_assert_int_eq(access(out, F_OK), 0);
    /* what reads the data refuses, naming the key and the file */
    const char *needs[] = {"--eval %s/runs/t", "--export %s/runs/t %s/u.safetensors --val %s/v.st"};
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args, needs[i], tmpdir, tmpdir, tmpdir);
        ck_assert_int_eq(tu_run_train(tmpdir, args), EXIT_CONFIG);
        ck_assert_msg(tu_train_output_contains(tmpdir, "task.file"), "case %d: key not named", i);
        ck_assert_msg(tu_train_output_contains(tmpdir, "/prose.txt"), "case %d: file not named", i);
    }
}
END_TEST

/* issue 33: --eval --generate streams its output (each token flushed as it is drawn) and stops
 * when its reader goes away. A real pipe: the first bytes must arrive long before 100000 tokens
 * could be generated, and after the read end is closed the program must end at once (SIGPIPE is
 * ignored, so it sees EPIPE), exit code 1, with one error line, not one per token. */
START_TEST(test_text_generate_streams_and_stops_on_closed_pipe) {
    /* TINY but 64 wide and 64 long: 100000 tokens take minutes, so a stop is seen */
    train_prose_run("p", "--set task.name=text --set task.seq_len=64 --set model.d_model=64 "
                         "--set train.steps=2 --set train.batch_size=4 --set run.threads=1 "
                         "--set log.progress=0");
    char cmd[1600], err[700];
    snprintf(err, sizeof err, "%s/gen.err", tmpdir);
    snprintf(cmd, sizeof cmd, "exec %s --eval %s/runs/p --prompt \"In the\" --generate 100000",
             tu_train_bin(), tmpdir);
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (e < 0 || dup2(fd[1], 1) < 0 || dup2(e, 2) < 0) _exit(126);
        close(fd[0]);
        close(fd[1]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    /* each wait bounded (the program killed on failing it), so a planted bug costs seconds,
     * not the minutes 100000 tokens take */
    char buf[64];
    size_t got = 0;
    struct pollfd pf = {fd[0], POLLIN, 0};
    while (got < 20 && poll(&pf, 1, 10000) == 1) {
        ssize_t n = read(fd[0], buf + got, sizeof buf - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    close(fd[0]); /* the reader goes away, as `| head -c 20` does */
    int status = 0, ended = 0;
    for (int k = 0; k < 500 && !ended; k++) { /* up to 5 s */
        ended = waitpid(pid, &status, WNOHANG) == pid;
        struct timespec ten_ms = {0, 10000000};
        if (!ended) nanosleep(&ten_ms, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &t2);
    if (!ended) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    double first = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    double stop = (double)(t2.tv_sec - t1.tv_sec) + 1e-9 * (double)(t2.tv_nsec - t1.tv_nsec);
    ck_assert_msg(got >= 20 && strncmp(buf, "In the", 6) == 0,
                  "%zu bytes in %.1f s: the output is not streamed", got, first);
    ck_assert_msg(ended, "%.1f s after the pipe closed it was still generating", stop);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d", status);
    char *e = tu_read_file(err, NULL);
    ck_assert_ptr_nonnull(e);
    int lines = 0;
    for (const char *p = e; (p = strstr(p, "error")); p++) lines++;
    ck_assert_msg(lines == 1 && strstr(e, "error: cannot write to standard output: "), "stderr: %s",
                  e);
    free(e);
}
END_TEST

/* issue 33: the text task has no prompt and answer, so task.separator = true meant nothing yet
 * was recorded. Refused before any work, the place and key named (a --set and a config file's
 * line); auto and false train, and the run records false (never true) for text. */
START_TEST(test_text_separator_true_refused) {
    char text[600], args[2000], ini[700];
    snprintf(text, sizeof text, "%s/data/prose.txt", SCALEDOT_SOURCE_DIR);
    snprintf(args, sizeof args, "%s --set task.file=%s --set run.dir=%s/runs --set run.name=s "
             "--set task.separator=true", TINY, text, tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), EXIT_CONFIG);
    ck_assert(tu_train_output_contains(tmpdir, "'task.separator' = true, but 'task.name' = text"));
    ck_assert(tu_train_output_contains(tmpdir, "--set (argument 28): 'task.separator' = true"));
    snprintf(ini, sizeof ini, "%s/runs/s", tmpdir);
    ck_assert_msg(access(ini, F_OK) != 0, "a run folder was created");
    snprintf(ini, sizeof ini, "%s/sep.ini", tmpdir);
    tu_write_file(ini, "[task]\nname = text\nseparator = true\n");
    snprintf(args, sizeof args, "%s %s --set task.file=%s --set run.dir=%s/runs --set run.name=s",
             ini, TINY, text, tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), EXIT_CONFIG);
    char want[800];
    snprintf(want, sizeof want, "%s:3: 'task.separator' = true", ini);
    ck_assert_msg(tu_train_output_contains(tmpdir, want), "no '%s'", want);
    const char *ok[] = {"auto", "false"};
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "%s --set task.file=%s --set run.dir=%s/runs --set run.name=%s "
                 "--set task.separator=%s", TINY, text, tmpdir, ok[i], ok[i]);
        ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
        snprintf(ini, sizeof ini, "%s/runs/%s/config.ini", tmpdir, ok[i]);
        ck_assert_msg(tu_file_contains(ini, "\nseparator = false\n"), "%s: not false", ok[i]);
    }
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("text_task", setup, teardown, 120,
                        TU_LOOP(test_text_split_and_windows, 0, sizeof SPLITS / sizeof SPLITS[0]),
                        TU_LOOP(test_text_training_windows_avoid_tail, 0,
                                sizeof SPLITS / sizeof SPLITS[0]), test_text_token_names,
                        test_text_max_seq_len, test_text_configs_differ_in_scale_only,
                        test_text_bad_input, test_text_loss_csv_and_compare,
                        test_text_resume_refuses_changed_file,
                        test_text_generate_and_export_without_corpus,
                        test_text_generate_streams_and_stops_on_closed_pipe,
                        test_text_separator_true_refused);
