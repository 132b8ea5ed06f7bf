/* test_resume_headers.c: a resume appends to a log only under the header its rows fit
 * (train/runlog.c, runlog_check_headers and resume_logs), through ./train --resume. A run folder
 * laid out as each earlier version wrote it resumes, its logs going on in their own columns; a
 * log whose header is another (a made-up one, loss.csv and grad_norms.csv swapped, a log of a run
 * with another n_layers or another attention.qk_norm) is refused with exit code 2 before the lock
 * and the manifest are made, the log and its first differing column named, the folder unchanged.
 * (--sweep-run's same refusal: test_sweep_restart.) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpttest.h"
#include "testutil.h"

/* A 20-step run tmpdir/name (evaluations and checkpoints every 10 steps) with the --set
 * arguments more; fails the test when it does not finish. */
static void run20(const char *name, const char *more) {
    char args[2048];
    snprintf(args, sizeof args,
             "--set model.d_model=16 --set model.n_heads=2 --set train.batch_size=8 "
             "--set train.steps=20 --set train.eval_every=10 --set log.every=5 "
             "--set log.progress=0 --set train.checkpoint_every=10 --set run.threads=1 "
             "--set run.dir=%s --set run.name=%s %s",
             tmpdir, name, more);
    ck_assert_msg(tu_run_train(tmpdir, args) == 0, "the run %s did not finish", name);
}

/* The copy task (n_layers set by each run). */
#define COPY "--set task.name=copy --set task.length=3 --set task.symbols=6 --set task.val_size=16 "
/* ... of one layer. */
#define COPY1 COPY "--set model.n_layers=1 "

/* The headers below are written out by hand from `git show COMMIT:src/train/runlog.c` of the
 * first version that wrote them. */
#define LOSS_9c346e3                                                                               \
    "step,train_loss,val_loss,val_token_acc,val_answer_acc,lr,grad_norm,elapsed_s,tokens_per_s,"   \
    "skipped_steps"
#define LOSS_57b99db                                                                               \
    "step,train_loss,val_loss,val_bpb,val_token_acc,val_answer_acc,lr,grad_norm,elapsed_s,"        \
    "tokens_per_s,skipped_steps"
#define ATTENTION_9c346e3                                                                          \
    "step,layer,head,logit_mean,logit_std,logit_absmax,entropy,entropy_norm,max_weight,"           \
    "saturated_frac,dlogit_norm"
#define ATTENTION_0ae8fa4 ATTENTION_9c346e3 ",dprob_norm,softmax_pass,blocked_rows"

/* A run of this version, its folder then laid out as the version `commit` wrote it: loss.csv's
 * header replaced by loss, attention.csv's by attention and each of its rows cut to that many
 * fields (NULL: the logs as this version wrote them), attn_steps.csv removed (steps_absent: a
 * version before it). */
static const struct {
    const char *commit, *config, *loss, *attention;
    int steps_absent;
} OLD[] = {
    /* the first checkpoints: attention.csv of 11 columns */
    {"9c346e3", COPY1, LOSS_9c346e3, ATTENTION_9c346e3, 1},
    /* dprob_norm, softmax_pass, blocked_rows */
    {"0ae8fa4", COPY1, LOSS_9c346e3, ATTENTION_0ae8fa4, 1},
    /* the text task: loss.csv's val_bpb */
    {"57b99db",
     "--set task.name=text --set task.file=" SCALEDOT_SOURCE_DIR "/data/prose.txt "
     "--set task.seq_len=16 --set model.n_layers=1",
     LOSS_57b99db, ATTENTION_0ae8fa4, 1},
    /* the attention fixes: attn_scale and clipped_steps, and qk-RMSNorm without qk_gain_rms
     * (QK-clip and qk-norm exclude each other) */
    {"a1bc694", COPY1 "--set attention.qk_norm=rmsnorm --set attention.scale=learned",
     LOSS_9c346e3, ATTENTION_0ae8fa4 ",attn_scale", 1},
    {"a1bc694", COPY1 "--set attention.scale=learned --set attention.qk_clip=50", LOSS_9c346e3,
     ATTENTION_0ae8fa4 ",attn_scale,clipped_steps", 1},
    /* attn_steps.csv, beside an attention.csv still without qk_gain_rms */
    {"699c44a", COPY1 "--set attention.qk_norm=rmsnorm", LOSS_9c346e3, ATTENTION_0ae8fa4, 0},
    /* this version's own logs: qk_gain_rms (ca30cdf) and every other column */
    {"ca30cdf", COPY1 "--set attention.qk_norm=rmsnorm --set attention.scale=learned", NULL,
     NULL, 0},
    {"this version", COPY1, NULL, NULL, 0},
};

/* Fields of each line of path: every one must have n; returns the lines. */
static int lines_of_fields(const char *path, int n) {
    char *text = tu_read_file(path, NULL);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    int lines = 0;
    for (char *line = text; *line; lines++) {
        char *end = strchr(line, '\n');
        ck_assert_msg(end != NULL, "%s: a torn last line", path);
        int fields = 1;
        for (const char *c = line; c < end; c++) fields += *c == ',';
        ck_assert_msg(fields == n, "%s line %d: %d fields, its header has %d", path, lines + 1,
                      fields, n);
        line = end + 1;
    }
    free(text);
    return lines;
}

/* Fields of the header line h (up to '\n' or its end). */
static int header_fields(const char *h) {
    int n = 1;
    for (; *h && *h != '\n'; h++) n += *h == ',';
    return n;
}

/* Replaces path's header line by header and cuts each of its rows to the header's fields. */
static void lay_out(const char *path, const char *header) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "{ printf '%%s\\n' '%s'; tail -n +2 '%s' | cut -d, -f1-%d; } > '%s.t' "
             "&& mv '%s.t' '%s'", header, path, header_fields(header), path, path, path);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_earlier_layouts_resume) {
    make_tmpdir();
    run20("a", OLD[_i].config);
    const char *logs[4] = {"loss.csv", "grad_norms.csv", "attention.csv", "attn_steps.csv"};
    char path[4][700], *head[4];
    for (int i = 0; i < 4; i++) snprintf(path[i], sizeof path[i], "%s/a/%s", tmpdir, logs[i]);
    if (OLD[_i].loss) lay_out(path[0], OLD[_i].loss);
    if (OLD[_i].attention) lay_out(path[2], OLD[_i].attention);
    if (OLD[_i].steps_absent) ck_assert_int_eq(remove(path[3]), 0);
    for (int i = 0; i < 4; i++) head[i] = tu_read_file(path[i], NULL);
    ck_assert_msg(tu_run_train(tmpdir, "--resume a --set train.steps=30") == 0,
                  "a folder of %s not resumed", OLD[_i].commit);
    for (int i = 0; i < 4; i++) {
        if (!head[i]) { /* begun anew: this version's header, its first columns by hand */
            ck_assert(i == 3);
            ck_assert(tu_file_contains(path[3], "step,layer,head,n_-inf_-256,n_-256_-128,"));
            ck_assert(tu_file_contains(path[3], "\n30,0,0,"));
            continue;
        }
        head[i][strcspn(head[i], "\n") + 1] = 0; /* the header kept, every row in its columns */
        char *now = tu_read_file(path[i], NULL);
        ck_assert_msg(strncmp(now, head[i], strlen(head[i])) == 0, "%s: %s's header changed",
                      OLD[_i].commit, logs[i]);
        ck_assert_int_gt(lines_of_fields(path[i], header_fields(head[i])), 1);
        free(now);
        free(head[i]);
    }
    ck_assert(tu_file_contains(path[0], "\n30,"));
    ck_assert(tu_file_contains(path[2], "\n30,0,0,"));
}
END_TEST

/* A log whose header is not the one of the rows the resume appends: exit code 2, the refusal
 * first, naming the log and its first differing column (worked out by hand: this run's
 * grad_norms.csv is step, tok_emb, pos_emb, the 12 tensors of block 0, then ln_f.weight), the
 * folder unchanged. (log refused, how its folder was changed, the reason said, the folder an
 * earlier version's: no manifest, no lock file, neither made by the refusal) */
static const struct {
    const char *log, *how, *said;
    int earlier;
} REFUSED[] = {
    {"loss.csv", "sed -i '1s/.*/step,foo/' loss.csv",
     "column 2 is 'foo' where this run writes 'train_loss'; 2 columns, this run writes 10", 0},
    {"grad_norms.csv", "sed -i '1s/.*/step,foo/' grad_norms.csv",
     "column 2 is 'foo' where this run writes 'tok_emb'", 0},
    {"attention.csv", "sed -i '1s/.*/step,foo/' attention.csv",
     "column 2 is 'foo' where this run writes 'layer'; 2 columns, this run writes 14", 0},
    {"attn_steps.csv", "sed -i '1s/.*/step,foo/' attn_steps.csv",
     "column 2 is 'foo' where this run writes 'layer'", 0},
    {"loss.csv", "mv loss.csv t && mv grad_norms.csv loss.csv && mv t grad_norms.csv",
     "column 2 is 'tok_emb' where this run writes 'train_loss'", 0},
    {"grad_norms.csv", "cp ../b2/grad_norms.csv .",
     "column 16 is 'blocks.1.ln1.weight' where this run writes 'ln_f.weight'", 0},
    {"attention.csv", "cp ../rms/attention.csv .",
     "column 15 is 'qk_gain_rms', past this run's last of 14", 1},
};

START_TEST(test_other_header_refused) {
    make_tmpdir();
    run20("a", COPY1);
    if (strstr(REFUSED[_i].how, "b2")) run20("b2", COPY "--set model.n_layers=2");
    if (strstr(REFUSED[_i].how, "rms")) run20("rms", COPY1 "--set attention.qk_norm=rmsnorm");
    ck_assert_int_eq(sh("cd %s/a && %s", tmpdir, REFUSED[_i].how), 0);
    if (REFUSED[_i].earlier)
        ck_assert_int_eq(sh("rm %s/a/.scaledot-manifest %s/a/.lock", tmpdir, tmpdir), 0);
    ck_assert_int_eq(sh("cp -a %s/a %s/a.orig", tmpdir, tmpdir), 0);
    ck_assert_int_eq(tu_run_train(tmpdir, "--resume a --set train.steps=30"), 2);
    char want[1024], path[700];
    snprintf(want, sizeof want, "error: --resume (argument 2): cannot resume: 'a/%s': its header "
             "is not the one this run writes (%s", REFUSED[_i].log, REFUSED[_i].said);
    snprintf(path, sizeof path, "%s/out.txt", tmpdir);
    char *out = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(out);
    ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "not first '%s' in:\n%s", want, out);
    free(out);
    ck_assert_msg(sh("diff -r %s/a %s/a.orig > /dev/null", tmpdir, tmpdir) == 0,
                  "the run folder changed on a refused resume");
}
END_TEST

TU_MAIN_TIMEOUT("resume_headers", 240,
                TU_LOOP(test_earlier_layouts_resume, 0, (int)(sizeof OLD / sizeof *OLD)),
                TU_LOOP(test_other_header_refused, 0, (int)(sizeof REFUSED / sizeof *REFUSED)));
