/* lr_sensitivity.c: LR sensitivity per group of a sweep over optim.lr (Wortsman et al. 2023,
 * section 2.2; see table.h): the formula, then the groups and lr grids of a sweep.csv,
 * then the printed table. */
#include "report/table/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double lr_sensitivity(const double *loss, int n, double l0, int *best) {
    if (n <= 0 || !isfinite(l0)) return NAN;
    int b = 0;
    for (int i = 0; i < n; i++) {
        if (isnan(loss[i])) return NAN;
        if (loss[i] < loss[b]) b = i;
    }
    double sum = 0;
    for (int i = 0; i < n; i++) sum += fmin(loss[i], l0) - loss[b];
    if (best) *best = b;
    return sum / n;
}

/* The index of lr text in g's grid, added in ascending order when new; -1 when the grid is full. */
static int grid_index(LrGroup *g, const char *text) {
    for (int i = 0; i < g->n; i++)
        if (strcmp(g->pt[i].text, text) == 0) return i;
    if (g->n == LR_MAX_GRID) return -1;
    double lr = strtod(text, NULL);
    int i = g->n++;
    for (; i > 0 && g->pt[i - 1].lr > lr; i--) g->pt[i] = g->pt[i - 1];
    g->pt[i] = (LrPoint){.text = text, .lr = lr};
    return i;
}

/* Fills one group: l0 first (it stands in for diverged runs), then each lr's mean and medians.
 * Returns 0, or -1 when memory runs out. */
static int analyse_group(const SweepTable *t, const SweepGroup *sg, int lr_key, LrGroup *g) {
    snprintf(g->label, sizeof g->label, "%s", sg->label);
    double sum0 = 0;
    int n0 = 0;
    for (int i = 0; i < sg->n; i++) {
        const SweepRow *r = &t->rows[sg->rows[i]];
        if (r->has[SW_LOSS0] && isfinite(r->v[SW_LOSS0])) sum0 += r->v[SW_LOSS0], n0++;
    }
    g->l0 = n0 ? sum0 / n0 : NAN;
    size_t cap = sg->n > 0 ? (size_t)sg->n : 1;
    double *loss = calloc(cap, sizeof *loss), *acc = calloc(cap, sizeof *acc);
    if (!loss || !acc) {
        free(loss);
        free(acc);
        return -1;
    }
    for (int i = 0; i < sg->n; i++)
        grid_index(g, sweep_key_value(t, &t->rows[sg->rows[i]], lr_key));
    for (int p = 0; p < g->n; p++) {
        LrPoint *pt = &g->pt[p];
        double sum = 0;
        int nl = 0, na = 0;
        for (int i = 0; i < sg->n; i++) {
            const SweepRow *r = &t->rows[sg->rows[i]];
            if (strcmp(sweep_key_value(t, r, lr_key), pt->text) != 0) continue;
            double v = r->v[SW_VAL_LOSS];
            int diverged =
                strcmp(r->status, "diverged") == 0 || (r->has[SW_VAL_LOSS] && !isfinite(v));
            if (r->has[SW_VAL_ACC] && !isnan(r->v[SW_VAL_ACC])) acc[na++] = 100 * r->v[SW_VAL_ACC];
            if (!diverged && !r->has[SW_VAL_LOSS]) continue; /* counted in lr_analyse */
            if (!diverged || isfinite(g->l0)) loss[nl++] = diverged ? g->l0 : v;
            pt->runs++;
            pt->diverged += diverged;
            sum += diverged ? g->l0 : v;
        }
        pt->loss = pt->runs ? sum / pt->runs : NAN;
        pt->acc_median = sweep_median(acc, na);
        pt->loss_median = sweep_median(loss, nl);
        pt->loss_lo = nl ? loss[0] : NAN;
        pt->loss_hi = nl ? loss[nl - 1] : NAN;
    }
    /* An lr where no seed has a loss (all skipped) has no l(lr): it leaves the grid. */
    int n = 0;
    for (int p = 0; p < g->n; p++)
        if (g->pt[p].runs > 0) g->pt[n++] = g->pt[p];
    g->n = n;
    double l[LR_MAX_GRID] = {0}; /* zeroed: gcc -O1 cannot see that only l[0..n) is read */
    for (int p = 0; p < n; p++) l[p] = g->pt[p].loss;
    g->best = 0;
    g->sensitivity = lr_sensitivity(l, n, g->l0, &g->best);
    if (isnan(g->sensitivity)) /* still name the best lr when l0 is unknown */
        for (int p = 0; p < n; p++)
            if (l[p] < l[g->best] || isnan(l[g->best])) g->best = p;
    g->l_star = n ? l[g->best] : NAN;
    free(loss);
    free(acc);
    return 0;
}

int lr_analyse(const SweepTable *t, LrGroup **out) {
    int lr_key = sweep_key(t, "optim.lr"), seed_key = sweep_key(t, "seed");
    *out = NULL;
    if (lr_key < 0) return 0;
    unsigned ignore = 1u << lr_key | (seed_key >= 0 ? 1u << seed_key : 0u);
    SweepGroup *sg;
    int n = sweep_groups(t, ignore, &sg);
    LrGroup *g = n >= 0 ? calloc((size_t)(n > 0 ? n : 1), sizeof *g) : NULL;
    int failed = !g;
    for (int k = 0; k < n && !failed; k++) failed = analyse_group(t, &sg[k], lr_key, &g[k]) != 0;
    if (failed) {
        fprintf(stderr, "error: out of memory computing the LR sensitivity\n");
        if (n >= 0) sweep_groups_free(sg, n);
        free(g);
        return -1;
    }
    /* The rows of an lr beyond LR_MAX_GRID were never counted. */
    for (int k = 0; k < n; k++) {
        int counted = 0;
        for (int p = 0; p < g[k].n; p++) counted += g[k].pt[p].runs;
        g[k].skipped = sg[k].n - counted;
    }
    sweep_groups_free(sg, n);
    *out = g;
    return n;
}

/* A number in a table cell: %.4g, or "-" when not known. */
static const char *cell(char *buf, size_t n, double v, const char *fmt) {
    if (isnan(v)) snprintf(buf, n, "-");
    else snprintf(buf, n, fmt, v);
    return buf;
}

void lr_print(FILE *f, const LrGroup *g, int n) {
    int w = 5;
    for (int k = 0; k < n; k++)
        if ((int)strlen(g[k].label) > w) w = (int)strlen(g[k].label);
    fprintf(f, "\nLR sensitivity (Wortsman et al. 2023, arXiv 2309.14322, sec. 2.2): mean over the "
               "lr grid of min(l(lr), l0) - l*;\n"
               "l(lr) = final val_loss at lr, mean over seeds (a diverged run counts as l0); "
               "l0 = loss at initialisation (mean loss0);\n"
               "l* = the group's best l(lr). 0 = as good at every lr; l0 - l* = learns at one lr "
               "only.\n\n");
    fprintf(f, "  %-*s  %9s  %9s  %9s  %9s\n", w, "group", "LR sens.", "best lr", "l*", "l0");
    char a[32], b[32], c[32];
    for (int k = 0; k < n; k++)
        fprintf(f, "  %-*s  %9s  %9s  %9s  %9s\n", w, g[k].label,
                cell(a, sizeof a, g[k].sensitivity, "%.4f"), g[k].n ? g[k].pt[g[k].best].text : "-",
                cell(b, sizeof b, g[k].l_star, "%.4g"), cell(c, sizeof c, g[k].l0, "%.4g"));
    for (int k = 0; k < n; k++) {
        fprintf(f, "\n  %s:\n  %10s  %10s  %13s  %12s  %s\n", g[k].label, "lr", "l(lr)",
                "min(l,l0)-l*", "acc median %", "seeds (diverged)");
        for (int p = 0; p < g[k].n; p++) {
            const LrPoint *pt = &g[k].pt[p];
            double gap = isfinite(g[k].l0) ? fmin(pt->loss, g[k].l0) - g[k].l_star : NAN;
            fprintf(f, "  %10s  %10s  %13s  %12s  %d (%d)\n", pt->text,
                    cell(a, sizeof a, pt->loss, "%.4g"), cell(b, sizeof b, gap, "%.4f"),
                    cell(c, sizeof c, pt->acc_median, "%.1f"), pt->runs, pt->diverged);
        }
        if (g[k].skipped)
            fprintf(f, "  (%d trained run%s left out: no val_loss and not diverged)\n",
                    g[k].skipped, g[k].skipped > 1 ? "s" : "");
        if (isnan(g[k].l0))
            fprintf(f, "  (no loss0 in sweep.csv: the LR sensitivity needs the loss at "
                       "initialisation)\n");
    }
}
