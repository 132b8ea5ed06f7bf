/* test_prompt.c: ./train --eval RUN --prompt (src/train/prompt.c), on a tiny trained copy run:
 * the answer to a prompt equals a greedy decoding done here, independently, from the checkpoint;
 * symbols outside the alphabet and prompts of the wrong length are refused with exit code 2.
 * (--eval's listing of wrong answers first is tested in test_evaluate.c, on evaluate.c itself.) */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "tasks/tasks.h"
#include "testutil.h"
#include "tinyrun.h"

static char tmpdir[256];

static void train_tiny(void) {
    tiny_train(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_prompt_XXXXXX", "copy");
}

/* Greedy answer of the checkpoint to the copy prompt p[0..2], done here: the sequence is
 * p0 p1 p2 SEP a0 a1, position 3 + i predicts answer token i. */
static void greedy_here(const int *p, int *ans) {
    Model m;
    Task t;
    tiny_load(tmpdir, &m, &t);
    int tokens[6] = {p[0], p[1], p[2], t.n_symbols /* SEP */, 0, 0}, targets[6] = {0};
    float mask[6] = {0, 0, 0, 1, 1, 1};
    int V = m.cfg.vocab_size;
    for (int i = 0; i < 3; i++) {
        model_forward(&m, tokens, targets, mask, 1, 6);
        const real *z = m.logits + (size_t)(3 + i) * V;
        int best = 0;
        for (int v = 1; v < V; v++)
            if (z[v] > z[best]) best = v;
        ans[i] = best;
        if (4 + i < 6) tokens[4 + i] = best;
    }
    model_free(&m);
    task_free(&t);
}

START_TEST(test_prompt_answer_and_errors) {
    train_tiny();
    static const int prompts[][3] = {{5, 0, 3}, {1, 1, 1}, {2, 4, 0}};
    for (size_t k = 0; k < sizeof prompts / sizeof prompts[0]; k++) {
        char args[128], want[128];
        const int *p = prompts[k];
        snprintf(args, sizeof args, "--eval runs/t --prompt \"%d %d %d\"", p[0], p[1], p[2]);
        ck_assert_int_eq(tu_run_train(tmpdir, args), 0);
        int ans[3];
        greedy_here(p, ans);
        snprintf(want, sizeof want, "prompt: %d %d %d   model: %d %d %d\n", p[0], p[1], p[2], ans[0],
                 ans[1], ans[2]);
        ck_assert_msg(tu_train_output_contains(tmpdir, want), "case %zu: want '%s'", k, want);
    }
    /* a trailing separator is the user's way of saying "answer now" */
    ck_assert_int_eq(tu_run_train(tmpdir, "--eval runs/t --prompt \"5 0 3 |\""), 0);
    ck_assert(tu_train_output_contains(tmpdir, "prompt: 5 0 3   model:"));
    /* each at the argument at fault, --prompt's value (argument 4) or --top-k's, whichever
     * check finds it: the command's (the length), the evaluation's or the generation's */
    static const struct {
        const char *args, *says;
    } bad[] = {
        {"--eval runs/t --prompt \"5 0 6\"",
         "error: --prompt (argument 4): '6' (symbol 3) is not in the task's alphabet (0 .. 5)"},
        {"--eval runs/t --prompt \"5 x 1\"", "error: --prompt (argument 4): 'x' (symbol 2)"},
        {"--eval runs/t --prompt \"5 0\"",
         "error: --prompt (argument 4): 2 symbols given, but a copy prompt of this run has 3 "
         "(task.length = 3)"},
        {"--eval runs/t --prompt \"\"", "error: --prompt (argument 4): no symbols"},
        {"--eval runs/t --prompt \"5 x\" --generate 2",
         "error: --prompt (argument 4): 'x' (token 2) is not in the task's vocabulary"},
        {"--eval runs/t --prompt \"\" --generate 2", "error: --prompt (argument 4): no symbols given\n"},
        {"--eval runs/t --generate 2 --prompt \"5 0\" --top-k 99",
         "error: --top-k (argument 8): 99 is larger than the vocabulary ("},
        {"--eval runs/t --prompt", "error: --prompt (argument 3): needs"},
        {"--prompt \"1 2 3\"", "error: --prompt (argument 2): goes with --eval"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_msg(tu_run_train(tmpdir, bad[k].args) == 2, "case %zu: exit code", k);
        ck_assert_msg(tu_train_output_contains(tmpdir, bad[k].says), "case %zu: no '%s'", k, bad[k].says);
    }
    tu_remove_tree(tmpdir);
}
END_TEST

/* A file task's prompts vary in length: a prompt is laid out like any example of its length,
 * validation or training (here the one validation example has a 2-symbol prompt, so the 3-symbol
 * prompts are training examples only), and a length no example has is refused listing the
 * lengths there are; "1 symbol", singular. */
START_TEST(test_prompt_file_task_lengths) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_prompt_XXXXXX");
    char text[2048] = "";
    static const char *const SYM[] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) /* 25 two-symbol prompts: "a b | b a" */
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s %s | %s %s\n", SYM[i],
                     SYM[j], SYM[j], SYM[i]);
    strcat(text, "a b c | c b a\nc d e | e d c\n");
    char path[300];
    snprintf(path, sizeof path, "%s/ex.txt", tmpdir);
    tu_write_file(path, text);
    ck_assert_int_eq(tu_run_train(tmpdir, "--set task.name=file --set task.file=ex.txt "
                                          "--set task.val_size=1 --set model.d_model=16 "
                                          "--set model.n_heads=2 --set model.n_layers=1 "
                                          "--set train.batch_size=8 --set train.steps=5 "
                                          "--set log.progress=0 --set run.threads=1 "
                                          "--set run.name=f"),
                     0);
    /* the one validation example: a 2-symbol prompt (the file's 27 lines hold 2 of 3 symbols) */
    ck_assert_int_eq(tu_run_train(tmpdir, "--eval runs/f"), 0);
    ck_assert(tu_train_output_contains(tmpdir, " | "));
    ck_assert_msg(!tu_train_output_contains(tmpdir, "a b c |") &&
                      !tu_train_output_contains(tmpdir, "c d e |"),
                  "the 3-symbol examples should be training examples for this test");
    ck_assert_int_eq(tu_run_train(tmpdir, "--eval runs/f --prompt \"e d c\""), 0);
    ck_assert(tu_train_output_contains(tmpdir, "prompt: e d c   model:"));
    ck_assert_int_eq(tu_run_train(tmpdir, "--eval runs/f --prompt \"b a\""), 0);
    ck_assert(tu_train_output_contains(tmpdir, "prompt: b a   model:"));
    static const struct {
        const char *prompt, *says;
    } bad[] = {
        {"a", "error: --prompt (argument 4): 1 symbol, but the prompts of this task have 2 or 3\n"},
        {"a b c d |",
         "error: --prompt (argument 4): 4 symbols, but the prompts of this task have 2 or 3\n"},
        {"a z", "error: --prompt (argument 4): 'z' (symbol 2) is not in the task's alphabet (a b "},
        {"a b c d e f g h i j k l", "error: --prompt (argument 4): more than "},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char args[128];
        snprintf(args, sizeof args, "--eval runs/f --prompt \"%s\"", bad[k].prompt);
        ck_assert_msg(tu_run_train(tmpdir, args) == 2, "case %zu: exit code", k);
        ck_assert_msg(tu_train_output_contains(tmpdir, bad[k].says), "case %zu: no '%s'", k,
                      bad[k].says);
    }
    tu_remove_tree(tmpdir);
}
END_TEST

TU_MAIN_TIMEOUT("prompt", 120, test_prompt_answer_and_errors, test_prompt_file_task_lengths);
