/* test_train_bf16.c: a run with model.matmul = bf16 learns as the float32 run of the same
 * configuration does.
 *
 * A small sort (4 symbols drawn from 8; d_model 32, 2 heads, 2 layers, batch 32, one thread)
 * trained by train_run twice, model.matmul = float32 and = bf16, everything else equal. The bf16
 * run must (1) really differ (its training losses are not the float32 run's: the key reaches the
 * model), (2) answer the validation set about as well at the end: token accuracy at most
 * MARGIN below the float32 run's, and above FLOOR, far from chance (1/8); (3) have lost about as
 * much: final validation loss at most LOSS_MARGIN nats above the float32 run's (an absolute band:
 * both end near 0 here, 0.0017 and 0.0020 in the -O3 build, 0.014 and 0.0020 in the ASan build,
 * whose other rounding of the float32 kernels takes the two runs along other paths, so a ratio
 * of two losses near zero would test noise). bf16 rounds each input of a product by 2^-8
 * relative at most, noise far below what changes what a model this size learns in a few hundred
 * steps; a kernel reading the wrong operands does not learn (planted: B's pair halves swapped,
 * token accuracy 0.074, validation loss about 2). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "train/train.h"
#include "testutil.h"

enum { STEPS = 400, EVAL_EVERY = 100, LOG_EVERY = 20 };
#define MARGIN 0.03    /* token accuracy: bf16 >= float32 - MARGIN */
#define FLOOR 0.80     /* and >= FLOOR */
#define LOSS_MARGIN 0.05 /* final validation loss: bf16 <= float32 + LOSS_MARGIN (nats) */

static char tmpdir[256];

static void sort_config(Config *c, const char *name, MatmulKind mm) {
    config_defaults(c);
    snprintf(c->run_name, sizeof c->run_name, "%s", name);
    snprintf(c->run_dir, sizeof c->run_dir, "%s", tmpdir);
    c->task = TASK_SORT;
    c->task_length = 4;
    c->task_symbols = 8;
    c->val_size = 256;
    c->d_model = 32;
    c->n_heads = 2;
    c->n_layers = 2;
    c->steps = STEPS;
    c->batch_size = 32;
    c->lr = 3e-3;
    c->warmup_steps = 20;
    c->eval_every = EVAL_EVERY;
    c->log_every = LOG_EVERY;
    c->progress = 0;
    c->threads = 1;
    c->matmul = mm;
}

/* Column col of loss.csv's last row that has it, and the whole train_loss column (col 1). */
typedef struct {
    double train_loss[STEPS / LOG_EVERY + 2];
    int rows;
    double val_loss, val_token_acc;
} Curve;

static Curve read_curve(const char *run) {
    char path[512], line[4096];
    snprintf(path, sizeof path, "%s/%s/loss.csv", tmpdir, run);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    Curve cv;
    memset(&cv, 0, sizeof cv);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* step,train_loss,val_loss,val_token_acc */
    ck_assert_msg(strncmp(line, "step,train_loss,val_loss,val_token_acc,", 39) == 0, "%s", line);
    while (fgets(line, sizeof line, f) && cv.rows < (int)(sizeof cv.train_loss / sizeof(double))) {
        double v[4] = {NAN, NAN, NAN, NAN};
        char *p = line;
        for (int k = 0; k < 4; k++) {
            v[k] = (*p == ',' || *p == '\n') ? NAN : strtod(p, NULL);
            p = strchr(p, ',');
            if (!p) break;
            p++;
        }
        cv.train_loss[cv.rows++] = v[1];
        if (!isnan(v[2])) {
            cv.val_loss = v[2];
            cv.val_token_acc = v[3];
        }
    }
    fclose(f);
    return cv;
}

START_TEST(test_bf16_learns_as_float32) {
    tu_make_tmp(tmpdir, sizeof tmpdir, "/tmp/scaledot_test_train_bf16_XXXXXX");
    Config c;
    sort_config(&c, "f32", MATMUL_FLOAT32);
    ck_assert_int_eq(train_run(&c), EXIT_OK);
    sort_config(&c, "bf16", MATMUL_BF16);
    ck_assert_int_eq(train_run(&c), EXIT_OK);
    Curve f = read_curve("f32"), b = read_curve("bf16");
    printf("float32: val loss %.4f, token accuracy %.3f; bf16: val loss %.4f, token accuracy "
           "%.3f\n",
           f.val_loss, f.val_token_acc, b.val_loss, b.val_token_acc);
    fflush(stdout);
    ck_assert_int_eq(f.rows, b.rows);
    /* step 0's loss comes from the same weights through other products: it differs already */
    int differ = 0;
    for (int i = 0; i < f.rows; i++) differ += f.train_loss[i] != b.train_loss[i];
    ck_assert_msg(differ > f.rows / 2, "bf16 training losses equal float32's in %d of %d rows",
                  f.rows - differ, f.rows);
    ck_assert_msg(f.val_token_acc >= FLOOR, "the float32 run itself did not learn: %.3f",
                  f.val_token_acc);
    ck_assert_msg(b.val_token_acc >= f.val_token_acc - MARGIN && b.val_token_acc >= FLOOR,
                  "bf16 token accuracy %.3f, float32 %.3f (margin %.2f, floor %.2f)",
                  b.val_token_acc, f.val_token_acc, MARGIN, FLOOR);
    ck_assert_msg(b.val_loss <= f.val_loss + LOSS_MARGIN, "bf16 val loss %.4f > %.4f + %.2f",
                  b.val_loss, f.val_loss, LOSS_MARGIN);
    tu_remove_tree(tmpdir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("train_bf16");
    TCase *tc = tcase_create("run");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_bf16_learns_as_float32);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
