/* test_lr_map.c: a config placed in its measured regime (src/train/lr_map_regime.c, lr_map.c,
 * lr_map_report.c): the thresholds measured, interpolated, and extrapolated with one fitted
 * exponent (hand arithmetic in the comments); the regime chosen by its settings and the
 * differences from the nearest named; the verdicts the published runs give (the cases);
 * the verdict line; ./train --where end to end (the verdict first, nothing written, the errors of
 * training), also from configs/ (the map's corpus read from the program's checkout,
 * train/corpus_match.c); when a run prints its lr map line; and the line init_check.txt gets. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "configcheck.h"
#include "testutil.h"
#include "lrmapcheck.h"
#include "train/lr_map.h"

/* A made-up regime 0 of three widths per arm, the lr map's numbers for "none"
 * (docs/attention_fixes.md), and arms with one width, with no failure, and one lr only. */
#define NONE "attention.scale=none"
static const LrMapCell MAP[] = {
    {0, NONE, 64, 8e-3, 1.6e-2, "8e-3", "1.6e-2", 2e-3, 6.4e-2, 6, 3},
    {0, NONE, 128, 2e-3, 4e-3, "2e-3", "4e-3", 1e-3, 3.2e-2, 6, 3},
    {0, NONE, 256, 1e-3, 2e-3, "1e-3", "2e-3", 2.5e-4, 2e-3, 4, 3},
    {0, NONE, 512, 5e-4, 0, "5e-4", "", 5e-4, 5e-4, 1, 3}, /* no failure: no bracket */
    {0, "one", 64, 1e-1, 2e-1, "1e-1", "2e-1", 1e-1, 2e-1, 2, 2},
    /* a wider bracket at 64 (8e-3 learnt, 3.2e-2 failed: 8e-3 and 1.6e-2 untried) */
    {0, "wide", 64, 8e-3, 3.2e-2, "8e-3", "3.2e-2", 2e-3, 6.4e-2, 6, 3},
    {0, "wide", 128, 2e-3, 4e-3, "2e-3", "4e-3", 1e-3, 3.2e-2, 6, 3},
    {0, "wide", 256, 1e-3, 2e-3, "1e-3", "2e-3", 2.5e-4, 2e-3, 4, 3},
    {1, NONE, 64, 1e-9, 2e-9, "1e-9", "2e-9", 1e-9, 2e-9, 2, 2}, /* another regime */
    /* a width inside whose runs stop at 1e-3, none failed (lr_map_above) */
    {0, "mid", 64, 8e-3, 1.6e-2, "8e-3", "1.6e-2", 2e-3, 6.4e-2, 6, 3},
    {0, "mid", 128, 1e-3, 0, "1e-3", "", 2.5e-4, 1e-3, 3, 2},
    {0, "mid", 256, 1e-3, 2e-3, "1e-3", "2e-3", 2.5e-4, 2e-3, 4, 3},
    /* a widest width whose runs learnt above everything the others carry to it */
    {0, "ahead", 64, 8e-3, 1.6e-2, "8e-3", "1.6e-2", 2e-3, 6.4e-2, 6, 3},
    {0, "ahead", 128, 2e-3, 4e-3, "2e-3", "4e-3", 1e-3, 3.2e-2, 6, 3},
    {0, "ahead", 256, 4e-3, 0, "4e-3", "", 1e-3, 4e-3, 3, 2},
};
#define N_MAP CC_COUNT(MAP)

/* The fit of NONE: the brackets' middles sqrt(8e-3 * 1.6e-2) = 8e-3 * sqrt 2, 2e-3 * sqrt 2,
 * 1e-3 * sqrt 2 at log2 d_model 6, 7, 8: log2 steps -2 and -1, so the least-squares slope is
 * (y8 - y6) / 2 = -3 / 2 = -1.5 (the last segment alone: -1); 512 brackets nothing. */
START_TEST(test_fit) {
    LrMapFit f = lr_map_fit(MAP, N_MAP, 0, NONE);
    ck_assert_int_eq(f.n_widths, 3);
    ck_assert_double_eq_tol(f.slope, -1.5, 1e-12);
    ck_assert_int_eq(f.w_min, 64);
    ck_assert_int_eq(f.w_max, 256);
    /* "wide": the middles are 1.6e-2 = 2^-5.97, 2e-3 * sqrt 2 and 1e-3 * sqrt 2: from 64 to
     * 256 log2(1.414e-3 / 1.6e-2) = -3.5, so -1.75 (the largest learnt alone: -1.5) */
    f = lr_map_fit(MAP, N_MAP, 0, "wide");
    ck_assert_int_eq(f.n_widths, 3);
    ck_assert_double_eq_tol(f.slope, -1.75, 1e-12);
    ck_assert_int_eq(lr_map_fit(MAP, N_MAP, 0, "one").n_widths, 0);
    ck_assert_int_eq(lr_map_fit(MAP, N_MAP, 1, "one").n_widths, 0);
}
END_TEST

static const struct {
    const char *arm;
    int d_model, failed;
    LrMapKind kind;
    double lr;
    int w_lo, w_hi;
} ESTIMATES[] = {
    /* a measured width: its own cell, on the grid or not */
    {NONE, 128, 0, LR_MAP_MEASURED, 2e-3, 128, 128},
    {NONE, 512, 1, LR_MAP_MEASURED, 0, 512, 512},
    /* between 64 and 128 at 96: log2 1.5 = 0.585 of the way, 8e-3 * 4^-0.585 = 8e-3 / 2.25 */
    {NONE, 96, 0, LR_MAP_INTERPOLATED, 8e-3 / 2.25, 64, 128},
    /* beyond 512, learnt: from 512 (5e-4) with the fitted -1.5: 1024 gives 5e-4 / 2^1.5 */
    {NONE, 1024, 0, LR_MAP_EXTRAPOLATED, 5e-4 / 2.8284271247461903, 512, 512},
    /* failed: 512 has none, so from 256 (2e-3): 1024 is two doublings, 2e-3 / 2^3 = 2.5e-4 */
    {NONE, 1024, 1, LR_MAP_EXTRAPOLATED, 2.5e-4, 256, 256},
    /* below the smallest: 32 from 64 (8e-3): 8e-3 * 2^1.5 */
    {NONE, 32, 0, LR_MAP_EXTRAPOLATED, 8e-3 * 2.8284271247461903, 64, 64},
    /* one width, no fit: not known */
    {"one", 128, 0, LR_MAP_UNKNOWN, 0, 0, 0},
    /* an arm the map lacks */
    {"attention.scale=learned", 64, 0, LR_MAP_UNKNOWN, 0, 0, 0},
};

START_TEST(test_estimate) {
    int i = _i;
    LrMapValue v = lr_map_estimate(MAP, N_MAP, 0, ESTIMATES[i].arm, ESTIMATES[i].d_model,
                                   ESTIMATES[i].failed);
    ck_assert_msg(v.kind == ESTIMATES[i].kind, "row %d: kind %d, want %d", i, v.kind,
                  ESTIMATES[i].kind);
    ck_assert_msg(fabs(v.lr - ESTIMATES[i].lr) <= 1e-12 * ESTIMATES[i].lr,
                  "row %d: lr %.10g, want %.10g", i, v.lr, ESTIMATES[i].lr);
    if (v.kind != LR_MAP_UNKNOWN) {
        ck_assert_int_eq(v.w_lo, ESTIMATES[i].w_lo);
        ck_assert_int_eq(v.w_hi, ESTIMATES[i].w_hi);
    }
}
END_TEST

/* lr_map_above: an lr above every lr of a measured width, none of which failed.
 * NONE at 512 (learnt 5e-4): carried from 256 with the fitted -1.5 (512 brackets nothing, so it
 * is left out of the fit either way), learnt 1e-3 / 2^1.5 = 3.5355e-4, below 512's own 5e-4: its
 * own wins (MEASURED); failed 2e-3 / 2^1.5 = 7.0711e-4, above 5e-4: kept. So 6e-4 is on the edge,
 * 7.0711e-4 and 1e-3 fail.
 * "mid" at 128 (learnt 1e-3): between 64 and 256, halfway in log2 d_model: learnt
 * sqrt(8e-3 * 1e-3) = 2.8284e-3, failed sqrt(1.6e-2 * 2e-3) = 5.6569e-3 (128's own cell left out:
 * with it, its own 1e-3 and "none failed"). 2e-3 learns, 4e-3 is on the edge, 8e-3 fails.
 * "ahead" at 256 (learnt 4e-3): its fit over 64 and 128 is log2(2e-3 / 8e-3) = -2, so from 128
 * learnt 2e-3 / 4 = 5e-4 and failed 4e-3 / 4 = 1e-3, both below 4e-3, which its own runs learnt
 * at: the failed threshold is not used, and 8e-3 stays not known. */
static const struct {
    const char *arm;
    int d_model;
    double lr;
    LrVerdict verdict;
    LrMapKind learnt_kind;
    double learnt;
    LrMapKind failed_kind;
    double failed;
} ABOVE[] = {
    {NONE, 512, 6e-4, LR_VERDICT_EDGE, LR_MAP_MEASURED, 5e-4, LR_MAP_EXTRAPOLATED, 2e-3 / 2.8284271247461903},
    {NONE, 512, 2e-3 / 2.8284271247461903, LR_VERDICT_FAILS, LR_MAP_MEASURED, 5e-4, LR_MAP_EXTRAPOLATED,
     2e-3 / 2.8284271247461903},
    {NONE, 512, 1e-3, LR_VERDICT_FAILS, LR_MAP_MEASURED, 5e-4, LR_MAP_EXTRAPOLATED, 2e-3 / 2.8284271247461903},
    {"mid", 128, 2e-3, LR_VERDICT_LEARNS, LR_MAP_INTERPOLATED, 2.8284271247461903e-3, LR_MAP_INTERPOLATED,
     5.6568542494923802e-3},
    {"mid", 128, 4e-3, LR_VERDICT_EDGE, LR_MAP_INTERPOLATED, 2.8284271247461903e-3, LR_MAP_INTERPOLATED,
     5.6568542494923802e-3},
    {"mid", 128, 8e-3, LR_VERDICT_FAILS, LR_MAP_INTERPOLATED, 2.8284271247461903e-3, LR_MAP_INTERPOLATED,
     5.6568542494923802e-3},
    {"ahead", 256, 8e-3, LR_VERDICT_UNKNOWN, LR_MAP_MEASURED, 4e-3, LR_MAP_UNKNOWN, 0},
};

START_TEST(test_above) {
    int i = _i;
    const LrMapCell *t = NULL;
    for (int k = 0; k < N_MAP; k++)
        if (MAP[k].regime == 0 && strcmp(MAP[k].arm, ABOVE[i].arm) == 0 &&
            MAP[k].d_model == ABOVE[i].d_model)
            t = &MAP[k];
    ck_assert_ptr_nonnull(t);
    LrMapValue L, F;
    LrVerdict v = lr_map_above(MAP, N_MAP, t, ABOVE[i].lr, &L, &F);
    ck_assert_msg(v == ABOVE[i].verdict, "row %d: verdict %d, want %d", i, v, ABOVE[i].verdict);
    ck_assert_msg(L.kind == ABOVE[i].learnt_kind, "row %d: learnt kind %d", i, L.kind);
    ck_assert_msg(fabs(L.lr - ABOVE[i].learnt) <= 1e-7 * ABOVE[i].learnt, "row %d: learnt %.8g", i,
                  L.lr);
    ck_assert_msg(F.kind == ABOVE[i].failed_kind, "row %d: failed kind %d", i, F.kind);
    ck_assert_msg(fabs(F.lr - ABOVE[i].failed) <= 1e-7 * ABOVE[i].failed, "row %d: failed %.8g", i,
                  F.lr);
}
END_TEST

/* lr_map_behind_best over made-up runs of regime 0 at d_model 64, val_loss in nats per byte: arm
 * "a" at lr 1e-3 ended at 1.0 and 1.2 (mean 1.1; a third without the column is left out), arm
 * "b" at 2e-3 at 0.9, the best run that learnt; a run that did not learn at 0.5 (diverged: no
 * best), another width's 0.1 and another regime's 0.2 are not the width's best. So arm a is
 * (1.1 - 0.9) / ln 2 = 0.2 / 0.693147 = 0.288539 bits per byte behind, arm b 0; an lr without runs,
 * and a width where none learnt, give -1. */
START_TEST(test_behind_best) {
    static const LrMapRun RUNS[] = {
        {0, "s", "a1", 64, 64, "a", 1e-3, "1e-3", 1, 1, 1.0, -1},
        {0, "s", "a2", 64, 64, "a", 1e-3, "1e-3", 2, 0, 1.2, -1},
        {0, "s", "a3", 64, 64, "a", 1e-3, "1e-3", 3, 0, -1, -1},
        {0, "s", "b1", 64, 64, "b", 2e-3, "2e-3", 1, 1, 0.9, -1},
        {0, "s", "c1", 64, 64, "b", 4e-3, "4e-3", 1, 0, 0.5, -1},
        {0, "s", "w1", 128, 64, "a", 1e-3, "1e-3", 1, 0, 0.1, -1},
        {1, "s", "r1", 64, 64, "a", 1e-3, "1e-3", 1, 1, 0.2, -1},
        /* a diverged run among two (its val_loss as a diverged sweep row holds it) */
        {0, "s", "d1", 64, 64, "d", 1e-3, "1e-3", 1, 0, 1.3, -1},
        {0, "s", "d2", 64, 64, "d", 1e-3, "1e-3", 2, 0, 4.91991e21, -1},
        /* just worse than uniform (ln 256 = 5.545 nats) and just better */
        {0, "s", "u1", 64, 64, "u", 1e-3, "1e-3", 1, 0, 5.55, -1},
        {0, "s", "v1", 64, 64, "v", 1e-3, "1e-3", 1, 0, 5.54, -1},
    };
    const int n = CC_COUNT(RUNS);
    ck_assert_double_eq_tol(lr_map_behind_best(RUNS, n, 0, "a", 64, 1e-3), 0.288539008, 1e-8);
    ck_assert_double_eq_tol(lr_map_behind_best(RUNS, n, 0, "b", 64, 2e-3), 0, 1e-12);
    ck_assert_double_eq(lr_map_behind_best(RUNS, n, 0, "a", 64, 2e-3), -1);
    ck_assert_double_eq(lr_map_behind_best(RUNS, n, 0, "a", 128, 1e-3), -1);
    ck_assert_double_eq(lr_map_behind_best(RUNS, n, 0, "d", 64, 1e-3), -1);
    ck_assert_double_eq(lr_map_behind_best(RUNS, n, 0, "u", 64, 1e-3), -1);
    /* (5.54 - 0.9) / ln 2, the best 0.9 (b1) */
    ck_assert_double_eq_tol(lr_map_behind_best(RUNS, n, 0, "v", 64, 1e-3), 6.694105, 1e-5);
}
END_TEST

/* A config: the defaults, then the --set style assignments (NULL-terminated). */
static void config_of(Config *c, const char *const *sets) {
    config_defaults(c);
    for (; *sets; sets++) ck_assert_msg(config_set(c, *sets, 1) == 0, "%s", *sets);
    ck_assert_int_eq(config_validate(c), 0);
}

static char *verdict_of(const LrPlacement *p);
static int report_has_line(const Config *c, const char *line);

/* optim.lr = lr and optim.min_lr = lr / 10, as the text map's runs decayed (text_map.sh) */
static void set_text_lr(Config *c, double lr) {
    char set[64];
    snprintf(set, sizeof set, "optim.lr=%.6g", lr);
    ck_assert_int_eq(config_set(c, set, 0), 0);
    snprintf(set, sizeof set, "optim.min_lr=%.6g", lr / 10);
    ck_assert_int_eq(config_set(c, set, 0), 0);
}

/* Places c and fails the test unless its verdict line is want. */
static void assert_verdict(const Config *c, const char *want) {
    LrPlacement p;
    ck_assert_int_eq(lmc_place(c, &p), 0);
    char *v = verdict_of(&p);
    ck_assert_str_eq(v, want);
    free(v);
}

static char *verdict_of(const LrPlacement *p) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    lr_map_verdict(f, p, "verdict: ");
    fclose(f);
    size_t n = strlen(buf);
    ck_assert_msg(n > 0 && buf[n - 1] == '\n' && !memchr(buf, '\n', n - 1), "not one line: %s", buf);
    return buf;
}

/* the lr map's regime: configs/scaled.ini's sort (2000 steps, batch 64 ...) with AdamW's defaults */
#define SORT "optim.lr=2e-3", "task.name=sort", "task.length=8", "task.symbols=16", "task.val_size=512", \
    "model.n_layers=2", "optim.warmup_steps=100", "optim.schedule=cosine", "train.steps=2000", \
    "train.batch_size=64", "train.eval_every=100"
/* the users' recipe (experiments/user_recipe.sh) */
#define USERS "init.scheme=gpt2", "optim.lr=6e-4", "optim.beta2=0.95", "optim.weight_decay=0.1", \
    "optim.grad_clip=1", "optim.min_lr=6e-5"

/* Published cases, each against the runs named: the regime, what the verdict rests on, the
 * verdict, and a phrase of the line. */
static const struct {
    const char *sets[8];
    const char *regime;
    LrBasis basis;
    LrVerdict verdict;
    const char *phrase;
} CASES[] = {
    /* configs/scaled.ini: results/init_width/d64, fan_in scaled at 2e-3, 3 of 3 learnt */
    {{"init.scheme=fan_in", "attention.scale=sqrt_dk", "model.d_model=64", "model.n_heads=1"},
     "sort_lr_map", LR_BASIS_RUNS, LR_VERDICT_LEARNS,
     "verdict: learns: 3 of 3 runs at its width, arm and lr learnt (d_model 64, lr 2e-3); regime "
     "sort_lr_map\n"},
    /* the contradiction: d_model 512, GPT-2 init, 2e-3, scaled: results/init_width/d512*
     * hold three runs at 99.8 / 100 / 100 % */
    {{"init.scheme=gpt2", "attention.scale=sqrt_dk", "model.d_model=512", "model.n_heads=8"},
     "sort_lr_map", LR_BASIS_RUNS, LR_VERDICT_LEARNS, "learns: 3 of 3 runs"},
    /* unscaled there: 13.9 / 10.0 / 4.5 % */
    {{"init.scheme=gpt2", "attention.scale=none", "model.d_model=512", "model.n_heads=8"},
     "sort_lr_map", LR_BASIS_RUNS, LR_VERDICT_FAILS, "fails: 0 of 3 runs"},
    /* d_model 256 unscaled at 2e-3: lr_width's 3 and init_width's 3 seeds, all failed */
    {{"init.scheme=gpt2", "attention.scale=none", "model.d_model=256", "model.n_heads=4"},
     "sort_lr_map", LR_BASIS_RUNS, LR_VERDICT_FAILS, "fails: 0 of 6 runs"},
    /* a grid lr of the width not trained at: 3e-3 between 2e-3 (learnt) and 4e-3 (failed) at 128 */
    {{"init.scheme=gpt2", "attention.scale=none", "model.d_model=128", "model.n_heads=2",
      "optim.lr=3e-3"},
     "sort_lr_map", LR_BASIS_WIDTH, LR_VERDICT_EDGE,
     "on the edge: lr 3e-3 is between the largest lr that learnt (2e-3) and the smallest at which "
     "a run failed (4e-3), measured at this width"},
    /* below the lrs measured at 64 (2e-3 / 1e-6 = 2^10.97) */
    {{"init.scheme=gpt2", "attention.scale=none", "model.d_model=64", "model.n_heads=1",
      "optim.lr=1e-6"},
     "sort_lr_map", LR_BASIS_WIDTH, LR_VERDICT_UNKNOWN,
     "not known: lr 1e-6 is 11.0 factors of 2 below the smallest lr measured at this width (2e-3)"},
    /* interpolated: 192 between the unscaled 128 (2e-3) and 256 (1e-3), log2 1.5 = 0.585 of the
     * way, one halving per doubling: 2e-3 / 1.5 = 1.33e-3; 1e-3 is log2 0.75 = -0.415 below */
    {{"init.scheme=gpt2", "attention.scale=none", "model.d_model=192", "model.n_heads=3",
      "optim.lr=1e-3"},
     "sort_lr_map", LR_BASIS_INTERPOLATED, LR_VERDICT_LEARNS,
     "learns: lr 1e-3 is 0.4 factors of 2 below the estimated largest lr that learnt (1.3e-3), "
     "interpolated between d_model 128 and 256"},
    /* extrapolated: scaled GPT-2 init at 1024 and 6e-4: learnt from 512 (2e-3) with the fitted
     * -1.5 (64-256: 3.2e-2, 1.6e-2, 4e-3 learnt, each failing one step up): 2e-3 / 2^1.5 =
     * 7.07e-4, which 6e-4 is below; but the arm was measured at no lr below 1e-3 at any width, so
     * 6e-4 (log2(1e-3 / 6e-4) = 0.74 factors of 2 below it) is not known: a fitted line says
     * nothing of too low an lr */
    {{"init.scheme=gpt2", "attention.scale=sqrt_dk", "model.d_model=1024", "model.n_heads=16",
      "optim.lr=6e-4"},
     "sort_lr_map", LR_BASIS_EXTRAPOLATED, LR_VERDICT_UNKNOWN,
     "not known: lr 6e-4 is 0.7 factors of 2 below the smallest lr measured at any width of its "
     "arm (1e-3): too low an lr can fail to learn in 2000 steps, extrapolated from d_model 512 "
     "with the exponent -1.50 fitted over d_model 64-256"},
    /* extrapolated and learns: 768 at 1e-3: 2e-3 (512) * 1.5^-1.5 = 1.09e-3, log2(1.09) = 0.12 */
    {{"init.scheme=gpt2", "attention.scale=sqrt_dk", "model.d_model=768", "model.n_heads=12",
      "optim.lr=1e-3"},
     "sort_lr_map", LR_BASIS_EXTRAPOLATED, LR_VERDICT_LEARNS,
     "learns: lr 1e-3 is 0.1 factors of 2 below the estimated largest lr that learnt (1.1e-3), "
     "extrapolated from d_model 512 with the exponent -1.50 fitted over d_model 64-256"},
    /* far below every lr measured, between widths (issue: 'learns' at 1e-30 was said) */
    {{"init.scheme=gpt2", "attention.scale=sqrt_dk", "model.d_model=192", "model.n_heads=3",
      "optim.lr=1e-30"},
     "sort_lr_map", LR_BASIS_INTERPOLATED, LR_VERDICT_UNKNOWN,
     "not known: lr 1e-30 is 89.7 factors of 2 below the smallest lr measured at any width of its "
     "arm (1e-3)"},
    /* 768 at 2e-3: failed from 256 (8e-3) * 3^-1.5 = 1.54e-3 <= 2e-3 */
    {{"init.scheme=gpt2", "attention.scale=sqrt_dk", "model.d_model=768", "model.n_heads=12"},
     "sort_lr_map", LR_BASIS_EXTRAPOLATED, LR_VERDICT_FAILS,
     "at or above the estimated smallest lr at which a run failed (1.5e-3)"},
    /* fan_in scaled, one lr: 384 between 256 (learnt 3/3) and 512 (92.8 / 76.4 / 79.9 %):
     * log2(512/384) = 0.415 < log2(384/256) = 0.585, so 512's */
    {{"init.scheme=fan_in", "attention.scale=sqrt_dk", "model.d_model=384", "model.n_heads=6"},
     "sort_lr_map", LR_BASIS_NEIGHBOURS, LR_VERDICT_FAILS,
     "d_model 256: learns (3 of 3 runs learnt), d_model 512: fails (0 of 3 runs learnt): the nearer"},
};

/* Places the config of sets and checks its regime, basis, verdict and a phrase of its line. */
static void check_case(const char *const *sets, const char *regime, LrBasis basis,
                       LrVerdict verdict, const char *phrase) {
    Config c;
    config_of(&c, sets);
    LrPlacement p;
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_msg(p.regime >= 0, "%s: in no regime (%s)", phrase, p.n_diffs ? p.diffs[0] : "");
    ck_assert_str_eq(lr_map_regimes[p.regime].id, regime);
    ck_assert_int_eq(p.basis, basis);
    ck_assert_int_eq(p.verdict, verdict);
    char *v = verdict_of(&p);
    ck_assert_msg(strstr(v, phrase), "%s\nwant %s", v, phrase);
    free(v);
}

START_TEST(test_cases) {
    int i = _i;
    const char *sets[24];
    int n = 0;
    static const char *const sort[] = {SORT};
    for (int k = 0; k < CC_COUNT(sort); k++) sets[n++] = sort[k];
    for (int k = 0; k < 8 && CASES[i].sets[k]; k++) sets[n++] = CASES[i].sets[k];
    sets[n] = NULL;
    check_case(sets, CASES[i].regime, CASES[i].basis, CASES[i].verdict, CASES[i].phrase);
}
END_TEST

/* The users' recipe (results/user_recipe, lr 6e-4 only): the review's d_model 320 with 5 heads
 * lies between 256 and 512; nearer 256 in log2 (0.32 against 0.68). Unscaled GPT-2 init: 256 is
 * split (98.8 / 100 / 99.8 %), 512 failed (50.6 / 54.7 / 48.8 %); scaled: both learnt. Beyond
 * 768 no exponent is fitted (one lr brackets nothing): the nearest width's runs. */
static const struct {
    const char *scale, *init, *d_model, *n_heads;
    LrBasis basis;
    LrVerdict verdict;
    const char *phrase;
} USERS_CASES[] = {
    {"none", "gpt2", "320", "5", LR_BASIS_NEIGHBOURS, LR_VERDICT_SPLIT,
     "verdict: split: not measured at d_model 320; at lr 6e-4, d_model 256: split (2 of 3 runs "
     "learnt), d_model 512: fails (0 of 3 runs learnt): the nearer width's (in log2 d_model); "
     "regime sort_users\n"},
    {"sqrt_dk", "gpt2", "320", "5", LR_BASIS_NEIGHBOURS, LR_VERDICT_LEARNS,
     "learns: not measured at d_model 320; at lr 6e-4, d_model 256: learns (3 of 3 runs learnt), "
     "d_model 512: learns (3 of 3 runs learnt); regime sort_users"},
    {"none", "gpt2", "768", "12", LR_BASIS_RUNS, LR_VERDICT_FAILS, "fails: 0 of 3 runs"},
    {"none", "gpt2", "1024", "16", LR_BASIS_NEAREST, LR_VERDICT_FAILS,
     "not measured at d_model 1024, beyond the measured widths (no fitted exponent"},
    {"none", "fan_in", "512", "8", LR_BASIS_RUNS, LR_VERDICT_SPLIT, "split: 1 of 3 runs"},
    /* fan_in was not trained at 768: below it 512, nothing above */
    {"sqrt_dk", "fan_in", "1024", "16", LR_BASIS_NEAREST, LR_VERDICT_LEARNS, "d_model 512: learns"},
};

START_TEST(test_users_cases) {
    int i = _i;
    char s[4][64];
    snprintf(s[0], sizeof s[0], "attention.scale=%s", USERS_CASES[i].scale);
    snprintf(s[1], sizeof s[1], "init.scheme=%s", USERS_CASES[i].init);
    snprintf(s[2], sizeof s[2], "model.d_model=%s", USERS_CASES[i].d_model);
    snprintf(s[3], sizeof s[3], "model.n_heads=%s", USERS_CASES[i].n_heads);
    const char *const sets[] = {SORT, USERS, s[0], s[1], s[2], s[3], NULL};
    check_case(sets, "sort_users", USERS_CASES[i].basis, USERS_CASES[i].verdict,
               USERS_CASES[i].phrase);
}
END_TEST

/* A setting the regimes do not have puts the config in none; the verdict names the nearest regime
 * and the differing keys, the report each as "key = yours (the regime: its)". Each row differs
 * from the lr map's regime (d_model 256, GPT-2 init) in one setting alone. */
static const struct {
    const char *set, *named;
} OUTSIDE[] = {
    {"init.std=0.01", "init.std = 0.01 (the regime: 0.02)"},
    {"task.name=reverse", "task.name = reverse (the regime: sort)"},
    {"task.length=12", "task.length = 12 (the regime: 8)"},
    {"model.n_heads=8", "d_k = 32, model.d_model / model.n_heads (the regime: 64)"},
    {"model.n_layers=4", "model.n_layers = 4 (the regime: 2)"},
    {"model.block=llama", "model.block = llama (the regime: gpt2)"},
    {"model.matmul=bf16", "model.matmul = bf16 (the regime: float32)"},
    {"attention.qk_norm=rmsnorm", "attention.qk_norm = rmsnorm (the regime: none)"},
    {"attention.softcap=30", "attention.softcap = 3e+01 (the regime: 0)"},
    {"attention.qk_clip=30", "attention.qk_clip = 3e+01 (the regime: 0)"},
    {"attention.window=4", "attention.window = 4 (the regime: 0)"},
    /* longer than the task's T = 16 (sort of 8: 8 + SEP + 8 tokens, the last predicted only),
     * which the regime's 0 resolves to */
    {"model.max_seq_len=17", "model.max_seq_len = 17 (the regime: 0, i.e. the task's length, here 16)"},
    {"model.d_ff=512", "model.d_ff = 512 (the regime: 0, i.e. the block's default, here 1024)"},
    {"task.separator=false",
     "task.separator = false (the regime: auto, i.e. the task's own format, here true)"},
    {"optim.name=sgd", "optim.name = sgd (the regime: adamw)"},
    /* the keys that tell the lr map from the users' recipe */
    {"optim.beta2=0.95", "optim.beta2 = 0.95 (the regime: 0.999)"},
    {"optim.weight_decay=0.1", "optim.weight_decay = 0.1 (the regime: 0)"},
    {"optim.grad_clip=1", "optim.grad_clip = 1 (the regime: 0)"},
    {"optim.min_lr=6e-5", "optim.min_lr = 6e-05 (the regime: 0)"},
    {"optim.schedule=constant", "optim.schedule = constant (the regime: cosine)"},
    {"optim.warmup_steps=0", "optim.warmup_steps = 0 (the regime: 100)"},
    {"train.steps=4000", "train.steps = 4000 (the regime: 2000)"},
    {"train.batch_size=32", "train.batch_size = 32 (the regime: 64)"},
    /* the W_q / W_k multipliers, newer than every published plan.txt: at their default 1 there */
    {"init.q_mult=2", "init.q_mult = 2 (the regime: 1)"},
    {"init.k_mult=0.5", "init.k_mult = 0.5 (the regime: 1)"},
    {"optim.lr_q_mult=0.125", "optim.lr_q_mult = 0.125 (the regime: 1)"},
    {"optim.lr_k_mult=3", "optim.lr_k_mult = 3 (the regime: 1)"},
};

START_TEST(test_outside) {
    int i = _i;
    const char *const sets[] = {SORT, "init.scheme=gpt2", "model.d_model=256", "model.n_heads=4",
                                OUTSIDE[i].set, NULL};
    Config c;
    config_of(&c, sets);
    LrPlacement p;
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_int_eq(p.regime, -1);
    ck_assert_int_eq(p.verdict, LR_VERDICT_NONE);
    ck_assert_str_eq(lr_map_regimes[p.nearest].id, "sort_lr_map");
    ck_assert_msg(p.n_diffs == 1 && strcmp(p.diffs[0], OUTSIDE[i].named) == 0,
                  "%s: %d differences, the first '%s'", OUTSIDE[i].set, p.n_diffs,
                  p.n_diffs ? p.diffs[0] : "");
    char *v = verdict_of(&p), want[200];
    snprintf(want, sizeof want, "verdict: no verdict: in no measured regime; the nearest is "
                                "sort_lr_map (1 difference: %.*s)",
             (int)strcspn(OUTSIDE[i].named, " "), OUTSIDE[i].named);
    ck_assert_msg(strncmp(v, want, strlen(want)) == 0, "%s\nwant %s", v, want);
    free(v);
}
END_TEST

/* The users' recipe without its min lr (6e-5; 0 by default) is in no regime: nearest sort_users. */
START_TEST(test_users_min_lr) {
    const char *const sets[] = {SORT, USERS, "optim.min_lr=0", "model.d_model=320",
                                "model.n_heads=5", NULL};
    Config c;
    config_of(&c, sets);
    LrPlacement p;
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_int_eq(p.regime, -1);
    ck_assert_str_eq(lr_map_regimes[p.nearest].id, "sort_users");
    ck_assert_int_eq(p.n_diffs, 1);
    ck_assert_str_eq(p.diffs[0], "optim.min_lr = 0 (the regime: 6e-05)");
}
END_TEST

/* Values spelt otherwise but resolved by the run to the regime's are no difference, and keys that
 * cannot change the numbers or that the run does not read are none either. */
static const char *const SAME[] = {
    "model.d_ff=1024", "task.separator=true", "attention.scale=0.125", "attention.scale=1",
    "run.name=mine", "run.threads=2", "log.every=5", "task.pairs=3", "optim.momentum=0.5",
    "attention.scale=8/d_k", /* muP's 8/d_k is 1/sqrt(d_k) at d_k 64: the run's factor is 0.125 */
    /* issue 45 F4: the task's T = 16 is what max_seq_len 0 resolves to, and a window of T keys
     * or more is every earlier key, as 0 */
    "model.max_seq_len=16", "attention.window=16", "attention.window=1000",
};

START_TEST(test_resolved_same) {
    int i = _i;
    const char *const sets[] = {SORT, "init.scheme=gpt2", "model.d_model=256", "model.n_heads=4",
                                SAME[i], NULL};
    Config c;
    config_of(&c, sets);
    LrPlacement p;
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_msg(p.regime >= 0, "%s: %s", SAME[i], p.n_diffs ? p.diffs[0] : "");
    ck_assert_str_eq(lr_map_regimes[p.regime].id, "sort_lr_map");
    /* the arm as the runs' */
    ck_assert_str_eq(p.arm, strcmp(SAME[i], "attention.scale=1") == 0
                                ? "attention.scale=none init.scheme=gpt2"
                                : "attention.scale=sqrt_dk init.scheme=gpt2");
}
END_TEST

/* model.base_width is read only under model.param = mup: a standard config's is no difference
 * (config_validate refuses it off its default first, as attention.scale_init without learned,
 * whose value the map does not count either; set here past the check), a mup config's is. */
START_TEST(test_unread_base_width) {
    const char *const sets[] = {SORT, "init.scheme=gpt2", "model.d_model=256", "model.n_heads=4",
                                NULL};
    Config c;
    config_of(&c, sets);
    ck_assert_int_eq(config_set(&c, "model.base_width=64", 1), 0);
    LrPlacement p;
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_msg(p.regime >= 0, "%d differences, the first '%s'", p.n_diffs,
                  p.n_diffs ? p.diffs[0] : "");
    ck_assert_str_eq(lr_map_regimes[p.regime].id, "sort_lr_map");
    ck_assert_int_eq(config_set(&c, "model.param=mup", 2), 0);
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_int_eq(p.regime, -1);
    ck_assert_str_eq(lr_map_regimes[p.nearest].id, "sort_lr_map");
    ck_assert_int_eq(p.n_diffs, 2);
    ck_assert_str_eq(p.diffs[0], "model.param = mup (the regime: standard)");
    ck_assert_str_eq(p.diffs[1], "model.base_width = 64 (the regime: 128)");
}
END_TEST

/* An arm no run has (a learned scale): no verdict, said. */
START_TEST(test_no_runs) {
    const char *const a[] = {SORT, "init.scheme=gpt2", "attention.scale=learned", NULL};
    Config c;
    config_of(&c, a);
    LrPlacement p;
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_int_eq(p.verdict, LR_VERDICT_NONE);
    char *v = verdict_of(&p);
    ck_assert_msg(strstr(v, "no verdict: the regime sort_lr_map has no run of its arm "
                            "(attention.scale=learned init.scheme=gpt2)"), "%s", v);
    free(v);
}
END_TEST

/* A users'-recipe text config with the LLaMA block (any corpus: the map's title names KJV) is in
 * the text map's regime, and its verdict says "near the best" / "behind the best" and by how
 * much: at d_model 128 unscaled, results/text_map/d128 ended at 1.44123 / 1.4406 nats per byte at
 * lr 6e-4 and 1.64054 / 1.66581 / 1.5296 at 4.8e-3, against the width's best 1.395 (scaled +
 * qk-RMSNorm, lr 2.4e-3, seed 3): (1.440915 - 1.395) / ln 2 = 0.066 bits per byte, within 0.1,
 * and (1.611983 - 1.395) / ln 2 = 0.313, not. Those bits were measured on KJV (data/kjv.txt, the
 * map's runs' task.file): on another corpus (data/prose.txt) the line says so instead of a
 * number; the map's own path gets the number (the same file by other paths: test_corpus_rule). */
START_TEST(test_text_regime) {
    const char *const t[] = {"task.name=text", "task.file=" SCALEDOT_SOURCE_DIR "/data/prose.txt",
                             "model.block=llama", USERS, "optim.warmup_steps=100",
                             "optim.schedule=cosine", "train.steps=1000", "train.batch_size=32",
                             "task.val_size=256", "model.d_model=128", "model.n_heads=2",
                             "attention.scale=none", "optim.lr=6e-4", NULL};
    Config c;
    config_of(&c, t);
    LrPlacement p;
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_msg(p.regime >= 0, "%s", p.n_diffs ? p.diffs[0] : "");
    ck_assert_str_eq(lr_map_regimes[p.regime].id, "text_users");
    char *v = verdict_of(&p);
    ck_assert_str_eq(v, "verdict: near the best (measured on the map's corpus " SCALEDOT_SOURCE_DIR
                        "/data/kjv.txt; this config trains on " SCALEDOT_SOURCE_DIR "/data/prose.txt): "
                        "2 of 2 runs at its width, arm and lr ended near the best (d_model 128, lr "
                        "6e-4); regime text_users\n");
    free(v);
    ck_assert_int_eq(config_set(&c, "task.file=data/kjv.txt", 0), 0);
    assert_verdict(&c, "verdict: near the best (0.066 bits per byte behind the best run at d_model "
                       "128): 2 of 2 runs at its width, arm and lr ended near the best (d_model "
                       "128, lr 6e-4); regime text_users\n");
    set_text_lr(&c, 4.8e-3);
    assert_verdict(&c, "verdict: behind the best (0.313 bits per byte behind the best run at "
                       "d_model 128): 0 of 3 runs at its width, arm and lr ended near the best "
                       "(d_model 128, lr 4.8e-3); regime text_users\n");
    /* the map's runs decayed to lr / 10 (experiments/text_map.sh; regimes.txt's min_lr_ratio):
     * a floor of 0, or one left at 6e-5 while lr moved, is another schedule, named */
    static const struct {
        const char *set, *diff;
    } OFF[] = {{"optim.min_lr=0", "optim.min_lr = 0 (the regime: optim.lr x 0.1 = 0.00048)"},
               {"optim.min_lr=6e-5", "optim.min_lr = 6e-05 (the regime: optim.lr x 0.1 = 0.00048)"}};
    for (int i = 0; i < CC_COUNT(OFF); i++) {
        ck_assert_int_eq(config_set(&c, OFF[i].set, 0), 0);
        ck_assert_int_eq(lmc_place(&c, &p), 0);
        ck_assert_int_eq(p.regime, -1);
        ck_assert_str_eq(lr_map_regimes[p.nearest].id, "text_users");
        ck_assert_int_eq(p.n_diffs, 1);
        ck_assert_str_eq(p.diffs[0], OFF[i].diff);
    }
}
END_TEST

/* configs/text_users.ini, the users' run, is a point of the text map: d_model 256, LLaMA block,
 * scaled at lr 6e-4 (min_lr 6e-5), where results/text_map/d256's three runs ended near the best
 * (1.33733, 1.32863 and 1.3382 nats per byte, the width's best 1.32492 (scaled + qk-RMSNorm, lr
 * 6e-4, seed 3): (1.33472 - 1.32492) / ln 2 = 0.014 bits per byte behind). */
START_TEST(test_text_users_config) {
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_load_file(&c, SCALEDOT_SOURCE_DIR "/configs/text_users.ini"), 0);
    LrPlacement p;
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_msg(p.regime >= 0, "%s", p.n_diffs ? p.diffs[0] : "");
    char *v = verdict_of(&p);
    ck_assert_str_eq(v, "verdict: near the best (0.014 bits per byte behind the best run at d_model "
                        "256): 3 of 3 runs at its width, arm and lr ended near the best (d_model "
                        "256, lr 6e-4); regime text_users\n");
    free(v);
    /* with the GPT-2 block, its own regime (results/text_map/gpt2_d256, best run 1.40423 nats
     * per byte = 2.026 bits): unscaled at 2.4e-3 ended at 1.56402 / 1.5808 (mean 1.57241,
     * (1.57241 - 1.40423) / ln 2 = 0.243 bits behind); scaled at 1.40423 / 1.41061 (mean
     * 1.40742: 0.0046 bits, "0.005") */
    const char *const gpt2[] = {"model.block=gpt2", "optim.lr=2.4e-3", "optim.min_lr=2.4e-4",
                                "attention.scale=none"};
    for (int i = 0; i < CC_COUNT(gpt2); i++) ck_assert_int_eq(config_set(&c, gpt2[i], 0), 0);
    assert_verdict(&c, "verdict: behind the best (0.243 bits per byte behind the best run at "
                       "d_model 256): 0 of 2 runs at its width, arm and lr ended near the best "
                       "(d_model 256, lr 2.4e-3); regime text_users_gpt2\n");
    ck_assert_int_eq(config_set(&c, "attention.scale=sqrt_dk", 0), 0);
    assert_verdict(&c, "verdict: near the best (0.005 bits per byte behind the best run at d_model "
                       "256): 2 of 2 runs at its width, arm and lr ended near the best (d_model "
                       "256, lr 2.4e-3); regime text_users_gpt2\n");
}
END_TEST

/* results/text_map/d768 holds two runs, at lr 3e-4 (scaled near the best, unscaled behind):
 * above 3e-4 the scaled arm is judged by the other widths' thresholds carried to 768 (from 512,
 * the widest below it; lr_map_above, whose arithmetic test_above checks), in its report too; below
 * 3e-4 it is not known, as at any measured width (a carried threshold says nothing of too low an
 * lr); at 3e-4 itself, its runs. */
START_TEST(test_above_where) {
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_load_file(&c, SCALEDOT_SOURCE_DIR "/configs/text_users.ini"), 0);
    const char *const sets[] = {"model.d_model=768", "model.n_heads=12", "optim.lr=6e-4",
                                "optim.min_lr=6e-5"};
    for (int i = 0; i < CC_COUNT(sets); i++) ck_assert_int_eq(config_set(&c, sets[i], 0), 0);
    LrPlacement p;
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_int_eq(p.basis, LR_BASIS_ABOVE);
    ck_assert_int_eq(p.verdict, LR_VERDICT_LEARNS);
    ck_assert_int_eq(p.above_learnt.kind, LR_MAP_EXTRAPOLATED);
    ck_assert_int_eq(p.above_learnt.w_lo, 512);
    ck_assert_double_gt(p.above_learnt.lr, 6e-4);
    char *v = verdict_of(&p);
    const char *want = "verdict: near the best: lr 6e-4 is above the lrs measured at this width (up "
                       "to 3e-4), none of which fell behind; the other widths' thresholds carried "
                       "to it: the largest lr that ended near the best ";
    ck_assert_msg(strncmp(v, want, strlen(want)) == 0, "%s", v);
    ck_assert_msg(strstr(v, " (extrapolated from ") && strstr(v, " at d_model 512), the smallest "
                                                              "at which a run fell behind "),
                  "%s", v);
    free(v);
    ck_assert(report_has_line(&c, "above the lrs measured at this width, carried from the other "
                                  "widths (its own runs win: a carried threshold at or below what "
                                  "they show is not used):"));
    /* the runs nearest its lr at its own width and at the width the thresholds came from */
    ck_assert(report_has_line(&c, "  dk64_sqrt_dk_qk_norm-none_lr-3e-4_s1 (results/text_map/d768): "
                                  "d_model 768, lr 3e-4, seed 1, final val_loss 1.267, peak logit "
                                  "std 3.48: near the best"));
    ck_assert(report_has_line(&c, "  dk64_sqrt_dk_qk_norm-none_lr-6e-4_s1 (results/text_map/d512): "
                                  "d_model 512, lr 6e-4, seed 1, final val_loss 1.269, peak logit "
                                  "std 3.83: near the best"));
    /* its own runs at 3e-4 (1.26725 nats per byte, the width's best: 0 behind) */
    set_text_lr(&c, 3e-4);
    assert_verdict(&c, "verdict: near the best (0.000 bits per byte behind the best run at d_model "
                       "768): 1 of 1 runs at its width, arm and lr ended near the best (d_model "
                       "768, lr 3e-4); regime text_users\n");
    set_text_lr(&c, 1.5e-4);
    assert_verdict(&c, "verdict: not known: lr 1.5e-4 is 1.0 factor of 2 below the smallest lr "
                       "measured at this width (3e-4): too low an lr can fail to learn in 1000 "
                       "steps, measured at this width; regime text_users\n");
}
END_TEST

/* lr_map_report's whole text for c, and whether it holds line (a whole line) */
static int report_has_line(const Config *c, const char *line) {
    Task t;
    ck_assert_int_eq(task_init_model_only(&t, c), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(lr_map_report(f, c, t.seq_len, NULL), 0);
    fclose(f);
    task_free(&t);
    char want[600];
    snprintf(want, sizeof want, "\n%s\n", line);
    int has = strstr(buf, want) != NULL;
    if (!has) fprintf(stderr, "no line '%s' in:\n%s", line, buf);
    free(buf);
    return has;
}

/* A config outside every regime is told the --set options that remove its differences from the
 * nearest, and they do: configs/text_scaled.ini (the GPT-2 block) against text_users_gpt2
 * (written by hand from the two: its fan_in init, AdamW's beta2 0.999, no decay or clipping, 600
 * steps and a floor of 0 at lr 2e-3, against the regime's GPT-2 init ... and floor lr / 10). A value
 * other than a plain word is single-quoted (a file task near the sort map: task.file = ""), and a
 * d_k no n_heads gives at the config's d_model is said, not set. */
START_TEST(test_where_sets) {
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_load_file(&c, SCALEDOT_SOURCE_DIR "/configs/text_scaled.ini"), 0);
    const char *const sets[] = {"init.scheme=gpt2", "optim.beta2=0.95", "optim.weight_decay=0.1",
                                "optim.grad_clip=1", "train.steps=1000", "optim.min_lr=0.0002"};
    ck_assert(report_has_line(&c, "  to match it: --set init.scheme=gpt2 --set optim.beta2=0.95 "
                                  "--set optim.weight_decay=0.1 --set optim.grad_clip=1 --set "
                                  "train.steps=1000 --set optim.min_lr=0.0002"));
    for (int i = 0; i < CC_COUNT(sets); i++) ck_assert_int_eq(config_set(&c, sets[i], 1), 0);
    LrPlacement p;
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_msg(p.regime >= 0, "%s", p.n_diffs ? p.diffs[0] : "");
    ck_assert_str_eq(lr_map_regimes[p.regime].id, "text_users_gpt2");
    /* d_model 96 with 2 heads: d_k 48; n_heads 1.5 would give 64 */
    ck_assert_int_eq(config_set(&c, "model.d_model=96", 1), 0);
    ck_assert_int_eq(config_set(&c, "model.n_heads=2", 1), 0);
    ck_assert(report_has_line(&c, "  to match it: (d_k 64 needs a d_model it divides)"));
    /* d_model 128 with 4 heads: d_k 32; 2 heads give 64 */
    ck_assert_int_eq(config_set(&c, "model.d_model=128", 1), 0);
    ck_assert_int_eq(config_set(&c, "model.n_heads=4", 1), 0);
    ck_assert(report_has_line(&c, "  to match it: --set model.n_heads=2"));

    /* a rule stays a rule: model.max_seq_len 0 (the regime's value resolved with this config's
     * seq_len 32 would be 32, which the pasted task.seq_len=64 refuses) */
    config_defaults(&c);
    ck_assert_int_eq(config_load_file(&c, SCALEDOT_SOURCE_DIR "/configs/text_users.ini"), 0);
    ck_assert_int_eq(config_set(&c, "task.seq_len=32", 1), 0);
    ck_assert_int_eq(config_set(&c, "model.max_seq_len=48", 1), 0);
    ck_assert(report_has_line(&c, "  to match it: --set task.seq_len=64 --set model.max_seq_len=0"));
    /* and the difference line says the same: the regime's 0, and what it is at this T */
    ck_assert(report_has_line(&c, "  model.max_seq_len = 48 (the regime: 0, i.e. the task's length, "
                                  "here 32)"));
    /* min_lr printed so that pasting it lands: lr 1.2345678e-3 / 10, all its digits */
    config_defaults(&c);
    ck_assert_int_eq(config_load_file(&c, SCALEDOT_SOURCE_DIR "/configs/text_users.ini"), 0);
    ck_assert_int_eq(config_set(&c, "optim.lr=1.2345678e-3", 1), 0);
    ck_assert_int_eq(config_set(&c, "optim.min_lr=1e-4", 1), 0);
    ck_assert(report_has_line(&c, "  to match it: --set optim.min_lr=0.00012345678"));
    ck_assert_int_eq(config_set(&c, "optim.min_lr=0.00012345678", 1), 0);
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_msg(p.regime >= 0, "%s", p.n_diffs ? p.diffs[0] : "");

    char dir[600], path[700];
    tu_make_tmp(dir, sizeof dir, "/tmp/scaledot_test_where_sets_XXXXXX");
    snprintf(path, sizeof path, "%s/it's.txt", dir);
    tu_write_file(path, "a b | b a\nb a | a b\na a | a a\n");
    char set[800];
    snprintf(set, sizeof set, "task.file=%s", path);
    const char *const file[] = {"task.name=file", "task.val_size=1", set, NULL};
    config_of(&c, file);
    /* (the defaults' constant lr without warm-up, against the map's 100 warm-up steps, cosine) */
    ck_assert(report_has_line(&c, "  to match it: --set task.name=sort --set 'task.file=\"\"' --set "
                                  "task.val_size=512 --set optim.warmup_steps=100 --set "
                                  "optim.schedule=cosine"));
    tu_remove_tree(dir);
}
END_TEST

/* An arm none of whose lrs came near the best at a width: results/text_map/d256, unscaled with
 * qk-RMSNorm, ended 0.196 bits per byte or more behind the best (1.326 nats) at every lr from
 * 3e-4 (its best 1.462 at 9.6e-3; near means within 0.1): the threshold line
 * says none, not "none ..., measured". */
START_TEST(test_no_lr_near_best) {
    Config c;
    config_defaults(&c);
    ck_assert_int_eq(config_load_file(&c, SCALEDOT_SOURCE_DIR "/configs/text_users.ini"), 0);
    ck_assert_int_eq(config_set(&c, "attention.scale=none", 1), 0);
    ck_assert_int_eq(config_set(&c, "attention.qk_norm=rmsnorm", 1), 0);
    ck_assert(report_has_line(&c, "  largest lr that ended near the best: none among the lrs "
                                  "measured"));
    ck_assert(report_has_line(&c, "  smallest lr at which a run fell behind: 3e-4, measured"));
}
END_TEST

/* A run prints its lr map line only when it matters: a verdict of failure in a regime, with a
 * predicted step-0 std below 5 (from 5 on init_check's own verdict says the logits start large).
 * None of the shipped configs gets it; d_model 256 unscaled at 2e-3 with GPT-2 init does. */
START_TEST(test_note_matters) {
    DIR *d = opendir(SCALEDOT_SOURCE_DIR "/configs");
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".ini") != 0) continue;
        char path[700];
        snprintf(path, sizeof path, SCALEDOT_SOURCE_DIR "/configs/%s", e->d_name);
        Config c;
        config_defaults(&c);
        ck_assert_int_eq(config_load_file(&c, path), 0);
        LrPlacement p;
        ck_assert_int_eq(lmc_place(&c, &p), 0);
        ck_assert_msg(!lr_map_note_matters(&p), "%s gets the note", e->d_name);
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 7);
    const char *const sets[] = {SORT, "init.scheme=gpt2", "attention.scale=none",
                                "model.d_model=256", "model.n_heads=4", NULL};
    Config c;
    config_of(&c, sets);
    LrPlacement p;
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert(lr_map_note_matters(&p));
    /* on the edge (d_model 128 unscaled at 3e-3, between 2e-3 and 4e-3), or a regime's arm with
     * no run: no failure is predicted, no note */
    const char *const edge[] = {SORT, "init.scheme=gpt2", "attention.scale=none",
                                "model.d_model=128", "model.n_heads=2", "optim.lr=3e-3", NULL};
    config_of(&c, edge);
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_int_eq(p.verdict, LR_VERDICT_EDGE);
    ck_assert(!lr_map_note_matters(&p));
    const char *const arm[] = {SORT, "init.scheme=gpt2", "attention.scale=learned", NULL};
    config_of(&c, arm);
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert(p.regime >= 0 && !lr_map_note_matters(&p));
    /* configs/unscaled.ini fails in its regime, but from a step-0 std of 8 */
    const char *const u[] = {SORT, "attention.scale=none", NULL};
    config_of(&c, u);
    ck_assert_int_eq(lmc_place(&c, &p), 0);
    ck_assert_int_eq(p.verdict, LR_VERDICT_FAILS);
    ck_assert(!lr_map_note_matters(&p));
    /* fan_in, sigma^2 = 1/64: 1 * sqrt(64) * 64 / 64 = 8 */
    char *v = verdict_of(&p);
    ck_assert_msg(strstr(v, "; predicted step-0 logit std 8 >= 5: runs with a step-0 std this "
                            "large failed from the start (docs/findings.md, init_width)"), "%s", v);
    free(v);
}
END_TEST
/* ---- ./train --where end to end ------------------------------------------------------------ */

static char tmp[512];

static void setup(void) { tu_make_tmp(tmp, sizeof tmp, "/tmp/test_lr_map.XXXXXX"); }
static void teardown(void) { tu_remove_tree(tmp); }

/* The folder holds out.txt (tu_run_train's capture) and what the test put there, nothing else. */
static void assert_only(const char *dir, const char *const *allowed, int n) {
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        int ok = 0;
        for (int i = 0; i < n; i++) ok |= strcmp(e->d_name, allowed[i]) == 0;
        ck_assert_msg(ok, "--where wrote %s/%s", dir, e->d_name);
    }
    closedir(d);
}

START_TEST(test_where_cli) {
    char args[1200];
    /* from a folder without results/: the regimes are compiled in; the verdict first */
    snprintf(args, sizeof args, "--where %s/configs/unscaled.ini --set init.scheme=gpt2 --set "
                                "model.d_model=256 --set model.n_heads=4", SCALEDOT_SOURCE_DIR);
    ck_assert_int_eq(tu_run_train(tmp, args), 0);
    static const char *const want[] = {
        "verdict: fails: 0 of 6 runs at its width, arm and lr learnt (d_model 256, lr 2e-3); "
        "regime sort_lr_map",
        "\nconfig: d_model 256, n_heads 4, d_k 64, attention.scale none, optim.lr 2e-3, init gpt2",
        "\npredicted step-0 logit std: 0.8192",
        "\nregime: sort_lr_map: sort, GPT-2 block, AdamW beta2 0.999",
        "\narm: attention.scale=none init.scheme=gpt2\n",
        "  largest lr that learnt: 1e-3, measured\n",
        "  smallest lr at which a run failed: 2e-3, measured\n",
        "fitted exponent: lr ~ d_model^-1.50 over d_model 64-256 (3 widths",
        ("  dk64_none_lr-2e-3_s1 (results/lr_width/d256_none): d_model 256, lr 2e-3, seed 1, final "
         "val_answer_acc 0.2188, peak logit std 595: did not learn\n"),
    };
    char path[600];
    snprintf(path, sizeof path, "%s/out.txt", tmp);
    char *out = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(out);
    ck_assert_msg(strncmp(out, want[0], strlen(want[0])) == 0, "not the verdict first:\n%s", out);
    int missing = tu_in_order(out, want, CC_COUNT(want));
    ck_assert_msg(missing < 0, "--where's output lacks '%s' (in order):\n%s",
                  missing < 0 ? "" : want[missing], out);
    free(out);
    static const char *const out_only[] = {"out.txt"};
    assert_only(tmp, out_only, 1);
    /* the users' recipe, the review's width, outside: every difference listed */
    snprintf(args, sizeof args, "--where %s/configs/scaled.ini --set init.scheme=gpt2 --set "
                                "optim.beta2=0.95", SCALEDOT_SOURCE_DIR);
    ck_assert_int_eq(tu_run_train(tmp, args), 0);
    ck_assert(tu_train_output_contains(tmp, "\n  optim.beta2 = 0.95 (the regime: 0.999)\n"));
    assert_only(tmp, out_only, 1);
    /* issue 45: a text config is placed before its corpus exists (--where reads none) */
    snprintf(args, sizeof args, "--where %s/configs/text_scaled.ini --set task.file=no_corpus.txt",
             SCALEDOT_SOURCE_DIR);
    ck_assert_int_eq(tu_run_train(tmp, args), 0);
    ck_assert(tu_train_output_contains(tmp, "verdict: no verdict: in no measured regime; the "
                                            "nearest is text_users"));
    /* issue 45: a scale no name stands for is shown as written, not "(a number)" */
    static const char *const SCALES[][2] = {{"2.5/d_k", "attention.scale 2.5/d_k,"},
                                            {"0.3", "attention.scale 0.3,"}};
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "--where %s/configs/scaled.ini --set attention.scale=%s",
                 SCALEDOT_SOURCE_DIR, SCALES[i][0]);
        ck_assert_int_eq(tu_run_train(tmp, args), 0);
        ck_assert_msg(tu_train_output_contains(tmp, SCALES[i][1]), "no '%s'", SCALES[i][1]);
    }
}
END_TEST

/* Bad input: the errors of training (file, line and key named), exit code 2, nothing written. */
static const struct {
    const char *ini, *args, *message;
} BAD[] = {
    {"[model]\nd_model = 64\nn_haeds = 1\n", "", "bad.ini:3: unknown key 'model.n_haeds'"},
    {"[optim]\nlr = -1\n", "", "bad.ini:2: 'optim.lr'"},
    {"[model]\nd_model = 64\n", "--set model.n_heads=3", "n_heads"},
    {"[model]\nd_model = 64\n", "--set optim.lr", "--set (argument 4)"},
    {"[model]\nd_model = 64\n", "--set optim.beta2=2", "--set (argument 4): 'optim.beta2'"},
    /* break12: a base width the standard run does not read was listed as the one difference */
    {"[model]\nd_model = 64\n", "--set model.base_width=64",
     "error: --set (argument 4): 'model.base_width' = 64 is set, but 'model.param' is not mup "
     "(default): it is muP's base width, which the standard parametrisation does not read; set "
     "model.param = mup, or remove model.base_width\n"},
    {"[model]\nd_model = 64\n", "--where", "--where (argument 3): given twice"},
    {"[model]\nd_model = 64\n", "--print-config", "--where places a config file"},
    {"[task]\nname = file\nfile = missing.txt\n", "", "task.file 'missing.txt'"},
};

START_TEST(test_where_bad_input) {
    int i = _i;
    char path[600], args[800];
    snprintf(path, sizeof path, "%s/bad.ini", tmp);
    tu_write_file(path, BAD[i].ini);
    snprintf(args, sizeof args, "--where bad.ini %s", BAD[i].args);
    ck_assert_int_eq(tu_run_train(tmp, args), 2);
    ck_assert_msg(tu_train_output_contains(tmp, BAD[i].message), "%s: no '%s' in the message",
                  args, BAD[i].message);
    ck_assert(!tu_train_output_contains(tmp, "verdict:"));
    static const char *const only[] = {"out.txt", "bad.ini"};
    assert_only(tmp, only, 2);
}
END_TEST

/* init_check.txt ends with the verdict line whatever it says; stderr gets it only when it
 * matters: this one-step run is in no regime (train.steps, task.val_size differ). */
START_TEST(test_init_check_line) {
    char args[1200];
    snprintf(args, sizeof args,
             "%s/configs/unscaled.ini --set init.scheme=gpt2 --set model.d_model=256 --set "
             "model.n_heads=4 --set train.steps=1 --set train.eval_every=1 --set log.progress=1 "
             "--set task.val_size=64 --set run.threads=1",
             SCALEDOT_SOURCE_DIR);
    ck_assert_int_eq(tu_run_train(tmp, args), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/runs/unscaled/init_check.txt", tmp);
    char *text = tu_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    static const char *const order[] = {
        "the scale changes little", "only at step 0",
        ("\nlr map: no verdict: in no measured regime; the nearest is sort_lr_map (2 differences: "
         "task.val_size, train.steps)\n")};
    int missing = tu_in_order(text, order, CC_COUNT(order));
    ck_assert_msg(missing < 0, "init_check.txt lacks '%s' (in order):\n%s",
                  missing < 0 ? "" : order[missing], text);
    free(text);
    ck_assert(tu_train_output_contains(tmp, "only at step 0"));
    ck_assert(!tu_train_output_contains(tmp, "lr map:"));
}
END_TEST

/* Whether a text config trains on the map's corpus (data/kjv.txt, read from the map's base: here
 * the test's own folder, with data/ and no kjv.txt yet, then with it), its task.file read from the
 * current folder (the base, or sub/ below it). The same file: the same path, or another spelling
 * of its place, absolute too, before the file is made (issue 45); from sub/, ../data/kjv.txt; a
 * relative link resolved from its own folder; a hard link. Another: a data/kjv.txt below another
 * folder (the rule "ends in /data/kjv.txt" said the same), or data/kjv.txt from sub/ (the same
 * text, another folder: it was taken as the map's); another file in data/. Not to be told: a
 * dangling link, a ".." past a missing folder, a relative map path without its base; the verdict
 * then says so and gives no number, naming both paths escaped. The expected classes are by
 * construction. */
START_TEST(test_corpus_rule) {
    char cwd[4096], abs_kjv[600], abs_other[600], want[1200];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(tmp), 0);
    ck_assert_int_eq(mkdir("data", 0755) | mkdir("sub", 0755) | mkdir("other", 0755), 0);
    ck_assert_int_eq(mkdir("other/data", 0755), 0);
    tu_write_file("data/prose.txt", "another text\n");
    tu_write_file("other/data/kjv.txt", "In the beginning\n");
    ck_assert_int_eq(symlink("../nowhere.txt", "sub/gone.txt"), 0);
    snprintf(abs_kjv, sizeof abs_kjv, "task.file=%s/data/kjv.txt", tmp);
    snprintf(abs_other, sizeof abs_other, "task.file=%s/other/data/kjv.txt", tmp);
    static const char *const BASE[] = {"task.name=text", "task.file=data/kjv.txt",
                                       "model.block=llama", USERS, "optim.warmup_steps=100",
                                       "optim.schedule=cosine", "train.steps=1000",
                                       "train.batch_size=32", "task.val_size=256",
                                       "model.d_model=128", "model.n_heads=2",
                                       "attention.scale=none", "optim.lr=6e-4", NULL};
    const struct {
        int made;        /* 1: data/kjv.txt, sub/k.txt and hard.txt exist */
        const char *at;  /* the current folder, below tmp (the map's base) */
        const char *set; /* the task.file */
        LrCorpus want;
    } CASES[] = {
        {0, ".", "task.file=data/kjv.txt", LR_CORPUS_SAME},
        {0, ".", "task.file=./data//kjv.txt", LR_CORPUS_SAME},
        {0, ".", abs_kjv, LR_CORPUS_SAME},
        {0, "sub", "task.file=../data/kjv.txt", LR_CORPUS_SAME},
        {0, "sub", abs_kjv, LR_CORPUS_SAME},
        {0, "sub", "task.file=data/kjv.txt", LR_CORPUS_OTHER},
        {0, ".", "task.file=data/prose.txt", LR_CORPUS_OTHER},
        {0, ".", "task.file=sub/gone.txt", LR_CORPUS_UNTOLD},
        {0, ".", "task.file=nodir/../data/kjv.txt", LR_CORPUS_UNTOLD},
        {1, ".", "task.file=sub/k.txt", LR_CORPUS_SAME},
        {1, ".", "task.file=hard.txt", LR_CORPUS_SAME},
        {1, ".", abs_kjv, LR_CORPUS_SAME},
        {1, "sub", "task.file=../data/kjv.txt", LR_CORPUS_SAME},
        {1, "sub", "task.file=k.txt", LR_CORPUS_SAME},
        {1, "sub", "task.file=data/kjv.txt", LR_CORPUS_OTHER},
        {1, ".", abs_other, LR_CORPUS_OTHER},
        {1, ".", "task.file=other/data/kjv.txt", LR_CORPUS_OTHER},
        {1, ".", "task.file=data/k\xc2\x9b\x9b.txt", LR_CORPUS_OTHER}, /* C1, lone 9b */
    };
    Config c;
    config_of(&c, BASE);
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        if (CASES[k].made && access("data/kjv.txt", F_OK) != 0) {
            tu_write_file("data/kjv.txt", "In the beginning\n");
            ck_assert_int_eq(symlink("../data/kjv.txt", "sub/k.txt"), 0);
            ck_assert_int_eq(link("data/kjv.txt", "hard.txt"), 0);
        }
        ck_assert_int_eq(config_set(&c, CASES[k].set, 0), 0);
        LrPlacement p;
        ck_assert_int_eq(chdir(CASES[k].at), 0);
        ck_assert_int_eq(lmc_place_from(&c, tmp, &p), 0);
        ck_assert_int_eq(chdir(tmp), 0);
        ck_assert_msg(p.regime >= 0, "case %zu: %s", k, p.n_diffs ? p.diffs[0] : "");
        int noted = p.corpus[0] != 0; /* the verdict then gives no number */
        ck_assert_msg(p.corpus_match == CASES[k].want && noted == (CASES[k].want != LR_CORPUS_SAME),
                      "case %zu (%s from %s): %d, want %d", k, CASES[k].set, CASES[k].at,
                      p.corpus_match, CASES[k].want);
        const char *file = CASES[k].set + strlen("task.file="), *how = NULL;
        if (strcmp(file, "sub/gone.txt") == 0)
            how = "whether this config's sub/gone.txt is that file cannot be told from here";
        else if (strncmp(file, "data/k\xc2", 7) == 0) /* the path escaped (util/error_list.h) */
            how = "this config trains on data/k\\xc2\\x9b\\x9b.txt";
        if (!how) continue;
        snprintf(want, sizeof want, "verdict: near the best (measured on the map's corpus "
                 "%s/data/kjv.txt; %s): 2 of 2 runs at its width, arm and lr ended near the best "
                 "(d_model 128, lr 6e-4); regime text_users\n", tmp, how);
        char *v = verdict_of(&p);
        ck_assert_str_eq(v, want);
        free(v);
    }
    /* a relative map path without the folder it is read from: not to be told */
    ck_assert_int_eq(corpus_match("data/kjv.txt", "data/kjv.txt", NULL), LR_CORPUS_UNTOLD);
    ck_assert_int_eq(corpus_match(abs_kjv + 10, abs_kjv + 10, NULL), LR_CORPUS_SAME);
    ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

/* Runs cmd (a ./train --where line), which must exit 0, and checks its first line, the verdict,
 * against want (with its newline). */
static void expect_verdict_line(const char *cmd, const char *want) {
    char out[600];
    snprintf(out, sizeof out, "%s/where.txt", tmp);
    int rc;
    char *text = tu_shell_output(cmd, out, &rc);
    ck_assert_msg(rc == 0, "%s: rc %d\n%s", cmd, rc, text);
    char *nl = strchr(text, '\n');
    ck_assert_ptr_nonnull(nl);
    nl[1] = '\0';
    ck_assert_str_eq(text, want);
    free(text);
}

/* ./train --where run from configs/ with relative paths: the map's corpus is data/kjv.txt of the
 * checkout the program is in, the config's task.file is read from configs/ (as the trainer opens
 * it). configs/text_users.ini (task.file = data/kjv.txt) names configs/data/kjv.txt, not the
 * map's: no number, and the line names the map's corpus where it is; with ../data/kjv.txt, the
 * map's own file: the number. Both verdict lines spelt by hand (test_text_users_config: 0.014). */
START_TEST(test_where_from_subfolder) {
    static const struct {
        const char *set, *verdict;
    } CASES[] = {
        {"", "verdict: near the best (measured on the map's corpus " SCALEDOT_SOURCE_DIR
             "/data/kjv.txt; this config trains on data/kjv.txt): 3 of 3 runs at its width, arm "
             "and lr ended near the best (d_model 256, lr 6e-4); regime text_users\n"},
        {"--set task.file=../data/kjv.txt",
         "verdict: near the best (0.014 bits per byte behind the best run at d_model 256): 3 of 3 "
         "runs at its width, arm and lr ended near the best (d_model 256, lr 6e-4); regime "
         "text_users\n"},
    };
    for (int i = 0; i < CC_COUNT(CASES); i++) {
        char cmd[1600];
        snprintf(cmd, sizeof cmd, "cd %s/configs && %s --where text_users.ini %s", SCALEDOT_SOURCE_DIR,
                 tu_train_bin(), CASES[i].set);
        expect_verdict_line(cmd, CASES[i].verdict);
    }
}
END_TEST

/* A copy of ./train outside any checkout (TMP/x/bin/train): the map's corpus, data/kjv.txt of
 * the program's checkout, is nowhere to be found, so whether the config's file is it cannot be
 * told: no number, and no made-up path below the copy's folder (it said
 * "TMP/x/bin/data/kjv.txt", a path holding nothing). The line spelt by hand. */
START_TEST(test_where_outside_checkout) {
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/x/bin && cp %s %s/x/bin/train", tmp, tu_train_bin(),
             tmp);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "cd %s && %s/x/bin/train --where %s/configs/text_users.ini "
             "--set task.file=%s/data/kjv.txt",
             tmp, tmp, SCALEDOT_SOURCE_DIR, SCALEDOT_SOURCE_DIR);
    expect_verdict_line(cmd, "verdict: near the best (measured on the map's corpus data/kjv.txt of "
                             "the program's checkout, not found; whether this config's "
                             SCALEDOT_SOURCE_DIR "/data/kjv.txt is that file cannot be told from "
                             "here): 3 of 3 runs at its width, arm and lr ended near the best "
                             "(d_model 256, lr 6e-4); regime text_users\n");
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("lr_map", setup, teardown, 60, test_fit,
                        TU_LOOP(test_estimate, 0, CC_COUNT(ESTIMATES)),
                        TU_LOOP(test_above, 0, CC_COUNT(ABOVE)), test_behind_best,
                        TU_LOOP(test_cases, 0, CC_COUNT(CASES)),
                        TU_LOOP(test_users_cases, 0, CC_COUNT(USERS_CASES)),
                        TU_LOOP(test_outside, 0, CC_COUNT(OUTSIDE)), test_users_min_lr,
                        TU_LOOP(test_resolved_same, 0, CC_COUNT(SAME)), test_unread_base_width,
                        test_no_runs, test_text_regime,
                        test_corpus_rule, test_where_from_subfolder, test_where_outside_checkout,
                        test_text_users_config, test_above_where, test_where_sets,
                        test_no_lr_near_best, test_note_matters, test_where_cli,
                        TU_LOOP(test_where_bad_input, 0, CC_COUNT(BAD)), test_init_check_line);
