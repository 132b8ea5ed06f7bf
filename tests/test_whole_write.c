/* test_whole_write.c: a log write that a full disk cuts short leaves no torn last row.
 *
 * A file-size limit (RLIMIT_FSIZE, with SIGXFSZ ignored) makes write(2) fail part way exactly as
 * a full disk does (EFBIG instead of ENOSPC), at a byte offset the test chooses. The limit is set
 * in a forked child only. (1) whole_write itself: rows before the limit stay, the row that
 * crosses it is cut away. (2) ./train under a limit that runs out mid-run: it stops with exit
 * code 1 and an error naming the file, and every CSV of the run ends in a whole row, each row
 * with the header's number of fields. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
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

int main(void) {
    Suite *s = suite_create("whole_write");
    TCase *tc = tcase_create("whole_write");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_cut_back_to_whole_rows, 0, (int)(sizeof LIMITS / sizeof LIMITS[0]));
    tcase_add_loop_test(tc, test_train_full_disk, 0, 3);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
