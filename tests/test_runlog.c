/* test_runlog.c: the logs survive what a user's disk does to them: a run folder that cannot be
 * created or a full disk gives one clear error and exit code 1, never a crash or a silent
 * partial file; rows are whole lines; a resumed log drops the rows after the checkpoint and is
 * appended to only under the header of its rows; a failed
 * attention map is named with its own reason. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "train/runlog.h"
#include "train/train.h"
#include "temp_names.h"
#include "testutil.h"

static char tmpdir[256];

static void make_tmpdir(void) { tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_runlog_XXXXXX"); }

/* A tiny ./train run with args inside tmpdir; returns the exit code, output in tmpdir/out.txt. */
static int run_train(const char *args) {
    char all[1024];
    snprintf(all, sizeof all,
             "--set task.name=copy --set task.length=3 --set task.symbols=6 --set task.val_size=32 "
             "--set model.d_model=16 --set train.steps=20 --set log.progress=0 %s",
             args);
    return tu_run_train(tmpdir, all);
}

static int output_contains(const char *needle) { return tu_train_output_contains(tmpdir, needle); }

START_TEST(test_run_folder_under_a_file) {
    make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/plainfile", tmpdir);
    FILE *f = fopen(path, "w");
    fclose(f);
    ck_assert_int_eq(run_train("--set run.dir=plainfile/sub"), EXIT_RUNTIME);
    ck_assert(output_contains("cannot create run folder 'plainfile/sub/run'"));
    ck_assert(output_contains("Not a directory"));
}
END_TEST

/* An earlier run's loss.csv is a link to /dev/full (where every write fails with ENOSPC): the
 * link is replaced by the new run's own log, never written through (util/whole_write.h). (A
 * folder holding no run of ./train is refused instead: test_train.) A full disk itself is
 * test_whole_write's job (a file-size limit). */
START_TEST(test_link_to_dev_full_replaced) {
    make_tmpdir();
    char path[512];
    ck_assert_int_eq(run_train(""), 0);
    snprintf(path, sizeof path, "%s/runs/run/loss.csv", tmpdir);
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(symlink("/dev/full", path), 0);
    ck_assert_int_eq(run_train(""), 0);
    struct stat sb;
    ck_assert_int_eq(lstat(path, &sb), 0);
    ck_assert_msg(S_ISREG(sb.st_mode), "loss.csv is the run's own file now");
    ck_assert(tu_file_contains(path, "step,train_loss,"));
}
END_TEST

static int count_rows(const char *path) {
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    int n = 0, ch, last = '\n';
    while ((ch = fgetc(f)) != EOF) {
        n += ch == '\n';
        last = ch;
    }
    fclose(f);
    ck_assert_msg(last == '\n', "%s ends in a partial line", path);
    return n;
}

/* A fresh scratch folder, the smallest model the logs need, and the run folder tmpdir/run. */
static void tiny_run(Model *m, char *dir, size_t n) {
    make_tmpdir();
    ModelConfig mc = {.vocab_size = 5, .d_model = 4, .n_heads = 1, .n_layers = 1, .d_ff = 8,
                      .max_seq_len = 3, .ln_eps = 1e-5f, .scale = 0.5f};
    ck_assert_int_eq(model_build(m, &mc, 1), 0);
    snprintf(dir, n, "%s/run", tmpdir);
}

/* A resumed log keeps the header and the rows before the resume step, whatever follows. */
START_TEST(test_resume_truncates_later_rows) {
    Model m;
    char dir[512], path[600];
    tiny_run(&m, dir, sizeof dir);
    RunLog r;
    ck_assert_int_eq(runlog_open(&r, dir, &m, "[run]\n", -1), 0);
    for (int step = 0; step < 50; step += 10) {
        LossRow row = {.step = step, .has_train = 1, .train_loss = 1.0 / (step + 1), .tokens_per_s = 1};
        ck_assert_int_eq(runlog_loss_row(&r, &row), 0);
        ck_assert_int_eq(runlog_grad_row(&r, step, &m, 0.5), 0);
    }
    ck_assert_int_eq(runlog_close(&r), 0);
    /* a torn last line, as a kill -9 in the middle of a write could leave */
    snprintf(path, sizeof path, "%s/loss.csv", dir);
    FILE *f = fopen(path, "a");
    fputs("50,0.1", f);
    fclose(f);
    ck_assert_int_eq(runlog_open(&r, dir, &m, "[run]\n", 30), 0);
    ck_assert_int_eq(runlog_close(&r), 0);
    ck_assert_int_eq(count_rows(path), 1 + 3); /* header, steps 0, 10, 20 */
    snprintf(path, sizeof path, "%s/grad_norms.csv", dir);
    ck_assert_int_eq(count_rows(path), 1 + 3);
    model_free(&m);
}
END_TEST

/* Fields in a line of text (commas + 1). */
static int fields(const char *line) {
    int n = 1;
    for (; *line && *line != '\n'; line++) n += *line == ',';
    return n;
}

/* A run logged before attention.csv had dprob_norm, softmax_pass and blocked_rows, resumed:
 * its rows keep the 11 columns of its header, so the file stays one table; a new log has 14. */
/* With val_bpb (the text task) loss.csv has the val_bpb column after val_loss, filled on the
 * validation rows only; without it the header is the other tasks' one, byte for byte. */
START_TEST(test_val_bpb_column) {
    Model m;
    char dir[512], path[600];
    tiny_run(&m, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/loss.csv", dir);
    for (int bpb = 0; bpb < 2; bpb++) {
        RunLog r;
        /* runlog_open is the other tasks' log */
        ck_assert_int_eq(bpb ? runlog_open_bpb(&r, dir, &m, "[run]\n", -1, 1)
                             : runlog_open(&r, dir, &m, "[run]\n", -1), 0);
        LossRow a = {.step = 0, .has_train = 1, .has_val = 1, .train_loss = 2, .val_loss = 1.5,
                     .val_token_acc = 0.25, .val_answer_acc = 0.25, .lr = 0.001, .grad_norm = 1,
                     .elapsed_s = 1, .tokens_per_s = 10, .val_bpb = 2.1640425613334453};
        LossRow b = {.step = 10, .has_train = 1, .train_loss = 1, .lr = 0.001, .grad_norm = 1,
                     .elapsed_s = 2, .tokens_per_s = 10, .val_bpb = 99};
        ck_assert_int_eq(runlog_loss_row(&r, &a), 0);
        ck_assert_int_eq(runlog_loss_row(&r, &b), 0);
        ck_assert_int_eq(runlog_close(&r), 0);
        char *text = tu_read_file(path, NULL);
        ck_assert_ptr_nonnull(text);
        const char *want =
            bpb ? "step,train_loss,val_loss,val_bpb,val_token_acc,val_answer_acc,lr,grad_norm,"
                  "elapsed_s,tokens_per_s,skipped_steps\n"
                  "0,2,1.5,2.16404,0.25,0.25,0.001,1,1.000,10,0\n"
                  "10,1,,,,,0.001,1,2.000,10,0\n"
                : "step,train_loss,val_loss,val_token_acc,val_answer_acc,lr,grad_norm,"
                  "elapsed_s,tokens_per_s,skipped_steps\n"
                  "0,2,1.5,0.25,0.25,0.001,1,1.000,10,0\n"
                  "10,1,,,,0.001,1,2.000,10,0\n";
        ck_assert_msg(strcmp(text, want) == 0, "val_bpb %d:\n%s", bpb, text);
        free(text);
    }
    model_free(&m);
}
END_TEST

START_TEST(test_resume_keeps_old_attention_columns) {
    Model m;
    char dir[512], path[600];
    tiny_run(&m, dir, sizeof dir);
    RunLog r;
    HeadStats s = {.logit_std = 1, .dlogit_norm = 0.5, .dprob_norm = 2, .softmax_pass = 0.25,
                   .blocked_rows = 0.125};
    ck_assert_int_eq(runlog_open(&r, dir, &m, "[run]\n", -1), 0);
    ck_assert_int_eq(runlog_attention_row(&r, 0, 0, 0, &s), 0);
    ck_assert_int_eq(runlog_close(&r), 0);
    snprintf(path, sizeof path, "%s/attention.csv", dir);
    char *text = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, ",dlogit_norm,dprob_norm,softmax_pass,blocked_rows\n") != NULL &&
                      strstr(text, ",0.5,2,0.25,0.125\n") != NULL, "new log:\n%s", text);
    free(text);
    tu_write_file(path, "step,layer,head,logit_mean,logit_std,logit_absmax,entropy,entropy_norm,"
                        "max_weight,saturated_frac,dlogit_norm\n"
                        "0,0,0,0,1,0,0,0,0,0,0.5\n"
                        "20,0,0,0,1,0,0,0,0,0,0.5\n");
    ck_assert_int_eq(runlog_open(&r, dir, &m, "[run]\n", 10), 0);
    ck_assert_int_eq(runlog_attention_row(&r, 10, 0, 0, &s), 0);
    ck_assert_int_eq(runlog_close(&r), 0);
    text = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    int lines = 0;
    for (char *line = text; *line; line = strchr(line, '\n') + 1, lines++)
        ck_assert_msg(fields(line) == 11, "resumed old log, line %d: %d fields:\n%s", lines,
                      fields(line), text);
    ck_assert_int_eq(lines, 3); /* header, step 0, the new step 10 */
    free(text);
    model_free(&m);
}
END_TEST

/* The resume's rewrite itself appends only under the header of its rows (whatever was checked
 * before the lock: a log swapped in since): a log of another header is refused (-2, the log and
 * its first differing column named) and nothing changes, config.ini included — also when it is
 * the third log, after the first two were already written aside (their temporaries removed). */
static const struct {
    const char *log, *col2; /* the log given another header; the column 2 this run writes there */
} OTHER_HEADER[] = {{"loss.csv", "train_loss"}, {"attention.csv", NULL}};

START_TEST(test_resume_refuses_other_header) {
    Model m;
    char dir[512], path[600], ini[600];
    tiny_run(&m, dir, sizeof dir);
    RunLog r;
    ck_assert_int_eq(runlog_open(&r, dir, &m, "[run]\n", -1), 0);
    ck_assert_int_eq(runlog_close(&r), 0);
    snprintf(path, sizeof path, "%s/%s", dir, OTHER_HEADER[_i].log);
    tu_write_file(path, "step,foo\n0,1\n");
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = runlog_open(&r, dir, &m, "[run]\nsteps = 30\n", 10);
    char *err = tu_capture_end(&c);
    runlog_close(&r);
    char want[800];
    snprintf(want, sizeof want, "error: cannot resume: '%s': its header is not the one this run "
             "writes (column 2 is 'foo' where this run writes '%s", path,
             OTHER_HEADER[_i].col2 ? OTHER_HEADER[_i].col2 : "");
    ck_assert_int_eq(rc, -2);
    ck_assert_msg(strstr(err, want), "'%s' not in: %s", want, err);
    free(err);
    ck_assert(tu_file_holds(path, "step,foo\n0,1\n"));
    snprintf(ini, sizeof ini, "%s/config.ini", dir);
    ck_assert(tu_file_holds(ini, "[run]\n"));
    temp_names_assert_none(dir);
    model_free(&m);
}
END_TEST

/* The attention map's write fails (its earlier file made read-only, which a whole-file write
 * keeps: EACCES) while its tokens file is written: the failure is said once, naming the file and
 * its own reason, not what errno holds after the later write (ENOENT, left by the tokens file's
 * claim), and not again for the map as a whole. Root too: a whole-file write refuses a
 * read-only file for everyone. */
START_TEST(test_attn_map_failure_named_with_its_errno) {
    make_tmpdir();
    ck_assert_int_eq(run_train("--set run.threads=1"), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/runs/run/attn_map.csv", tmpdir);
    ck_assert_int_eq(chmod(path, 0444), 0);
    /* the tokens file made anew, as at a run's first map: its claim finds no file (ENOENT) */
    snprintf(path, sizeof path, "%s/runs/run/attn_map_tokens.csv", tmpdir);
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(tu_run_train(tmpdir, "--resume runs/run --set train.steps=30"), EXIT_RUNTIME);
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    char *out = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(out);
    const char *said = "error: cannot write 'runs/run/attn_map.csv': Permission denied\n",
               *at = strstr(out, said);
    ck_assert_msg(at, "not said:\n%s", out);
    ck_assert_msg(!strstr(at + 1, "error: cannot write"), "said twice:\n%s", out);
    ck_assert_msg(!strstr(out, "attention map"), "said twice:\n%s", out);
    free(out);
}
END_TEST

/* Logs behind the checkpoint (runlog_check_not_behind): each of loss.csv, grad_norms.csv and
 * attention.csv must hold the row of the last step before the checkpoint's that the run logged.
 * Rows are written here by hand, and `due` (that step) and the verdict worked out by hand from
 * log.every and eval_every. */
static const struct {
    int loss_to, grad_to;  /* the logs' rows: steps 0, log_every, ... up to here (-1: none) */
    int log_every, eval_every;
    long step;             /* the checkpoint's */
    const char *said;      /* NULL: resumable; else what the refusal says */
} BEHIND[] = {
    {25, 25, 5, 10, 30, NULL},                 /* due 25: every row there */
    {40, 40, 5, 10, 30, NULL},                 /* rows past the checkpoint (dropped on resume) */
    {-1, -1, 5, 10, 0, NULL},                  /* a checkpoint of step 0: no row due */
    {10, 25, 5, 10, 30, "loss.csv' ends at step 10, but the checkpoint is at step 30: its rows "
                        "after step 10 up to step 25 are missing"},
    {-1, -1, 5, 10, 10, "loss.csv' has no row, but the checkpoint is at step 10: its rows up to "
                        "step 5 are missing"},
    {25, 20, 5, 10, 30, "grad_norms.csv' ends at step 20, but the checkpoint is at step 30"},
    {14, 14, 7, 10, 21, "loss.csv' ends at step 14, but the checkpoint is at step 21: its rows "
                        "after step 14 up to step 20 are missing"}, /* 20: eval_every's step */
    {20, 20, 7, 10, 21, NULL},
};

/* A log of rows 0, every, 2 every, ... up to `to` (and eval_every's steps between). */
static void write_log(const char *dir, const char *name, int to, int every, int eval_every) {
    char path[600], text[4096] = "step,x\n";
    size_t len = strlen(text);
    for (int s = 0; s <= to; s++)
        if (s % every == 0 || s % eval_every == 0)
            len += (size_t)snprintf(text + len, sizeof text - len, "%d,1\n", s);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    tu_write_file(path, text);
}

START_TEST(test_logs_behind_the_checkpoint) {
    make_tmpdir();
    const int every = BEHIND[_i].log_every, eval = BEHIND[_i].eval_every;
    write_log(tmpdir, "loss.csv", BEHIND[_i].loss_to, every, eval);
    write_log(tmpdir, "grad_norms.csv", BEHIND[_i].grad_to, every, eval);
    write_log(tmpdir, "attention.csv", BEHIND[_i].loss_to, every, eval);
    TuCapture c;
    tu_capture_begin(&c, 2);
    int rc = runlog_check_not_behind(tmpdir, BEHIND[_i].step, every, eval, "--resume (argument 2)");
    char *err = tu_capture_end(&c);
    if (!BEHIND[_i].said) {
        ck_assert_msg(rc == 0, "refused: %s", err);
    } else {
        char said[1024];
        snprintf(said, sizeof said, "error: --resume (argument 2): '%s/%s", tmpdir,
                 BEHIND[_i].said);
        ck_assert_int_eq(rc, -1);
        ck_assert_msg(strstr(err, said), "'%s' not in: %s", said, err);
    }
    free(err);
    tu_remove_tree(tmpdir);
}
END_TEST

/* End to end: a run's loss.csv put back from a copy taken at step 10, beside its checkpoint of
 * step 20: --resume refuses (exit 2, the log named first) and changes nothing. */
START_TEST(test_resume_refuses_logs_behind) {
    make_tmpdir();
    char args[512], path[600], copy[600];
    snprintf(args, sizeof args, "--set task.name=copy --set task.length=3 --set task.symbols=6 "
             "--set task.val_size=32 --set model.d_model=16 --set log.progress=0 "
             "--set run.dir=%s --set run.name=r --set train.steps=10 --set log.every=5 "
             "--set train.eval_every=5", tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    snprintf(path, sizeof path, "%s/r/loss.csv", tmpdir);
    char *at10 = tu_read_file(path, NULL);
    snprintf(args, sizeof args, "--resume %s/r --set train.steps=20", tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
    tu_write_file(path, at10);
    snprintf(copy, sizeof copy, "%s/r/attention.csv", tmpdir);
    char *attention = tu_read_file(copy, NULL);
    snprintf(args, sizeof args, "--resume %s/r --set train.steps=30", tmpdir);
    ck_assert_int_eq(tu_run_train(tmpdir, args), 2);
    char said[700];
    snprintf(said, sizeof said, "error: --resume (argument 2): '%s' ends at step 10, but the "
                                "checkpoint is at step 20", path);
    ck_assert_msg(output_contains(said), "'%s' not said", said);
    ck_assert(tu_file_holds(path, at10));
    ck_assert(tu_file_holds(copy, attention));
    free(at10);
    free(attention);
    tu_remove_tree(tmpdir);
}
END_TEST

TU_MAIN_TIMEOUT("runlog", 120, test_run_folder_under_a_file, test_link_to_dev_full_replaced,
                test_resume_truncates_later_rows, test_resume_keeps_old_attention_columns,
                test_val_bpb_column,
                TU_LOOP(test_resume_refuses_other_header, 0,
                        (int)(sizeof OTHER_HEADER / sizeof *OTHER_HEADER)),
                test_attn_map_failure_named_with_its_errno,
                TU_LOOP(test_logs_behind_the_checkpoint, 0, (int)(sizeof BEHIND / sizeof *BEHIND)),
                test_resume_refuses_logs_behind);
