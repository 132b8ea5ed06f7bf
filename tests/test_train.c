/* test_train.c: short end-to-end runs of the training program: the loss falls, the logs hold
 * what the README says, a diverging run stops with exit code 3 and keeps its rows, and bad
 * input stops ./train with exit code 2 before any work (no run folder is created). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "train/train.h"
#include "testutil.h"

static char tmpdir[256];

static void make_tmpdir(void) { tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_train_XXXXXX"); }

static void tiny_config(Config *c, const char *name) {
    config_defaults(c);
    snprintf(c->run_name, sizeof c->run_name, "%s", name);
    snprintf(c->run_dir, sizeof c->run_dir, "%s", tmpdir);
    c->task = TASK_COPY;
    c->task_length = 3;
    c->task_symbols = 6;
    c->val_size = 64;
    c->d_model = 16;
    c->n_heads = 2;
    c->n_layers = 1;
    c->steps = 150;
    c->batch_size = 16;
    c->lr = 3e-3;
    c->eval_every = 50;
    c->log_every = 10;
    c->progress = 0;
    c->threads = 1;
}

/* Reads column col of every data row of a CSV; empty fields give NaN. Returns the row count. */
static int read_column(const char *path, int col, double *out, int max) {
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char line[8192];
    int n = 0;
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f) && n < max) {
        ck_assert_msg(strchr(line, '\n') != NULL, "%s: a row is not a whole line", path);
        char *p = line;
        for (int i = 0; i < col && p; i++) {
            p = strchr(p, ',');
            if (p) p++;
        }
        out[n++] = (p && *p != ',' && *p != '\n') ? strtod(p, NULL) : NAN;
    }
    fclose(f);
    return n;
}

/* attention.csv ends in the softmax pass-through columns, and in every row they are finite and
 * consistent: dprob_norm > 0 (the loss reaches every head here), softmax_pass =
 * dlogit_norm / dprob_norm (to the 6 printed digits) and within [0, 1] (the softmax Jacobian
 * diag(p) − p·pᵀ has eigenvalues in [0, max p], so |dz| <= |dp|), blocked_rows within [0, 1]. */
static void assert_pass_columns(const char *path, int want_rows) {
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char line[4096];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "step,layer,head,logit_mean,logit_std,logit_absmax,entropy,entropy_norm,"
                           "max_weight,saturated_frac,dlogit_norm,dprob_norm,softmax_pass,"
                           "blocked_rows\n");
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        double v[16];
        int n = 0;
        for (char *p = line; n < 16; n++) {
            v[n] = strtod(p, NULL);
            p = strchr(p, ',');
            if (!p) break;
            p++;
        }
        ck_assert_msg(n + 1 == 14, "row %d has %d fields: %s", rows, n + 1, line);
        double dlogit = v[10], dprob = v[11], pass = v[12], blocked = v[13];
        ck_assert_msg(isfinite(dprob) && isfinite(pass) && isfinite(blocked), "row %s", line);
        ck_assert_msg(dprob > 0, "dprob_norm %g in %s", dprob, line);
        ck_assert_msg(fabs(pass - dlogit / dprob) <= 2e-5 * pass, "softmax_pass %g, dlogit_norm / "
                      "dprob_norm %g in %s", pass, dlogit / dprob, line);
        ck_assert_msg(pass >= 0 && pass <= 1 && blocked >= 0 && blocked <= 1, "row %s", line);
        rows++;
    }
    fclose(f);
    ck_assert_int_eq(rows, want_rows);
}

START_TEST(test_loss_falls_and_logs_are_complete) {
    make_tmpdir();
    Config c;
    tiny_config(&c, "tiny");
    ck_assert_int_eq(train_run(&c), EXIT_OK);
    char path[512];
    double loss[64];
    snprintf(path, sizeof path, "%s/tiny/loss.csv", tmpdir);
    int rows = read_column(path, 1, loss, 64);
    /* steps 0, 10, ..., 140 with a train loss, and the final row 150 without */
    ck_assert_int_eq(rows, 16);
    ck_assert_msg(isnan(loss[15]), "the final row has no training step");
    double first = (loss[0] + loss[1]) / 2, last = (loss[13] + loss[14]) / 2;
    ck_assert_msg(last < 0.7 * first, "loss did not fall: %.4f -> %.4f", first, last);
    double acc[64];
    read_column(path, 4, acc, 64);
    ck_assert_msg(acc[15] > acc[0], "validation answer accuracy did not rise: %.3f -> %.3f", acc[0], acc[15]);

    /* grad_norms.csv: a row per logged training step; attention.csv: a row per logged step,
     * layer and head (1 layer, 2 heads), at every log step including the final one */
    snprintf(path, sizeof path, "%s/tiny/grad_norms.csv", tmpdir);
    ck_assert_int_eq(tu_count_lines(path), 1 + 15);
    snprintf(path, sizeof path, "%s/tiny/attention.csv", tmpdir);
    ck_assert_int_eq(tu_count_lines(path), 1 + 16 * 2);
    assert_pass_columns(path, 16 * 2);
    snprintf(path, sizeof path, "%s/tiny/attn_map.csv", tmpdir);
    ck_assert_int_eq(tu_count_lines(path), 1 + 2 * 6); /* 2 heads x T = 6 queries (3 + SEP + 3 - 1) */
    snprintf(path, sizeof path, "%s/tiny/init_check.txt", tmpdir);
    ck_assert_int_gt(tu_count_lines(path), 3);
    /* beside layer 0's measured logit std, the one predicted from this config's init (fan_in,
     * sqrt_dk, d_model 16, d_k 8): (1/√8)·√8·16·(1/16) = 1, by hand */
    char *check = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(check);
    const char *row0 = strstr(check, "\n0 ");
    ck_assert_msg(row0 && strstr(check, "from init"), "%s", check);
    const char *eol = strchr(row0 + 1, '\n'), *p = eol;
    while (p > row0 && p[-1] != ' ') p--;
    ck_assert_double_eq_tol(strtod(p, NULL), 1.0, 1e-4);
    free(check);

    /* the resolved config reloads into the same settings */
    snprintf(path, sizeof path, "%s/tiny/config.ini", tmpdir);
    Config back;
    config_defaults(&back);
    ck_assert_int_eq(config_load_file(&back, path), 0);
    ck_assert_int_eq(back.d_model, 16);
    ck_assert_int_eq(back.task, TASK_COPY);
    ck_assert_int_eq(back.steps, 150);
    ck_assert_str_eq(back.run_name, "tiny");
}
END_TEST

START_TEST(test_divergence_stops_with_code_3) {
    make_tmpdir();
    Config c;
    tiny_config(&c, "boom");
    c.optim = OPT_SGD;
    c.lr = 10;
    c.momentum = 0.99;
    c.init = INIT_GPT2;
    c.init_std = 10;
    c.steps = 100;
    c.log_every = 1000;
    ck_assert_int_eq(train_run(&c), EXIT_DIVERGED);
    char path[512];
    snprintf(path, sizeof path, "%s/boom/loss.csv", tmpdir);
    double loss[64];
    int rows = read_column(path, 1, loss, 64);
    /* the step-0 row, then the row of the step that diverged, with its nan written out */
    ck_assert_int_eq(rows, 2);
    double norm[64];
    read_column(path, 6, norm, 64);
    ck_assert_msg(isfinite(loss[0]) && isfinite(norm[0]), "step 0 is finite");
    ck_assert_msg(!isfinite(loss[1]) || !isfinite(norm[1]),
                  "the diverged step's loss or gradient norm is logged as non-finite: %g, %g",
                  loss[1], norm[1]);
}
END_TEST

START_TEST(test_is_nonfinite) {
    volatile double zero = 0;
    ck_assert(is_nonfinite(zero / zero));
    ck_assert(is_nonfinite(1 / zero));
    ck_assert(is_nonfinite(-1 / zero));
    ck_assert(!is_nonfinite(1e308));
    ck_assert(!is_nonfinite(-0.0));
}
END_TEST

/* ./train with args inside tmpdir; returns the exit code, output in tmpdir/out.txt. */
static int run_train(const char *args) { return tu_run_train(tmpdir, args); }

static int exists(const char *rel) {
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    return stat(path, &st) == 0;
}

static int output_contains(const char *needle) { return tu_train_output_contains(tmpdir, needle); }

START_TEST(test_bad_input_exits_2_before_work) {
    make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/bad.ini", tmpdir);
    FILE *f = fopen(path, "w");
    fputs("[run]\nname = bad\n[model]\nd_model = 64\nn_heads = 3\n", f);
    fclose(f);
    ck_assert_int_eq(run_train("bad.ini"), EXIT_CONFIG);
    ck_assert(output_contains("bad.ini:4"));
    ck_assert(output_contains("model.d_model"));
    ck_assert(!exists("runs/bad"));

    f = fopen(path, "w");
    fputs("[run]\nname = bad\n[optim]\nlr = 1e-3x\n", f);
    fclose(f);
    ck_assert_int_eq(run_train("bad.ini"), EXIT_CONFIG);
    ck_assert(output_contains("bad.ini:4"));
    ck_assert(output_contains("optim.lr"));
    ck_assert(!exists("runs/bad"));

    ck_assert_int_eq(run_train("missing.ini"), EXIT_CONFIG);
    ck_assert(output_contains("missing.ini"));
    ck_assert_int_eq(run_train("--set task.lenght=3"), EXIT_CONFIG);
    ck_assert(output_contains("task.length"));
    ck_assert_int_eq(run_train("--set task.name=sort --set task.length=40 --set model.max_seq_len=20"),
                     EXIT_CONFIG);
    ck_assert(output_contains("model.max_seq_len"));
    ck_assert(!exists("runs"));
    ck_assert_int_eq(run_train("--bogus"), EXIT_CONFIG);
    /* far more memory than any machine has: refused before anything is allocated or written */
    ck_assert_int_eq(run_train("--set train.batch_size=65536 --set model.d_model=8192"), EXIT_RUNTIME);
    ck_assert(output_contains("GiB"));
    ck_assert(output_contains("train.batch_size"));
    ck_assert(!exists("runs"));
}
END_TEST

START_TEST(test_guard_stop_exits_4) {
    make_tmpdir();
    /* unscaled attention with d_k 64: the step-0 logit std is far above 3 */
    ck_assert_int_eq(run_train("--set attention.scale=none --set model.d_model=64 --set train.steps=5 "
                               "--set guard.logit_std_max=3 --set guard.action=stop --set log.progress=0"),
                     EXIT_GUARD);
    ck_assert(output_contains("guard.logit_std_max"));
    ck_assert(exists("runs/run/attention.csv"));
}
END_TEST

/* A new run's folder: a symbolic link is refused (the logs would go wherever it points), and so
 * is a folder holding files but no run of ./train (they would be overwritten); both exit 2 before
 * any work, naming the folder. A real earlier run is still replaced (./train.sh --replace), and
 * none of its files outlives it (a text run's sample.txt under a run of another task). */
START_TEST(test_run_folder_not_ours_refused) {
    make_tmpdir();
    char path[512], victim[512];
    const char *args = "--set train.steps=5 --set log.progress=0 --set run.name=";
    char cmd[256];
    tu_put_file(NULL, 0, tmpdir, "runs", "keep.txt", "runs folder\n");
    tu_put_file(NULL, 0, tmpdir, "runs/userdir", "loss.csv", "precious\n");
    snprintf(cmd, sizeof cmd, "%suserdir", args);
    ck_assert_int_eq(run_train(cmd), EXIT_CONFIG);
    ck_assert(output_contains("runs/userdir"));
    snprintf(path, sizeof path, "%s/runs/userdir/loss.csv", tmpdir);
    char *text = tu_read_file(path, NULL);
    ck_assert_str_eq(text, "precious\n");
    free(text);
    ck_assert(!exists("runs/userdir/config.ini"));
    /* a config.ini of the user's (not one ./train wrote) does not make the folder a run */
    tu_put_file(NULL, 0, tmpdir, "runs/userini", "config.ini", "[model]\nd_model = 16\n");
    snprintf(cmd, sizeof cmd, "%suserini", args);
    ck_assert_int_eq(run_train(cmd), EXIT_CONFIG);
    ck_assert(output_contains("runs/userini"));
    ck_assert(!exists("runs/userini/loss.csv"));

    tu_put_file(victim, sizeof victim, tmpdir, "victdir", "note.txt", "mine\n");
    snprintf(path, sizeof path, "%s/runs/symrun", tmpdir);
    ck_assert_int_eq(symlink(victim, path), 0);
    snprintf(cmd, sizeof cmd, "%ssymrun", args);
    ck_assert_int_eq(run_train(cmd), EXIT_CONFIG);
    ck_assert(output_contains("runs/symrun"));
    ck_assert(output_contains("symbolic link"));
    ck_assert(!exists("victdir/config.ini") && !exists("victdir/loss.csv") &&
              !exists("victdir/.lock"));

    /* an empty folder, then the earlier run in it: trained, then replaced */
    snprintf(path, sizeof path, "%s/runs/real", tmpdir);
    ck_assert_int_eq(mkdir(path, 0777), 0);
    snprintf(cmd, sizeof cmd, "%sreal", args);
    ck_assert_int_eq(run_train(cmd), EXIT_OK);
    ck_assert_int_eq(run_train(cmd), EXIT_OK);
    ck_assert(output_contains("holds an earlier run"));
    /* nothing of the earlier run outlives it: a text run's sample.txt (which --compare shows as
     * the run's) neither, when the new run is not a text run */
    ck_assert_int_eq(run_train("--set train.steps=5 --set log.progress=0 --set run.name=real "
                               "--set task.name=text --set task.file=" SCALEDOT_SOURCE_DIR
                               "/data/prose.txt --set task.seq_len=16 --set task.val_size=8"),
                     EXIT_OK);
    ck_assert(exists("runs/real/sample.txt"));
    ck_assert_int_eq(run_train(cmd), EXIT_OK);
    ck_assert(!exists("runs/real/sample.txt"));
}
END_TEST

TU_MAIN_TIMEOUT("train", 300, test_loss_falls_and_logs_are_complete,
                test_divergence_stops_with_code_3, test_is_nonfinite,
                test_bad_input_exits_2_before_work, test_guard_stop_exits_4,
                test_run_folder_not_ours_refused);
