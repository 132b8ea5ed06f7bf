/* test_train_sh.c: ./train.sh (the main job) in a scratch copy of the repository: it says where
 * it writes before it starts, it ends with the page's verdict and path, and a second ./train.sh
 * keeps the first one's runs and report (moved aside with their date) unless --replace is given;
 * in both modes (sort and recall).
 * Arguments it cannot pass on (an option of ./train's, a misplaced 'recall', a --set of the
 * pair's run names or folder, the pair's own attention.scale, a pair or --replace given twice,
 * a --set that is not section.key=value) are refused with exit code 2 before anything is moved or
 * run. */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static char tmpdir[256];

/* The scratch repository: train.sh and configs/ copied, ./train the program under test, and a
 * Makefile whose `make train` has nothing to do. */
static void make_repo(void) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_train_sh_XXXXXX");
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, "cp %s/train.sh %s/ && cp -r %s/configs %s/ && ln -s %s %s/train",
             SCALEDOT_SOURCE_DIR, tmpdir, SCALEDOT_SOURCE_DIR, tmpdir, tu_train_bin(), tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/Makefile", tmpdir);
    tu_write_file(path, "train:\n\t@:\n");
}

/* Runs train.sh from another folder (/), short runs, stdout and stderr into out.txt, or stderr
 * into err.txt when apart; returns the exit code. */
static int train_sh_to(const char *args, int apart) {
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, "cd / && %s/train.sh %s --set train.steps=4 --set train.eval_every=2 "
                              "--set log.every=2 --set task.val_size=32 --set log.progress=0 "
                              ">%s/out.txt 2>%s%s",
             tmpdir, args, tmpdir, apart ? tmpdir : "&1", apart ? "/err.txt" : "");
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
static int train_sh(const char *args) { return train_sh_to(args, 0); }

/* How many entries of folder sub of the scratch repository start with prefix. */
static int count_entries(const char *sub, const char *prefix) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", tmpdir, sub);
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* What train.sh printed ends with the verdict of the page in reports/report and its path. */
static void expect_verdict_last(const char *report) {
    char page[PATH_MAX + 300], shown[300], path[PATH_MAX];
    snprintf(shown, sizeof shown, "reports/%s/index.html", report);
    snprintf(page, sizeof page, "%s/%s", tmpdir, shown);
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    char *out = tu_read_file(path, NULL);
    ck_assert_msg(out != NULL, "missing %s", path);
    free(tu_expect_verdict_last(out, page, shown));
    free(out);
}

START_TEST(test_second_run_keeps_the_first) {
    static const struct {
        const char *mode, *scaled, *report;
    } cases[] = {{"", "scaled", "scaled_vs_unscaled"},
                 {"recall", "recall_scaled", "recall_scaled_vs_recall_unscaled"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        make_repo();
        ck_assert_int_eq(train_sh(cases[i].mode), 0);
        char want[PATH_MAX];
        snprintf(want, sizeof want, "train.sh: writing runs/%s ", cases[i].scaled);
        ck_assert_msg(tu_train_output_contains(tmpdir, want), "case %zu: not said where", i);
        ck_assert(tu_train_output_contains(tmpdir, tmpdir));
        expect_verdict_last(cases[i].report);
        ck_assert_int_eq(count_entries("runs", cases[i].scaled), 1);
        /* the second: the first pair moved aside, with its date */
        ck_assert_int_eq(train_sh(cases[i].mode), 0);
        ck_assert_msg(tu_train_output_contains(tmpdir, "kept the earlier"), "case %zu", i);
        ck_assert_int_eq(count_entries("runs", cases[i].scaled), 2);
        ck_assert_int_eq(count_entries("reports", cases[i].report), 2);
        char prefix[128];
        snprintf(prefix, sizeof prefix, "%s.20", cases[i].scaled); /* NAME.<year>... */
        ck_assert_int_eq(count_entries("runs", prefix), 1);
        /* --replace: as before, nothing kept */
        char args[64];
        snprintf(args, sizeof args, "%s --replace", cases[i].mode);
        ck_assert_int_eq(train_sh(args), 0);
        ck_assert_int_eq(count_entries("runs", cases[i].scaled), 2);
        ck_assert_int_eq(count_entries("reports", cases[i].report), 2);
        tu_remove_tree(tmpdir);
    }
}
END_TEST

/* Both runs' lines on one stream, stderr, where ./train writes them (the unscaled run's are held
 * and shown after the scaled run's): `./train.sh 2>log` keeps both runs, stdout the comparison
 * alone — train.sh's own notes (where it writes, what it kept aside) go to stderr too. */
START_TEST(test_runs_on_one_stream) {
    make_repo();
    ck_assert_int_eq(train_sh_to("", 1), 0);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    char *out = tu_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/err.txt", tmpdir);
    char *err = tu_read_file(path, NULL);
    ck_assert(out && err);
    ck_assert_msg(strstr(err, "run 'scaled'") && strstr(err, "run 'unscaled'"), "stderr:\n%s", err);
    ck_assert_msg(!strstr(out, "run 'scaled'") && !strstr(out, "run 'unscaled'"), "stdout:\n%s", out);
    ck_assert_msg(strstr(err, "train.sh: writing runs/scaled") && !strstr(out, "train.sh: "),
                  "train.sh's notes not on stderr alone; stdout:\n%.2000s", out);
    free(out);
    free(err);
    tu_remove_tree(tmpdir);
}
END_TEST

/* After one pair exists: each bad argument list exits 2, says why, and leaves runs/ as it was
 * (one scaled folder, nothing moved aside, no run folder x). */
START_TEST(test_bad_arguments_refused_before_anything) {
    static const struct {
        const char *args, *says;
    } cases[] = {{"--print-config", "unexpected argument '--print-config'"},
                 {"configs/scaled.ini", "unexpected argument 'configs/scaled.ini'"},
                 {"--set train.steps=3 recall", "unexpected argument 'recall'"},
                 {"--set train.steps=3 text", "unexpected argument 'text'"},
                 {"--set run.name=x", "run names and folder are fixed"},
                 {"--set ' run.dir = /tmp'", "run names and folder are fixed"},
                 {"--set=run.name=x", "run names and folder are fixed"},
                 {"--set attention.scale=none", "attention.scale is what the pair compares"},
                 {"recall text", "'recall' and 'text' both given"},
                 {"--replace --replace", "--replace given twice"},
                 {"text --set x", "'x' is not section.key=value"}};
    make_repo();
    ck_assert_int_eq(train_sh(""), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[PATH_MAX * 2];
        snprintf(cmd, sizeof cmd, "cd / && %s/train.sh %s >%s/out.txt 2>&1", tmpdir,
                 cases[i].args, tmpdir);
        int st = system(cmd);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "case %zu: exit %d", i,
                      WEXITSTATUS(st));
        ck_assert_msg(tu_train_output_contains(tmpdir, cases[i].says), "case %zu", i);
        ck_assert_int_eq(count_entries("runs", "scaled"), 1);
        ck_assert_int_eq(count_entries("runs", "x"), 0);
    }
    /* -h and --help, first or after a --set: the usage and what each form does, exit 0,
     * nothing moved or trained */
    static const char *const help[] = {"--help", "-h", "recall --help", "--set run.seed=2 -h"};
    for (size_t i = 0; i < sizeof help / sizeof help[0]; i++) {
        char cmd[PATH_MAX * 2];
        snprintf(cmd, sizeof cmd, "cd / && %s/train.sh %s >%s/out.txt 2>&1", tmpdir, help[i],
                 tmpdir);
        int st = system(cmd);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: exit %d", help[i],
                      WEXITSTATUS(st));
        ck_assert(tu_train_output_contains(
            tmpdir, "usage: ./train.sh [recall | text] [--replace] [--set section.key=value ...]\n"
                    "The main job: build scaledot, train the scaled and the unscaled run"));
        ck_assert(tu_train_output_contains(tmpdir, "  ./train.sh text                the text "
                                                   "pair: configs/text_scaled.ini"));
        ck_assert_int_eq(count_entries("runs", "scaled"), 1);
    }
    tu_remove_tree(tmpdir);
}
END_TEST

TU_MAIN_TIMEOUT("train_sh", 600, test_second_run_keeps_the_first, test_runs_on_one_stream,
                test_bad_arguments_refused_before_anything);
