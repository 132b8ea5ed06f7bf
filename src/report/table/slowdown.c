/* slowdown.c: unscaled over scaled steps to 50 / 90 / 99 % answer accuracy (next-byte accuracy on
 * text: sweep_acc_name), per pair and as a censored median over seeds (table.h). Reading order:
 * one pair, the censored median, the section of the sweep summary. */
#include "report/table/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------------------------------ one pair */

Slowdown slowdown_pair(int none_reached, double none_step, double none_censor, int sqrt_reached,
                       double sqrt_step, double sqrt_censor) {
    Slowdown s = {SD_UNKNOWN, NAN};
    if (none_reached && sqrt_reached) {
        if (sqrt_step > 0) s = (Slowdown){SD_EXACT, none_step / sqrt_step};
    } else if (sqrt_reached) {
        if (sqrt_step > 0) s = (Slowdown){SD_MORE, none_censor / sqrt_step};
    } else if (none_reached) {
        if (sqrt_censor > 0) s = (Slowdown){SD_LESS, none_step / sqrt_censor};
    } else {
        s.kind = SD_NEITHER;
    }
    return s;
}

void slowdown_format(char *out, size_t n, Slowdown s) {
    switch (s.kind) {
    case SD_EXACT: snprintf(out, n, "%.3g×", s.ratio); break;
    case SD_MORE: snprintf(out, n, "> %.3g×", s.ratio); break;
    case SD_LESS: snprintf(out, n, "< %.3g×", s.ratio); break;
    case SD_NEITHER: snprintf(out, n, "—"); break;
    default: snprintf(out, n, "n/a"); break;
    }
}

/* ------------------------------------------------------------------ censored median */

static int cmp_slowdown(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double middle(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_slowdown);
    if (n % 2) return v[n / 2];
    /* the mean of the two middle values; with an infinite one it is infinite */
    return isinf(v[n / 2]) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

SlowMedian slowdown_median(const Slowdown *v, int n) {
    SlowMedian m = {0, 0, NAN, NAN};
    double *lo = malloc(sizeof *lo * (size_t)(n > 0 ? n : 1));
    double *hi = malloc(sizeof *hi * (size_t)(n > 0 ? n : 1));
    if (!lo || !hi) {
        free(lo);
        free(hi);
        return m;
    }
    for (int i = 0; i < n; i++) {
        m.n_neither += v[i].kind == SD_NEITHER;
        if (v[i].kind == SD_NEITHER || v[i].kind == SD_UNKNOWN) continue;
        lo[m.n_used] = v[i].kind == SD_LESS ? 0 : v[i].ratio;
        hi[m.n_used] = v[i].kind == SD_MORE ? INFINITY : v[i].ratio;
        m.n_used++;
    }
    if (m.n_used > 0) {
        m.lo = middle(lo, m.n_used);
        m.hi = middle(hi, m.n_used);
    }
    free(lo);
    free(hi);
    return m;
}

void slowdown_median_format(char *out, size_t n, SlowMedian m) {
    if (m.n_used == 0) snprintf(out, n, m.n_neither ? "—" : "n/a");
    else if (m.lo == m.hi) snprintf(out, n, "%.3g×", m.lo);
    else if (isinf(m.hi) && m.lo > 0) snprintf(out, n, "> %.3g×", m.lo);
    else if (m.lo == 0 && !isinf(m.hi)) snprintf(out, n, "< %.3g×", m.hi);
    else if (m.lo > 0) snprintf(out, n, "%.3g–%.3g×", m.lo, m.hi);
    else snprintf(out, n, "?");
}

/* ------------------------------------------------------------------ the summary's section */

static const SweepMetric FIRST[TTL_N] = {SW_FIRST50, SW_FIRST90, SW_FIRST99};

/* Where a run that never got there was last seen: its last validation pass, else its last
 * logged step, else its budget; NAN when none is known. */
static double censor_step(const SweepRow *r) {
    if (r->has[SW_LAST_EVAL]) return r->v[SW_LAST_EVAL];
    if (r->has[SW_STEPS_DONE]) return r->v[SW_STEPS_DONE];
    return r->has[SW_STEPS] ? r->v[SW_STEPS] : NAN;
}

/* Run r's steps to threshold k as text: "300", "never@2000", "?" (not in the file). */
static void steps_text(char *out, size_t n, const SweepTable *t, const SweepRow *r, int k) {
    if (t->col[FIRST[k]] < 0) snprintf(out, n, "?");
    else if (r->has[FIRST[k]] && isfinite(r->v[FIRST[k]])) snprintf(out, n, "%.0f", r->v[FIRST[k]]);
    else if (isfinite(censor_step(r))) snprintf(out, n, "never@%.0f", censor_step(r));
    else snprintf(out, n, "never");
}

Slowdown slowdown_at(const SweepTable *t, const SweepRow *none, const SweepRow *sq, int k) {
    SweepMetric m = FIRST[k];
    if (t->col[m] < 0) return (Slowdown){SD_UNKNOWN, NAN};
    int rn = none->has[m] && isfinite(none->v[m]), rs = sq->has[m] && isfinite(sq->v[m]);
    double cn = censor_step(none), cs = censor_step(sq);
    if ((!rn && rs && !isfinite(cn)) || (rn && !rs && !isfinite(cs)))
        return (Slowdown){SD_UNKNOWN, NAN};
    return slowdown_pair(rn, none->v[m], cn, rs, sq->v[m], cs);
}

/* Characters of UTF-8 text (×, — and – take 2 or 3 bytes but one column). */
static int display_width(const char *s) {
    int w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* s right-aligned in w columns after two blanks. */
static void put_right(FILE *f, int w, const char *s) {
    int pad = w - display_width(s);
    fprintf(f, "  %*s%s", pad > 0 ? pad : 0, "", s);
}

int slowdown_pairs(const SweepTable *t, SweepGroup **groups, int *n_groups, SlowPair **out) {
    int scale = sweep_key(t, "scale"), n_pairs = 0;
    *groups = NULL, *n_groups = 0, *out = NULL;
    if (scale < 0) return 0;
    int n = sweep_groups(t, 1u << scale, groups);
    if (n < 0) return -1;
    *n_groups = n;
    SlowPair *pairs = malloc(sizeof *pairs * (size_t)(n > 0 ? n : 1));
    if (!pairs) return -1;
    for (int k = 0; k < n; k++) {
        SlowPair p = {-1, -1, k};
        for (int i = 0; i < (*groups)[k].n; i++) {
            const char *v = sweep_key_value(t, &t->rows[(*groups)[k].rows[i]], scale);
            if (strcmp(v, "none") == 0 && p.none < 0) p.none = (*groups)[k].rows[i];
            if (strcmp(v, "sqrt_dk") == 0 && p.sq < 0) p.sq = (*groups)[k].rows[i];
        }
        if (p.none >= 0 && p.sq >= 0) pairs[n_pairs++] = p;
    }
    *out = pairs;
    return n_pairs;
}

/* The table of the pairs: each one's steps to every threshold and its slowdowns. */
static void print_pairs(FILE *f, const SweepTable *t, const SweepGroup *g, const SlowPair *pairs,
                        int n_pairs) {
    fprintf(f, "\nslowdown: steps to the first validation pass at >= 50 / 90 / 99 %% %s, "
               "scale=none over scale=sqrt_dk,\nper pair of runs that differ only in the scale; "
               "\"> N×\": the unscaled run never got there (censored at its last validation pass: "
               "N =\nthat step / the scaled run's steps, a lower bound); \"< N×\": the scaled run never "
               "got there; \"—\": neither did\n\n", sweep_acc_name(t));
    int w = 4;
    for (int i = 0; i < n_pairs; i++)
        if ((int)strlen(g[pairs[i].group].label) > w) w = (int)strlen(g[pairs[i].group].label);
    fprintf(f, "  %-*s  %-32s  %-32s  %9s  %9s  %9s\n", w, "pair", "steps none (50/90/99)",
            "steps sqrt_dk", "50%", "90%", "99%");
    for (int i = 0; i < n_pairs; i++) {
        const SweepRow *a = &t->rows[pairs[i].none], *b = &t->rows[pairs[i].sq];
        char sa[3][24], sb[3][24], r[3][32], ta[80], tb[80];
        for (int k = 0; k < TTL_N; k++) {
            steps_text(sa[k], sizeof sa[k], t, a, k);
            steps_text(sb[k], sizeof sb[k], t, b, k);
            slowdown_format(r[k], sizeof r[k], slowdown_at(t, a, b, k));
        }
        snprintf(ta, sizeof ta, "%s/%s/%s", sa[0], sa[1], sa[2]);
        snprintf(tb, sizeof tb, "%s/%s/%s", sb[0], sb[1], sb[2]);
        fprintf(f, "  %-*s  %-32s  %-32s", w, g[pairs[i].group].label, ta, tb);
        for (int k = 0; k < TTL_N; k++) put_right(f, 9, r[k]);
        fputc('\n', f);
    }
}

/* The table of the medians over seeds: a line per group mg[m] of the pairs (vals: room for
 * n_pairs slowdowns). */
static void print_seed_medians(FILE *f, const SweepTable *t, const SweepGroup *mg, int n_m,
                               const SlowPair *pairs, int n_pairs, Slowdown *vals) {
    fprintf(f, "\nmedian over seeds of the slowdowns above (n: pairs; a pair where neither run got "
               "there has no ratio and is left out,\ncounted in 'neither'). A censored ratio counts "
               "once at its bound and once at its extreme (0 or infinity): when the two\nmedians "
               "agree the median is known (\"N×\"); \"> N×\": the censored pairs decide it and it is "
               "at least N;\n\"< N×\": at most N; \"A–B×\": between\n\n");
    int wm = 5;
    for (int k = 0; k < n_m; k++)
        if ((int)strlen(mg[k].label) > wm) wm = (int)strlen(mg[k].label);
    fprintf(f, "  %-*s  %3s  %-16s  %12s  %12s  %12s\n", wm, "group", "n", "neither 50/90/99",
            "50%", "90%", "99%");
    for (int m = 0; m < n_m; m++) {
        char cell[3][48], neither[32];
        int used = 0, nn[3] = {0, 0, 0};
        for (int k = 0; k < TTL_N; k++) {
            int c = 0;
            for (int i = 0; i < n_pairs; i++)
                for (int j = 0; j < mg[m].n; j++)
                    if (mg[m].rows[j] == pairs[i].none) vals[c++] = slowdown_at(t, &t->rows[pairs[i].none],
                                                                          &t->rows[pairs[i].sq], k);
            SlowMedian md = slowdown_median(vals, c);
            slowdown_median_format(cell[k], sizeof cell[k], md);
            nn[k] = md.n_neither;
            used = c;
        }
        if (used == 0) continue;
        snprintf(neither, sizeof neither, "%d/%d/%d", nn[0], nn[1], nn[2]);
        fprintf(f, "  %-*s  %3d  %-16s", wm, mg[m].label, used, neither);
        for (int k = 0; k < TTL_N; k++) put_right(f, 12, cell[k]);
        fputc('\n', f);
    }
}

int slowdown_print(FILE *f, const SweepTable *t) {
    int scale = sweep_key(t, "scale"), seed = sweep_key(t, "seed");
    if (scale < 0) return 0;
    SweepGroup *g = NULL, *mg = NULL;
    SlowPair *pairs = NULL;
    Slowdown *vals = NULL;
    int n = 0, n_m = -1, rc = 0;
    int n_pairs = slowdown_pairs(t, &g, &n, &pairs);
    if (n_pairs < 0) rc = -1;
    if (n_pairs > 0) {
        print_pairs(f, t, g, pairs, n_pairs);
        if (seed >= 0) {
            /* medians over seeds: the pairs grouped by every varied column but scale and seed */
            n_m = sweep_groups(t, 1u << scale | 1u << seed, &mg);
            vals = malloc(sizeof *vals * (size_t)n_pairs);
            if (n_m < 0 || !vals) rc = -1;
            else print_seed_medians(f, t, mg, n_m, pairs, n_pairs, vals);
        }
    }
    if (rc < 0) fprintf(stderr, "error: out of memory computing the slowdowns\n");
    free(vals);
    free(pairs);
    sweep_groups_free(g, n > 0 ? n : 0);
    sweep_groups_free(mg, n_m > 0 ? n_m : 0);
    return rc;
}
