/* test_resume.c: resuming and evaluating a run through ./train (--resume and --eval of
 * src/cli/ over src/train/checkpoint.c). Named after what it tests rather than a source file:
 * these tests run the whole program, so no one src file is theirs. A run killed (kill -9) or
 * interrupted (SIGINT) and then resumed logs rows bitwise identical to the run never interrupted
 * (the timing columns aside), qk-norm, the LLaMA block and bf16 matmuls included; a copied run folder resumes in the copy;
 * a folder whose name is no legal run.name is not resumed (--eval reads it), "--resume ." resumes
 * the folder's own name, and a checkpoint holding a bad run.name stays readable;
 * train.on_divergence = skip counts the skipped steps; --eval prints accuracy and examples, for
 * recall without a separator too. The checkpoint file itself is test_checkpoint.c's job. A
 * finished run resumed is left byte for byte as it was; a checkpoint of another configuration
 * than the folder's config.ini is refused naming the keys (train.steps may differ; a checkpoint of
 * the other model.block included), and a resume
 * that fails leaves config.ini, the logs and the checkpoint as they were, no temporary file; a
 * folder replaced by a new run between the resume's checks and its lock is not continued. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ckpttest.h"
#include "temp_names.h"
#include "testutil.h"
#include "train/checkpoint.h"
#include "train/checkpoint_config.h"
#include "train/train.h"
#include "util/stop_signal.h"

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
             tu_train_bin(), RUN_ARGS_BASE, tmpdir, tu_train_bin(), tmpdir, tmpdir);
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

/* The LLaMA block survives config.ini and the checkpoint: a run with model.block = llama, killed
 * and resumed, logs what the run never interrupted logs; its tensors are the llama block's. */
START_TEST(test_llama_resume_is_bitwise_identical) {
    make_tmpdir();
    extra_args = "--set model.block=llama";
    run_full();
    int st = run_and_signal("killed", SIGKILL);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the run was killed");
    char dir[600], path[700];
    snprintf(dir, sizeof dir, "%s/killed", tmpdir);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    ck_assert_msg(tu_file_contains(path, "\nblock = llama\n"), "config.ini keeps model.block");
    snprintf(path, sizeof path, "%s/grad_norms.csv", dir);
    ck_assert(tu_file_contains(path, ",tok_emb,blocks.0.ln1.weight,blocks.0.attn.qkv.weight,"
                                     "blocks.0.attn.proj.weight,blocks.0.ln2.weight,"
                                     "blocks.0.mlp.gate.weight,blocks.0.mlp.up.weight,"
                                     "blocks.0.mlp.down.weight,"));
    ck_assert_int_eq(sh("%s --resume %s 2>/dev/null", tu_train_bin(), dir), 0);
    assert_logs_match_full("killed");
    extra_args = "";
}
END_TEST

/* model.matmul = bf16 survives config.ini and the checkpoint: a bf16 run killed and resumed logs
 * what the bf16 run never interrupted logs (its products, like the float32 ones, depend on
 * nothing but their operands). */
START_TEST(test_bf16_resume_is_bitwise_identical) {
    make_tmpdir();
    extra_args = "--set model.matmul=bf16";
    run_full();
    int st = run_and_signal("killed", SIGKILL);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the run was killed");
    char dir[600], path[700];
    snprintf(dir, sizeof dir, "%s/killed", tmpdir);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    ck_assert_msg(tu_file_contains(path, "\nmatmul = bf16\n"), "config.ini keeps model.matmul");
    ck_assert_int_eq(sh("%s --resume %s 2>/dev/null", tu_train_bin(), dir), 0);
    assert_logs_match_full("killed");
    extra_args = "";
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
             tu_train_bin(), RUN_ARGS_BASE, tmpdir, tmpdir, tmpdir, tmpdir, tmpdir, tu_train_bin(), tmpdir,
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

/* --eval of a recall run without separator: the prompt is the pairs and the query, the answer
 * one token; config.ini stores the format auto resolved to. */
START_TEST(test_eval_recall_without_separator) {
    make_tmpdir();
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s %s --set task.separator=auto --set train.steps=10 --set run.dir=%s --set "
             "run.name=r 2>/dev/null && %s --eval %s/r > %s/eval.txt",
             tu_train_bin(), RECALL_ARGS_BASE, tmpdir, tu_train_bin(), tmpdir, tmpdir);
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


/* A short run into tmpdir/name: 20 steps, a checkpoint every 10, then `more` --set arguments. */
static void short_run(const char *name, const char *more) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s --set task.name=copy --set task.length=3 --set task.symbols=6 --set task.val_size=16 "
             "--set model.n_heads=2 --set model.n_layers=1 --set train.batch_size=8 --set train.steps=20 "
             "--set train.eval_every=10 --set log.every=5 --set log.progress=0 "
             "--set train.checkpoint_every=10 --set run.threads=1 --set run.dir=%s --set run.name=%s %s "
             "2>/dev/null",
             tu_train_bin(), tmpdir, name, more);
    ck_assert_int_eq(system(cmd), 0);
}

/* Runs `./train args` in tmpdir; returns the exit code, its output in tmpdir/out.txt. */
static int train_in_tmp(const char *args) { return tu_run_train(tmpdir, args); }

/* QK-clip's per-head counts since attention.csv's last row are in the checkpoint: a run
 * (attention.qk_clip = 0.5) killed after its checkpoint of step 25 (the clips of steps 20 to 24
 * counted, not yet logged), and one finished at step 20 (its row of step 20 logged again by the
 * extension) then extended, log attention.csv byte for byte as the run never interrupted does.
 * A version-1 checkpoint (before the counts were kept, rewritten here by hand without them)
 * still resumes, with a note that the counts start at the resume step. */
START_TEST(test_qk_clip_resume_is_bitwise_identical) {
    make_tmpdir();
    extra_args = "--set attention.qk_clip=0.5";
    run_full();
    /* the interruptions below fall where a count is not zero (column 15: clipped_steps) */
    ck_assert_int_eq(sh("awk -F, '$1 == 20 || $1 == 25 { n[$1] += $15 } END { exit !(n[20] > 0 && "
                        "n[25] > 0) }' %s/full/attention.csv%s", tmpdir, ""), 0);
    int st = run_and_signal("killed", SIGKILL);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the run was killed");
    char dir[600];
    snprintf(dir, sizeof dir, "%s/killed", tmpdir);
    ck_assert_int_eq(sh("%s --resume %s 2>/dev/null", tu_train_bin(), dir), 0);
    assert_logs_match_full("killed");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s %s --set train.steps=20 --set run.dir=%s --set run.name=ext "
             "2>/dev/null && %s --resume %s/ext --set train.steps=400 2>/dev/null",
             tu_train_bin(), RUN_ARGS_BASE, extra_args, tmpdir, tu_train_bin(), tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    assert_logs_match_full("ext");

    /* version 1: the same file without the counters (a u32 count 2, then i64 each) */
    short_run("old", extra_args);
    extra_args = "";
    char path[700];
    snprintf(path, sizeof path, "%s/old/checkpoint.bin", tmpdir);
    size_t len, cut = 4 + 2 * 8;
    unsigned char *ck = (unsigned char *)slurp(path, &len);
    uint64_t clen;
    memcpy(&clen, ck + 16, 8);
    size_t at = 24 + clen + 8 + 8 + 8 + 32 + 8 + 4 + 4;
    uint32_t version = 1, count;
    memcpy(&count, ck + at, 4);
    ck_assert_uint_eq(count, 2);
    memcpy(ck + 8, &version, 4);
    memmove(ck + at, ck + at + cut, len - at - cut);
    uint64_t h = fnv1a64(ck, len - cut - 8);
    memcpy(ck + len - cut - 8, &h, 8);
    spit(path, (const char *)ck, len - cut);
    free(ck);
    ck_assert_int_eq(train_in_tmp("--resume old --set train.steps=30"), 0);
    ck_assert(tu_train_output_contains(tmpdir, "before checkpoints kept QK-clip's counts"));
}
END_TEST

START_TEST(test_finished_run_resumed_unchanged) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    ck_assert_int_eq(sh("cp -a %s/a %s/a.orig", tmpdir, tmpdir), 0);
    ck_assert_int_eq(train_in_tmp("--resume a"), 0);
    ck_assert_msg(sh("diff -r %s/a %s/a.orig > /dev/null", tmpdir, tmpdir) == 0,
                  "a finished run's folder changed when resumed");
    ck_assert(tu_train_output_contains(tmpdir, "nothing to train"));
}
END_TEST

/* Which checkpoint is put into a copy of run a (d_model 16, 20 steps), what --resume sets, and
 * whether the resume (and then --eval and --export) must be refused (naming the keys in
 * `names`). */
static const struct {
    const char *from, *edit_ini, *set;
    int refused;
    const char *names;
} FOREIGN[] = {
    {"b", NULL, "", 1, "model.d_model"},                     /* width 32 */
    {"c", NULL, "", 1, "model.d_model, optim.lr"},           /* width 32, another lr */
    {"a", NULL, "--set train.steps=30", 0, NULL},            /* its own: resumes */
    {"a", "steps = 40", "--set train.steps=40", 0, NULL},    /* config.ini of a later --set */
    {"l", NULL, "", 1, "model.block"},                       /* the LLaMA block, width 16 */
};

START_TEST(test_foreign_checkpoint_refused) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    short_run("b", "--set model.d_model=32");
    short_run("c", "--set model.d_model=32 --set optim.lr=0.002");
    short_run("l", "--set model.d_model=16 --set model.block=llama");
    char cmd[4096], path[600];
    for (size_t k = 0; k < sizeof FOREIGN / sizeof FOREIGN[0]; k++) {
        snprintf(cmd, sizeof cmd, "rm -rf %s/x %s/x.orig && cp -a %s/a %s/x && cp %s/%s/checkpoint.bin "
                 "%s/x/ && rm %s/x/attn_map.csv", tmpdir, tmpdir, tmpdir, tmpdir, tmpdir,
                 FOREIGN[k].from, tmpdir, tmpdir);
        ck_assert_int_eq(system(cmd), 0);
        if (FOREIGN[k].edit_ini) {
            snprintf(path, sizeof path, "%s/x/config.ini", tmpdir);
            char *ini = slurp(path, NULL), *at = strstr(ini, "\nsteps = 20\n");
            ck_assert_ptr_nonnull(at);
            memcpy(at + 1, FOREIGN[k].edit_ini, strlen(FOREIGN[k].edit_ini));
            spit(path, ini, strlen(ini));
            free(ini);
        }
        ck_assert_int_eq(sh("cp -a %s/x %s/x.orig", tmpdir, tmpdir), 0);
        snprintf(cmd, sizeof cmd, "--resume x %s", FOREIGN[k].set);
        int rc = train_in_tmp(cmd);
        if (!FOREIGN[k].refused) {
            ck_assert_msg(rc == 0, "case %zu: refused", k);
            continue;
        }
        ck_assert_msg(rc == 2, "case %zu: exit %d, want 2", k, rc);
        snprintf(cmd, sizeof cmd, "(differing: %s)", FOREIGN[k].names);
        ck_assert_msg(tu_train_output_contains(tmpdir, cmd) &&
                      tu_train_output_contains(tmpdir, "x/config.ini"), "case %zu: no message naming %s",
                      k, FOREIGN[k].names);
        ck_assert_msg(sh("diff -r %s/x %s/x.orig > /dev/null", tmpdir, tmpdir) == 0,
                      "case %zu: a refused resume changed the folder", k);
        /* issue 33: --eval and --export refuse the same foreign checkpoint (they reported or
         * exported another run's model under this folder's name) */
        static const char *const OTHERS[] = {"--eval x", "--export x x.safetensors"};
        for (int o = 0; o < 2; o++) {
            rc = train_in_tmp(OTHERS[o]);
            ck_assert_msg(rc == 2, "case %zu, %s: exit %d, want 2", k, OTHERS[o], rc);
            ck_assert_msg(tu_train_output_contains(tmpdir, cmd), "case %zu, %s: keys not named",
                          k, OTHERS[o]);
        }
        snprintf(path, sizeof path, "%s/x.safetensors", tmpdir);
        ck_assert(access(path, F_OK) != 0);
    }
}
END_TEST

/* Folder names that are no legal run.name: a copy, UTF-8, ESC, a C1 control (U+009B, a CSI). */
static const char *const BAD_FOLDER_NAMES[] = {"a copy", "donn\303\251es", "a\x1b[2J", "a\xc2\x9b"};

/* A run folder whose name is no legal run.name is not resumed: the resume would write that name
 * into checkpoint.bin and config.ini as run.name, and no later command could read the run.
 * Refused (exit 2) before anything is written, naming the rule and what to do; --eval writes
 * nothing and still reads the folder. */
START_TEST(test_resume_refuses_a_folder_name_no_run_name) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    char x[600], bad[600], args[700];
    snprintf(x, sizeof x, "%s/x", tmpdir);
    for (size_t k = 0; k < sizeof BAD_FOLDER_NAMES / sizeof *BAD_FOLDER_NAMES; k++) {
        ck_assert_int_eq(sh("rm -rf %s/x %s/x.orig", tmpdir, tmpdir), 0);
        ck_assert_int_eq(sh("cp -a %s/a %s/x", tmpdir, tmpdir), 0);
        ck_assert_int_eq(sh("cp -a %s/x %s/x.orig", tmpdir, tmpdir), 0);
        snprintf(bad, sizeof bad, "%s/%s", tmpdir, BAD_FOLDER_NAMES[k]);
        ck_assert_int_eq(rename(x, bad), 0);
        snprintf(args, sizeof args, "--resume '%s' --set train.steps=30", BAD_FOLDER_NAMES[k]);
        int rc = train_in_tmp(args);
        ck_assert_msg(rc == 2, "case %zu: --resume exit %d, want 2", k, rc);
        ck_assert_msg(tu_train_output_contains(tmpdir, "error: --resume (argument 2): the run "
                                                       "folder '") &&
                          tu_train_output_contains(tmpdir, "which is no legal run.name: it may only "
                                                       "contain letters, digits") &&
                          tu_train_output_contains(tmpdir, "Rename the folder"),
                      "case %zu: the rule or what to do not said", k);
        snprintf(args, sizeof args, "--eval '%s'", BAD_FOLDER_NAMES[k]);
        ck_assert_msg(train_in_tmp(args) == 0, "case %zu: --eval refused", k);
        ck_assert(tu_train_output_contains(tmpdir, "validation loss"));
        ck_assert_int_eq(rename(bad, x), 0);
        ck_assert_msg(sh("diff -r %s/x %s/x.orig > /dev/null", tmpdir, tmpdir) == 0,
                      "case %zu: a refused resume changed the folder", k);
    }
}
END_TEST

/* "--resume ." (from inside the folder) and "--resume a/." resume run "a", the folder's own
 * name: never a run named '.', which no later command could read. */
START_TEST(test_resume_dot_is_the_folder) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    char inside[600], ini[600];
    snprintf(inside, sizeof inside, "%s/a", tmpdir);
    snprintf(ini, sizeof ini, "%s/a/config.ini", tmpdir);
    ck_assert_int_eq(tu_run_train(inside, "--resume . --set train.steps=30"), 0);
    ck_assert(tu_file_contains(ini, "\nname = \"a\"\n"));
    ck_assert_int_eq(train_in_tmp("--eval a"), 0);
    ck_assert_int_eq(train_in_tmp("--resume a/./ --set train.steps=40"), 0);
    ck_assert(tu_file_contains(ini, "\nname = \"a\"\n"));
    ck_assert_int_eq(train_in_tmp("--resume a --set train.steps=50"), 0);
    ck_assert(tu_train_output_contains(tmpdir, "run 'a' finished"));
}
END_TEST

/* The run.dir a resume records (config.ini and the checkpoint): the one the run was started with
 * when the folder is named from inside ("--resume ." in it, "--resume ../a" from beside it: that
 * parent names no folder from where the run was started), the parent given otherwise; the run is
 * trained in the folder named either way (its logs go on, nothing is made under it). */
START_TEST(test_resume_dot_keeps_run_dir) {
    make_tmpdir();
    ck_assert_int_eq(train_in_tmp("--set task.name=copy --set task.length=3 --set task.symbols=6 "
                                  "--set task.val_size=16 --set model.d_model=16 --set "
                                  "model.n_layers=1 --set train.batch_size=8 --set train.steps=20 "
                                  "--set log.progress=0 --set run.threads=1 --set run.dir=runs "
                                  "--set run.name=a"),
                     0);
    char a[600], b[600], ini[700], ckpt[700];
    snprintf(a, sizeof a, "%s/runs/a", tmpdir);
    snprintf(b, sizeof b, "%s/runs/b", tmpdir);
    snprintf(ini, sizeof ini, "%s/config.ini", a);
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint.bin", a);
    ck_assert_int_eq(mkdir(b, 0755), 0);
    static const struct {
        int in_b; /* run from runs/b, else from runs/a */
        const char *args, *last_step;
    } STEPS[] = {{0, "--resume . --set train.steps=30", "\n30,"},
                 {1, "--resume ../a --set train.steps=40", "\n40,"},
                 {0, "--resume ./ --set train.steps=50", "\n50,"}};
    for (size_t k = 0; k < sizeof STEPS / sizeof *STEPS; k++) {
        ck_assert_msg(tu_run_train(STEPS[k].in_b ? b : a, STEPS[k].args) == 0, "%s failed",
                      STEPS[k].args);
        char *stored = NULL, loss[700];
        ck_assert_int_eq(checkpoint_read_config(ckpt, &stored), 0);
        ck_assert_msg(tu_file_contains(ini, "\ndir = \"runs\"\n") &&
                          strstr(stored, "\ndir = \"runs\"\n"),
                      "%s: run.dir not kept", STEPS[k].args);
        free(stored);
        snprintf(loss, sizeof loss, "%s/loss.csv", a);
        ck_assert_msg(tu_file_contains(loss, STEPS[k].last_step), "%s: not trained in runs/a",
                      STEPS[k].args);
    }
    ck_assert_int_eq(sh("test ! -e %s/runs && test ! -e %s/../runs", a, b), 0);
    /* a parent given as a path is the one recorded (a copied folder resumes in the copy) */
    ck_assert_int_eq(sh("cp -r %s %s/copy", a, tmpdir), 0);
    ck_assert_int_eq(train_in_tmp("--resume copy --set train.steps=60"), 0);
    snprintf(ini, sizeof ini, "%s/copy/config.ini", tmpdir);
    ck_assert(tu_file_contains(ini, "\ndir = \".\"\n"));
    ck_assert(tu_file_contains(ini, "\nname = \"copy\"\n"));
    /* tab completion's "./", doubled and trailing slashes spell that same path: the copy's parent
     * is recorded, so that ./train copies/orig/config.ini trains the copy, never runs/a */
    char orig[700];
    snprintf(orig, sizeof orig, "%s/copies", tmpdir);
    ck_assert_int_eq(mkdir(orig, 0755), 0);
    ck_assert_int_eq(sh("cp -r %s %s/orig", a, orig), 0);
    snprintf(ini, sizeof ini, "%s/copies/orig/config.ini", tmpdir);
    static const char *const SPELLED[] = {"--resume ./copies/orig --set train.steps=70",
                                          "--resume copies//orig/ --set train.steps=80"};
    for (size_t k = 0; k < sizeof SPELLED / sizeof *SPELLED; k++) {
        ck_assert_msg(train_in_tmp(SPELLED[k]) == 0, "%s failed", SPELLED[k]);
        ck_assert_msg(tu_file_contains(ini, "\ndir = \"copies\"\n") &&
                          tu_file_contains(ini, "\nname = \"orig\"\n"),
                      "%s: not recorded as copies/orig", SPELLED[k]);
    }
}
END_TEST

/* --resume --set of a key no config has is named as an unknown key, with the suggestion the
 * config gives anywhere else, not as a key a resume cannot change; a known key that may not change
 * is still refused so. Nothing is trained. */
START_TEST(test_resume_set_unknown_key_named_so) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    ck_assert_int_eq(train_in_tmp("--resume a --set optim.lrr=1 --set bogus.x=1 --set optim.lr=1 "
                                  "--set train.steps=30"),
                     2);
    char path[700];
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    char *out = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out,
                     "error: --set (argument 4): unknown key 'optim.lrr'; did you mean "
                     "'optim.lr'?\n"
                     "error: --set (argument 6): unknown section [bogus]; the sections are [run], "
                     "[task], [model], [attention], [init], [optim], [train], [log], [guard]\n"
                     "error: --set (argument 8): 'optim.lr' cannot change when a run is resumed "
                     "or evaluated: it continues with the configuration stored in its checkpoint. "
                     "Only train.steps, run.threads and log.progress may be set; start a new run "
                     "(another run.name) to change anything else\n");
    free(out);
}
END_TEST

/* The text file at path with its first `from` replaced by `to` (as a user's editor would). */
static void replace_in_file(const char *path, const char *from, const char *to) {
    char *text = slurp(path, NULL), *at = strstr(text, from);
    ck_assert_msg(at != NULL, "no '%s' in %s", from, path);
    size_t len = strlen(text) + strlen(to) + 1;
    char *out = malloc(len);
    snprintf(out, len, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    spit(path, out, strlen(out));
    free(out);
    free(text);
}

/* A run an older program resumed in a folder "a copy" holds that name as run.name in its
 * checkpoint and config.ini: in a folder of a legal name it is still evaluated, exported and
 * resumed (where a run lives is its folder's), and the resume writes the folder's name. */
START_TEST(test_checkpoint_with_bad_run_name_read) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    ck_assert_int_eq(sh("cp -a %s/a %s/y", tmpdir, tmpdir), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/y/checkpoint.bin", tmpdir);
    replace_in_config(path, "\nname = \"a\"\n", "\nname = \"a copy\"\n");
    snprintf(path, sizeof path, "%s/y/config.ini", tmpdir);
    replace_in_file(path, "\nname = \"a\"\n", "\nname = \"a copy\"\n");
    ck_assert_int_eq(train_in_tmp("--eval y"), 0);
    ck_assert_int_eq(train_in_tmp("--export y y.safetensors"), 0);
    /* the export's metadata names the run as its folder: the JSON header after the 8 bytes of
     * its length (quotes and line ends escaped in it) */
    char st[600];
    size_t st_len;
    snprintf(st, sizeof st, "%s/y.safetensors", tmpdir);
    char *header = tu_read_file(st, &st_len);
    ck_assert(header && st_len > 8);
    ck_assert(strstr(header + 8, "\\nname = \\\"y\\\"\\n"));
    ck_assert(!strstr(header + 8, "a copy"));
    free(header);
    ck_assert_int_eq(train_in_tmp("--resume y --set train.steps=30"), 0);
    ck_assert(tu_file_contains(path, "\nname = \"y\"\n"));
    ck_assert(!tu_file_contains(path, "a copy"));
    ck_assert_int_eq(train_in_tmp("--eval y"), 0);
}
END_TEST

/* Keys a run does not read, which this version refuses in new input (config/validate.c
 * check_param) but an earlier one stored: model.base_width 64 under model.param = standard, and
 * init.q_mult 3 under mup (written into the checkpoint and config.ini by hand, as that version
 * wrote them). The run is still evaluated, exported and resumed, and a sweep holding it is still
 * collected; the same config given as a new config file is refused. */
static const struct {
    const char *more, *from, *to, *plan_to; /* plan_to: the plan's base line, as edited */
} STORED_UNREAD[] = {
    {"--set model.d_model=16", "\nbase_width = 128\n", "\nbase_width = 64\n",
     "\nbase model.base_width = 64\n"},
    {"--set model.d_model=16 --set model.param=mup --set model.base_width=8", "\nq_mult = 1\n",
     "\nq_mult = 3\n", "\nbase init.q_mult = 3\n"},
};

START_TEST(test_stored_unread_keys_still_read) {
    make_tmpdir();
    short_run("old", STORED_UNREAD[_i].more);
    char path[600], cmd[2048];
    /* a sweep of one run of the same config, planned before the edit (its base is new input) */
    snprintf(cmd, sizeof cmd, "cd %s && %s --sweep old/config.ini --seeds 1 --grid train.steps=10 "
             "--out sw >/dev/null 2>&1", tmpdir, tu_train_bin());
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/old/checkpoint.bin", tmpdir);
    replace_in_config(path, STORED_UNREAD[_i].from, STORED_UNREAD[_i].to);
    snprintf(path, sizeof path, "%s/old/config.ini", tmpdir);
    replace_in_file(path, STORED_UNREAD[_i].from, STORED_UNREAD[_i].to);
    ck_assert_int_eq(train_in_tmp("--eval old"), 0);
    ck_assert_int_eq(train_in_tmp("--export old old.safetensors"), 0);
    ck_assert_int_eq(train_in_tmp("--resume old --set train.steps=30"), 0);
    ck_assert(tu_file_contains(path, STORED_UNREAD[_i].to)); /* stored as it was */
    ck_assert_int_eq(train_in_tmp("--print-config old/config.ini"), 2); /* new input */
    ck_assert(tu_train_output_contains(tmpdir, _i ? "nothing to multiply" : "is not mup"));
    /* the sweep's plan, configs and run edited alike: still collected */
    ck_assert_int_eq(sh("cd %s/sw && sed -i -e 's/^base model.base_width = 128$/base "
                        "model.base_width = 64/' -e 's/^base init.q_mult = 1$/base init.q_mult = 3/' "
                        "plan.txt && for f in configs/*.ini runs/*/config.ini; do sed -i -e "
                        "'s/^base_width = 128$/base_width = 64/' -e 's/^q_mult = 1$/q_mult = 3/' $f; "
                        "done && ls runs/*/checkpoint.bin > ck.txt%s", tmpdir, ""), 0);
    snprintf(path, sizeof path, "%s/sw/plan.txt", tmpdir);
    ck_assert(tu_file_contains(path, STORED_UNREAD[_i].plan_to));
    snprintf(path, sizeof path, "%s/sw/ck.txt", tmpdir);
    char *ck = slurp(path, NULL);
    ck[strcspn(ck, "\n")] = 0;
    snprintf(path, sizeof path, "%s/sw/%s", tmpdir, ck);
    free(ck);
    replace_in_config(path, STORED_UNREAD[_i].from, STORED_UNREAD[_i].to);
    ck_assert_int_eq(train_in_tmp("--sweep --collect --out sw"), 0);
    snprintf(path, sizeof path, "%s/sw/sweep.csv", tmpdir);
    ck_assert_msg(tu_file_contains(path, ",ok,0,10,"), "the run is not collected as ok");
    /* and its job line run again: the finished run is read, not refused (exit 0, nothing to do) */
    ck_assert_int_eq(train_in_tmp("--sweep-run sw/configs/steps-10_s1.ini"), 0);
}
END_TEST

/* A resume that fails at its last check (attention.csv is not a regular file) after the other
 * logs were read: config.ini (which would say train.steps = 30), the logs and the checkpoint are
 * as they were, and no temporary file is left. */
START_TEST(test_failed_resume_changes_nothing) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    ck_assert_int_eq(sh("rm %s/a/attention.csv && mkfifo %s/a/attention.csv", tmpdir, tmpdir), 0);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/orig && cd %s/a && for f in *.csv *.ini *.bin; do "
             "[ -f \"$f\" ] && cp \"$f\" ../orig/; done", tmpdir, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(train_in_tmp("--resume a --set train.steps=30"), 2); /* bad input: exit code 2 */
    ck_assert(tu_train_output_contains(tmpdir, "attention.csv"));
    snprintf(cmd, sizeof cmd, "cd %s/orig && for f in *; do cmp -s \"$f\" ../a/\"$f\" || exit 1; "
             "done", tmpdir);
    int st = system(cmd);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a file changed");
    snprintf(cmd, sizeof cmd, "%s/a", tmpdir);
    temp_names_assert_none(cmd);
}
END_TEST

/* The race of a resume with a new run of the same name (run_print.h): the resume checks the
 * folder (here: its print taken, as cmd_train.c does before its checks), then a new run of
 * another optim.lr replaces the folder and finishes, then the resume takes the lock. Driven
 * through the library, so the interleaving is the same every time: the resume is refused
 * (exit code 2) and the new run's folder is left byte for byte as it was; it used to continue
 * the new run's checkpoint with its own configuration, two runs in one loss.csv. */
START_TEST(test_resume_refuses_a_folder_replaced_after_its_checks) {
    make_tmpdir();
    short_run("race", "--set model.d_model=16");
    char ck[600];
    snprintf(ck, sizeof ck, "%s/race/checkpoint.bin", tmpdir);
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(checkpoint_load_config(ck, &c, NULL), 0);
    snprintf(c.run_dir, sizeof c.run_dir, "%s", tmpdir);
    snprintf(c.run_name, sizeof c.run_name, "race");
    c.steps = 30;
    c.progress = 0;
    RunPrint checked;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/race", tmpdir);
    run_print_take(dir, "--resume (argument 2)", &checked);
    short_run("race", "--set model.d_model=16 --set optim.lr=0.002"); /* the new run */
    ck_assert_int_eq(sh("cp -a %s/race %s/race.orig", tmpdir, tmpdir), 0);
    ck_assert_int_eq(train_run_from(&c, ck, &checked), EXIT_CONFIG);
    ck_assert_msg(sh("diff -r %s/race %s/race.orig > /dev/null", tmpdir, tmpdir) == 0,
                  "the resume changed the new run's folder");
}
END_TEST

/* A run folder whose config.ini is gone holds another run's checkpoint (same shapes, another
 * run.seed and optim.lr): --resume, --eval and --export refuse it (exit 2, config.ini named as
 * missing), the folder byte for byte as it was; the resume used to continue the logs of run a
 * with run b's weights and rate. A checkpoint alone (no log, no config.ini) is still read. */
START_TEST(test_missing_config_ini_beside_logs_refused) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    short_run("b", "--set model.d_model=16 --set run.seed=2 --set optim.lr=0.005");
    ck_assert_int_eq(sh("cp -a %s/a %s/x", tmpdir, tmpdir), 0);
    ck_assert_int_eq(sh("rm %s/x/config.ini && cd %s && cp b/checkpoint.bin x/ && cp -a x x.orig",
                        tmpdir, tmpdir), 0);
    static const char *const CMDS[] = {"--resume x --set train.steps=30", "--eval x",
                                       "--export x x.safetensors"};
    for (int k = 0; k < 3; k++) {
        ck_assert_msg(train_in_tmp(CMDS[k]) == 2, "%s: not refused", CMDS[k]);
        ck_assert_msg(tu_train_output_contains(tmpdir, "x/config.ini' is missing"),
                      "%s: config.ini not named", CMDS[k]);
        ck_assert_msg(sh("diff -r %s/x %s/x.orig > /dev/null", tmpdir, tmpdir) == 0,
                      "%s: the folder changed", CMDS[k]);
    }
    ck_assert_int_eq(sh("cd %s && mkdir alone && cp b/checkpoint.bin alone/%s", tmpdir, ""), 0);
    ck_assert_int_eq(train_in_tmp("--eval alone"), 0);
}
END_TEST

/* A resume into a folder that lacks a log it continues (the run's files copied without
 * grad_norms.csv, and without the .lock and manifest a run leaves): refused with exit code 2,
 * the missing log named, before anything is made there; it used to make .lock and the
 * manifest, adopt the files and then fail with exit code 1. (the log left out) */
static const char *const LEFT_OUT[] = {"loss.csv", "grad_norms.csv", "attention.csv"};

START_TEST(test_resume_missing_log_refused_before_any_change) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    ck_assert_int_eq(sh("cd %s && mkdir e && cp a/*.csv a/*.ini a/*.txt a/*.bin e/ && rm e/%s",
                        tmpdir, LEFT_OUT[_i]), 0);
    ck_assert_int_eq(sh("cp -a %s/e %s/e.orig", tmpdir, tmpdir), 0);
    ck_assert_int_eq(train_in_tmp("--resume e --set train.steps=30"), 2);
    char want[300];
    snprintf(want, sizeof want, "e/%s' is missing", LEFT_OUT[_i]);
    ck_assert_msg(tu_train_output_contains(tmpdir, want), "%s not named", LEFT_OUT[_i]);
    ck_assert_msg(sh("diff -r %s/e %s/e.orig > /dev/null", tmpdir, tmpdir) == 0,
                  "the folder changed (.lock or the manifest made?)");
}
END_TEST

/* An extension of a finished run (20 steps, --set train.steps=30) whose config.ini cannot be
 * replaced (made read-only): it fails (exit code 1) with every file as it was, the logs' final
 * rows (step 20) kept, no temporary file; they used to be dropped before config.ini was found
 * unwritable, and lost for good (the run then read as finished). */
START_TEST(test_extension_with_read_only_config_ini_changes_nothing) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    ck_assert_int_eq(sh("chmod a-w %s/a/config.ini%s", tmpdir, ""), 0);
    ck_assert_int_eq(sh("cd %s && cp -a a a.orig%s", tmpdir, ""), 0);
    ck_assert_int_eq(train_in_tmp("--resume a --set train.steps=30"), 1);
    ck_assert(tu_train_output_contains(tmpdir, "a/config.ini"));
    ck_assert_msg(sh("diff -r %s/a %s/a.orig > /dev/null", tmpdir, tmpdir) == 0,
                  "a file changed (the logs' final rows dropped?)");
    char dir[600];
    snprintf(dir, sizeof dir, "%s/a", tmpdir);
    temp_names_assert_none(dir);
}
END_TEST

/* The folder an extension of a finished run (20 steps) leaves when it is killed before its
 * first checkpoint: config.ini says train.steps = 30, the checkpoint the finished run's, and
 * the logs' rows of step 20 dropped (made here by hand, so the moment of the kill does not
 * matter). --resume does the final evaluation again: the logs are the finished run's again,
 * timing columns aside, byte for byte, attn_steps.csv too, and config.ini says 20; it used to
 * say the run had finished, the rows lost for good. */
START_TEST(test_extension_killed_before_its_checkpoint_restored) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    ck_assert_int_eq(sh("cd %s && cp -a a a.orig && cd a && for f in loss.csv attention.csv "
                        "attn_steps.csv; do awk -F, 'NR == 1 || $1 + 0 < 20' $f > t && mv t $f; "
                        "done && sed -i 's/^steps = 20$/steps = 30/' config.ini%s", tmpdir, ""), 0);
    char path[600], want[600], got[600];
    snprintf(path, sizeof path, "%s/a/config.ini", tmpdir);
    ck_assert(tu_file_contains(path, "\nsteps = 30\n"));
    ck_assert_int_eq(train_in_tmp("--resume a"), 0);
    ck_assert(tu_file_contains(path, "\nsteps = 20\n"));
    snprintf(path, sizeof path, "%s/a", tmpdir);
    snprintf(want, sizeof want, "%s/want.txt", tmpdir);
    snprintf(got, sizeof got, "%s/got.txt", tmpdir);
    strip_timing(path, got);
    snprintf(path, sizeof path, "%s/a.orig", tmpdir);
    strip_timing(path, want);
    ck_assert_int_eq(sh("cmp -s %s/want.txt %s/got.txt", tmpdir, tmpdir), 0);
    ck_assert_int_eq(sh("cmp -s %s/a/attn_steps.csv %s/a.orig/attn_steps.csv", tmpdir, tmpdir), 0);
    ck_assert_int_eq(sh("cd %s && tail -1 a/loss.csv | grep -q '^20,'%s", tmpdir, ""), 0);
}
END_TEST

/* A resume of a run whose log lost its header (empty, or cut inside the header line) is refused
 * with exit code 2, naming the log and its header, before anything changes: appending rows to
 * it would make a log --compare cannot read ("no 'step' column"). A folder of a version before
 * manifests (no manifest, no lock file) too: its cut loss.csv still starts as ours, so the folder
 * is adopted, but the refusal comes before its lock file and manifest are made (the listing
 * compared). A log that is a folder or a FIFO likewise. The refusal starts with its place, the
 * run folder's argument; on a finished run resumed as it is (no train.steps raised), before the
 * note that its final evaluation is done again. (log, its new bytes (NULL: a folder, "|": a
 * FIFO), the folder an earlier version's, the run resumed as it is) */
static const struct {
    const char *log, *text;
    int earlier, as_is;
} HEADERLESS[] = {
    {"loss.csv", "", 0, 0},
    {"grad_norms.csv", "step,tok_emb", 0, 0},
    {"attention.csv", "", 0, 0},
    {"loss.csv", "step,train_loss,val_loss,val_ac", 1, 0},
    {"attn_steps.csv", "step,layer,head,n_", 1, 0},
    {"loss.csv", "step,tra", 0, 1},
    {"grad_norms.csv", NULL, 0, 0},
    {"attention.csv", "|", 0, 0},
};

START_TEST(test_resume_refuses_headerless_log) {
    make_tmpdir();
    short_run("a", "--set model.d_model=16");
    char path[700];
    snprintf(path, sizeof path, "%s/a/%s", tmpdir, HEADERLESS[_i].log);
    const char *text = HEADERLESS[_i].text;
    if (text && strcmp(text, "|") != 0) {
        tu_write_file(path, text);
    } else {
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(text ? mkfifo(path, 0600) : mkdir(path, 0700), 0);
    }
    if (HEADERLESS[_i].earlier)
        ck_assert_int_eq(sh("rm %s/a/.scaledot-manifest %s/a/.lock", tmpdir, tmpdir), 0);
    ck_assert_int_eq(sh("cp -a %s/a %s/a.orig", tmpdir, tmpdir), 0);
    ck_assert_int_eq(train_in_tmp(HEADERLESS[_i].as_is ? "--resume a"
                                                       : "--resume a --set train.steps=30"), 2);
    char want[800];
    snprintf(want, sizeof want, "%s': %s", HEADERLESS[_i].log,
             text && *text != '|' ? "its header line is" : "not a regular file");
    ck_assert(tu_train_output_contains(tmpdir, want));
    snprintf(want, sizeof want, "%s/out.txt", tmpdir);
    char *out = tu_read_file(want, NULL);
    snprintf(want, sizeof want, "error: --resume (argument 2): cannot resume: 'a/%s': ",
             HEADERLESS[_i].log);
    ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "not first '%s' in:\n%s", want, out);
    free(out);
    /* diff reads no FIFO: a FIFO's folder by its listing (a manifest or lock made would show) */
    const char *same = text && *text == '|'
                           ? "cd %s && ls -A a > l1 && ls -A a.orig | diff l1 - > /dev/null"
                           : "diff -r %s/a %s/a.orig > /dev/null";
    ck_assert_msg(sh(same, tmpdir, tmpdir) == 0, "the run folder changed on a refused resume");
}
END_TEST

/* Starts ./train ARGS (run tmpdir/name, stderr into tmpdir/name.err) and returns its pid once
 * tmpdir/name/wait_for exists. */
static pid_t start_train_until(const char *name, const char *args, const char *wait_for) {
    char cmd[4096], path[700];
    snprintf(cmd, sizeof cmd, "exec %s %s --set run.dir=%s --set run.name=%s 2>%s/%s.err",
             tu_train_bin(), args, tmpdir, name, tmpdir, name);
    snprintf(path, sizeof path, "%s/%s/%s", tmpdir, name, wait_for);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    if (!wait_for_file(path, 60)) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        ck_abort_msg("%s never appeared", path);
    }
    return pid;
}

/* Waits up to seconds for pid; kills it and fails the test when it is still running then. */
static int wait_within(pid_t pid, double seconds, const char *what) {
    int st;
    struct timespec nap = {0, 10000000};
    for (double t = 0; t < seconds; t += 0.01) {
        if (waitpid(pid, &st, WNOHANG) == pid) return st;
        nanosleep(&nap, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    ck_abort_msg("%s: still running %.0f s after the signal", what, seconds);
    return st;
}

/* Issue 21 item 7: Ctrl-C inside a long validation pass (200000 examples of T = 65, many
 * seconds on one thread) is seen between validation batches: the run exits 130 within a few
 * seconds, logs no row for the step whose evaluation was cut (loss.csv keeps only its header)
 * and leaves the checkpoint of the updates done (0 here). */
START_TEST(test_sigint_inside_evaluation_stops_within_seconds) {
    make_tmpdir();
    const char *args = "--set task.name=sort --set task.length=32 --set task.val_size=200000 "
                       "--set model.d_model=16 --set model.n_layers=1 --set train.steps=10 "
                       "--set log.progress=0 --set run.threads=1";
    /* attn_map_step0.csv: step 0's diagnostics are done, its validation pass has begun */
    pid_t pid = start_train_until("ev", args, "attn_map_step0.csv");
    kill(pid, SIGINT);
    int st = wait_within(pid, 5, "SIGINT during the validation pass");
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit status %d", st);
    char path[700];
    snprintf(path, sizeof path, "%s/ev/loss.csv", tmpdir);
    ck_assert_int_eq(tu_count_lines(path), 1); /* the header only: no partial evaluation row */
    snprintf(path, sizeof path, "%s/ev/checkpoint.bin", tmpdir);
    ck_assert(access(path, F_OK) == 0);
}
END_TEST

/* A QK-clip run stopped by SIGINT inside the validation pass of a step whose count is not zero
 * (step 10: its attention.csv row, written before the pass, counts the updates of steps 1..10
 * that clipped) resumes to the logs of the run never stopped: the stop cuts the pass (no loss.csv
 * row at 10), the resume writes step 10's rows again, and the count the checkpoint keeps must be
 * the one that row was written with, not the count after it. */
START_TEST(test_qk_clip_stop_inside_validation_resumes_identically) {
    make_tmpdir();
    const char *args = "--set task.name=sort --set task.length=32 --set task.val_size=20000 "
                       "--set model.d_model=16 --set model.n_layers=1 --set train.steps=20 "
                       "--set train.eval_every=10 --set log.every=10 --set log.progress=0 "
                       "--set run.threads=1 --set attention.qk_clip=0.5";
    char cmd[4096], path[700], loss[700];
    snprintf(cmd, sizeof cmd, "%s %s --set run.dir=%s --set run.name=full 2>/dev/null",
             tu_train_bin(), args, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    /* the count at step 10 is not zero (column 15: clipped_steps) */
    ck_assert_int_eq(sh("awk -F, '$1 == 10 { n += $15 } END { exit !(n > 0) }' %s/full/attention.csv%s",
                        tmpdir, ""), 0);
    pid_t pid = start_train_until("cut", args, "attention.csv");
    snprintf(path, sizeof path, "%s/cut/attention.csv", tmpdir);
    tu_wait_for_file(path, "\n10,0,0,", pid, 60);
    kill(pid, SIGINT);
    int st = wait_within(pid, 5, "SIGINT during step 10's validation pass");
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit status %d", st);
    snprintf(loss, sizeof loss, "%s/cut/loss.csv", tmpdir);
    ck_assert_msg(!tu_file_contains(loss, "\n10,"), "the stop came after step 10's pass");
    ck_assert_int_eq(sh("%s --resume %s/cut 2>/dev/null", tu_train_bin(), tmpdir), 0);
    assert_logs_match_full("cut");
}
END_TEST

/* Issue 21 item 7: a second stop signal ends the run at once (no checkpoint written for the
 * first, no "continue with" message), exit code 128 + the second signal, and what was written
 * is whole: every log ends with a full line, and the checkpoint there (the last periodic one)
 * loads. The two signals are made pending together while the process is stopped, so the second
 * arrives while the first is still unhandled by the loop. Then the same from the run's parent
 * (this process): it stops the run at once too; only the parent's relay of the first signal
 * (stop_signal_relay, what a sweep sends its children) is not a second request. */
START_TEST(test_second_signal_stops_at_once) {
    make_tmpdir();
    /* two OpenMP threads: the idle one takes signals too (a hold by signal mask in the main
     * thread let it end the run in the middle of a checkpoint write) */
    char threaded[sizeof RUN_ARGS];
    memcpy(threaded, RUN_ARGS, sizeof RUN_ARGS);
    char *one = strstr(threaded, "run.threads=1");
    ck_assert_ptr_nonnull(one);
    one[strlen("run.threads=")] = '2';
    pid_t pid = start_train_until("twice", threaded, "checkpoint.bin");
    /* sent by a shell, not by this process: a repeat from the run's parent (a sweep passing a
     * Ctrl-C on) is not a second request */
    char cmd[200];
    snprintf(cmd, sizeof cmd, "kill -STOP %ld; kill -INT %ld; kill -TERM %ld; kill -CONT %ld",
             (long)pid, (long)pid, (long)pid, (long)pid);
    ck_assert_int_eq(system(cmd), 0);
    int st = wait_within(pid, 5, "two stop signals");
    ck_assert_msg(WIFEXITED(st) && (WEXITSTATUS(st) == 130 || WEXITSTATUS(st) == 143),
                  "exit status %d", st);
    char path[700], dir[600];
    snprintf(path, sizeof path, "%s/twice.err", tmpdir);
    ck_assert_msg(!tu_file_contains(path, "continue with"), "the first signal was handled");
    snprintf(dir, sizeof dir, "%s/twice", tmpdir);
    static const char *const logs[] = {"loss.csv", "grad_norms.csv", "attention.csv"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, logs[i]);
        size_t len;
        char *text = slurp(path, &len);
        ck_assert_msg(len > 0 && text[len - 1] == '\n', "%s ends mid-line", logs[i]);
        free(text);
    }
    ck_assert_int_eq(sh("%s --eval %s > /dev/null 2>&1", tu_train_bin(), dir), 0);
    /* issue 45: not silent; it names the checkpoint left (a periodic one) and how to go on */
    snprintf(path, sizeof path, "%s/twice.err", tmpdir);
    char want[800];
    snprintf(want, sizeof want, "stopped at once; no checkpoint of this step. %s/ keeps its logs "
             "and the checkpoint of step ", dir);
    ck_assert_msg(tu_file_contains(path, want), "no note of the checkpoint left");
    snprintf(want, sizeof want, "./train --resume %s continues from there\n", dir);
    ck_assert_msg(tu_file_contains(path, want), "no note of how to go on");

    /* issue 33: the same two signals from the run's parent (a shell that started ./train &,
     * timeout, a batch system) stop it at once too */
    pid = start_train_until("parent", RUN_ARGS, "checkpoint.bin");
    kill(pid, SIGSTOP);
    kill(pid, SIGINT);
    kill(pid, SIGTERM);
    kill(pid, SIGCONT);
    st = wait_within(pid, 5, "two stop signals from the parent");
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 143, "exit status %d", st);
    snprintf(path, sizeof path, "%s/parent.err", tmpdir);
    ck_assert_msg(!tu_file_contains(path, "continue with"), "the parent's second signal ignored");

    /* only a sweep's relay (stop_signal_relay) is not a second request; sent as SIGTERM here,
     * since a second SIGINT pending beside the first would be merged with it */
    pid = start_train_until("relay", RUN_ARGS, "checkpoint.bin");
    kill(pid, SIGSTOP);
    kill(pid, SIGINT);
    ck_assert_int_eq(stop_signal_relay(pid, SIGTERM), 0);
    kill(pid, SIGCONT);
    st = wait_within(pid, 30, "a stop signal relayed by the parent");
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit status %d", st);
    snprintf(path, sizeof path, "%s/relay.err", tmpdir);
    ck_assert_msg(tu_file_contains(path, "continue with"), "the run did not stop cleanly");
}
END_TEST

/* Issue 45: a second stop signal before the run's first checkpoint says that none was written,
 * that the folder holds nothing to resume and what to do; --resume (and --eval) of that folder
 * then say plainly that it holds no checkpoint, exit code 2, not only "No such file", naming its
 * config.ini (where the run's settings are), but not in a folder without one. The long
 * validation pass of test_sigint_inside_evaluation_stops_within_seconds holds the run at step 0,
 * before any checkpoint (train.checkpoint_every 500 > 10 steps). */
START_TEST(test_second_signal_before_any_checkpoint) {
    make_tmpdir();
    const char *args = "--set task.name=sort --set task.length=32 --set task.val_size=200000 "
                       "--set model.d_model=16 --set model.n_layers=1 --set train.steps=10 "
                       "--set log.progress=0 --set run.threads=1";
    pid_t pid = start_train_until("none", args, "attn_map_step0.csv");
    char cmd[200], path[700], want[1400];
    snprintf(cmd, sizeof cmd, "kill -STOP %ld; kill -INT %ld; kill -TERM %ld; kill -CONT %ld",
             (long)pid, (long)pid, (long)pid, (long)pid);
    ck_assert_int_eq(system(cmd), 0);
    int st = wait_within(pid, 5, "two stop signals");
    ck_assert_msg(WIFEXITED(st) && (WEXITSTATUS(st) == 130 || WEXITSTATUS(st) == 143),
                  "exit status %d", st);
    snprintf(path, sizeof path, "%s/none/checkpoint.bin", tmpdir);
    ck_assert_int_ne(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/none.err", tmpdir);
    snprintf(want, sizeof want, "stopped at once; no checkpoint was written (one "
             "Ctrl-C writes one; train.checkpoint_every = 500: the first comes at that step). "
             "%s/none/ holds the logs so far and nothing to resume: the same command trains the "
             "run again from step 0, replacing them\n", tmpdir);
    ck_assert_msg(tu_file_contains(path, want), "no note of the state left");
    static const char *const cmds[] = {"--resume", "--eval"};
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "%s none", cmds[i]);
        ck_assert_int_eq(train_in_tmp(cmd), 2);
        snprintf(want, sizeof want, "error: %s (argument 2): the folder 'none' holds no "
                 "checkpoint (checkpoint.bin), so there is nothing to %s", cmds[i],
                 i ? "evaluate" : "resume");
        ck_assert_msg(tu_train_output_contains(tmpdir, want), "%s: not said plainly", cmds[i]);
        ck_assert(tu_train_output_contains(tmpdir, "Train it again from step 0 with the command "
                                                   "that started it (its settings are in "
                                                   "none/config.ini)"));
    }
    ck_assert_int_eq(train_in_tmp("--resume nowhere"), 2);
    ck_assert(tu_train_output_contains(tmpdir, "error: --resume (argument 2): no such run folder "
                                               "'nowhere'\n"));
    /* a folder with no config.ini (only a lock): no settings' file named that is not there */
    ck_assert_int_eq(sh("mkdir -p %s/lk/b && touch %s/lk/b/.lock", tmpdir, tmpdir), 0);
    ck_assert_int_eq(train_in_tmp("--resume lk/b"), 2);
    ck_assert(tu_train_output_contains(tmpdir, "the folder 'lk/b' holds no checkpoint"));
    ck_assert(tu_train_output_contains(tmpdir, "with the command that started it, which replaces "
                                               "the folder's logs"));
    ck_assert(!tu_train_output_contains(tmpdir, "config.ini"));
}
END_TEST

/* Issue 21 item 10: a run trained on a relative task.file is evaluated and resumed from another
 * folder through the absolute path stored with it (the relative one names nothing there). */
START_TEST(test_relative_task_file_from_another_folder) {
    make_tmpdir();
    char path[700], args[1500], elsewhere[700];
    snprintf(path, sizeof path, "%s/t.txt", tmpdir);
    tu_write_file(path, "a b | b a\nb a | a b\na a | a a\nb b | b b\nb c | c b\nc b | b c\n");
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", tmpdir);
    ck_assert_int_eq(mkdir(elsewhere, 0755), 0);
    snprintf(args, sizeof args, "--set task.name=file --set task.file=t.txt --set task.val_size=2 "
             "--set train.steps=4 --set log.progress=0 --set run.threads=1 --set run.dir=%s "
             "--set run.name=rel", tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    snprintf(args, sizeof args, "--eval %s/rel", tmpdir);
    ck_assert_msg(tu_run_train(elsewhere, args) == 0, "--eval from another folder failed");
    snprintf(args, sizeof args, "--resume %s/rel --set train.steps=6", tmpdir);
    ck_assert_msg(tu_run_train(elsewhere, args) == 0, "--resume from another folder failed");
}
END_TEST

TU_MAIN_TIMEOUT("resume", 300, test_resume_after_kill_is_bitwise_identical,
                test_sigint_writes_checkpoint_and_resumes, test_eval_prints_accuracy_and_examples,
                test_divergence_skip_counts_steps, test_resume_writes_into_the_given_folder,
                test_eval_recall_without_separator, test_qk_norm_resume_is_bitwise_identical,
                test_llama_resume_is_bitwise_identical, test_bf16_resume_is_bitwise_identical,
                test_qk_clip_resume_is_bitwise_identical, test_finished_run_resumed_unchanged, test_foreign_checkpoint_refused,
                test_resume_refuses_a_folder_name_no_run_name, test_resume_dot_is_the_folder,
                test_resume_dot_keeps_run_dir, test_resume_set_unknown_key_named_so,
                test_checkpoint_with_bad_run_name_read,
                TU_LOOP(test_stored_unread_keys_still_read, 0,
                        (int)(sizeof STORED_UNREAD / sizeof STORED_UNREAD[0])),
                test_failed_resume_changes_nothing,
                test_resume_refuses_a_folder_replaced_after_its_checks,
                test_missing_config_ini_beside_logs_refused,
                TU_LOOP(test_resume_missing_log_refused_before_any_change, 0,
                        (int)(sizeof LEFT_OUT / sizeof LEFT_OUT[0])),
                test_extension_with_read_only_config_ini_changes_nothing,
                test_extension_killed_before_its_checkpoint_restored,
                TU_LOOP(test_resume_refuses_headerless_log, 0,
                        (int)(sizeof HEADERLESS / sizeof HEADERLESS[0])),
                test_sigint_inside_evaluation_stops_within_seconds,
                test_qk_clip_stop_inside_validation_resumes_identically,
                test_second_signal_stops_at_once, test_second_signal_before_any_checkpoint,
                test_relative_task_file_from_another_folder);
