/* test_task_source.c: a run on a task file records the file's absolute path and content hash
 * (src/train/task_source.c); --resume and --eval refuse a changed file and only note a moved
 * one; --print-config refuses an unreadable task.file; task.file without task.name = file is an
 * error; the hash recorded is that of the bytes the task was built from. */
#include "train/task_source.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tasks/tasks.h"
#include "testutil.h"

static char tmpdir[256];

START_TEST(test_hash_known_values) {
    /* FNV-1a 64 reference values (Fowler, Noll, Vo: the published test vectors) */
    static const struct {
        const char *text;
        unsigned long long want;
    } cases[] = {{"", 0xcbf29ce484222325ull}, {"a", 0xaf63dc4c8601ec8cull}, {"foobar", 0x85944171f73967e8ull}};
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_task_source_XXXXXX");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[300];
        snprintf(path, sizeof path, "%s/f%zu", tmpdir, i);
        tu_write_file(path, cases[i].text);
        uint64_t h = 0;
        ck_assert_int_eq(task_source_hash(path, &h), 0);
        ck_assert_msg(h == cases[i].want, "'%s': %016llx, want %016llx", cases[i].text,
                      (unsigned long long)h, cases[i].want);
    }
    tu_remove_tree(tmpdir);
}
END_TEST

#define RUN_BASE "--set task.name=file --set task.file=w.txt --set task.val_size=8 --set model.d_model=16 " \
            "--set model.n_layers=1 --set train.batch_size=8 --set log.progress=0 " \
            "--set run.threads=1 --set run.name=f"

START_TEST(test_changed_file_refused_moved_file_noted) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_task_source_XXXXXX");
    char path[300], sub[300], cmd[2048];
    snprintf(path, sizeof path, "%s/w.txt", tmpdir);
    tu_write_file(path, "a b | b a\nc d | d c\ne f | f e\na c | c a\nb d | d b\nc e | e c\n"
                        "d f | f d\nf a | a f\nb e | e b\nd a | a d\n");
    ck_assert_int_eq(tu_run_train(tmpdir, RUN_BASE " --set train.steps=3"), 0);
    char ini[300];
    snprintf(ini, sizeof ini, "%s/runs/f/config.ini", tmpdir);
    char want[400];
    snprintf(want, sizeof want, "; task file: %s fnv1a64 ", path);
    ck_assert_msg(tu_file_contains(ini, want), "config.ini lacks '%s'", want);
    ck_assert_int_eq(tu_run_train(tmpdir, "--eval runs/f"), 0);
    /* moved together with the run folder: the same content elsewhere is only noted */
    snprintf(sub, sizeof sub, "%s/elsewhere", tmpdir);
    snprintf(cmd, sizeof cmd, "mkdir %s && cp -r %s/runs %s/w.txt %s/", sub, tmpdir, tmpdir, sub);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(tu_run_train(sub, "--eval runs/f"), 0);
    ck_assert(tu_train_output_contains(sub, "same content"));
    ck_assert_int_eq(tu_run_train(sub, "--resume runs/f --set train.steps=6"), 0);
    /* changed: refused, by --eval and --resume alike */
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    fputs("e a | a e\n", f);
    fclose(f);
    static const char *const cmds[] = {"--eval runs/f", "--resume runs/f --set train.steps=6"};
    for (size_t i = 0; i < 2; i++) {
        ck_assert_int_eq(tu_run_train(tmpdir, cmds[i]), 2);
        ck_assert_msg(tu_train_output_contains(tmpdir, "changed since the run was trained on it"),
                      "%s", cmds[i]);
        ck_assert(tu_train_output_contains(tmpdir, path));
    }
    tu_remove_tree(tmpdir);
}
END_TEST

START_TEST(test_config_checks) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_task_source_XXXXXX");
    static const struct {
        const char *args, *says;
    } cases[] = {
        {"--print-config --set task.name=file --set task.file=missing.txt", "'missing.txt'"},
        {"--print-config --set task.file=w.txt", "task.name = file"},
        {"--set task.name=sort --set task.file=w.txt", "'task.name' is neither file nor text"},
        {"--print-config --set task.name=text --set task.file=missing.txt", "'missing.txt'"},
        {"--print-config --set task.name=text", "task.name' = text needs a path in 'task.file'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_msg(tu_run_train(tmpdir, cases[i].args) == 2, "case %zu", i);
        ck_assert_msg(tu_train_output_contains(tmpdir, cases[i].says), "case %zu: no '%s'", i, cases[i].says);
    }
    char runs[300];
    snprintf(runs, sizeof runs, "%s/runs", tmpdir);
    ck_assert(access(runs, F_OK) != 0);
    tu_remove_tree(tmpdir);
}
END_TEST

/* The hash a run records is that of the bytes its task was built from, not of the file read
 * again: a text (or file) task loaded, then its file changed (as another process might, between
 * the load and config.ini), records the loaded bytes' hash, so a --resume on the changed file is
 * refused. task_source_write is called as run_setup.c calls it, with Task.file_hash. */
START_TEST(test_recorded_hash_is_of_loaded_bytes) {
    static const struct {
        const char *task, *before, *after;
    } cases[] = {
        {"text", "the quick brown fox jumps over the lazy dog, again and again and again\n",
         "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG, AGAIN AND AGAIN AND AGAIN\n"},
        {"file", "a b | c\nb c | a\nc a | b\na a | a\nb b | b\nc c | c\na c | b\nb a | c\n",
         "a b | a\nb c | a\nc a | b\na a | a\nb b | b\nc c | c\na c | b\nb a | c\n"},
    };
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_task_source_XXXXXX");
    char path[300], set[400];
    snprintf(path, sizeof path, "%s/t.txt", tmpdir);
    Config c;
    config_defaults(&c);
    snprintf(set, sizeof set, "task.file=%s", path);
    ck_assert_int_eq(config_set(&c, set, 0), 0);
    ck_assert_int_eq(config_set(&c, "task.seq_len=8", 0), 0);
    ck_assert_int_eq(config_set(&c, "task.val_size=2", 0), 0);
    ck_assert_int_eq(config_set(&c, "task.val_fraction=0.5", 0), 0);
    uint64_t before, after;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(set, sizeof set, "task.name=%s", cases[i].task);
        ck_assert_int_eq(config_set(&c, set, 0), 0);
        tu_write_file(path, cases[i].before);
        ck_assert_int_eq(task_source_hash(path, &before), 0);
        Task t;
        ck_assert_msg(task_init(&t, &c) == 0, "%s task not built", cases[i].task);
        tu_write_file(path, cases[i].after); /* changed after the load */
        ck_assert_int_eq(task_source_hash(path, &after), 0);
        ck_assert(before != after);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        task_source_write(f, &c, t.file_hash);
        fclose(f);
        char want[64];
        snprintf(want, sizeof want, " fnv1a64 %016llx\n", (unsigned long long)before);
        ck_assert_msg(strstr(text, want), "%s task: '%s' does not record the loaded bytes' hash "
                      "%016llx (the file's now: %016llx)", cases[i].task, text,
                      (unsigned long long)before, (unsigned long long)after);
        free(text);
        task_free(&t);
    }
    tu_remove_tree(tmpdir);
}
END_TEST

TU_MAIN_TIMEOUT("task_source", 120, test_hash_known_values,
                test_changed_file_refused_moved_file_noted, test_config_checks,
                test_recorded_hash_is_of_loaded_bytes);
