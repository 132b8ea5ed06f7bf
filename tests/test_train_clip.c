/* test_train_clip.c: what ./train logs around the update: loss.csv's lr column is the schedule
 * (linear warm-up, then cosine to optim.min_lr at the last step, computed here by hand), and its
 * grad_norm column and grad_norms.csv's global column are the norm before clipping; clipping
 * itself changes the run (a clip that did nothing would leave the losses as without it). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char tmp[200];

static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/scaledot_test_train_clip_XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

enum { STEPS = 24, WARMUP = 5, MAXROWS = 64 };
#define LR 0.2
#define MIN_LR 0.02

static void run(const char *name, const char *clip) {
    char args[1200];
    snprintf(args, sizeof args,
             "--set task.name=copy --set task.length=3 --set task.symbols=5 --set task.val_size=16 "
             "--set model.d_model=16 --set model.n_heads=2 --set train.steps=%d "
             "--set train.batch_size=4 --set train.eval_every=12 --set log.every=1 "
             "--set log.progress=0 --set run.threads=1 --set optim.lr=%g --set optim.min_lr=%g "
             "--set optim.name=sgd --set optim.warmup_steps=%d --set optim.schedule=cosine --set optim.grad_clip=%s "
             "--set run.dir=%s --set run.name=%s",
             STEPS, LR, MIN_LR, WARMUP, clip, tmp, name);
    ck_assert_int_eq(tu_run_train(tmp, args), 0);
}

/* Column `name` of every data row of the run's CSV file (NaN for empty fields); returns rows. */
static int column(const char *run_name, const char *file, const char *name, double *out) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s/%s", tmp, run_name, file);
    char *text = tu_read_file(path, NULL);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    int col = -1, c = 0;
    for (char *p = line, *q; p; p = q ? q + 1 : NULL, c++) {
        q = strchr(p, ',');
        size_t n = q ? (size_t)(q - p) : strlen(p);
        if (n == strlen(name) && strncmp(p, name, n) == 0) col = c;
    }
    ck_assert_msg(col >= 0, "%s has no column %s", path, name);
    int rows = 0;
    while ((line = strtok_r(NULL, "\n", &save)) && rows < MAXROWS) {
        const char *p = line;
        for (int i = 0; i < col && p; i++) p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
        out[rows++] = p && *p && *p != ',' ? strtod(p, NULL) : NAN;
    }
    free(text);
    return rows;
}

START_TEST(test_logged_lr_and_preclip_norm) {
    run("clip", "1e-3");
    run("free", "0");
    double lr[MAXROWS], norm[MAXROWS], gnorm[MAXROWS], free_norm[MAXROWS], loss[MAXROWS],
        free_loss[MAXROWS];
    int n = column("clip", "loss.csv", "lr", lr);
    ck_assert_int_eq(n, STEPS + 1); /* steps 0 .. STEPS, the last one without an update */
    column("clip", "loss.csv", "grad_norm", norm);
    column("clip", "loss.csv", "train_loss", loss);
    column("free", "loss.csv", "train_loss", free_loss);
    column("free", "loss.csv", "grad_norm", free_norm);
    ck_assert_int_eq(column("clip", "grad_norms.csv", "global", gnorm), STEPS);
    for (int s = 0; s < STEPS; s++) {
        double want = s < WARMUP ? LR * (s + 1) / WARMUP
                                 : MIN_LR + 0.5 * (LR - MIN_LR) *
                                                (1 + cos(3.141592653589793 * (s - WARMUP) / (STEPS - WARMUP - 1)));
        ck_assert_msg(fabs(lr[s] - want) <= 1e-5 * want, "step %d: logged lr %.9g, want %.9g", s,
                      lr[s], want);
        /* the clipped norm would be 1e-3; the real gradient of this model is O(1) */
        ck_assert_msg(norm[s] > 0.05 && fabs(gnorm[s] - norm[s]) <= 1e-5 * norm[s],
                      "step %d: logged norm %g (grad_norms.csv %g): after clipping?", s, norm[s],
                      gnorm[s]);
    }
    ck_assert_msg(fabs(lr[STEPS - 1] - MIN_LR) < 1e-9, "last step lr %g", lr[STEPS - 1]);
    /* step 0 is the same model in both runs: the same pre-clip norm */
    ck_assert_double_eq_tol(norm[0], free_norm[0], 1e-6 * norm[0]);
    /* SGD (AdamW would undo a constant rescaling): an update of length lr·1e-3 barely moves
     * the model; the unclipped run moves */
    ck_assert_msg(fabs(loss[STEPS - 1] - loss[0]) < 0.5 * fabs(free_loss[STEPS - 1] - free_loss[0]),
                  "clipped run moved as far as the free one: %g -> %g vs %g -> %g", loss[0],
                  loss[STEPS - 1], free_loss[0], free_loss[STEPS - 1]);
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("train_clip", setup, teardown, 60, test_logged_lr_and_preclip_norm);
