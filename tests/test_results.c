/* test_results.c: a run folder read into a sweep.csv row (src/sweep/results.c): hand-made logs
 * whose expected fields are worked out by hand below, the status from the marker (table), and
 * the marker written and read back. */
#include "sweep/results.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/read/read.h"
#include "testutil.h"
#include "util/run_lock.h"

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_results.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* One run's plan: d_k 8 of d_model 16 (2 heads), unscaled, seed 1, 40 steps. */
static Plan one_run_plan(void) {
    static char cols[6][PLAN_CELL] = {"d_k", "d_model", "n_heads", "scale", "seed", "steps"};
    static char names[1][PLAN_CELL] = {"r1"};
    static char cells[6][PLAN_CELL] = {"8", "16", "2", "none", "1", "40"};
    return (Plan){6, 1, cols, names, cells, NULL};
}

static void write_in(const char *dir, const char *file, const char *text) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    tu_write_file(path, text);
}

/* Validation at steps 0, 10, 20, 30, 40: the last pass is step 40 (loss 1.3, answer 0.995, token
 * 0.9, also the best accuracy); the best loss 1.2 is step 20's, whose accuracy is exactly 0.99,
 * so it is the first step with accuracy >= 0.99 and >= 0.9; step 10's 0.6 the first >= 0.5; the
 * step-0 loss 2.4. config.ini: gpt2 init (std 0.02 by default), d_model 16, 2 heads (d_k 8),
 * unscaled: predicted step-0 logit std 1·√8·16·0.02² = 0.0181019 (6 digits). attention.csv: layer 0's two
 * heads at step 0 have logit std 1 and 3 (mean 2; layer 1's 9 does not count); at the last
 * step, 40, saturated_frac 0.2, 0.4, 0.6 (mean 0.4) and softmax_pass 0.1, 0.2, 0.6 (mean 0.3)
 * over both layers; the growth columns: layer 1's head mean 9 at step 0 is the highest any
 * layer reaches (layer 0: 2 and 2), so peak 9, step 0, layer 1, and no 10x step (both layers
 * end lower). grad_norms.csv: the last row's W_q, W_k norms 0.25, 0.5. */
#define LOSS_TO_20                                                                           \
    "step,train_loss,val_loss,val_token_acc,val_answer_acc,lr,grad_norm,elapsed_s,"           \
    "tokens_per_s,skipped_steps\n"                                                            \
    "0,2.5,2.4,0.1,0,0.001,1,0,1,0\n"                                                         \
    "10,2.0,1.4,0.5,0.6,0.001,1,0,1,0\n"                                                      \
    "20,1.5,1.2,0.8,0.99,0.001,1,0,1,0\n"
#define LOSS_FROM_30 "30,1.0,1.5,0.7,0.5,0.001,1,0,1,0\n40,,1.3,0.9,0.995,,,0,1,0\n"
static void write_logs(const char *dir) {
    mkdir(dir, 0755);
    write_in(dir, "loss.csv", LOSS_TO_20 LOSS_FROM_30);
    write_in(dir, "attention.csv",
             "step,layer,head,logit_std,saturated_frac,softmax_pass\n"
             "0,0,0,1.0,0.1,0.5\n0,0,1,3.0,0.3,0.7\n0,1,0,9.0,0.0,0.0\n"
             "40,0,0,2.0,0.2,0.1\n40,0,1,2.0,0.4,0.2\n40,1,0,2.0,0.6,0.6\n");
    write_in(dir, "grad_norms.csv",
             "step,blocks.0.attn.qkv.weight.q,blocks.0.attn.qkv.weight.k\n0,1,2\n30,0.25,0.5\n");
    write_in(dir, "config.ini",
             "[model]\nd_model = 16\nn_heads = 2\n[attention]\nscale = none\n[init]\n"
             "scheme = gpt2\n");
}

START_TEST(test_row_from_logs) {
    char dir[128];
    snprintf(dir, sizeof dir, "%s/r1", g_tmp);
    write_logs(dir);
    write_in(dir, SWEEP_MARKER, "exit_code 4\nwall_s 1.5\nversion v9\n");
    Plan p = one_run_plan();
    RowInfo info;
    char *row = results_row(&p, 0, dir, &info);
    /* task: config.ini names none, so the default's, recall */
    ck_assert_str_eq(row, "r1,8,16,2,none,1,40,guard,4,40,1.3,0.995,0.9,1.2,0.995,10,20,20,40,2.4,2,"
                          "0.0181019,gpt2,recall,0.4,0.3,9,0,1,,0.25,0.5,1.500,v9");
    ck_assert_str_eq(info.status, "guard");
    ck_assert(info.has_acc && info.answer_acc == 0.995 && !info.text);
    free(row);
    char *head = results_header(&p);
    ck_assert_str_eq(head, "run,d_k,d_model,n_heads,scale,seed,steps,status,exit_code,steps_done,"
                           "val_loss,val_answer_acc,val_token_acc,best_val_loss,"
                           "best_val_answer_acc,first_step_50,first_step_90,first_step_99,"
                           "last_eval_step,loss0,logit_std0,predicted_logit_std,init_scheme,task,"
                           "saturated_final,"
                           "softmax_pass_final,logit_std_peak,logit_std_peak_step,"
                           "logit_std_peak_layer,logit_std_10x_step,gq_norm,gk_norm,wall_s,version");
    free(head);
}
END_TEST

/* The collection reads the logs through the checked reader (report/read/read.h, issue 45): a
 * row it cannot have written (here an accuracy of 1.5 with a negative loss, and step 20 written
 * again with accuracy 1) is skipped, and the row is the one of the clean logs above, word for
 * word; both warnings are kept for the sweep's page. */
START_TEST(test_row_skips_impossible_rows) {
    char dir[128];
    snprintf(dir, sizeof dir, "%s/r1", g_tmp);
    write_logs(dir);
    write_in(dir, "loss.csv",
             LOSS_TO_20 "20,1.5,0.1,0.8,1,0.001,1,0,1,0\n25,1.5,-1.0,0.8,1.5,0.001,1,0,1,0\n"
             LOSS_FROM_30);
    write_in(dir, SWEEP_MARKER, "exit_code 4\nwall_s 1.5\nversion v9\n");
    Plan p = one_run_plan();
    warnings_clear();
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    char *row = results_row(&p, 0, dir, NULL);
    char *err = tu_capture_end(&cap);
    ck_assert_str_eq(row, "r1,8,16,2,none,1,40,guard,4,40,1.3,0.995,0.9,1.2,0.995,10,20,20,40,2.4,2,"
                          "0.0181019,gpt2,recall,0.4,0.3,9,0,1,,0.25,0.5,1.500,v9");
    ck_assert_msg(strstr(err, "r1/loss.csv:5: step 20 again") && strstr(err, "r1/loss.csv:6: "),
                  "%s", err);
    ck_assert_int_eq(warnings_count(), 2);
    free(err);
    free(row);
}
END_TEST

/* No softmax_pass column: that field is empty; a logged NaN stays visible; 0.2 reaches no
 * threshold: first_step_* empty, last_eval_step 0; no config.ini: predicted_logit_std,
 * init_scheme and task empty. */
/* A text run (task.name = text in config.ini): the task column says so, and the row's info
 * (the sweep's line per run, sweep.c) knows it and has the bits per byte: the last val_loss, 2.25
 * ln 2 nats per byte, is 2.25 bits per byte; its val_answer_acc, 0.5, is the next-byte accuracy.
 * Cut short of the plan's 40 steps (incomplete), its numbers go but the task stays. */
START_TEST(test_row_text_run) {
    char dir[128], loss[256];
    snprintf(dir, sizeof dir, "%s/t1", g_tmp);
    mkdir(dir, 0755);
    snprintf(loss, sizeof loss, "step,val_loss,val_bpb,val_token_acc,val_answer_acc\n"
                                "0,5.5,7.9,0.01,0.01\n40,%.17g,2.25,0.5,0.5\n", 2.25 * log(2.0));
    write_in(dir, "loss.csv", loss);
    write_in(dir, "config.ini", "[task]\nname = text\n[model]\nd_model = 16\nn_heads = 2\n");
    write_in(dir, SWEEP_MARKER, "exit_code 0\nwall_s 1\nversion v9\n");
    Plan p = one_run_plan();
    RowInfo info;
    char *row = results_row(&p, 0, dir, &info);
    ck_assert_msg(strstr(row, ",fan_in,text,"), "%s", row);
    ck_assert(info.has_acc && info.text && info.answer_acc == 0.5);
    ck_assert_double_eq_tol(info.val_bpb, 2.25, 1e-12);
    free(row);
    write_in(dir, "loss.csv", "step,val_loss,val_bpb,val_token_acc,val_answer_acc\n"
                              "0,5.5,7.9,0.01,0.01\n20,2,2.9,0.4,0.4\n");
    row = results_row(&p, 0, dir, &info);
    ck_assert_msg(strstr(row, ",incomplete,0,20,") && strstr(row, ",,text,,"), "%s", row);
    ck_assert(!info.has_acc && info.text);
    free(row);
}
END_TEST

START_TEST(test_row_missing_fields) {
    char dir[128];
    snprintf(dir, sizeof dir, "%s/r1", g_tmp);
    mkdir(dir, 0755);
    write_in(dir, "loss.csv", "step,val_loss,val_token_acc,val_answer_acc\n0,nan,0.1,0.2\n");
    write_in(dir, "attention.csv", "step,layer,head,logit_std,saturated_frac\n0,0,0,4,0.5\n");
    write_in(dir, SWEEP_MARKER, "exit_code 3\nwall_s 2\nversion v9\n");
    Plan p = one_run_plan();
    char *row = results_row(&p, 0, dir, NULL);
    ck_assert_str_eq(row, "r1,8,16,2,none,1,40,diverged,3,0,nan,0.2,0.1,nan,0.2,,,,0,nan,4,,,,0.5,,"
                          "4,0,0,,,,2.000,v9");
    free(row);
}
END_TEST

/* The status column: from the folder, the marker, the run's lock and how far loss.csv goes
 * (the plan asks for 40 steps). A garbage marker is "unknown" (was "running"), and so is one
 * whose exit_code is given twice or is not a whole number in [0, 255]; no marker and
 * nobody training is "stopped"; exit code 0 with a loss.csv that ends at step 20 is
 * "incomplete", its numbers left out (the row's measured fields empty but steps_done). */
START_TEST(test_status) {
    static const char HEAD[] = "step,val_loss,val_token_acc,val_answer_acc\n";
    static const struct {
        int folder;
        const char *marker; /* NULL: none */
        int last_step;      /* loss.csv's last row; -1: no loss.csv */
        const char *status, *exit_code, *steps_done;
    } CASES[] = {
        {0, NULL, -1, "missing", "", ""},
        {1, NULL, -1, "stopped", "", ""},
        {1, NULL, 20, "stopped", "", "20"},
        {1, "exit_code 0\n", 40, "ok", "0", "40"},
        {1, "exit_code 0\n", 20, "incomplete", "0", "20"},
        {1, "exit_code 0\n", -1, "incomplete", "0", ""},
        {1, "exit_code 3\n", 20, "diverged", "3", "20"},
        {1, "exit_code 4\n", 20, "guard", "4", "20"},
        {1, "exit_code 1\n", -1, "failed", "1", ""},
        {1, "exit_code 2\n", -1, "failed", "2", ""},
        {1, "garbage\n", 40, "unknown", "", "40"},
        {1, "", 40, "unknown", "", "40"},
        /* not what results_marker_write writes (issue 33): read as a run's outcome before */
        {1, "exit_code 0\nexit_code 3\n", 40, "unknown", "", "40"},
        {1, "exit_code 3\nexit_code 0\n", 40, "unknown", "", "40"},
        {1, "exit_code -5\n", 40, "unknown", "", "40"},
        {1, "exit_code 256\n", 40, "unknown", "", "40"},
        {1, "exit_code 0x0\n", 40, "unknown", "", "40"},
        {1, "exit_code 3 \n", 40, "unknown", "", "40"},
        {1, "exit_code 255\n", 40, "failed", "255", "40"},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        char dir[128], want[64], loss[160];
        snprintf(dir, sizeof dir, "%s/c%zu", g_tmp, k);
        if (CASES[k].folder) mkdir(dir, 0755);
        if (CASES[k].marker) write_in(dir, SWEEP_MARKER, CASES[k].marker);
        if (CASES[k].last_step >= 0) {
            snprintf(loss, sizeof loss, "%s0,2,0.1,0\n%d,1,0.5,0.25\n", HEAD, CASES[k].last_step);
            write_in(dir, "loss.csv", loss);
        }
        Plan p = one_run_plan();
        TuCapture cap;
        tu_capture_begin(&cap, 2);
        char *row = results_row(&p, 0, dir, NULL);
        free(tu_capture_end(&cap)); /* the warning of a garbage marker */
        snprintf(want, sizeof want, "r1,8,16,2,none,1,40,%s,%s,%s,", CASES[k].status,
                 CASES[k].exit_code, CASES[k].steps_done);
        ck_assert_msg(strncmp(row, want, strlen(want)) == 0, "case %zu: %s", k, row);
        /* incomplete: after steps_done, the 21 measured fields (val_loss .. gk_norm, with
         * first_step_50/90, last_eval_step, predicted_logit_std, init_scheme and the 4 growth
         * columns), task (no config.ini here), wall_s (none in the marker) and version all
         * empty: 24 commas */
        if (strcmp(CASES[k].status, "incomplete") == 0 && CASES[k].last_step == 20)
            ck_assert_str_eq(row, "r1,8,16,2,none,1,40,incomplete,0,20,,,,,,,,,,,,,,,,,,,,,,,,");
        free(row);
    }
    ck_assert(results_final(0) && results_final(3) && results_final(4));
    ck_assert(!results_final(1) && !results_final(2) && !results_final(130));
}
END_TEST

/* No marker while another process holds the run's lock (util/run_lock.h): "running". */
START_TEST(test_status_running_while_locked) {
    char dir[128];
    snprintf(dir, sizeof dir, "%s/live", g_tmp);
    mkdir(dir, 0755);
    int ready[2], go[2];
    ck_assert_int_eq(pipe(ready), 0);
    ck_assert_int_eq(pipe(go), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) { /* holds the lock until told to go */
        char ch = run_lock_take(dir, NULL) >= 0 ? 'y' : 'n';
        if (write(ready[1], &ch, 1) != 1 || read(go[0], &ch, 1) < 0) _exit(1);
        _exit(0);
    }
    char ch = 0;
    ck_assert_int_eq(read(ready[0], &ch, 1), 1);
    ck_assert_int_eq(ch, 'y');
    Plan p = one_run_plan();
    char *row = results_row(&p, 0, dir, NULL);
    ck_assert_msg(strncmp(row, "r1,8,16,2,none,1,40,running,,", 29) == 0, "%s", row);
    free(row);
    ck_assert_int_eq(write(go[1], "x", 1), 1);
    waitpid(pid, NULL, 0);
    row = results_row(&p, 0, dir, NULL);
    ck_assert_msg(strncmp(row, "r1,8,16,2,none,1,40,stopped,,", 29) == 0, "%s", row);
    free(row);
}
END_TEST

START_TEST(test_marker_round_trip) {
    RunMarker m = {3, 12.25, "1.2.3"}, back;
    ck_assert_int_eq(results_marker_write(g_tmp, &m), 0);
    ck_assert_int_eq(results_marker_read(g_tmp, &back), 0);
    ck_assert_int_eq(back.exit_code, 3);
    ck_assert(back.wall_s == 12.25);
    ck_assert_str_eq(back.version, "1.2.3");
    char dir[128];
    snprintf(dir, sizeof dir, "%s/none", g_tmp);
    ck_assert_int_eq(results_marker_read(dir, &back), -1);
    write_in(g_tmp, SWEEP_MARKER, "no exit code here\n");
    ck_assert_int_eq(results_marker_read(g_tmp, &back), -2); /* garbage: not "none" */
}
END_TEST

/* sweep.csv is the header and every row, rewritten whole (an earlier longer file does not
 * leave a tail). */
START_TEST(test_write_csv) {
    char path[128];
    snprintf(path, sizeof path, "%s/sweep.csv", g_tmp);
    char old[2048] = "";
    for (int i = 0; i < 40; i++) strcat(old, "an earlier, longer sweep.csv line\n"); /* 1400 bytes */
    tu_write_file(path, old);
    Plan p = one_run_plan();
    char *rows[1] = {"r1,x"};
    ck_assert_int_eq(results_write_csv(path, &p, rows), 0);
    ck_assert_int_eq(tu_count_lines(path), 2);
    ck_assert(tu_file_contains(path, "\nr1,x\n"));
}
END_TEST

TU_MAIN_FIXTURE("results", make_tmp, remove_tmp, test_row_from_logs,
                test_row_skips_impossible_rows, test_row_text_run, test_row_missing_fields,
                test_status, test_status_running_while_locked, test_marker_round_trip,
                test_write_csv);
