/* verdict.c: the few lines at the top of a report page (page_internal.h). Reading order: one run's
 * line, the pair's line, the compare verdict, the sweep verdict. */
#include "report/page/page_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/table/table.h"
#include "runlog/log_query.h"

/* ------------------------------------------------------------------ one run */

/* "NAME" or "NAME (diverged @N)": the status when the run did not simply finish. */
static void run_head(FILE *f, const Run *r) {
    char st[64];
    run_status(r, st, sizeof st);
    if (strncmp(st, "finished", 8) == 0) fprintf(f, "%s: ", r->name);
    else fprintf(f, "%s (%s): ", r->name, st);
}

static void text_run_line(FILE *f, const Run *r) {
    int s_bpb, s_acc;
    double bpb = run_last_bpb(r, &s_bpb), acc = run_last_logged(r, "val_token_acc", &s_acc);
    run_head(f, r);
    if (s_bpb < 0) {
        fprintf(f, "no validation pass logged\n");
        return;
    }
    fprintf(f, "%.3f bits per byte on validation at step %d", bpb, s_bpb);
    if (s_acc >= 0) fprintf(f, ", next-byte accuracy %.1f %%", 100 * acc);
    fprintf(f, "\n");
}

static void task_run_line(FILE *f, const Run *r) {
    int step;
    double acc = run_last_logged(r, "val_answer_acc", &step);
    TimeToLearn ttl = time_to_learn(&r->loss);
    run_head(f, r);
    if (!ttl.has_eval) {
        fprintf(f, "no validation pass logged\n");
        return;
    }
    fprintf(f, "final answer accuracy %.1f %% at step %d; first at >= ", 100 * acc, step);
    for (int k = 0; k < TTL_N; k++) fprintf(f, "%s%s", k ? " / " : "", TTL_NAME[k]);
    fprintf(f, " %%: ");
    for (int k = 0; k < TTL_N; k++) {
        fprintf(f, "%s", k ? " / " : "");
        if (ttl.reached[k]) fprintf(f, "step %d", ttl.step[k]);
        else fprintf(f, "never (by %d)", ttl.last_eval_step);
    }
    fprintf(f, "\n");
}

/* ------------------------------------------------------------------ the pair */

/* The pair in the order the verdict compares them: (slow, base) = the unscaled and the scaled
 * run when one has attention.scale = none and the other sqrt_dk, else the second and the first. */
static void pair_order(const Run *runs, const Run **slow, const Run **base) {
    const char *a = ini_get(&runs[0].config, "attention.scale");
    const char *b = ini_get(&runs[1].config, "attention.scale");
    int flip = a && b && strcmp(a, "none") == 0 && strcmp(b, "sqrt_dk") == 0;
    *slow = &runs[flip ? 0 : 1];
    *base = &runs[flip ? 1 : 0];
}

static void text_pair_line(FILE *f, const Run *runs) {
    const Run *b, *a;
    pair_order(runs, &b, &a);
    int sa, sb;
    double va = run_last_bpb(a, &sa), vb = run_last_bpb(b, &sb), d = vb - va;
    if (sa < 0 || sb < 0 || !isfinite(d)) return;
    if (d == 0)
        fprintf(f, "%s ends level with %s (%.3f bits per byte)\n", b->name, a->name, va);
    else
        fprintf(f, "%s ends %.3f bits per byte %s %s (%.3f against %.3f; lower is better)\n",
                b->name, fabs(d), d > 0 ? "above" : "below", a->name, vb, va);
}

static void task_pair_line(FILE *f, const Run *runs) {
    const Run *slow, *base;
    pair_order(runs, &slow, &base);
    TimeToLearn ts = time_to_learn(&slow->loss), tb = time_to_learn(&base->loss);
    if (!ts.has_eval || !tb.has_eval) return;
    fprintf(f, "slowdown, steps of %s over %s to ", slow->name, base->name);
    for (int k = 0; k < TTL_N; k++) fprintf(f, "%s%s", k ? " / " : "", TTL_NAME[k]);
    fprintf(f, " %%: ");
    for (int k = 0; k < TTL_N; k++) {
        char s[32];
        slowdown_format(s, sizeof s,
                        slowdown_pair(ts.reached[k], ts.step[k], ts.last_eval_step, tb.reached[k],
                                      tb.step[k], tb.last_eval_step));
        fprintf(f, "%s%s", k ? " / " : "", s);
    }
    fprintf(f, "\n");
}

void verdict_compare(FILE *f, const Run *runs, int n) {
    int text = runs_are_text(runs, n);
    for (int i = 0; i < n; i++) (text ? text_run_line : task_run_line)(f, &runs[i]);
    if (n == 2) (text ? text_pair_line : task_pair_line)(f, runs);
}

/* ------------------------------------------------------------------ a sweep */

/* One group's line: its label, median final answer accuracy and seeds at 99 % (on text: median
 * next-byte accuracy and bits per byte, no threshold). */
static void group_text(FILE *f, const SweepTable *t, const SweepGroup *g) {
    SweepStat acc = sweep_stat(t, g, SW_VAL_ACC, 100);
    fprintf(f, "%s: final %s ", g->label, sweep_acc_name(t));
    if (acc.n == 0) fprintf(f, "not measured");
    else fprintf(f, "%.1f %% (median of %d run%s)", acc.median, acc.n, acc.n == 1 ? "" : "s");
    SweepStat bpb = sweep_stat(t, g, SW_VAL_LOSS, 1 / log(2.0));
    if (t->acc == SWEEP_ACC_NEXT_BYTE && bpb.n > 0)
        fprintf(f, ", %.3f bits per byte (median val_loss / ln 2)", bpb.median);
    /* a 99 % threshold of next-byte accuracy means nothing for text: its bits per byte stand */
    if (t->col[SW_FIRST99] < 0 || t->acc == SWEEP_ACC_NEXT_BYTE) return;
    int reached = 0;
    for (int i = 0; i < g->n; i++) {
        const SweepRow *r = &t->rows[g->rows[i]];
        reached += r->has[SW_FIRST99] && isfinite(r->v[SW_FIRST99]);
    }
    fprintf(f, ", %d/%d reached 99 %%", reached, g->n);
    SweepStat st = sweep_stat(t, g, SW_FIRST99, 1);
    if (reached > 0 && st.n > 0) fprintf(f, " (median step %.0f)", st.median);
}

/* The median slowdown over every pair of the sweep at each threshold; nothing without pairs. */
static int slowdown_line(FILE *f, const SweepTable *t) {
    SweepGroup *g;
    SlowPair *p;
    int n_groups, n = slowdown_pairs(t, &g, &n_groups, &p);
    Slowdown *v = n > 0 ? malloc(sizeof *v * (size_t)n) : NULL;
    if (n < 0 || (n > 0 && !v)) {
        sweep_groups_free(g, n_groups);
        free(p);
        return -1;
    }
    if (n > 0) {
        fprintf(f, "  unscaled over scaled steps to ");
        for (int k = 0; k < TTL_N; k++) fprintf(f, "%s%s", k ? " / " : "", TTL_NAME[k]);
        /* a sort verdict leaves the answer accuracy implied, as it always has */
        fprintf(f, " %%%s%s: ", t->acc == SWEEP_ACC_ANSWER ? "" : " ",
                t->acc == SWEEP_ACC_ANSWER ? "" : sweep_acc_name(t));
        for (int k = 0; k < TTL_N; k++) {
            for (int i = 0; i < n; i++)
                v[i] = slowdown_at(t, &t->rows[p[i].none], &t->rows[p[i].sq], k);
            char s[48];
            slowdown_median_format(s, sizeof s, slowdown_median(v, n));
            fprintf(f, "%s%s", k ? " / " : "", s);
        }
        fprintf(f, " (median over %d pair%s of runs that differ only in the scale)\n", n,
                n == 1 ? "" : "s");
    }
    free(v);
    free(p);
    sweep_groups_free(g, n_groups);
    return 0;
}

int verdict_sweep(FILE *f, const SweepTable *t) {
    int seed = sweep_key(t, "seed");
    SweepGroup *g;
    int n = sweep_groups(t, seed >= 0 ? 1u << seed : 0u, &g);
    if (n < 0) return -1;
    if (n == 0) return 0;
    /* best: the highest median accuracy (the first of equals); worst: the lowest (the last) */
    int best = -1, worst = -1;
    double hi = -INFINITY, lo = INFINITY;
    for (int k = 0; k < n; k++) {
        SweepStat s = sweep_stat(t, &g[k], SW_VAL_ACC, 100);
        if (s.n == 0) continue;
        if (s.median > hi) hi = s.median, best = k;
        if (s.median <= lo) lo = s.median, worst = k;
    }
    fprintf(f, "verdict: ");
    if (n == 1 || best < 0) {
        group_text(f, t, &g[0]);
        fprintf(f, "\n");
    } else {
        fprintf(f, "best of %d groups, ", n);
        group_text(f, t, &g[best]);
        fprintf(f, "\n  worst, ");
        group_text(f, t, &g[worst]);
        fprintf(f, "\n");
    }
    sweep_groups_free(g, n);
    return t->acc == SWEEP_ACC_NEXT_BYTE ? 0 : slowdown_line(f, t); /* thresholds: as above */
}
