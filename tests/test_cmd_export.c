/* test_cmd_export.c: ./train --export RUN_DIR FILE.safetensors [--val VAL] (src/cli/cmd_export.c).
 * A tiny run is trained with ./train, exported, and the file read by the independent reader of
 * streader.h: every tensor the reference README lists (names, shapes, q_norm/k_norm only with
 * qk_norm) and no other, F32, the values equal to the checkpoint's parameters read through the
 * model's own named views (m.p.block[l].qkv_w, ...), not its tensor table; the run's stored
 * configuration in __metadata__; --val's validation set equal to the task's, its logits the
 * model's, its loss and accuracies the run's last logged ones. Then, table-driven, every refused command
 * line: exit code 2, a message naming the mistake, nothing written or overwritten; paths with
 * control bytes quoted escaped; an export into a folder ./train writes (of this version or an
 * earlier one, a sweep's configs/ and runs/ too) refused at its place; a run folder spelled in
 * about 2000 bytes read, one past PATH_MAX refused as too long. */
#include "cli/cli.h"

#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "optim/optim.h"
#include "streader.h"
#include "testutil.h"
#include "train/checkpoint.h"
#include "train/checkpoint_config.h"
#include "train/train.h"

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_cmd_export.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

#define export(...) tu_run_cmd(cli_export, __VA_ARGS__)

/* Trains the tiny run g_tmp/runs/name (2 layers, 2 heads of d_k 8, 30 steps) with extra --set
 * arguments. */
static void train_tiny(const char *name, const char *extra) {
    char args[1024];
    snprintf(args, sizeof args,
             "--set run.name=%s --set task.name=copy --set task.length=3 --set task.symbols=6 "
             "--set task.val_size=40 --set model.d_model=16 --set model.n_heads=2 "
             "--set model.n_layers=2 --set train.batch_size=8 --set train.steps=30 "
             "--set train.eval_every=10 --set log.progress=0 --set run.threads=1 %s",
             name, extra);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
}

/* The run's checkpoint loaded into a model built from its own configuration (as --eval does),
 * with the task (its validation set) beside it. */
typedef struct {
    Config c;
    Task task;
    Model m;
    Optimizer opt;
    CheckpointState st;
} Loaded;

static void load_run(Loaded *l, const char *run_dir) {
    char ckpt[256];
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint.bin", run_dir);
    config_defaults(&l->c);
    ck_assert_int_eq(checkpoint_load_config(ckpt, &l->c, NULL), 0);
    ck_assert_int_eq(task_init(&l->task, &l->c), 0);
    ModelConfig mc = train_model_config(&l->c, &l->task);
    ck_assert_int_eq(model_build(&l->m, &mc, 1), 0);
    ck_assert_int_eq(train_optim_init(&l->opt, &l->c, l->m.n_params), 0);
    ck_assert_int_eq(checkpoint_load(ckpt, &l->m, &l->opt, &l->st), 0);
}

static void free_run(Loaded *l) {
    optim_free(&l->opt);
    model_free(&l->m);
    task_free(&l->task);
}

/* One expected tensor: the reference name and shape, and the model's named view of it. */
typedef struct {
    char name[64];
    size_t shape[2];
    int ndim;
    const real *view;
} Want;

static int add(Want *w, int n, const char *name, const real *view, size_t d0, size_t d1) {
    snprintf(w[n].name, sizeof w[n].name, "%s", name);
    w[n].shape[0] = d0, w[n].shape[1] = d1, w[n].ndim = d1 ? 2 : 1, w[n].view = view;
    return n + 1;
}

/* The LLaMA-style block's table of ../shared/reference/README.md, in its order. */
static int reference_tensors_llama(const Model *m, Want *w) {
    const ModelConfig *c = &m->cfg;
    size_t V = (size_t)c->vocab_size, C = (size_t)c->d_model, F = (size_t)c->d_ff;
    int n = 0;
    n = add(w, n, "tok_emb", m->p.tok_emb, V, C);
    for (int l = 0; l < c->n_layers; l++) {
        const BlockTensors *b = &m->p.block[l];
        char k[64];
#define B(suffix, view, d0, d1) (snprintf(k, sizeof k, "blocks.%d." suffix, l), n = add(w, n, k, view, d0, d1))
        B("ln1.weight", b->ln1_w, C, 0);
        B("attn.qkv.weight", b->qkv_w, 3 * C, C);
        B("attn.proj.weight", b->proj_w, C, C);
        B("ln2.weight", b->ln2_w, C, 0);
        B("mlp.gate.weight", b->gate_w, F, C);
        B("mlp.up.weight", b->up_w, F, C);
        B("mlp.down.weight", b->down_w, C, F);
#undef B
    }
    n = add(w, n, "ln_f.weight", m->p.lnf_w, C, 0);
    n = add(w, n, "head.weight", m->p.head_w, V, C);
    return n;
}

/* The table of ../shared/reference/README.md, in its order, over the named views. */
static int reference_tensors(const Model *m, Want *w) {
    const ModelConfig *c = &m->cfg;
    if (c->block == MODEL_BLOCK_LLAMA) return reference_tensors_llama(m, w);
    size_t V = (size_t)c->vocab_size, C = (size_t)c->d_model, F = (size_t)c->d_ff,
           dk = C / (size_t)c->n_heads;
    int n = 0;
    n = add(w, n, "tok_emb", m->p.tok_emb, V, C);
    n = add(w, n, "pos_emb", m->p.pos_emb, (size_t)c->max_seq_len, C);
    for (int l = 0; l < c->n_layers; l++) {
        const BlockTensors *b = &m->p.block[l];
        char k[64];
#define B(suffix, view, d0, d1) (snprintf(k, sizeof k, "blocks.%d." suffix, l), n = add(w, n, k, view, d0, d1))
        B("ln1.weight", b->ln1_w, C, 0);
        B("ln1.bias", b->ln1_b, C, 0);
        B("attn.qkv.weight", b->qkv_w, 3 * C, C);
        B("attn.qkv.bias", b->qkv_b, 3 * C, 0);
        if (c->qk_norm) {
            B("attn.q_norm.weight", b->qn_w, dk, 0);
            B("attn.q_norm.bias", b->qn_b, dk, 0);
            B("attn.k_norm.weight", b->kn_w, dk, 0);
            B("attn.k_norm.bias", b->kn_b, dk, 0);
        }
        B("attn.proj.weight", b->proj_w, C, C);
        B("attn.proj.bias", b->proj_b, C, 0);
        B("ln2.weight", b->ln2_w, C, 0);
        B("ln2.bias", b->ln2_b, C, 0);
        B("mlp.fc.weight", b->fc_w, F, C);
        B("mlp.fc.bias", b->fc_b, F, 0);
        B("mlp.proj.weight", b->fcproj_w, C, F);
        B("mlp.proj.bias", b->fcproj_b, C, 0);
#undef B
    }
    n = add(w, n, "ln_f.weight", m->p.lnf_w, C, 0);
    n = add(w, n, "ln_f.bias", m->p.lnf_b, C, 0);
    n = add(w, n, "head.weight", m->p.head_w, V, C);
    return n;
}

/* Reads path with streader.h; fails the test when the file is invalid. */
static unsigned char *read_st(const char *path, StrFile *f) {
    size_t len;
    unsigned char *buf = (unsigned char *)tu_read_file(path, &len);
    ck_assert_msg(buf != NULL, "cannot read %s", path);
    str_parse(buf, len, f);
    ck_assert_msg(f->error == NULL, "%s: %s", path, f->error);
    return buf;
}

/* The export of a plain, a qk_norm and a LLaMA-block run: names, shapes and values as the
 * reference README and the named views say, in the README's order, and the metadata. */
START_TEST(test_export_matches_model) {
    static const char *const runs[] = {"plain", "qknorm", "llama"};
    train_tiny("plain", "");
    train_tiny("qknorm", "--set attention.qk_norm=layernorm");
    train_tiny("llama", "--set model.block=llama");
    for (int r = 0; r < 3; r++) {
        char run[128], out[128];
        snprintf(run, sizeof run, "%s/runs/%s", g_tmp, runs[r]);
        snprintf(out, sizeof out, "%s/%s.safetensors", g_tmp, runs[r]);
        TuResult res = export(run, out, NULL);
        ck_assert_msg(res.rc == 0, "%s: rc %d: %s", runs[r], res.rc, res.err);
        tu_result_free(&res);
        Loaded l;
        load_run(&l, run);
        Want want[8 + 20 * MODEL_MAX_LAYERS];
        int n = reference_tensors(&l.m, want);
        ck_assert_int_eq(n, r == 2 ? 3 + l.m.cfg.n_layers * 7 : 5 + l.m.cfg.n_layers * (r == 1 ? 16 : 12));
        StrFile f;
        unsigned char *buf = read_st(out, &f);
        ck_assert_int_eq(f.n_tensors, n);
        uint64_t prev_end = 0;
        for (int i = 0; i < n; i++) {
            const StrTensor *t = str_find(&f, want[i].name);
            ck_assert_msg(t != NULL, "%s: no tensor %s", runs[r], want[i].name);
            ck_assert_str_eq(t->dtype, "F32");
            ck_assert_int_eq(t->ndim, want[i].ndim);
            size_t numel = 1;
            for (int d = 0; d < want[i].ndim; d++) {
                ck_assert_uint_eq(t->shape[d], want[i].shape[d]);
                numel *= want[i].shape[d];
            }
            ck_assert_msg(t->begin == prev_end, "%s: not in the reference order", want[i].name);
            prev_end = t->end;
            for (size_t e = 0; e < numel; e++) {
                float got = str_f32(&f, t, e), exp = (float)want[i].view[e];
                TU_CHECK_MSG(memcmp(&got, &exp, 4) == 0, "%s %s[%zu]: %.9g, model %.9g",
                              runs[r], want[i].name, e, (double)got, (double)exp);
            }
        }
        /* metadata: the checkpoint's configuration text whole, the step, the scale 1/sqrt(8) */
        char ckpt[160], *stored = NULL;
        snprintf(ckpt, sizeof ckpt, "%s/checkpoint.bin", run);
        ck_assert_int_eq(checkpoint_read_config(ckpt, &stored), 0);
        ck_assert_str_eq(str_meta(&f, "scaledot.config"), stored);
        ck_assert_str_eq(str_meta(&f, "format"), "pt");
        ck_assert_str_eq(str_meta(&f, "scaledot.step"), "30");
        ck_assert_float_eq((float)strtod(str_meta(&f, "scaledot.attention_scale"), NULL),
                           (float)(1.0 / sqrt(8.0)));
        ck_assert_ptr_nonnull(strstr(str_meta(&f, "scaledot.export_provenance"), "; provenance: scaledot "));
        free(stored);
        str_free(&f);
        free(buf);
        free_run(&l);
    }
}
END_TEST

/* The last validation row of run/loss.csv: val_loss, val_token_acc, val_answer_acc. */
static void last_val_row(const char *run, double v[3]) {
    char path[160], line[512], last[512] = "";
    snprintf(path, sizeof path, "%s/loss.csv", run);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    /* step,train_loss,val_loss,val_token_acc,val_answer_acc,...: a row with a val_loss */
    while (fgets(line, sizeof line, f)) {
        const char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (c2 && c2[1] != ',' && c2[1] >= '0' && c2[1] <= '9') memcpy(last, c2 + 1, sizeof last - (size_t)(c2 + 1 - line));
    }
    fclose(f);
    ck_assert_int_eq(sscanf(last, "%lf,%lf,%lf", &v[0], &v[1], &v[2]), 3);
}

/* --val: tokens, targets and mask equal the task's validation set, the logits the model's;
 * the loss and accuracies equal the run's last logged ones (loss.csv keeps 6 significant
 * digits). */
START_TEST(test_val_file) {
    train_tiny("run", "");
    char run[128], out[128], val[128];
    snprintf(run, sizeof run, "%s/runs/run", g_tmp);
    snprintf(out, sizeof out, "%s/run.safetensors", g_tmp);
    snprintf(val, sizeof val, "%s/run_val.safetensors", g_tmp);
    TuResult res = export(run, out, "--val", val, NULL);
    ck_assert_msg(res.rc == 0, "rc %d: %s", res.rc, res.err);
    tu_result_free(&res);
    Loaded l;
    load_run(&l, run);
    StrFile f;
    unsigned char *buf = read_st(val, &f);
    ck_assert_int_eq(f.n_tensors, 4);
    const StrTensor *tok = str_find(&f, "tokens"), *tgt = str_find(&f, "targets"),
                    *mask = str_find(&f, "mask");
    ck_assert(tok && tgt && mask);
    ck_assert_str_eq(tok->dtype, "I32");
    ck_assert_str_eq(tgt->dtype, "I32");
    ck_assert_str_eq(mask->dtype, "F32");
    size_t N = (size_t)l.task.n_val, T = (size_t)l.task.seq_len;
    ck_assert_uint_eq(N, 40);
    const StrTensor *all[3] = {tok, tgt, mask};
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(all[k]->ndim, 2);
        ck_assert_uint_eq(all[k]->shape[0], N);
        ck_assert_uint_eq(all[k]->shape[1], T);
    }
    for (size_t e = 0; e < N * T; e++) {
        TU_CHECK_INT_EQ((int32_t)str_word(&f, tok, e), l.task.val_tokens[e]);
        TU_CHECK_INT_EQ((int32_t)str_word(&f, tgt, e), l.task.val_targets[e]);
        ck_assert_float_eq(str_f32(&f, mask, e), l.task.val_mask[e]);
    }
    /* logits [B, T, V] of the first batch (B = 8, the run's batch): the first example's equal
     * the loaded model's own forward pass on it */
    const StrTensor *lg = str_find(&f, "logits");
    size_t V = (size_t)l.m.cfg.vocab_size;
    ck_assert(lg != NULL);
    ck_assert_int_eq(lg->ndim, 3);
    ck_assert_uint_eq(lg->shape[0], 8);
    ck_assert_uint_eq(lg->shape[1], T);
    ck_assert_uint_eq(lg->shape[2], V);
    model_forward(&l.m, l.task.val_tokens, l.task.val_targets, l.task.val_mask, 1, (int)T);
    for (size_t e = 0; e < T * V; e++)
        TU_CHECK_MSG(fabs(str_f32(&f, lg, e) - l.m.logits[e]) <= 1e-5,
                      "logit %zu: %g, model %g", e, (double)str_f32(&f, lg, e), (double)l.m.logits[e]);
    double logged[3];
    last_val_row(run, logged);
    const char *keys[3] = {"scaledot.val_loss", "scaledot.token_accuracy", "scaledot.answer_accuracy"};
    for (int k = 0; k < 3; k++) {
        double got = strtod(str_meta(&f, keys[k]), NULL);
        ck_assert_msg(fabs(got - logged[k]) <= 1e-5 * fabs(logged[k]) + 1e-9,
                      "%s %.17g, loss.csv %.9g", keys[k], got, logged[k]);
    }
    str_free(&f);
    free(buf);
    free_run(&l);
}
END_TEST

/* Refused command lines: exit code 2, the mistake named, no file left where none was, an
 * existing file unchanged, nothing created through a link. Paths are relative to g_tmp,
 * "runs/run" being a trained run. */
typedef struct {
    const char *args[6]; /* NULL-terminated; "@" starts a path below g_tmp */
    int rc;
    const char *needle;  /* on stderr (stdout for rc 0) */
} LineCase;

static const LineCase LINES[] = {
    {{NULL}, 2, "error: --export needs a run folder\nusage: ./train --export"},
    {{"@runs/run"}, 2, "error: --export needs the file to write"},
    {{"", "@a.safetensors"}, 2,
     "error: --export (argument 2): needs a run folder, got an empty argument\n"},
    {{"@runs/run", ""}, 2,
     "error: --export (argument 3): needs the file to write, got an empty argument\n"},
    /* the place in front: the argument at fault (a "@" path is g_tmp's: the line from there) */
    {{"@runs/run", "@a.safetensors", "@b.safetensors"}, 2,
     "/b.safetensors (argument 4): a third argument: --export takes one run folder and one file "
     "(arguments 2 and 3)\nusage: ./train --export"},
    {{"@runs/run", "--val=@v.safetensors", "@a.safetensors", "@b.safetensors"}, 2,
     "/b.safetensors (argument 5): a third argument: --export takes one run folder and one file "
     "(arguments 2 and 4)\nusage: ./train --export"},
    {{"@runs/run", "@a.safetensors", "--bogus"}, 2,
     "error: --bogus (argument 4): unknown option for --export (a folder or file whose name "
     "starts with '-' is spelled './--bogus')\nusage: ./train --export"},
    /* a folder named -x: taken as an option, and the message says how to name it */
    {{"-x", "@a.safetensors"}, 2,
     "error: -x (argument 2): unknown option for --export (a folder or file whose name starts "
     "with '-' is spelled './-x')\n"},
    /* the run folder forgotten after --val: the one name left is said to be the run folder */
    {{"--val", "@v.safetensors", "out.safetensors"}, 2,
     "error: --export needs the file to write: 'out.safetensors' (argument 4) is the run folder\n"},
    {{"@runs/run", "@a.safetensors", "--val"}, 2,
     "error: --val (argument 4): needs a file name (VAL.safetensors)\n"},
    {{"@runs/run", "@a.safetensors", "--val", "@v.safetensors", "--val=@w.safetensors"}, 2,
     "--val (argument 6): given twice (first at argument 5)"},
    /* at --val's value (the path below g_tmp: the line's start and end checked apart) */
    {{"@runs/run", "@a.safetensors", "--val=@a.safetensors"}, 2, "error: --val (argument 4): '/"},
    {{"@runs/run", "@a.safetensors", "--val=@a.safetensors"}, 2,
     "/a.safetensors' is the export file itself\n"},
    {{"@runs/run", "--val", "@a.safetensors", "@a.safetensors"}, 2, "error: --val (argument 4): '/"},
    /* the same file spelled otherwise (its folder's realpath), or an existing one (its inode);
     * refused before the run folder is read */
    {{"@runs/run", "@a.safetensors", "--val=@runs/../a.safetensors"}, 2, "is the export file itself"},
    {{"@missing", "@./a.safetensors", "--val", "@a.safetensors"}, 2, "is the export file itself"},
    {{"@runs/run", "@exists.safetensors", "--val=@hard.safetensors"}, 2, "is the export file itself"},
    /* the run folder as --eval and --resume name it, at its argument */
    {{"@missing", "@a.safetensors"}, 2, "error: --export (argument 2): no such run folder '/"},
    {{"@missing", "@a.safetensors"}, 2, "/missing'\n"},
    {{"@empty", "@a.safetensors"}, 2, "error: --export (argument 2): the folder '/"},
    {{"@empty", "@a.safetensors"}, 2, "/empty' holds no checkpoint (checkpoint.bin), so there is "
                                      "nothing to export"},
    {{"@broken", "@a.safetensors"}, 2, "error: --export (argument 2): checkpoint '/"},
    {{"@broken", "@a.safetensors"}, 2, "broken/checkpoint.bin': file is too short"},
    {{"@runs/run", "@exists.safetensors"}, 2, "exists.safetensors' exists already; it is never overwritten"},
    {{"@runs/run", "@link.safetensors"}, 2, "link.safetensors' exists already"},
    {{"@runs/run", "@nodir/a.safetensors"}, 2, "its folder"},
    /* a trailing '/': a folder's name, missing (not "its folder does not exist") or not */
    {{"@runs/run", "@plain/x.st/"}, 2,
     "/plain/x.st/' names a folder (it ends with '/'): it needs a file name (FILE.safetensors)\n"},
    {{"@runs/run", "@empty/"}, 2, "/empty/' names a folder (it ends with '/')"},
    {{"@runs/run", "@a.safetensors", "--val", "@plain/v.st/"}, 2,
     "error: --val (argument 5): validation file '"},
    {{"@runs/run", "@a.safetensors", "--val", "@exists.safetensors"}, 2, "): validation file '"},
    /* an existing folder, however spelled: named as one, not as a file to remove */
    {{"@runs/run", "@empty/."}, 2, "/empty/.' names a folder: it needs a file name"},
    {{"@runs/run", "@empty"}, 2, "/empty' names a folder: it needs a file name"},
    {{"@runs/run", "@a.safetensors", "--val", "@empty/.."}, 2,
     "error: --val (argument 5): validation file '"},
    /* the user's paths quoted escaped (util/error_list.h), on stderr and on stdout */
    {{"@mis\x1b[2J\rsing", "@a.safetensors"}, 2, "mis\\x1b[2J\\rsing'\n"},
    {{"@runs/run", "@no\x1b[2J\rdir/a.safetensors"}, 2,
     "no\\x1b[2J\\rdir/a.safetensors': its folder '"},
    {{"@runs/run", "@e\x1b[2J\r\xc2\x9b\x9b.safetensors"}, 0,
     "e\\x1b[2J\\r\\xc2\\x9b\\x9b.safetensors\n"},
    {{"--help"}, 0, "usage: ./train --export RUN_DIR FILE.safetensors"},
};

START_TEST(test_refused_lines) {
    train_tiny("run", "");
    char p[160];
    snprintf(p, sizeof p, "%s/empty", g_tmp);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    tu_put_file(NULL, 0, g_tmp, "broken", "checkpoint.bin", "SCALEDOT but not really");
    snprintf(p, sizeof p, "%s/exists.safetensors", g_tmp);
    tu_write_file(p, "precious");
    char hard[160];
    snprintf(hard, sizeof hard, "%s/hard.safetensors", g_tmp); /* exists.safetensors, linked */
    ck_assert_int_eq(link(p, hard), 0);
    char link_path[160], target[160];
    snprintf(link_path, sizeof link_path, "%s/link.safetensors", g_tmp);
    snprintf(target, sizeof target, "%s/target", g_tmp);
    ck_assert_int_eq(symlink(target, link_path), 0);
    for (size_t k = 0; k < sizeof LINES / sizeof *LINES; k++) {
        char args[6][160];
        const char *argv[7] = {NULL};
        for (int i = 0; LINES[k].args[i]; i++) {
            const char *a = LINES[k].args[i], *at = strchr(a, '@');
            if (at) snprintf(args[i], sizeof args[i], "%.*s%s/%s", (int)(at - a), a, g_tmp, at + 1);
            else snprintf(args[i], sizeof args[i], "%s", a);
            argv[i] = args[i];
        }
        TuResult r = tu_call(cli_export, argv);
        const char *text = LINES[k].rc == 0 ? r.out : r.err;
        ck_assert_msg(r.rc == LINES[k].rc, "case %zu: rc %d, want %d: %s", k, r.rc, LINES[k].rc, r.err);
        ck_assert_msg(strstr(text, LINES[k].needle), "case %zu: '%s' not in:\n%s", k,
                      LINES[k].needle, text);
        tu_assert_no_raw_control(r.err, "stderr");
        tu_assert_no_raw_control(r.out, "stdout");
        tu_result_free(&r);
        snprintf(p, sizeof p, "%s/a.safetensors", g_tmp);
        ck_assert_msg(access(p, F_OK) != 0, "case %zu left a.safetensors", k);
    }
    char *text = tu_read_file(p, NULL); /* p: a.safetensors, absent */
    ck_assert_ptr_null(text);
    snprintf(p, sizeof p, "%s/exists.safetensors", g_tmp);
    text = tu_read_file(p, NULL);
    ck_assert_str_eq(text, "precious");
    free(text);
    ck_assert_int_eq(access(target, F_OK), -1);
}
END_TEST

/* The export file or --val into a folder ./train writes, or under a name a run writes: refused
 * at that argument's place, naming what marks the folder, before anything is written (a run
 * training there, its manifest and lock only so far, would fail at its last step on a file it
 * did not write). A run of a version before manifests is known by its checkpoint.bin or the
 * config.ini ./train wrote; a config.ini of the user's marks nothing. Paths below g_tmp. */
static const struct {
    const char *out, *val, *start, *needle;
} INTO_RUNS[] = {
    {"live/attn_map.csv", NULL, "error: --export (argument 3): '",
     "/live', a run folder ./train writes (it holds .scaledot-manifest): a run there fails on a "
     "file it did not write. Write the export outside the run's folder"},
    {"live/e.safetensors", NULL, "error: --export (argument 3): '", "(it holds .scaledot-manifest)"},
    {"runs/run/e.safetensors", NULL, "error: --export (argument 3): '",
     "/runs/run', a run folder ./train writes (it holds .scaledot-manifest)"},
    {"runs/run/sub/../e.safetensors", NULL, "error: --export (argument 3): '",
     "(it holds .scaledot-manifest)"},
    {"old/e.safetensors", NULL, "error: --export (argument 3): '", "(it holds checkpoint.bin)"},
    {"oldini/e.safetensors", NULL, "error: --export (argument 3): '", "(it holds config.ini)"},
    {"e.safetensors", "runs/run/v.safetensors", "error: --val (argument 5): '",
     "/runs/run', a run folder ./train writes"},
    {"loss.csv", NULL, "error: --export (argument 3): '",
     "/loss.csv' has a name a run writes in its folder (loss.csv)"},
    {"e.safetensors", "attn_map.csv", "error: --val (argument 5): '",
     "has a name a run writes in its folder (attn_map.csv)"},
    {"mine/e.safetensors", NULL, "exported ", "mine/e.safetensors\n"},
    /* the folder's own names: a new run there read the export as its manifest and rewrote it */
    {"mine/.scaledot-manifest", NULL, "error: --export (argument 3): '",
     "has a name a run writes in its folder (.scaledot-manifest)"},
    {"mine/.lock", NULL, "error: --export (argument 3): '",
     "has a name a run writes in its folder (.lock)"},
    /* a checkpoint.bin without our magic (a PyTorch project's) marks no run folder */
    {"torch/e.safetensors", NULL, "exported ", "torch/e.safetensors\n"},
    /* a sweep or report folder of a version before manifests, known by what it holds, read as
     * its writer wrote it (OLD_FOLDERS) */
    {"oldplan/e.safetensors", NULL, "error: --export (argument 3): '",
     "/oldplan', a sweep or report folder an earlier ./train wrote (it holds plan.txt): the "
     "export would lie among its files"},
    {"oldcsv/e.safetensors", NULL, "error: --export (argument 3): '", "(it holds sweep.csv)"},
    {"oldjobs/e.safetensors", NULL, "error: --export (argument 3): '", "(it holds jobs.txt)"},
    /* the very first sweep's sweep.csv (no run, no exit_code column), and its runs/ */
    {"oldest/e.safetensors", NULL, "error: --export (argument 3): '", "(it holds sweep.csv)"},
    {"oldest/runs/e.safetensors", NULL, "error: --export (argument 3): '",
     "/oldest/runs', the runs/ of the sweep folder '"},
    {"oldsummary/e.safetensors", NULL, "error: --export (argument 3): '", "(it holds summary.txt)"},
    {"oldpage/e.safetensors", NULL, "error: --export (argument 3): '", "(it holds index.html)"},
    {"oldcompare/e.safetensors", NULL, "error: --export (argument 3): '",
     "(it holds index.html)"},
    {"oldmap/e.safetensors", NULL, "error: --export (argument 3): '", "(it holds regime_map.csv)"},
    {"e.safetensors", "oldlrmap/v.safetensors", "error: --val (argument 5): '",
     "(it holds regime_map_lr.csv)"},
    /* a sweep's configs/ and runs/ (a sweep of now: its manifest is the folder's, not theirs) */
    {"sw/configs/e.safetensors", NULL, "error: --export (argument 3): '",
     "/sw/configs', the configs/ of the sweep folder '"},
    {"sw/runs/e.safetensors", NULL, "error: --export (argument 3): '",
     "/sw' (it holds plan.txt), where the sweep writes: the export would lie among its files"},
    {"sw/runs/../configs/./e.safetensors", NULL, "error: --export (argument 3): '",
     "the configs/ of the sweep folder '"},
    {"oldcsv/runs/e.safetensors", NULL, "error: --export (argument 3): '",
     "the runs/ of the sweep folder '"},
    /* a folder below a sweep's runs/ (a planned run's, made by hand before the sweep ran it) */
    {"sw/runs/dk8_none_s1/e.safetensors", NULL, "error: --export (argument 3): '",
     "/sw/runs/dk8_none_s1', a folder in the runs/ of the sweep folder '"},
    {"sw/runs/dk8_none_s1/sub/e.safetensors", NULL, "error: --export (argument 3): '",
     "/sw/runs/dk8_none_s1/sub', a folder in the runs/ of the sweep folder '"},
    /* a folder holding only a run's .lock (empty): a run begun there, or one to come */
    {"lk/e.safetensors", NULL, "error: --export (argument 3): '",
     "/lk', a run folder ./train writes (it holds only the .lock of a run begun there): a run "
     "there fails on a file it did not write"},
    {"lkmine/e.safetensors", NULL, "exported ", "lkmine/e.safetensors\n"},
    {"lkmore/e.safetensors", NULL, "exported ", "lkmore/e.safetensors\n"},
    /* named by the writer its manifest names first */
    {"sw/e.safetensors", NULL, "error: --export (argument 3): '",
     "/sw', a sweep folder ./train writes (it holds .scaledot-manifest): the export would lie "
     "among its files. Write the export outside the sweep folder"},
    {"rep/e.safetensors", NULL, "error: --export (argument 3): '",
     "/rep', a --compare report folder ./train writes (it holds .scaledot-manifest): the export "
     "would lie among its files. Write the export outside that folder"},
    {"rmap/e.safetensors", NULL, "error: --export (argument 3): '",
     "/rmap', a --regime-map folder ./train writes (it holds .scaledot-manifest): the export"},
    /* the user's files under those names, or a folder of theirs named runs/: no mark */
    {"mine/runs/e.safetensors", NULL, "exported ", "mine/runs/e.safetensors\n"},
    {"users/e.safetensors", NULL, "exported ", "users/e.safetensors\n"},
    {"users/runs/e.safetensors", NULL, "exported ", "users/runs/e.safetensors\n"},
};

/* Folders below g_tmp and a file in each, as the writer of a version before manifests wrote it
 * (the first lines spelled here, not taken from the program's constants), and a folder of the
 * user's holding files under the same names that read as theirs. */
static const struct {
    const char *dir, *name, *text;
} OLD_FOLDERS[] = {
    {"oldplan", "plan.txt", "# sweep plan (./train --sweep); a sweep into this folder must have "
                            "this plan\naxis d_k 8,16\n"},
    {"oldcsv", "sweep.csv", "run,d_k,d_model,n_heads,scale,seed,steps,status,exit_code,"
                            "steps_done\ndk8,8,16,2,sqrt_dk,1,5,ok,0,5\n"},
    {"oldjobs", "jobs.txt", "/opt/scaledot/train --sweep-run /data/oldjobs/configs/dk8.ini\n"},
    {"oldest", "sweep.csv", "d_k,scale,seed,steps,status,val_loss,val_answer_acc,val_token_acc,"
                            "logit_std_step0,grad_q_final,grad_k_final\n8,sqrt_dk,1,5,ok,1,0,0,"
                            "1,0,0\n"},
    {"oldsummary", "summary.txt", "sweep report of sweeps/a/sweep.csv: 4 runs; varied: d_k\n"},
    {"oldpage", "index.html", "<!DOCTYPE html>\n<html><head><title>scaledot sweep: a</title>"},
    {"oldcompare", "index.html", "<!DOCTYPE html>\n<p class=\"note\">Report of <code>./train "
                                 "--compare</code> ...</p>"},
    {"oldmap", "regime_map.csv", "sweep,run,scale,init_scheme,predicted_logit_std,"
                                 "val_answer_acc,slowdown_90,slowdown_90_bound\n"},
    {"oldlrmap", "regime_map_lr.csv", "d_model,scale,optim.lr,n_seeds,val_answer_acc_median,"
                                      "val_answer_acc_min,val_answer_acc_max,"
                                      "logit_std_peak_median,logit_std0_median,ran_away,"
                                      "largest_learnt\n"},
    {"sw", ".scaledot-manifest", "# files ./train wrote in this folder; it replaces or removes "
                                 "only these\n@sweep\nplan.txt\n"},
    {"sw", "plan.txt", "# sweep plan (./train --sweep); a sweep into this folder must have "
                       "this plan\n"},
    {"rep", ".scaledot-manifest", "# files ./train wrote in this folder; it replaces or removes "
                                  "only these\n@compare\nindex.html\n"},
    {"rmap", ".scaledot-manifest", "# files ./train wrote in this folder; it replaces or removes "
                                   "only these\n@regime-map\nregime_map.csv\n"},
    {"lk", ".lock", ""},
    {"lkmine", ".lock", "the user's lock\n"},
    {"lkmore", ".lock", ""},
    {"lkmore", "notes.txt", "the user's notes\n"},
    {"users", "plan.txt", "# my plan\n"},
    {"users", "sweep.csv", "run,seconds\n1,20\n"},
    {"users", "jobs.txt", "make all\n"},
    {"users", "summary.txt", "what I found\n"},
    {"users", "index.html", "<title>my page</title>\n"},
    {"users", "regime_map.csv", "sweep,run\n"},
};

/* Folders made empty below g_tmp for INTO_RUNS. */
static const char *const SUBFOLDERS[] = {"sw/configs", "sw/runs", "sw/runs/dk8_none_s1",
                                         "sw/runs/dk8_none_s1/sub", "oldcsv/runs", "oldest/runs",
                                         "mine/runs",
                                         "users/runs"};

START_TEST(test_export_refuses_run_folders) {
    train_tiny("run", "");
    char p[300];
    snprintf(p, sizeof p, "%s/runs/run/sub", g_tmp);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    /* a run that has just started: its manifest (as owned_dir_open writes it) and lock */
    tu_put_file(NULL, 0, g_tmp, "live", ".scaledot-manifest",
                "# files ./train wrote in this folder; it replaces or removes only these\n@run\n");
    tu_put_file(NULL, 0, g_tmp, "live", ".lock", "");
    tu_put_file(NULL, 0, g_tmp, "old", "checkpoint.bin", "SCALEDOT but not really");
    snprintf(p, sizeof p, "%s/runs/run/config.ini", g_tmp);
    char *ini = tu_read_file(p, NULL);
    ck_assert_ptr_nonnull(ini);
    tu_put_file(NULL, 0, g_tmp, "oldini", "config.ini", ini);
    free(ini);
    tu_put_file(NULL, 0, g_tmp, "mine", "config.ini", "[run]\nname = mine\n");
    tu_put_file(NULL, 0, g_tmp, "torch", "checkpoint.bin", "PK\x03\x04 a PyTorch archive");
    for (size_t k = 0; k < sizeof OLD_FOLDERS / sizeof *OLD_FOLDERS; k++)
        tu_put_file(NULL, 0, g_tmp, OLD_FOLDERS[k].dir, OLD_FOLDERS[k].name, OLD_FOLDERS[k].text);
    for (size_t k = 0; k < sizeof SUBFOLDERS / sizeof *SUBFOLDERS; k++) {
        snprintf(p, sizeof p, "%s/%s", g_tmp, SUBFOLDERS[k]);
        ck_assert_int_eq(mkdir(p, 0700), 0);
    }
    for (size_t k = 0; k < sizeof INTO_RUNS / sizeof *INTO_RUNS; k++) {
        char run[200], out[300], val[300];
        snprintf(run, sizeof run, "%s/runs/run", g_tmp);
        snprintf(out, sizeof out, "%s/%s", g_tmp, INTO_RUNS[k].out);
        snprintf(val, sizeof val, "%s/%s", g_tmp, INTO_RUNS[k].val ? INTO_RUNS[k].val : "");
        const char *argv[] = {run, out, INTO_RUNS[k].val ? "--val" : NULL, val, NULL};
        TuResult r = tu_call(cli_export, argv);
        int ok = strncmp(INTO_RUNS[k].start, "error: ", 7) != 0;
        const char *text = ok ? r.out : r.err;
        ck_assert_msg(r.rc == (ok ? 0 : 2), "case %zu: rc %d: %s", k, r.rc, r.err);
        ck_assert_msg(strstr(text, INTO_RUNS[k].start) == text, "case %zu: not first:\n%s", k,
                      text);
        ck_assert_msg(strstr(text, INTO_RUNS[k].needle), "case %zu: '%s' not in:\n%s", k,
                      INTO_RUNS[k].needle, text);
        tu_result_free(&r);
        ck_assert_msg(ok == (access(out, F_OK) == 0), "case %zu: export file %s", k,
                      ok ? "not written" : "written");
        if (INTO_RUNS[k].val) ck_assert_msg(access(val, F_OK) != 0, "case %zu: --val written", k);
    }
}
END_TEST

/* "./" n times, then tail, after prefix (with its '/'; "" for none), into a malloc'd string. */
static char *spelled(const char *prefix, int n, const char *tail) {
    size_t len = strlen(prefix) + 2 * (size_t)n + strlen(tail);
    char *s = malloc(len + 1);
    ck_assert_ptr_nonnull(s);
    size_t at = (size_t)sprintf(s, "%s", prefix);
    for (int i = 0; i < n; i++) at += (size_t)sprintf(s + at, "./");
    sprintf(s + at, "%s", tail);
    return s;
}

/* A run folder spelled in about 2000 bytes that is short once plain (././.../runs/run): --export,
 * --eval and --resume read the run (their path buffers held 1100 or 1200 bytes, and a spelling
 * cut there, "./././.", was "not a regular file (a folder)"). One whose checkpoint's path would
 * pass PATH_MAX is refused before any work, at its place, as too long, naming its length. */
START_TEST(test_long_spellings) {
    train_tiny("run", "");
    char pre[100], out[200];
    snprintf(pre, sizeof pre, "%s/", g_tmp);
    snprintf(out, sizeof out, "%s/e.safetensors", g_tmp);
    char *run = spelled(pre, 990, "runs/run"), *rel = spelled("", 996, "runs/run");
    ck_assert_uint_gt(strlen(run), 1990);
    ck_assert_uint_lt(strlen(run), 2100);
    const char *argv[] = {run, out, NULL};
    TuResult r = tu_call(cli_export, argv);
    ck_assert_msg(r.rc == 0, "rc %d: %.300s", r.rc, r.err);
    tu_result_free(&r);
    ck_assert_int_eq(access(out, F_OK), 0);
    char *args = malloc(strlen(rel) + 64);
    sprintf(args, "--eval %s", rel);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    sprintf(args, "--resume %s --set train.steps=40", rel);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    char path[300];
    snprintf(path, sizeof path, "%s/runs/run/loss.csv", g_tmp);
    ck_assert(tu_file_contains(path, "\n40,"));
    free(args);
    free(rel);
    free(run);
    /* PATH_MAX bytes in all: "/checkpoint.bin" does not fit after it */
    run = spelled(pre, (int)(PATH_MAX - strlen(pre) - strlen("runs/run")) / 2, "runs/run");
    ck_assert_uint_ge(strlen(run) + strlen("/checkpoint.bin"), PATH_MAX);
    snprintf(out, sizeof out, "%s/f.safetensors", g_tmp);
    argv[0] = run, argv[1] = out;
    r = tu_call(cli_export, argv);
    char want[160];
    snprintf(want, sizeof want, "' is too long (%zu bytes): its files' paths (up to %zu bytes "
                                "more) would pass the %d bytes the system opens\n",
             strlen(run), strlen("/attn_map_tokens.csv"), PATH_MAX - 1);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_msg(strncmp(r.err, "error: --export (argument 2): run folder path '", 47) == 0 &&
                      strstr(r.err, want), "%.200s ... %s", r.err, want);
    tu_result_free(&r);
    ck_assert_int_ne(access(out, F_OK), 0);
    free(run);
}
END_TEST

/* The room a resume needs after its folder's path: "/", the longest name a run writes and the
 * temporary suffix of a whole-file write, ".tmp.PID.K" with PID and K of up to 10 digits each. */
#define RESUME_RESERVE (strlen("/attn_map_tokens.csv") + strlen(".tmp.") + 10 + 1 + 10)

/* A resume whose folder's spelling leaves no room for the files it writes (attn_map_tokens.csv,
 * grad_norms.csv.tmp.PID.K) is refused before any work, naming its length, and changes nothing;
 * a byte shorter it trains on. An export file whose temporary name would not fit likewise (it
 * failed after loading the model, at FILE.tmp.PID.0); a shorter one is written. */
START_TEST(test_long_spellings_written) {
    train_tiny("run", "");
    size_t fit = PATH_MAX - 1 - RESUME_RESERVE; /* the longest spelling a resume takes */
    char *args = malloc(PATH_MAX + 64), path[300];
    /* ".//" then "./" n times then runs/run: 3 + 2n + 8 bytes, odd; "" + 2n + 8: even */
    char *odd = spelled(".//", (int)(fit - 11) / 2, "runs/run"),
         *even = spelled("", (int)(fit - 8) / 2 + 1, "runs/run");
    char *fits = fit % 2 ? odd : even, *over = fit % 2 ? even : odd;
    ck_assert_uint_eq(strlen(fits), fit);
    ck_assert_uint_eq(strlen(over), fit + 1);
    snprintf(path, sizeof path, "%s/runs/run/loss.csv", g_tmp);
    char *before = tu_read_file(path, NULL);
    sprintf(args, "--resume %s --set train.steps=40", over);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 2);
    char want[120];
    snprintf(want, sizeof want, "' is too long (%zu bytes): its files' paths (up to %zu bytes "
                                "more, with a write's temporary name)", fit + 1, RESUME_RESERVE);
    ck_assert(tu_train_output_contains(g_tmp, "error: --resume (argument 2): run folder path '"));
    ck_assert(tu_train_output_contains(g_tmp, want));
    char *after = tu_read_file(path, NULL);
    ck_assert_str_eq(after, before);
    free(after);
    sprintf(args, "--resume %s --set train.steps=40", fits);
    ck_assert_int_eq(tu_run_train(g_tmp, args), 0);
    ck_assert(tu_file_contains(path, "\n40,"));
    free(before);
    free(odd);
    free(even);
    /* the export file: its temporary name adds up to ".tmp." and 10 + 1 + 10 digits */
    char pre[100], run[200];
    snprintf(pre, sizeof pre, "%s/", g_tmp);
    snprintf(run, sizeof run, "%s/runs/run", g_tmp);
    size_t room = PATH_MAX - 1 - (strlen(".tmp.") + 10 + 1 + 10);
    for (int k = 0; k < 2; k++) { /* the longest that fits (even or odd), then one byte more */
        size_t len = room + (size_t)k, rest = len - strlen(pre);
        const char *tail = rest % 2 ? "e.sft" : "e.st";
        char *out = spelled(pre, (int)(rest - strlen(tail)) / 2, tail);
        ck_assert_uint_eq(strlen(out), len);
        const char *argv[] = {run, out, NULL};
        TuResult r = tu_call(cli_export, argv);
        snprintf(want, sizeof want, "error: --export (argument 3): '%.10s", out);
        ck_assert_msg(r.rc == 2 * k && (!k || strstr(r.err, want) == r.err),
                      "len %zu: rc %d: %.200s", len, r.rc, r.err);
        snprintf(want, sizeof want, "' is too long (%zu bytes): written through a temporary name",
                 len);
        ck_assert_msg(!k || strstr(r.err, want), "%.100s ... not in %s", want, r.err);
        ck_assert_int_eq(access(out, F_OK), k ? -1 : 0);
        tu_result_free(&r);
        free(out);
    }
    free(args);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("cli_export", make_tmp, remove_tmp, 120, test_export_matches_model,
                        test_val_file, test_refused_lines, test_export_refuses_run_folders,
                        test_long_spellings, test_long_spellings_written);
