/* test_whole_write.c: a log write that a full disk cuts short leaves no torn last row; a whole
 * file is written whole or not at all; nothing is ever written through a symbolic link.
 *
 * A file-size limit (RLIMIT_FSIZE, with SIGXFSZ ignored) makes write(2) fail part way exactly as
 * a full disk does (EFBIG instead of ENOSPC), at a byte offset the test chooses. The limit is set
 * in a forked child only. (1) whole_write itself: rows before the limit stay, the row that
 * crosses it is cut away. (2) ./train under a limit that runs out mid-run: it stops with exit
 * code 1 and an error naming the file, and every CSV of the run ends in a whole row, each row
 * with the header's number of fields. (3) atomic_open / file_write_atomic / file_open_log with a
 * link planted at the path or at its temporary name (the file linked to keeps its bytes), a
 * FIFO (refused at once), a limit (the old file stays, no temporary file left), a read-only file
 * (kept, EACCES); the temporary names (NAME.tmp.PID.K); two processes writing one file at once
 * (always one whole version), and two writers of one file interleaved step by step (both commit). (4) End to end: links planted at every file a run, a resume,
 * --compare and a sweep write leave the file they point at unchanged; --compare under a limit
 * leaves every SVG and index.html whole or absent, no temporary file; a link among the parents
 * of a report, sweep or run folder is refused with nothing written through it. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/plot/plot.h"
#include "testutil.h"
#include "util/dirs.h"
#include "util/owned_dir.h"
#include "util/whole_write.h"

static char tmp[200];

static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/scaledot_test_whole_write_XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

/* In a child limited to `limit` bytes per file: writes `rows` whole_write calls of ROW each, then
 * one call of two rows; exits with the number of calls that failed (the first failing one last). */
#define ROW "0123456789,abcdefghi,0.25\n" /* 26 bytes */

static int child_writes(const char *path, long limit, int *failed_at) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(100);
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd < 0) _exit(101);
        for (int i = 0; i < 10; i++) {
            int two = i == 9;
            const char *text = two ? ROW ROW : ROW;
            if (whole_write(fd, text, strlen(text)) != 0) _exit(errno == EFBIG ? 10 + i : 102);
        }
        _exit(0);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    *failed_at = WEXITSTATUS(st) - 10;
    return WEXITSTATUS(st);
}

/* Limits: inside row 4; exactly at the end of row 3 (the next write fails at once); inside the
 * first row of the final two-row call (9 rows fit); inside its second row (10 fit). */
static const struct {
    long limit;
    int failed_call, rows_left;
} LIMITS[] = {{26 * 3 + 11, 3, 3}, {26 * 3, 3, 3}, {26 * 9 + 5, 9, 9}, {26 * 10 + 20, 9, 10}};

START_TEST(test_cut_back_to_whole_rows) {
    char path[300];
    snprintf(path, sizeof path, "%s/log.csv", tmp);
    int failed_at;
    int code = child_writes(path, LIMITS[_i].limit, &failed_at);
    ck_assert_msg(code >= 10, "child exit %d", code);
    ck_assert_int_eq(failed_at, LIMITS[_i].failed_call);
    size_t len;
    char *text = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(len == 26u * LIMITS[_i].rows_left, "limit %ld: %zu bytes left, want %d whole rows",
                  LIMITS[_i].limit, len, LIMITS[_i].rows_left);
    for (size_t i = 0; i < len; i += 26) ck_assert(strncmp(text + i, ROW, 26) == 0);
    free(text);
}
END_TEST

/* Every line of path ends in '\n' and has as many commas as the header. */
static void assert_whole_rows(const char *path) {
    size_t len;
    char *text = tu_read_file(path, &len);
    if (!text) return; /* not created before the limit hit */
    ck_assert_msg(len == 0 || text[len - 1] == '\n', "%s ends in a torn row: '...%s'", path,
                  len > 40 ? text + len - 40 : text);
    int header = -1, line = 1, commas = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == ',') commas++;
        if (text[i] != '\n') continue;
        if (header < 0) header = commas;
        ck_assert_msg(commas == header, "%s:%d: %d fields, the header has %d", path, line, commas + 1,
                      header + 1);
        commas = 0;
        line++;
    }
    free(text);
}

START_TEST(test_train_full_disk) {
    static const int BLOCKS[] = {24, 31, 40}; /* ulimit -f counts 512-byte blocks */
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd %s && trap '' XFSZ && ulimit -f %d && exec %s --set task.name=copy "
             "--set task.length=2 --set task.symbols=4 --set task.val_size=8 --set model.d_model=8 "
             "--set train.steps=400 --set train.batch_size=2 --set train.checkpoint_every=0 "
             "--set train.eval_every=50 --set log.every=1 --set log.progress=0 --set run.threads=1 "
             "--set run.dir=%s --set run.name=r > /dev/null 2> err.txt",
             tmp, BLOCKS[_i], tu_train_bin(), tmp);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    char path[300];
    snprintf(path, sizeof path, "%s/err.txt", tmp);
    ck_assert_msg(WEXITSTATUS(st) == 1, "exit %d", WEXITSTATUS(st));
    ck_assert_msg(tu_file_contains(path, "error: cannot write") && tu_file_contains(path, ".csv"),
                  "no error naming a CSV");
    static const char *const CSVS[] = {"loss.csv", "grad_norms.csv", "attention.csv"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/r/%s", tmp, CSVS[i]);
        assert_whole_rows(path);
    }
}
END_TEST


/* ---- (3) the write kit: links and FIFOs --------------------------------------------------- */

#define VICTIM_TEXT "the user's own file\n"
static char victim[300];

/* A file of the user's that a planted link points at; its bytes must never change. */
static void make_victim(void) {
    snprintf(victim, sizeof victim, "%s/victim.txt", tmp);
    tu_write_file(victim, VICTIM_TEXT);
}

static void plant_link(const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_msg(symlink(victim, path) == 0, "symlink %s", path);
}

static void assert_victim_unchanged(const char *what) {
    char *text = tu_read_file(victim, NULL);
    ck_assert_msg(text && strcmp(text, VICTIM_TEXT) == 0, "%s: the linked file was written: '%s'",
                  what, text ? text : "(gone)");
    free(text);
}

static int is_regular(const char *path) {
    struct stat sb;
    return lstat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int exists(const char *path) {
    struct stat sb;
    return lstat(path, &sb) == 0;
}

/* The folder's names, compared whole (tu_list_dir), freed. */
static void assert_names(const char *dir, const char *want) {
    char *got = tu_list_dir(dir, NULL);
    ck_assert_str_eq(got, want);
    free(got);
}

/* A link at the path is replaced; links at this process's first temporary name (the name
 * atomic_open would try first, NAME.tmp.PID.0) and at a version before's NAME.tmp are neither
 * followed nor removed: the write takes the next free name. Afterwards the folder holds exactly
 * what it held, with the new file: no temporary file of the write is left. */
START_TEST(test_atomic_replaces_links) {
    make_victim();
    char path[300], first[400], want[1200];
    snprintf(path, sizeof path, "%s/out.txt", tmp);
    ck_assert_int_eq(atomic_temp_name(path, (long)getpid(), 0, first, sizeof first), 0);
    plant_link(tmp, "out.txt");
    plant_link(tmp, "out.txt.tmp");
    plant_link(tmp, strrchr(first, '/') + 1);
    ck_assert_int_eq(file_write_atomic(path, "new\n", 4), 0);
    assert_victim_unchanged("file_write_atomic");
    ck_assert(is_regular(path));
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "new\n");
    free(text);
    snprintf(want, sizeof want, "out.txt out.txt.tmp out.txt.tmp.%ld.0 victim.txt", (long)getpid());
    assert_names(tmp, want);
    /* atomic_discard: path keeps its bytes, no temporary file */
    AtomicFile a;
    ck_assert_ptr_nonnull(atomic_open(&a, path));
    fputs("half", a.f);
    atomic_discard(&a);
    text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "new\n");
    free(text);
    assert_names(tmp, want);
}
END_TEST

/* The temporary names: the pid and the attempt after NAME.tmp, NAME cut (in the temporary name
 * only) to fit one file name of 255 bytes; atomic_is_temp_name knows them and a version
 * before's NAME.tmp, and nothing else. */
START_TEST(test_temp_names) {
    char out[600], path[400];
    ck_assert_int_eq(atomic_temp_name("d/fig.svg", 42, 3, out, sizeof out), 0);
    ck_assert_str_eq(out, "d/fig.svg.tmp.42.3");
    memset(path, 'a', 300);
    memcpy(path, "d/", 2);
    path[300] = 0; /* a 298-byte name: too long for a file, not for the cut temporary name */
    ck_assert_int_eq(atomic_temp_name(path, 12345, 0, out, sizeof out), 0);
    ck_assert_int_eq((int)strlen(strrchr(out, '/') + 1), 255);
    ck_assert_str_eq(out + strlen(out) - 13, "a.tmp.12345.0");
    ck_assert_int_eq(atomic_temp_name("d/x", 1, 0, out, 8), -1);
    static const struct { const char *name; int is; } NAMES[] = {
        {"fig.svg.tmp.42.3", 1}, {"fig.svg.tmp", 1}, {"a.tmp.b.tmp.7.0", 1},
        {"fig.svg.tmp.42", 0}, {"fig.svg.tmp.42.", 0}, {"fig.svg.tmp..3", 0},
        {"fig.svg.tmp.4x.3", 0}, {"fig.svg", 0}, {".tmp.1.2", 0}, {"notes.tmp.txt", 0},
        {"fig.svg.tmp.42.3.svg", 0}};
    for (size_t k = 0; k < sizeof NAMES / sizeof *NAMES; k++)
        ck_assert_msg(atomic_is_temp_name(NAMES[k].name) == NAMES[k].is, "%s", NAMES[k].name);
}
END_TEST

/* Two processes write one file through file_write_atomic at once, many times, each its own
 * version (one byte repeated over 256 KiB, many stdio writes each), while this process reads
 * it: every write succeeds, every read is one whole version (never a mix, never short), and
 * the folder is left holding the file alone (no temporary file). With one fixed temporary name
 * the two share it: one removes or renames the other's half-written file. */
#define RACE_BYTES (256 * 1024)
#define RACE_ROUNDS 150

static pid_t race_writer(const char *path, char byte) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid) return pid;
    static char text[RACE_BYTES];
    memset(text, byte, sizeof text);
    for (int i = 0; i < RACE_ROUNDS; i++)
        if (file_write_atomic(path, text, sizeof text) != 0) _exit(1);
    _exit(0);
}

START_TEST(test_two_writers_one_file) {
    char path[300];
    snprintf(path, sizeof path, "%s/page.html", tmp);
    pid_t a = race_writer(path, 'a'), b = race_writer(path, 'b');
    int done = 0, st, reads = 0;
    while (done < 2) {
        size_t len;
        char *text = tu_read_file(path, &len);
        if (text) {
            reads++;
            ck_assert_msg(len == RACE_BYTES, "a read of %zu bytes", len);
            ck_assert_msg(text[0] == 'a' || text[0] == 'b', "byte %d", text[0]);
            for (size_t i = 1; i < len; i++)
                ck_assert_msg(text[i] == text[0], "a mix: byte %zu is '%c' after '%c'", i, text[i],
                              text[0]);
            free(text);
        }
        pid_t w = waitpid(-1, &st, WNOHANG);
        if (w == a || w == b) {
            ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a writer's write failed");
            done++;
        }
    }
    ck_assert_int_gt(reads, 0);
    assert_names(tmp, "page.html");
}
END_TEST

/* The same without a race, step by step in one process: writer A opens the file and writes half
 * its version, writer B writes its whole version and commits, then A writes the rest and commits.
 * Each had its own temporary file: both commits succeed, the file is A's whole version (the last
 * rename), and no temporary file is left. With one temporary name per file, B's open removes or
 * truncates A's half-written file and A's commit fails or leaves a mix; this catches that on
 * every run, where the race above needs the two writers to overlap (2 workers on 2 cores may not). */
START_TEST(test_two_writers_interleaved) {
    char path[300];
    snprintf(path, sizeof path, "%s/page.html", tmp);
    AtomicFile a, b;
    FILE *fa = atomic_open(&a, path);
    ck_assert_ptr_nonnull(fa);
    ck_assert_int_eq(fputs("AAAA", fa) >= 0, 1);
    ck_assert_int_eq(fflush(fa), 0);
    FILE *fb = atomic_open(&b, path);
    ck_assert_ptr_nonnull(fb);
    ck_assert_int_eq(fputs("BBBBBBBB", fb) >= 0, 1);
    ck_assert_int_eq(atomic_commit(&b, 0), 0);
    ck_assert_int_eq(fputs("AAAA", fa) >= 0, 1);
    ck_assert_int_eq(atomic_commit(&a, 0), 0);
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "AAAAAAAA");
    free(text);
    assert_names(tmp, "page.html");
}
END_TEST

/* A file made read-only (chmod 444) is kept by file_write_atomic (EACCES, its bytes and mode
 * unchanged, no .tmp), also when the test runs as root; a writable one is replaced. */
START_TEST(test_atomic_keeps_read_only) {
    char path[300];
    snprintf(path, sizeof path, "%s/index.html", tmp);
    ck_assert_int_eq(file_write_atomic(path, "mine\n", 5), 0);
    ck_assert_int_eq(chmod(path, 0444), 0);
    errno = 0;
    ck_assert_int_eq(file_write_atomic(path, "new\n", 4), -1);
    ck_assert_int_eq(errno, EACCES);
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "mine\n");
    free(text);
    struct stat sb;
    ck_assert_int_eq(lstat(path, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 07777, 0444);
    assert_names(tmp, "index.html");
    ck_assert_int_eq(chmod(path, 0200), 0); /* one write bit is enough */
    ck_assert_int_eq(file_write_atomic(path, "new\n", 4), 0);
    ck_assert_int_eq(chmod(path, 0644), 0);
    text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "new\n");
    free(text);
}
END_TEST

START_TEST(test_log_refuses_links_and_fifos) {
    make_victim();
    alarm(10); /* a FIFO opened without O_NONBLOCK would block here */
    char path[300], fifo[300], why[128];
    snprintf(path, sizeof path, "%s/log.csv", tmp);
    plant_link(tmp, "log.csv");
    ck_assert_int_eq(file_open_log(path, 0, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "symbolic link"), "%s", why);
    snprintf(fifo, sizeof fifo, "%s/fifo.csv", tmp);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(file_open_log(fifo, 0, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "not a regular file") || strstr(why, "No such device"), "%s", why);
    /* a fresh log replaces the link (and the FIFO) with a file of its own */
    int fd = file_open_log(path, 1, why, sizeof why);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(whole_write(fd, ROW, strlen(ROW)), 0);
    close(fd);
    assert_victim_unchanged("file_open_log");
    ck_assert(is_regular(path));
    /* appending to a regular file keeps what it held */
    fd = file_open_log(path, 0, why, sizeof why);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(whole_write(fd, ROW, strlen(ROW)), 0);
    close(fd);
    ck_assert_int_eq(tu_count_lines(path), 2);
    alarm(0);
}
END_TEST

/* Under a file-size limit (a full disk: the write fails part way), file_write_atomic fails, the
 * old file keeps its bytes and no .tmp is left. */
START_TEST(test_atomic_full_disk_keeps_old) {
    char path[300];
    snprintf(path, sizeof path, "%s/fig.svg", tmp);
    tu_write_file(path, "OLD\n");
    static char big[200000];
    memset(big, 'x', sizeof big);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {1000, 1000};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(100);
        _exit(file_write_atomic(path, big, sizeof big) == -1 && errno == EFBIG ? 0 : 1);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the write must fail with EFBIG");
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "OLD\n");
    free(text);
    assert_names(tmp, "fig.svg");
}
END_TEST

/* A figure saved under the same limit (svg_save, what every report figure goes through): it
 * fails, the old figure keeps its bytes, no .tmp is left. */
START_TEST(test_svg_save_full_disk_keeps_old) {
    char path[300];
    snprintf(path, sizeof path, "%s/fig.svg", tmp);
    tu_write_file(path, "OLD\n");
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        Svg s;
        svg_begin(&s, 100, 100, "big");
        for (int i = 0; i < 2000; i++) svg_line(&s, 0, i, 100, i, "stroke=\"black\"");
        if (svg_end(&s) != 0) _exit(100);
        struct rlimit rl = {1000, 1000};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(101);
        _exit(svg_save(&s, path) == -1 ? 0 : 1);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "svg_save must fail (%d)", WEXITSTATUS(st));
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "OLD\n");
    free(text);
    assert_names(tmp, "fig.svg");
}
END_TEST

/* ---- (4) end to end ------------------------------------------------------------------------ */

#define TINY_RUN                                                                                  \
    "--set task.name=copy --set task.length=3 --set task.symbols=6 --set task.val_size=16 "     \
    "--set model.d_model=16 --set model.n_heads=2 --set model.n_layers=1 "                      \
    "--set train.batch_size=8 --set train.eval_every=10 --set log.every=5 --set log.progress=0 " \
    "--set train.checkpoint_every=10 --set run.threads=1"

/* Every file a run writes, and the temporary names a version before used for its whole-file
 * writes (NAME.tmp: a leftover of it, or a planted link, is never followed, removed nor in the
 * way; links at this version's names, NAME.tmp.PID.K, are test_atomic_replaces_links'). */
static const char *const RUN_FILES[] = {
    "loss.csv", "grad_norms.csv", "attention.csv", "config.ini", "config.ini.tmp",
    "checkpoint.bin", "checkpoint.bin.tmp", "attn_map.csv", "attn_map.csv.tmp",
    "attn_map_tokens.csv", "attn_map_step0.csv", "init_check.txt", "init_check.txt.tmp",
    "attn_steps.csv"};
/* ... a resume (the logs are rewritten through a temporary file, then appended to) */
static const char *const RESUME_FILES[] = {
    "loss.csv.tmp", "grad_norms.csv.tmp", "attention.csv.tmp", "config.ini.tmp",
    "checkpoint.bin.tmp", "attn_map.csv.tmp", "attn_map_tokens.csv.tmp", "attn_steps.csv.tmp"};
/* ... --compare */
static const char *const REPORT_FILES[] = {
    "index.html", "index.html.tmp", "loss.svg", "loss.svg.tmp", "accuracy.svg", "grad_norms.svg",
    "attention.svg", "attn_maps.svg", "passthru.svg", "passthru.svg.tmp"};
/* ... a sweep started again on its plan (plan.txt and jobs.txt are rewritten) */
static const char *const SWEEP_FILES[] = {
    "sweep.csv", "sweep.csv.tmp", "summary.txt", "summary.txt.tmp", "plan.txt.tmp",
    "jobs.txt.tmp", "configs/lr-1e-3.ini.tmp", "runs/lr-1e-3/sweep_result.txt.tmp",
    "runs/lr-1e-3/sweep_wall.txt.tmp"};

#define N_OF(a) (sizeof(a) / sizeof(a)[0])

static int sh(const char *fmt, const char *a, const char *b) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

START_TEST(test_run_resume_compare_sweep_write_no_link) {
    make_victim();
    char dir[400], args[1024];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    for (size_t i = 0; i < N_OF(RUN_FILES); i++) plant_link(dir, RUN_FILES[i]);
    snprintf(args, sizeof args, TINY_RUN " --set train.steps=20 --set run.dir=%s --set run.name=r", tmp);
    /* without a manifest a link reads as no file ./train wrote: refused (util/owned_dir.h) */
    ck_assert_int_eq(tu_run_train(tmp, args), 2);
    assert_victim_unchanged("a refused run");
    /* the manifest of an earlier run names them: links at names of ours, replaced */
    char manifest[600], text[1024] = OWNED_MANIFEST_HEAD "\n@run\n";
    for (size_t i = 0; i < N_OF(RUN_FILES); i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s\n", RUN_FILES[i]);
    snprintf(manifest, sizeof manifest, "%s/" OWNED_MANIFEST, dir);
    tu_write_file(manifest, text);
    ck_assert_int_eq(tu_run_train(tmp, args), 0);
    assert_victim_unchanged("a run");
    for (size_t i = 0; i < N_OF(RESUME_FILES); i++) {
        char planted[600];
        snprintf(planted, sizeof planted, "%s/%s", dir, RESUME_FILES[i]);
        if (!exists(planted)) plant_link(dir, RESUME_FILES[i]); /* the run's are still there */
    }
    snprintf(args, sizeof args, "--resume %s --set train.steps=30", dir);
    ck_assert_int_eq(tu_run_train(tmp, args), 0);
    assert_victim_unchanged("a resume");
    /* the planted links stay, and no temporary file of the run's or the resume's is left */
    char *left = tu_list_dir(dir, atomic_is_temp_name);
    ck_assert_str_eq(left, "attention.csv.tmp attn_map.csv.tmp attn_map_tokens.csv.tmp "
                           "attn_steps.csv.tmp checkpoint.bin.tmp config.ini.tmp "
                           "grad_norms.csv.tmp init_check.txt.tmp loss.csv.tmp");
    free(left);
    char path[500];
    snprintf(path, sizeof path, "%s/loss.csv", dir);
    ck_assert(is_regular(path) && tu_file_contains(path, "\n30,"));

    char rep[400];
    snprintf(rep, sizeof rep, "%s/rep", tmp);
    ck_assert_int_eq(mkdir(rep, 0755), 0);
    /* links at a version before's temporary names are not followed; a link at a report file itself,
     * a name the folder's manifest gives to the report, is replaced, never written through */
    for (size_t i = 0; i < N_OF(REPORT_FILES); i++)
        if (strstr(REPORT_FILES[i], ".tmp")) plant_link(rep, REPORT_FILES[i]);
    snprintf(args, sizeof args, "--compare %s --out %s", dir, rep);
    ck_assert_int_eq(tu_run_train(tmp, args), 0);
    assert_victim_unchanged("--compare");
    snprintf(path, sizeof path, "%s/index.html", rep);
    ck_assert(is_regular(path));
    ck_assert_int_eq(remove(path), 0);
    plant_link(rep, "index.html");
    /* the folder's manifest names index.html (util/owned_dir.h): the link is replaced */
    ck_assert_int_eq(tu_run_train(tmp, args), 0);
    assert_victim_unchanged("--compare into a folder with a link");
    snprintf(path, sizeof path, "%s/index.html", rep);
    ck_assert(is_regular(path));

    snprintf(path, sizeof path, "%s/tiny.ini", tmp);
    tu_write_file(path, "[task]\nname = copy\nlength = 3\nsymbols = 6\nval_size = 16\n"
                        "[model]\nn_layers = 1\nd_model = 16\n[train]\nbatch_size = 8\n");
    ck_assert_int_eq(sh("cd %s && %s --sweep tiny.ini --grid optim.lr=1e-3 --steps 5 --out sw "
                        "--plan > /dev/null 2>&1", tmp, tu_train_bin()), 0);
    char sw[400];
    snprintf(sw, sizeof sw, "%s/sw", tmp);
    snprintf(path, sizeof path, "%s/runs/lr-1e-3", sw);
    ck_assert_int_eq(make_dirs(path), 0);
    for (size_t i = 0; i < N_OF(SWEEP_FILES); i++) plant_link(sw, SWEEP_FILES[i]);
    /* a link at summary.txt or sweep.csv (put there after the plan: not in the folder's
     * manifest, util/owned_dir.h) is not a file of the sweep's: refused before any run (exit 2),
     * as --compare refuses one; once both are gone, the sweep runs, the links at a version
     * before's temporary names never followed */
    static const char *const THEIRS[] = {"summary.txt", "sweep.csv"};
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(sh("cd %s && %s --sweep tiny.ini --grid optim.lr=1e-3 --steps 5 --out sw "
                            "> /dev/null 2>&1", tmp, tu_train_bin()), 2);
        assert_victim_unchanged("a sweep into a folder with a link at summary.txt");
        snprintf(path, sizeof path, "%s/%s", sw, THEIRS[k]);
        ck_assert_int_eq(remove(path), 0);
    }
    ck_assert_int_eq(sh("cd %s && %s --sweep tiny.ini --grid optim.lr=1e-3 --steps 5 --out sw "
                        "> /dev/null 2>&1", tmp, tu_train_bin()), 0);
    assert_victim_unchanged("a sweep");
    snprintf(path, sizeof path, "%s/sweep.csv", sw);
    ck_assert(is_regular(path) && tu_file_contains(path, ",ok,"));
    /* a link at a run's train.log (appended to by --sweep-run): refused, the run fails */
    snprintf(path, sizeof path, "%s/runs/lr-1e-3/sweep_result.txt", sw);
    ck_assert_int_eq(remove(path), 0);
    snprintf(path, sizeof path, "%s/runs/lr-1e-3/train.log", sw);
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(symlink(victim, path), 0);
    snprintf(path, sizeof path, "%s/configs/lr-1e-3.ini", sw);
    ck_assert_int_ne(sh("%s --sweep-run %s > /dev/null 2>&1", tu_train_bin(), path), 0);
    assert_victim_unchanged("--sweep-run");
}
END_TEST

/* A run killed while it wrote its first files leaves a temporary file (here config.ini's, of a
 * process 4242 that is gone); training into that folder again works (exit 0: the folder holds no
 * file of the user's, only ours), the leftover is left where it is (it may be a live writer's)
 * and the folder's manifest never lists it. */
START_TEST(test_killed_writers_leftover_no_block) {
    char dir[400], path[500], args[1024];
    snprintf(dir, sizeof dir, "%s/r", tmp);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/config.ini.tmp.4242.0", dir);
    tu_write_file(path, "[run]\nname = r\n");
    snprintf(args, sizeof args, TINY_RUN " --set train.steps=5 --set run.dir=%s --set run.name=r", tmp);
    ck_assert_int_eq(tu_run_train(tmp, args), 0);
    ck_assert(tu_file_holds(path, "[run]\nname = r\n"));
    char *left = tu_list_dir(dir, atomic_is_temp_name);
    ck_assert_str_eq(left, "config.ini.tmp.4242.0");
    free(left);
    snprintf(path, sizeof path, "%s/.scaledot-manifest", dir);
    ck_assert(tu_file_contains(path, "\nconfig.ini\n") && !tu_file_contains(path, ".tmp"));
}
END_TEST

/* A user's folder whose only files merely look like temporary names (NAME.tmp, NAME.tmp.PID.K)
 * but not of a file a run writes is the user's, refused as one (exit 2) like a folder holding
 * thesis.txt: the run must not train into it. The last two are of a longer name than a run's
 * file, or have more after config.ini's mark than PID.K. */
static const char *const LOOKALIKES[] = {"thesis.tmp", "notes.tmp.1.2", "loss.csv2.tmp",
                                         "config.ini.tmp.x.tmp.1.2"};

START_TEST(test_users_tmp_files_refused) {
    char dir[400], path[500], args[1024], want[600];
    snprintf(dir, sizeof dir, "%s/u", tmp);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/%s", dir, LOOKALIKES[_i]);
    tu_write_file(path, "mine\n");
    snprintf(args, sizeof args, TINY_RUN " --set train.steps=5 --set run.dir=%s --set run.name=u", tmp);
    ck_assert_int_eq(tu_run_train(tmp, args), 2);
    ck_assert(tu_train_output_contains(tmp, "holds files but no run of ./train"));
    ck_assert(tu_file_holds(path, "mine\n"));
    char *left = tu_list_dir(dir, NULL);
    snprintf(want, sizeof want, "%s", LOOKALIKES[_i]);
    ck_assert_str_eq(left, want);
    free(left);
}
END_TEST

/* A symbolic link among the parents of what a command writes (issue 33): --compare and
 * --regime-map --out linkdir/sub, a sweep whose OUT/runs or OUT/configs is a link, a run with
 * run.dir = linkdir, a planned run whose OUT/runs became a link before its jobs.txt line ran.
 * Each is refused (exit 2) naming the link, and the folder the links point at stays empty.
 * (Links the user already stands in, $HOME and the current folder, are test_dirs.c's.) */
static const struct {
    const char *args, *says;
} PARENT_LINKS[] = {
    {"--compare " SCALEDOT_SOURCE_DIR "/tests/fixtures/runs/scaled --out linkdir/sub",
     "report folder 'linkdir/sub' lies under a symbolic link"},
    {"--regime-map " SCALEDOT_SOURCE_DIR "/results/sweep/fixed_width --out linkdir/sub",
     "regime map folder 'linkdir/sub' lies under a symbolic link"},
    {"--sweep tiny.ini --grid optim.lr=1e-3 --steps 5 --out A", "runs' is a symbolic link"},
    {"--sweep tiny.ini --grid optim.lr=1e-3 --steps 5 --out B --plan",
     "configs' is a symbolic link"},
    {TINY_RUN " --set train.steps=5 --set run.dir=linkdir --set run.name=r",
     "run folder 'linkdir/r' lies under a symbolic link"},
    {"--sweep-run C/configs/lr-1e-3.ini", "runs/lr-1e-3' lies under a symbolic link"},
};

START_TEST(test_parent_links_refused) {
    char path[600], target[500], cmd[1200];
    snprintf(target, sizeof target, "%s/target", tmp);
    ck_assert_int_eq(mkdir(target, 0755), 0);
    snprintf(path, sizeof path, "%s/tiny.ini", tmp);
    tu_write_file(path, "[task]\nname = copy\nlength = 3\nsymbols = 6\nval_size = 16\n"
                        "[model]\nn_layers = 1\nd_model = 16\n[train]\nbatch_size = 8\n");
    /* C: planned while its runs/ was a folder; then runs/ became a link */
    ck_assert_int_eq(sh("cd %s && %s --sweep tiny.ini --grid optim.lr=1e-3 --steps 5 --out C "
                        "--plan > /dev/null 2>&1", tmp, tu_train_bin()), 0);
    snprintf(cmd, sizeof cmd, "cd %s && mkdir -p A B && ln -s target linkdir && "
                              "ln -s ../target A/runs && ln -s ../target B/configs && "
                              "rm -rf C/runs && ln -s ../target C/runs", tmp);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(tu_run_train(tmp, PARENT_LINKS[_i].args), 2);
    ck_assert_msg(tu_train_output_contains(tmp, PARENT_LINKS[_i].says), "'%s' not said",
                  PARENT_LINKS[_i].says);
    snprintf(cmd, sizeof cmd, "[ -z \"$(ls -A %s)\" ]", target);
    ck_assert_msg(system(cmd) == 0, "%s: written through the link", PARENT_LINKS[_i].args);
}
END_TEST

/* --compare under a file-size limit (a full disk) part way through its figures: it fails with
 * exit code 1, and every SVG and index.html is whole (ends in its closing tag) or absent, no
 * .tmp is left. */
START_TEST(test_compare_full_disk_whole_or_absent) {
    static const int BLOCKS[] = {2, 16, 40}; /* 512-byte blocks, a bound on each file */
    char args[1024], cmd[2048];
    snprintf(args, sizeof args, TINY_RUN " --set train.steps=20 --set run.dir=%s --set run.name=r", tmp);
    ck_assert_int_eq(tu_run_train(tmp, args), 0);
    snprintf(cmd, sizeof cmd,
             "cd %s && trap '' XFSZ && ulimit -f %d && exec %s --compare r --out rep > /dev/null "
             "2> err.txt", tmp, BLOCKS[_i], tu_train_bin());
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    ck_assert_msg(WEXITSTATUS(st) == 1, "exit %d", WEXITSTATUS(st));
    for (size_t i = 0; i < N_OF(REPORT_FILES); i++) {
        char path[500];
        snprintf(path, sizeof path, "%s/rep/%s", tmp, REPORT_FILES[i]);
        if (atomic_is_temp_name(REPORT_FILES[i])) continue; /* the listing below */
        size_t len;
        char *text = tu_read_file(path, &len);
        if (!text) continue; /* not written: allowed */
        const char *end = strstr(REPORT_FILES[i], ".html") ? "</html>\n" : "</svg>\n";
        ck_assert_msg(len >= strlen(end) && strcmp(text + len - strlen(end), end) == 0,
                      "%s is torn (%zu bytes)", path, len);
        free(text);
    }
    snprintf(cmd, sizeof cmd, "%s/rep", tmp);
    char *left = tu_list_dir(cmd, atomic_is_temp_name);
    ck_assert_msg(!left[0], "left behind: %s", left);
    free(left);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("whole_write", setup, teardown, 60,
                        TU_LOOP(test_cut_back_to_whole_rows, 0,
                                (int)(sizeof LIMITS / sizeof LIMITS[0])),
                        TU_LOOP(test_train_full_disk, 0, 3), test_atomic_replaces_links,
                        test_temp_names, test_two_writers_one_file, test_two_writers_interleaved,
                        test_killed_writers_leftover_no_block,
                        TU_LOOP(test_users_tmp_files_refused, 0,
                                (int)(sizeof LOOKALIKES / sizeof LOOKALIKES[0])),
                        test_atomic_keeps_read_only,
                        test_log_refuses_links_and_fifos, test_atomic_full_disk_keeps_old,
                        test_svg_save_full_disk_keeps_old,
                        test_run_resume_compare_sweep_write_no_link,
                        TU_LOOP(test_parent_links_refused, 0,
                                (int)(sizeof PARENT_LINKS / sizeof PARENT_LINKS[0])),
                        TU_LOOP(test_compare_full_disk_whole_or_absent, 0, 3));
