/* test_summary.c: the summary table of src/report/table/summary.c on two hand-made runs, every row and
 * cell: the steps of each metric row (0, 10%, 25%, 50% of the longest run, snapped to the logged
 * steps of the run that logged longest, repeats dropped), "(@N)" for a value logged at another
 * step within 5%, "-" for none, "n/a" for a log the run does not have, the first step at 99%
 * answer accuracy, gradient norms and attention means over heads; then the printed layout with
 * its column widths worked out by hand; a model.block row only when a run uses the llama block;
 * text runs in bits per byte with one accuracy, next-byte. */
#include "report/table/table.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char tmp[200];

/* Run a: 100 steps, val at 0, 50, 100; gradient norms; attention of one layer, two heads.
 * Run b: stopped at 48 of 100, val at 0, 20, 48; nothing else. */
static void write_runs(void) {
    static const char *const FILES[][3] = {
        {"a", "loss.csv",
         "step,train_loss,val_loss,val_answer_acc\n"
         "0,3.0,3.1,0\n10,2.5,,\n20,2.0,,\n30,1.8,,\n40,1.6,,\n50,1.5,1.55,0.996\n"
         "60,1.4,,\n70,1.3,,\n80,1.2,,\n90,1.1,,\n100,1.0,1.05,1\n"},
        {"a", "config.ini",
         "[model]\nd_model = 64\nn_heads = 4\n[attention]\nscale = sqrt_dk\n"
         "[task]\nname = copy\n[train]\nsteps = 100\n"},
        {"a", "grad_norms.csv",
         "step,global,blocks.0.attn.qkv.weight.q,blocks.0.attn.qkv.weight.k\n"
         "0,4,1,1\n50,1,2,0.5\n100,0.5,,0.25\n"},
        {"a", "attention.csv",
         "step,layer,head,logit_std,saturated_frac\n"
         "0,0,0,1,0.1\n0,0,1,3,0.3\n100,0,0,4,0.5\n100,0,1,6,0.5\n"},
        {"b", "loss.csv",
         "step,train_loss,val_loss,val_answer_acc\n"
         "0,3.5,3.6,0\n10,3.0,,\n20,2.8,2.9,0.5\n30,2.6,,\n40,2.4,,\n48,2.3,2.35,0.9\n"},
        {"b", "config.ini", "[train]\nsteps = 100\n"},
    };
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++)
        tu_put_file(NULL, 0, tmp, FILES[i][0], FILES[i][1], FILES[i][2]);
}

/* Every row in order: a section heading (cells NULL) or a label and the cells of a and b. */
static const struct {
    const char *label, *a, *b;
} WANT[] = {
    {"setup", NULL, NULL},
    {"status", "finished @100", "stopped @48"},
    {"attention.scale", "sqrt_dk", "?"},
    {"init.scheme", "?", "?"},
    {"task.name", "copy", "?"},
    {"d_k = d_model / n_heads", "16", "?"},
    {"loss (nats/token)", NULL, NULL},
    {"train loss @ step 0", "3.0000", "3.5000"},
    {"train loss @ step 10", "2.5000", "3.0000"},
    {"train loss @ step 20", "2.0000", "2.8000"}, /* 25%: 20 and 30 tie, the earlier */
    {"train loss @ step 50", "1.5000", "2.3000 (@48)"},
    {"train loss, final (step 100)", "1.0000", "2.3000 (@48)"},
    {"val loss @ step 0", "3.1000", "3.6000"}, /* 10% and 25% snap to a's step 0 again */
    {"val loss @ step 50", "1.5500", "2.3500 (@48)"},
    {"val loss, final (step 100)", "1.0500", "2.3500 (@48)"},
    {"validation accuracy (%)", NULL, NULL},
    {"answer acc @ step 0", "0.0%", "0.0%"},
    {"answer acc @ step 50", "99.6%", "90.0% (@48)"},
    {"answer acc, final (step 100)", "100.0%", "90.0% (@48)"},
    {"token acc, final (step 0)", "-", "-"}, /* no run logs it */
    /* time to learn, by hand: a passes 0.996 at 50; b 0.5 at 20, 0.9 at 48, last pass 48 */
    {"answer acc >= 50% first at step", "50", "20"},
    {"answer acc >= 90% first at step", "50", "48"},
    {"answer acc >= 99% first at step", "50", "never (by 48)"},
    {"gradient L2 norm at the last logged step (before clipping)", NULL, NULL},
    {"global", "0.500", "n/a"},
    {"layer 0 W_q", "2.00 (@50)", "n/a"}, /* empty at 100: the last logged value */
    {"layer 0 W_k", "0.250", "n/a"},
    {"attention logits (mean over heads)", NULL, NULL},
    {"layer 0 logit std @ step 0", "2.00", "n/a"},        /* (1 + 3) / 2 */
    {"layer 0 logit std, final", "5.00", "n/a"},          /* (4 + 6) / 2 */
    {"layer 0 saturated fraction @ step 0", "20.0%", "n/a"},
    {"layer 0 saturated fraction, final", "50.0%", "n/a"},
    /* growth, by hand: head means 2 at step 0, 5 at 100: peak 5 at 100, never above 20 */
    {"layer 0 logit std, peak", "5.00 @ step 100", "n/a"},
    {"layer 0 logit std first > 10x step 0", "never", "n/a"},
};
#define N_WANT ((int)(sizeof WANT / sizeof WANT[0]))

static void load_runs(Run runs[2]) {
    static const char *const NAMES[] = {"a", "b"};
    static char paths[2][300];
    for (int i = 0; i < 2; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", tmp, NAMES[i]);
        memset(&runs[i], 0, sizeof runs[i]);
        TuCapture c;
        tu_capture_begin(&c, 2);
        int rc = load_run(&runs[i], paths[i]);
        free(tu_capture_end(&c));
        ck_assert_int_eq(rc, 0);
    }
}

START_TEST(test_rows_and_cells) {
    write_runs();
    Run runs[2];
    load_runs(runs);
    Table t;
    ck_assert_int_eq(summary_build(&t, runs, 2), 0);
    for (int r = 0; r < t.n && r < N_WANT; r++) {
        ck_assert_msg(strcmp(t.row[r].label, WANT[r].label) == 0, "row %d: '%s', want '%s'", r,
                      t.row[r].label, WANT[r].label);
        ck_assert_msg(t.row[r].section == !WANT[r].a, "row %d (%s): section %d", r,
                      WANT[r].label, t.row[r].section);
        if (!WANT[r].a) continue;
        ck_assert_msg(strcmp(t.row[r].cell[0], WANT[r].a) == 0 &&
                          strcmp(t.row[r].cell[1], WANT[r].b) == 0,
                      "row '%s': '%s' | '%s', want '%s' | '%s'", WANT[r].label, t.row[r].cell[0],
                      t.row[r].cell[1], WANT[r].a, WANT[r].b);
    }
    ck_assert_int_eq(t.n, N_WANT); /* and no softmax pass-through section: no run logs it */
    summary_free(&t);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

/* A run of the LLaMA block adds a model.block row after task.name (a run without the key is
 * gpt2); without one the table has no such row (test_rows_and_cells: none of its runs has it). */
START_TEST(test_block_row_only_with_llama) {
    write_runs();
    tu_put_file(NULL, 0, tmp, "a", "config.ini",
                "[model]\nd_model = 64\nn_heads = 4\nblock = llama\n[attention]\nscale = sqrt_dk\n"
                "[task]\nname = copy\n[train]\nsteps = 100\n");
    Run runs[2];
    load_runs(runs);
    Table t;
    ck_assert_int_eq(summary_build(&t, runs, 2), 0);
    ck_assert_int_eq(t.n, N_WANT + 1);
    ck_assert_str_eq(t.row[4].label, "task.name");
    ck_assert_str_eq(t.row[5].label, "model.block");
    ck_assert_str_eq(t.row[5].cell[0], "llama");
    ck_assert_str_eq(t.row[5].cell[1], "gpt2");
    ck_assert_str_eq(t.row[6].label, "d_k = d_model / n_heads");
    summary_free(&t);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

/* Widths by hand: labels take the longest non-heading label ("layer 0 logit std first > 10x step
 * 0", 36) + 2 = 38; run a's column its widest cell ("5.00 @ step 100", 15), run b's ("never (by
 * 48)", 13). A line is 38 + 3 + 15 + 3 + 13 = 72 wide. */
/* A bf16 run adds a model.matmul row after task.name (and model.block's, when there is one); a
 * run without the key is float32. */
START_TEST(test_matmul_row_only_with_bf16) {
    write_runs();
    tu_put_file(NULL, 0, tmp, "b", "config.ini",
                "[model]\nd_model = 64\nn_heads = 1\nmatmul = bf16\n[attention]\nscale = none\n"
                "[task]\nname = copy\n[train]\nsteps = 100\n");
    Run runs[2];
    load_runs(runs);
    Table t;
    ck_assert_int_eq(summary_build(&t, runs, 2), 0);
    ck_assert_int_eq(t.n, N_WANT + 1);
    ck_assert_str_eq(t.row[4].label, "task.name");
    ck_assert_str_eq(t.row[5].label, "model.matmul");
    ck_assert_str_eq(t.row[5].cell[0], "float32");
    ck_assert_str_eq(t.row[5].cell[1], "bf16");
    ck_assert_str_eq(t.row[6].label, "d_k = d_model / n_heads");
    summary_free(&t);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

START_TEST(test_print_layout) {
    write_runs();
    Run runs[2];
    load_runs(runs);
    Table t;
    ck_assert_int_eq(summary_build(&t, runs, 2), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    summary_print(&t, runs, f);
    fclose(f);
    char rule[73], want[1024];
    memset(rule, '=', 72);
    rule[72] = 0;
    snprintf(want, sizeof want, "%-38s   %15s   %13s\n%s\nsetup\n  %-36s   %15s   %13s\n", "run", "a",
             "b", rule, "status", "finished @100", "stopped @48");
    ck_assert_msg(strncmp(buf, want, strlen(want)) == 0, "begins:\n%.400s\nwant:\n%s", buf, want);
    snprintf(want, sizeof want, "\nloss (nats/token)\n  %-36s   %15s   %13s\n", "train loss @ step 0",
             "3.0000", "3.5000");
    ck_assert_msg(strstr(buf, want), "no '%s' in\n%s", want, buf);
    snprintf(want, sizeof want, "  %-36s   %15s   %13s\n%s\n(@N): logged at step N",
             "layer 0 logit std first > 10x step 0", "never", "n/a", rule);
    ck_assert_msg(strstr(buf, want), "no '%s' in\n%s", want, buf);
    free(buf);
    summary_free(&t);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

/* Two text runs: losses in nats per byte and bits per byte (train_loss / ln 2 by hand: ln 256
 * = 5.545177 nats is 8 bits, ln 4 is 2, ln 8 is 3), one accuracy, next-byte, and no row of
 * answer accuracy or of the steps to 50 / 90 / 99 % of it. */
START_TEST(test_text_rows) {
    static const char HEAD[] = "step,train_loss,val_loss,val_bpb,val_token_acc,val_answer_acc\n";
    char text[512];
    snprintf(text, sizeof text, "%s0,5.545177444479562,5.6,8.079,0.01,0.01\n"
             "100,1.3862943611198906,1.5,2.164,0.55,0.55\n", HEAD);
    tu_put_file(NULL, 0, tmp, "a", "loss.csv", text);
    snprintf(text, sizeof text, "%s0,5.545177444479562,5.6,8.079,0.01,0.01\n"
             "100,2.0794415416798357,2.2,3.17,0.4,0.4\n", HEAD);
    tu_put_file(NULL, 0, tmp, "b", "loss.csv", text);
    for (int i = 0; i < 2; i++)
        tu_put_file(NULL, 0, tmp, i ? "b" : "a", "config.ini", "[task]\nname = text\n");
    Run runs[2];
    load_runs(runs);
    Table t;
    ck_assert_int_eq(summary_build(&t, runs, 2), 0);
    static const struct {
        const char *label, *a, *b;
    } ROWS[] = {
        {"loss (nats/byte)", NULL, NULL},
        {"bits per byte (loss / ln 2; a uniform guess: 8)", NULL, NULL},
        {"train bpb @ step 0", "8.0000", "8.0000"},
        {"train bpb, final (step 100)", "2.0000", "3.0000"},
        {"val bpb, final (step 100)", "2.1640", "3.1700"},
        {"validation next-byte accuracy (%)", NULL, NULL},
        {"next-byte acc, final (step 100)", "55.0%", "40.0%"},
    };
    int at = 0;
    for (size_t k = 0; k < sizeof ROWS / sizeof *ROWS; k++) {
        while (at < t.n && strcmp(t.row[at].label, ROWS[k].label) != 0) at++;
        ck_assert_msg(at < t.n, "no row '%s' (in this order)", ROWS[k].label);
        ck_assert_int_eq(t.row[at].section, !ROWS[k].a);
        if (ROWS[k].a)
            ck_assert_msg(!strcmp(t.row[at].cell[0], ROWS[k].a) &&
                              !strcmp(t.row[at].cell[1], ROWS[k].b),
                          "row '%s': '%s' | '%s'", ROWS[k].label, t.row[at].cell[0],
                          t.row[at].cell[1]);
    }
    for (int r = 0; r < t.n; r++)
        ck_assert_msg(!strstr(t.row[r].label, "answer") && !strstr(t.row[r].label, "token"),
                      "row '%s' on a text page", t.row[r].label);
    summary_free(&t);
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
}
END_TEST

static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/scaledot_test_summary_XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

TU_MAIN_FIXTURE("summary", setup, teardown, test_rows_and_cells, test_print_layout,
                test_block_row_only_with_llama, test_text_rows, test_matmul_row_only_with_bf16);
