/* test_lr_map_runs.c: --where (lr_map_place, the library function behind it) over every published
 * run of the sort sweeps (results/lr_width, results/init_width, results/user_recipe) and of the
 * text map (results/text_map/d*: "learnt" is "ended near the best", TEXT_NEAR), each rebuilt
 * here as the config it trained from its sweep's plan.txt (the base lines, then the run's own
 * values of the plan's axes, read from its sweep.csv row), without the compiled table's runs. A run
 * is placed in the regime its settings say (the test names which, by folder); there the verdict
 * must agree with the run: "learns" when it learnt (status ok and final val_answer_acc >= 0.99,
 * the criterion of both sort regimes, experiments/regimes.txt), "fails" when it did not. The only
 * other verdicts allowed are "split" (its own cell's seeds disagree: near the threshold) and "on
 * the edge" (at a width placed by extrapolation, between the two estimated thresholds), each
 * counted apart and expected in WANT. The counts per regime are docs/attention_fixes.md's
 * ("--where against the published runs"); this program prints them. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "configcheck.h"
#include "runlog/csv_read.h"
#include "testutil.h"
#include "lrmapcheck.h"
#include "train/lr_map.h"

#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

typedef struct {
    int runs, hits, split, edge, misses, outside;
} Count;

/* The folders read, the regime their runs must fall in ("" : none), and the counts expected:
 * runs in that regime, hits, split, on the edge. */
static const struct {
    const char *folder;  /* under results/ */
    const char *prefix;  /* the sweep folders' names begin so ("" : all) */
    const char *regime;
} FOLDERS[] = {
    {"lr_width", "", "sort_lr_map"},
    {"init_width", "d", "sort_lr_map"},
    {"init_width", "std_", ""}, /* init.std 0.035-0.14: no regime measured it */
    {"user_recipe", "", "sort_users"},
    {"text_map", "d", "text_users"}, /* the LLaMA block's parts: d128, d256, d512 and d768
                                         * (with the runs they have while their grids fill:
                                         * regimes.txt) */
    {"text_map", "gpt2_", "text_users_gpt2"}, /* the GPT-2 block's: gpt2_d256 */
};

static const struct {
    const char *regime;
    int runs, hits, split, edge;
} WANT[] = {
    {"sort_lr_map", 130, 127, 3, 0},
    {"sort_users", 30, 24, 6, 0},
    {"text_users", 177, 168, 9, 0},
    {"text_users_gpt2", 56, 56, 0, 0},
};

/* The split cells, the documented near-threshold ones (docs/attention_fixes.md): d_model 64
 * unscaled at lr 1.6e-2 (99.8 / 88.7 / 99.8 %); the users' recipe at d_model 256 unscaled with
 * GPT-2 init (98.8 / 100 / 99.8 %) and at 512 unscaled with fan_in (99.6 / 94.9 / 97.7 %). */
static const struct {
    const char *regime, *scale, *init, *qk_norm;
    int d_model;
    double lr;
} SPLIT[] = {
    {"sort_lr_map", "none", "gpt2", "none", 64, 1.6e-2},
    {"sort_users", "none", "gpt2", "none", 256, 6e-4},
    {"sort_users", "none", "fan_in", "none", 512, 6e-4},
    /* the text map (docs/findings.md, "Where our users stand"): one seed within 0.1 bits per
     * byte of the width's best, one not */
    {"text_users", "none", "gpt2", "none", 128, 2.4e-3},
    {"text_users", "sqrt_dk", "gpt2", "rmsnorm", 128, 4.8e-3},
    {"text_users", "sqrt_dk", "gpt2", "rmsnorm", 128, 9.6e-3},
};

static int documented_split(const LrPlacement *p, const Config *c) {
    for (int i = 0; i < CC_COUNT(SPLIT); i++)
        if (strcmp(lr_map_regimes[p->regime].id, SPLIT[i].regime) == 0 &&
            strcmp(p->scale, SPLIT[i].scale) == 0 &&
            (c->init == INIT_GPT2) == (strcmp(SPLIT[i].init, "gpt2") == 0) &&
            (c->qk_norm == QK_NORM_NONE) == (strcmp(SPLIT[i].qk_norm, "none") == 0) &&
            p->d_model == SPLIT[i].d_model && p->lr == SPLIT[i].lr)
            return 1;
    return 0;
}

/* The cell of column name in row r ("" when empty; NULL when there is no such column). */
static const char *cell(const Csv *t, int r, const char *name) {
    int c = csv_col(t, name);
    return c < 0 ? NULL : csv_str(t, r, c);
}

/* The config a run trained: its plan's base lines, then its values of the plan's axes. */
static void run_config(Config *c, const char *plan, const Csv *t, int r) {
    config_defaults(c);
    FILE *p = fopen(plan, "r");
    ck_assert_msg(p != NULL, "cannot open %s", plan);
    char line[1024], set[1100];
    /* the base lines first, then the axes (plan.txt lists the axes first) */
    for (int pass = 0; pass < 2; pass++, rewind(p))
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        if (pass == 0 && strncmp(line, "base ", 5) == 0) {
            char *eq = strstr(line, " = ");
            ck_assert_ptr_nonnull(eq);
            snprintf(set, sizeof set, "%.*s=%s", (int)(eq - line - 5), line + 5, eq + 3);
            ck_assert_msg(config_set(c, set, 0) == 0, "%s: %s", plan, set);
        } else if (pass == 1 && strncmp(line, "axis ", 5) == 0) {
            char key[200];
            ck_assert_int_eq(sscanf(line + 5, "%199s", key), 1);
            if (strcmp(key, "d_k") == 0) { /* d_model and n_heads from the row */
                snprintf(set, sizeof set, "model.d_model=%s", cell(t, r, "d_model"));
                ck_assert_int_eq(config_set(c, set, 0), 0);
                snprintf(set, sizeof set, "model.n_heads=%s", cell(t, r, "n_heads"));
                ck_assert_int_eq(config_set(c, set, 0), 0);
                continue;
            }
            const char *col = strcmp(key, "attention.scale") == 0 ? "scale"
                              : strcmp(key, "run.seed") == 0     ? "seed"
                                                                 : key;
            const char *v = cell(t, r, col);
            ck_assert_msg(v != NULL, "%s: no column %s", plan, col);
            snprintf(set, sizeof set, "%s=%s", key, v);
            ck_assert_msg(config_set(c, set, 0) == 0, "%s: %s", plan, set);
        }
    }
    fclose(p);
    ck_assert_int_eq(config_validate(c), 0);
}

/* Text runs have no learn/fail edge: one "learnt" (came near the best) when its final val_loss, in
 * nats per byte, is within TEXT_NEAR of the smallest of its width's finished runs (experiments/
 * regimes.txt: 0.1 bits per byte, about three times the seed spread at the best lrs). */
#define TEXT_NEAR 0.0693

/* The smallest val_loss of the runs with status ok in t (one sweep.csv is one width's text map). */
static double best_loss(const Csv *t) {
    double best = 1e300;
    for (int r = 0; r < t->n_rows; r++) {
        const char *v = cell(t, r, "val_loss");
        if (strcmp(cell(t, r, "status"), "ok") == 0 && *v && strtod(v, NULL) < best)
            best = strtod(v, NULL);
    }
    return best;
}

/* Whether row r learnt: sort, status ok and final val_answer_acc >= 0.99; text, status ok and
 * val_loss within TEXT_NEAR of the width's best. */
static int run_learnt(const Csv *t, int r, int text, double best) {
    const char *v = cell(t, r, text ? "val_loss" : "val_answer_acc");
    if (strcmp(cell(t, r, "status"), "ok") != 0 || !*v) return 0;
    return text ? strtod(v, NULL) <= best + TEXT_NEAR : strtod(v, NULL) >= 0.99;
}

/* Every finished run of one sweep folder into counts[regime] (or outside). */
static void judge_sweep(const char *dir, const char *want_regime, Count *counts) {
    char path[1024], plan[1024];
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    snprintf(plan, sizeof plan, "%s/plan.txt", dir);
    Csv t;
    if (csv_load(&t, path) != 0) return;
    int text = strncmp(want_regime, "text_users", 10) == 0;
    double best = text ? best_loss(&t) : 0;
    for (int r = 0; r < t.n_rows; r++) {
        const char *st = cell(&t, r, "status"), *name = cell(&t, r, "run");
        const char *acc = cell(&t, r, text ? "val_loss" : "val_answer_acc");
        if (strcmp(st, "ok") != 0 && strcmp(st, "diverged") != 0) continue;
        int learnt = run_learnt(&t, r, text, best);
        Config c;
        run_config(&c, plan, &t, r);
        if (text) { /* each run decayed to its lr / 10 (text_map.sh's plan(); plan.txt says so in
                     * its comment, the one place the combined plan holds it) */
            char set[80];
            double lr = strtod(cell(&t, r, "optim.lr"), NULL);
            snprintf(set, sizeof set, "optim.min_lr=%.6g", lr / 10);
            ck_assert_int_eq(config_set(&c, set, 0), 0);
        }
        LrPlacement p;
        ck_assert_int_eq(lmc_place(&c, &p), 0);
        const char *got = p.regime >= 0 ? lr_map_regimes[p.regime].id : "";
        ck_assert_msg(strcmp(got, want_regime) == 0, "%s %s: in regime '%s', want '%s' (%s)", dir,
                      name, got, want_regime, p.n_diffs ? p.diffs[0] : "");
        if (p.regime < 0) {
            counts[lr_map_n_regimes].outside++;
            continue;
        }
        Count *k = &counts[p.regime];
        k->runs++;
        if (p.verdict == LR_VERDICT_SPLIT) {
            if (!documented_split(&p, &c))
                fprintf(stderr, "undocumented split: %s %s\n", dir, name);
            ck_assert_msg(documented_split(&p, &c), "%s %s: an undocumented split cell", dir, name);
            k->split++;
        } else if (p.verdict == LR_VERDICT_EDGE) { /* between two estimated thresholds: it
                                                    * claims neither outcome, so none contradicts
                                                    * it; counted apart, each one in WANT */
            fprintf(stderr, "on the edge: %s %s (%s)\n", dir, name, learnt ? "learnt" : "failed");
            k->edge++;
        } else if ((p.verdict == LR_VERDICT_LEARNS && learnt) ||
                   (p.verdict == LR_VERDICT_FAILS && !learnt)) {
            k->hits++;
        } else {
            k->misses++;
            fprintf(stderr, "contradiction: %s %s (%s, acc %s): verdict %d\n", dir, name,
                    learnt ? "learnt" : "failed", acc, p.verdict);
        }
    }
    csv_free(&t);
}

START_TEST(test_agreement) {
    Count counts[16] = {{0}};
    ck_assert_int_lt(lr_map_n_regimes, 15);
    for (int i = 0; i < CC_COUNT(FOLDERS); i++) {
        char root[600];
        snprintf(root, sizeof root, SCALEDOT_SOURCE_DIR "/results/%s", FOLDERS[i].folder);
        DIR *d = opendir(root);
        ck_assert_msg(d != NULL, "cannot open %s", root);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' ||
                strncmp(e->d_name, FOLDERS[i].prefix, strlen(FOLDERS[i].prefix)) != 0)
                continue;
            if (!*FOLDERS[i].prefix && strncmp(e->d_name, "std_", 4) == 0) continue;
            char dir[1024];
            snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
            judge_sweep(dir, FOLDERS[i].regime, counts);
        }
        closedir(d);
    }
    for (int i = 0; i < CC_COUNT(WANT); i++) {
        int r = -1;
        for (int k = 0; k < lr_map_n_regimes; k++)
            if (strcmp(lr_map_regimes[k].id, WANT[i].regime) == 0) r = k;
        ck_assert_int_ge(r, 0);
        const Count *k = &counts[r];
        printf("%s: %d of %d published runs agree with --where's verdict, %d in split cells "
               "(their seeds disagree), %d on the edge (between estimated thresholds), %d "
               "contradicted\n", WANT[i].regime, k->hits, k->runs, k->split, k->edge, k->misses);
        fflush(stdout);
        ck_assert_int_eq(k->misses, 0);
        ck_assert_int_eq(k->runs, WANT[i].runs);
        ck_assert_int_eq(k->hits, WANT[i].hits);
        ck_assert_int_eq(k->split, WANT[i].split);
        ck_assert_int_eq(k->edge, WANT[i].edge);
    }
    printf("in no regime: %d runs (results/init_width/std_d64: init.std other than 0.02)\n",
           counts[lr_map_n_regimes].outside);
    ck_assert_int_eq(counts[lr_map_n_regimes].outside, 30);
}
END_TEST

TU_MAIN_TIMEOUT("lr_map_runs", 120, test_agreement);
