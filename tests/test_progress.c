/* test_progress.c: the heartbeat line (src/train/progress.c): every field, "-" for what is not
 * known (no ETA at step 0, no train loss at the end), the validation part only when measured;
 * end to end, one line per log.every steps, not only at evaluations. */
#include "train/progress.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_lines) {
    static const struct {
        ProgressRow row;
        const char *want;
    } cases[] = {
        {{0, 2000, 2.75, 12.25, 5203.4, NAN, 1, 2.8, 0, 0.0625, 0, NAN},
         "step     0/2000  train loss 2.7500     12.2 ms/step    5203 tok/s  ETA -       | val loss "
         "2.8000  answer acc   0.0%  token acc   6.2%\n"},
        {{20, 2000, 1.5, 3.0, 20000, 5.4, 0, NAN, NAN, NAN, 0, NAN},
         "step    20/2000  train loss 1.5000      3.0 ms/step   20000 tok/s  ETA 5s    \n"},
        {{100, 2000, 0.5, 3.0, 20000, 125, 0, NAN, NAN, NAN, 0, NAN},
         "step   100/2000  train loss 0.5000      3.0 ms/step   20000 tok/s  ETA 2m05s \n"},
        {{2000, 2000, NAN, NAN, NAN, 0, 1, 0.0027, 1, 0.999, 0, NAN},
         "step  2000/2000  train loss -             - ms/step       - tok/s  ETA 0s      | val loss "
         "0.0027  answer acc 100.0%  token acc  99.9%\n"},
        /* the text task: bits per byte instead of the answer accuracy (which is the token one) */
        {{40, 2000, 1.5, 3.0, 20000, 5.4, 1, 1.3862943611198906, 0.5, 0.5, 1, 2.0},
         "step    40/2000  train loss 1.5000      3.0 ms/step   20000 tok/s  ETA 5s      | val loss "
         "1.3863  bpb 2.0000  token acc  50.0%\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ck_assert_ptr_nonnull(f);
        progress_line(f, &cases[i].row);
        fclose(f);
        ck_assert_msg(strcmp(buf, cases[i].want) == 0, "case %zu:\n got  '%s'\n want '%s'", i, buf,
                      cases[i].want);
        free(buf);
    }
}
END_TEST

START_TEST(test_eta_format) {
    static const struct {
        double s;
        const char *want;
    } cases[] = {{NAN, "-"}, {-1, "-"}, {0, "0s"}, {59.4, "59s"}, {60, "1m00s"}, {3599, "59m59s"},
                 {3600, "1h00m"}, {7380, "2h03m"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        progress_format_eta(buf, sizeof buf, cases[i].s);
        ck_assert_msg(strcmp(buf, cases[i].want) == 0, "%g s: '%s', want '%s'", cases[i].s, buf,
                      cases[i].want);
    }
}
END_TEST

static int count_substr(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

START_TEST(test_train_prints_every_log_step) {
    char dir[256], path[300];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_test_progress_XXXXXX");
    /* 20 steps, a line every 5 (0, 5, 10, 15, 20), evaluations at 0, 10, 20 */
    ck_assert_int_eq(tu_run_train(dir, "--set task.name=copy --set task.length=3 --set task.symbols=6 "
                                       "--set task.val_size=32 --set model.d_model=16 --set model.n_heads=2 "
                                       "--set model.n_layers=1 --set train.batch_size=8 --set train.steps=20 "
                                       "--set log.every=5 --set train.eval_every=10 --set run.threads=1"),
                     0);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    char *out = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(out);
    ck_assert_msg(count_substr(out, " ms/step ") == 5, "%s", out);
    ck_assert_msg(count_substr(out, "| val loss") == 3, "%s", out);
    const char *first = strstr(out, "step     0/20 ");
    ck_assert_msg(first != NULL, "%s", out);
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(first, "\n"), first);
    ck_assert_msg(strstr(line, "ETA - "), "step 0 claims an ETA: %s", line);
    free(out);
    tu_remove_tree(dir);
}
END_TEST

TU_MAIN_TIMEOUT("progress", 60, test_lines, test_eta_format, test_train_prints_every_log_step);
