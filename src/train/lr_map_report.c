/* lr_map_report.c: the words of a placement (lr_map.h): the one verdict line (--where,
 * init_check.txt, the note before a run) and --where's report, the verdict first. */
#include <math.h>
#include <string.h>

#include "train/lr_map.h"
#include "util/error_list.h"
#include "util/shell_word.h"

/* A learning rate as the sweeps write them: "5e-4", "2.8e-3". */
static const char *lr_str(double v, char *buf, size_t n) {
    if (!(v > 0)) return snprintf(buf, n, "%g", v), buf;
    int e = (int)floor(log10(v));
    double m = v / pow(10, e);
    char ms[16];
    snprintf(ms, sizeof ms, "%.2g", m);
    if (strcmp(ms, "10") == 0) snprintf(ms, sizeof ms, "1"), e++;
    snprintf(buf, n, "%se%d", ms, e);
    return buf;
}

/* "factor" or "factors" for a distance of k factors of 2 as %.1f prints it. */
static const char *factors(double k) {
    return fabs(k) < 1.05 && fabs(k) > 0.95 ? "factor" : "factors";
}

/* Whether the regime (-1: none) judges its runs against the width's best (text), not by an edge. */
static int relative(int regime) {
    return regime >= 0 && lr_map_regimes[regime].relative;
}

/* The verdict in a word; a relative regime's runs (text) have no learn/fail edge: they end near
 * the width's best final loss or behind it. */
static const char *word(LrVerdict v, int regime) {
    int rel = relative(regime);
    switch (v) {
    case LR_VERDICT_LEARNS: return rel ? "near the best" : "learns";
    case LR_VERDICT_FAILS: return rel ? "behind the best" : "fails";
    case LR_VERDICT_SPLIT: return "split";
    case LR_VERDICT_EDGE: return "on the edge";
    case LR_VERDICT_UNKNOWN: return "not known";
    case LR_VERDICT_NONE: break;
    }
    return "no verdict";
}

/* What "learnt" means in the regime, as a verb phrase: "learnt", "ended near the best". */
static const char *learnt(const LrPlacement *p) {
    return relative(p->regime) ? "ended near the best" : "learnt";
}

/* What "failed" means in the regime: "a run failed", "a run fell behind". */
static const char *failed(const LrPlacement *p) {
    return relative(p->regime) ? "a run fell behind" : "a run failed";
}

/* Where did the thresholds at the config's width come from, as a phrase. */
static void source(FILE *f, const LrPlacement *p) {
    const LrMapValue *v = p->learnt.kind != LR_MAP_UNKNOWN ? &p->learnt : &p->failed;
    if (v->kind == LR_MAP_MEASURED) fprintf(f, "measured at this width");
    else if (v->kind == LR_MAP_INTERPOLATED)
        fprintf(f, "interpolated between d_model %d and %d", v->w_lo, v->w_hi);
    else if (v->kind == LR_MAP_EXTRAPOLATED)
        fprintf(f, "extrapolated from d_model %d with the exponent %.2f fitted over d_model %d-%d",
                v->w_lo, p->fit.slope, p->fit.w_min, p->fit.w_max);
    else fprintf(f, "not known");
}

/* The lr against the thresholds at its width ("estimated" unless measured). */
static void against_thresholds(FILE *f, const LrPlacement *p) {
    const char *est = p->learnt.kind == LR_MAP_MEASURED ? "" : "estimated ";
    char b1[32], b2[32];
    double L = p->learnt.lr, F = p->failed.lr;
    if (p->verdict == LR_VERDICT_LEARNS) {
        double k = log2(L / p->lr);
        if (k < 0.05) fprintf(f, "lr %s is at the %slargest lr that %s (%s)", lr_str(p->lr, b1, 32), est, learnt(p), lr_str(L, b2, 32));
        else fprintf(f, "lr %s is %.1f %s of 2 below the %slargest lr that %s (%s)",
                     lr_str(p->lr, b1, 32), k, factors(k), est, learnt(p), lr_str(L, b2, 32));
    } else if (p->verdict == LR_VERDICT_FAILS) {
        fprintf(f, "lr %s is at or above the %ssmallest lr at which %s (%s)",
                lr_str(p->lr, b1, 32), est, failed(p), lr_str(F, b2, 32));
        if (L > 0) fprintf(f, "; the largest that %s: %s", learnt(p), lr_str(L, b2, 32));
    } else if (p->verdict == LR_VERDICT_EDGE) {
        fprintf(f, "lr %s is between the %slargest lr that %s (%s)", lr_str(p->lr, b1, 32), est,
                learnt(p), lr_str(L, b2, 32));
        fprintf(f, " and the smallest at which %s (%s)", failed(p), lr_str(F, b2, 32));
    } else if (p->lr_min > 0 && p->lr < p->lr_min) {
        double k = log2(p->lr_min / p->lr);
        int here = p->basis == LR_BASIS_RUNS || p->basis == LR_BASIS_WIDTH;
        fprintf(f, "lr %s is %.1f %s of 2 below the smallest lr measured at %s (%s): too low an lr "
                   "can fail to learn in %d steps", lr_str(p->lr, b1, 32), k, factors(k),
                here ? "this width" : "any width of its arm", lr_str(p->lr_min, b2, 32),
                p->steps);
    } else {
        fprintf(f, "lr %s is above the lrs measured at this width (up to %s), none of which failed",
                lr_str(p->lr, b1, 32), lr_str(p->lr_max, b2, 32));
    }
    fprintf(f, ", ");
    source(f, p);
}

/* A threshold carried to the config's width and where from: "8e-4 (extrapolated from 1.2e-3 at
 * d_model 512)"; "not known". */
static void carried(FILE *f, const LrMapValue *v) {
    char b[32], b0[32], b1[32];
    if (v->kind == LR_MAP_UNKNOWN) {
        fprintf(f, "not known");
        return;
    }
    fprintf(f, "%s (", lr_str(v->lr, b, sizeof b));
    if (v->kind == LR_MAP_MEASURED) fprintf(f, "measured at this width");
    else if (v->kind == LR_MAP_INTERPOLATED)
        fprintf(f, "interpolated between %s at d_model %d and %s at %d",
                lr_str(v->lr_lo, b0, sizeof b0), v->w_lo, lr_str(v->lr_hi, b1, sizeof b1), v->w_hi);
    else
        fprintf(f, "extrapolated from %s at d_model %d", lr_str(v->lr_lo, b0, sizeof b0), v->w_lo);
    fputc(')', f);
}

/* LR_BASIS_ABOVE: the lr above its width's runs, and the thresholds carried to it. */
static void above(FILE *f, const LrPlacement *p) {
    char b1[32], b2[32];
    fprintf(f, "lr %s is above the lrs measured at this width (up to %s), none of which %s; the "
               "other widths' thresholds carried to it: the largest lr that %s ",
            lr_str(p->lr, b1, 32), lr_str(p->lr_max, b2, 32),
            relative(p->regime) ? "fell behind" : "failed", learnt(p));
    carried(f, &p->above_learnt);
    fprintf(f, ", the smallest at which %s ", failed(p));
    carried(f, &p->above_failed);
    if (p->above_learnt.kind == LR_MAP_EXTRAPOLATED || p->above_failed.kind == LR_MAP_EXTRAPOLATED)
        fprintf(f, ", with the exponent %.2f fitted over d_model %d-%d", p->fit.slope,
                p->fit.w_min, p->fit.w_max);
}

/* One width's say: "d_model 256: split (2 of 3 runs learnt)". */
static void say(FILE *f, const LrPlacement *p, const LrMapSay *s) {
    fprintf(f, "d_model %d: %s", s->d_model, word(s->verdict, p->regime));
    if (s->n_runs) fprintf(f, " (%d of %d runs %s)", s->n_learnt, s->n_runs, learnt(p));
    else fprintf(f, " (by its thresholds: no run at this lr)");
}

/* What the verdict rests on, after the word. */
static void basis(FILE *f, const LrPlacement *p) {
    char b[32];
    switch (p->basis) {
    case LR_BASIS_RUNS:
        fprintf(f, "%d of %d runs at its width, arm and lr %s (d_model %d, lr %s)", p->n_learnt,
                p->n_runs, learnt(p), p->d_model, lr_str(p->lr, b, sizeof b));
        break;
    case LR_BASIS_WIDTH:
    case LR_BASIS_INTERPOLATED:
    case LR_BASIS_EXTRAPOLATED: against_thresholds(f, p); break;
    case LR_BASIS_ABOVE: above(f, p); break;
    case LR_BASIS_NEIGHBOURS:
        fprintf(f, "not measured at d_model %d; at lr %s, ", p->d_model, lr_str(p->lr, b, sizeof b));
        say(f, p, &p->lo);
        fprintf(f, ", ");
        say(f, p, &p->hi);
        if (p->lo.verdict != p->hi.verdict) fprintf(f, ": the nearer width's (in log2 d_model)");
        break;
    case LR_BASIS_NEAREST:
        fprintf(f, "not measured at d_model %d, beyond the measured widths (no fitted exponent: no "
                   "two widths bracket a threshold); the nearest at lr %s, ", p->d_model,
                lr_str(p->lr, b, sizeof b));
        say(f, p, &p->lo);
        break;
    case LR_BASIS_NONE: break;
    }
}

/* The differences from a regime by key: "(2 differences: optim.lr, optim.min_lr)". */
static void diff_keys(FILE *f, const LrPlacement *p) {
    int n = p->n_diffs + p->n_unlisted;
    fprintf(f, "(%d difference%s: ", n, n == 1 ? "" : "s");
    for (int i = 0; i < p->n_diffs; i++)
        fprintf(f, "%s%.*s", i ? ", " : "", (int)strcspn(p->diffs[i], " "), p->diffs[i]);
    if (p->n_unlisted) fprintf(f, " and %d more", p->n_unlisted);
    fputc(')', f);
}

static int regime_has_runs(int regime) {
    for (int i = 0; i < lr_map_n_runs; i++)
        if (lr_map_runs[i].regime == regime) return 1;
    return 0;
}

void lr_map_verdict(FILE *f, const LrPlacement *p, const char *prefix) {
    fputs(prefix, f);
    if (p->regime < 0 && p->nearest < 0) {
        fprintf(f, "no verdict: no regime is compiled in");
    } else if (p->regime < 0) {
        fprintf(f, "no verdict: in no measured regime; the nearest is %s ", lr_map_regimes[p->nearest].id);
        diff_keys(f, p);
    } else if (!regime_has_runs(p->regime)) {
        fprintf(f, "no verdict: in the regime %s, which has no published run yet",
                lr_map_regimes[p->regime].id);
    } else if (p->basis == LR_BASIS_NONE) {
        fprintf(f, "no verdict: the regime %s has no run of its arm (%s)",
                lr_map_regimes[p->regime].id, p->arm);
    } else {
        fprintf(f, "%s", word(p->verdict, p->regime));
        if (p->corpus[0] && p->corpus_match == LR_CORPUS_UNTOLD)
            fprintf(f, " (measured on the map's corpus %s; whether this config's %s is that file "
                       "cannot be told from here)", SHOWN(p->corpus), SHOWN(p->config_file));
        else if (p->corpus[0]) /* a number from another text would read as this one's */
            fprintf(f, " (measured on the map's corpus %s; this config trains on %s)",
                    SHOWN(p->corpus), SHOWN(p->config_file));
        else if (p->behind_bits >= 0)
            fprintf(f, " (%.3f bits per byte behind the best run at d_model %d)", p->behind_bits,
                    p->d_model);
        fputs(": ", f);
        basis(f, p);
        fprintf(f, "; regime %s", lr_map_regimes[p->regime].id);
    }
    if (p->predicted_std >= LR_MAP_STEP0_FAIL_STD)
        fprintf(f, "; predicted step-0 logit std %.3g >= %g: runs with a step-0 std this large "
                   "failed from the start (docs/findings.md, init_width), whatever the lr",
                p->predicted_std, LR_MAP_STEP0_FAIL_STD);
    fputc('\n', f);
}

/* One threshold's line of the report. */
static void threshold_line(FILE *f, const char *what, const LrMapValue *v) {
    char b[32], b0[32], b1[32];
    fprintf(f, "  %s: ", what);
    if (v->kind == LR_MAP_UNKNOWN) {
        fprintf(f, "not known\n");
        return;
    }
    if (v->lr <= 0) { /* measured, and no lr of the grid is one (not "none ..., measured") */
        fprintf(f, "none among the lrs measured\n");
        return;
    }
    fprintf(f, "%s", lr_str(v->lr, b, sizeof b));
    if (v->kind == LR_MAP_INTERPOLATED)
        fprintf(f, ", interpolated (%s at d_model %d, %s at %d)", lr_str(v->lr_lo, b0, sizeof b0),
                v->w_lo, lr_str(v->lr_hi, b1, sizeof b1), v->w_hi);
    else if (v->kind == LR_MAP_EXTRAPOLATED)
        fprintf(f, ", extrapolated from %s at d_model %d", lr_str(v->lr_lo, b0, sizeof b0), v->w_lo);
    else
        fprintf(f, ", measured");
    fputc('\n', f);
}

/* The runs of its arm at width w whose lr is nearest p->lr (in log2; all on a tie). */
static void nearest_runs(FILE *f, const LrPlacement *p, int w) {
    const LrMapRegime *g = &lr_map_regimes[p->regime];
    double best = INFINITY;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < lr_map_n_runs; i++) {
            const LrMapRun *r = &lr_map_runs[i];
            if (r->regime != p->regime || r->d_model != w || strcmp(r->arm, p->arm) != 0) continue;
            double d = fabs(log2(r->lr / p->lr));
            if (pass == 0) {
                if (d < best) best = d;
                continue;
            }
            if (d > best + 1e-9) continue;
            char b[32];
            fprintf(f, "  %s (%s): d_model %d, lr %s, seed %d, final %s %.4g, peak logit std ", r->run,
                    r->sweep, r->d_model, lr_str(r->lr, b, sizeof b), r->seed, g->criterion,
                    r->metric);
            if (r->peak >= 0) fprintf(f, "%.3g", r->peak);
            else fprintf(f, "not logged"); /* an older sweep.csv has no logit_std_peak */
            fprintf(f, "%s\n", g->relative ? (r->learnt ? ": near the best" : ": behind the best")
                                       : (r->learnt ? ": learnt" : ": did not learn"));
        }
}

/* The details of a placement in its regime: arm, thresholds, fit, runs. */
static void regime_details(FILE *f, const LrPlacement *p) {
    const LrMapRegime *g = &lr_map_regimes[p->regime];
    fprintf(f, "regime: %s: %s\n", g->id, g->title);
    if (g->relative)
        /* val_loss is nats per token (per byte on text): the tolerance in bits too */
        fprintf(f, "  a run ended near the best: status ok and final %s <= the smallest of the "
                   "regime's runs at its width (any arm and lr) + %g (%.3g bits); the lrs below "
                   "the smallest at which every run of an arm did are too low for %d steps, not "
                   "a threshold", g->criterion, g->threshold, g->threshold / log(2), p->steps);
    else
        fprintf(f, "  a run learnt: status ok and final %s %s %g", g->criterion, g->op, g->threshold);
    fprintf(f, "; measured over: %s\n  its runs: %s\n", g->axes,
            *g->sweeps ? g->sweeps : "(no sweep published yet)");
    fprintf(f, "arm: %s\n", p->arm);
    fprintf(f, "thresholds at d_model %d (the largest lr at which every run %s, the smallest at "
               "which one did not):\n", p->d_model, learnt(p));
    char what[64];
    snprintf(what, sizeof what, "largest lr that %s", learnt(p));
    threshold_line(f, what, &p->learnt);
    snprintf(what, sizeof what, "smallest lr at which %s", failed(p));
    threshold_line(f, what, &p->failed);
    if (p->basis == LR_BASIS_ABOVE) {
        fprintf(f, "above the lrs measured at this width, carried from the other widths (its own "
                   "runs win: a carried threshold at or below what they show is not used):\n");
        snprintf(what, sizeof what, "largest lr that %s", learnt(p));
        threshold_line(f, what, &p->above_learnt);
        snprintf(what, sizeof what, "smallest lr at which %s", failed(p));
        threshold_line(f, what, &p->above_failed);
    }
    if (p->fit.n_widths >= 2)
        fprintf(f, "fitted exponent: lr ~ d_model^%.2f over d_model %d-%d (%d widths; least squares "
                   "on log2 of each width's middle, sqrt(largest learnt x smallest failed))\n",
                p->fit.slope, p->fit.w_min, p->fit.w_max, p->fit.n_widths);
    else
        fprintf(f, "fitted exponent: none (fewer than two widths bracket a threshold)\n");
    int w[2] = {p->d_model, 0};
    if (p->basis == LR_BASIS_NEIGHBOURS) w[0] = p->lo.d_model, w[1] = p->hi.d_model;
    else if (p->basis == LR_BASIS_NEAREST) w[0] = p->lo.d_model;
    else if (p->basis == LR_BASIS_INTERPOLATED || p->basis == LR_BASIS_EXTRAPOLATED)
        w[0] = p->learnt.w_lo, w[1] = p->learnt.w_hi != p->learnt.w_lo ? p->learnt.w_hi : 0;
    else if (p->basis == LR_BASIS_ABOVE) { /* its own width and the nearest it was carried from */
        const LrMapValue *v = p->above_failed.kind != LR_MAP_UNKNOWN ? &p->above_failed
                                                                     : &p->above_learnt;
        w[1] = v->kind == LR_MAP_MEASURED ? 0 : v->w_lo;
    }
    char b[32];
    fprintf(f, "nearest measured runs (its arm, the lr nearest %s):\n", lr_str(p->lr, b, sizeof b));
    for (int i = 0; i < 2; i++)
        if (w[i]) nearest_runs(f, p, w[i]);
}

/* The --set options that remove the differences from the nearest regime, in one line to paste
 * after the config's path (each a shell word, util/shell_word.h); a difference no --set removes
 * (d_k at a d_model no n_heads divides into it) is said after them. */
static void print_sets(FILE *f, const LrPlacement *p) {
    int n = 0, unset = 0;
    for (int i = 0; i < p->n_diffs; i++) {
        const char *s = p->sets[i];
        if (!s[0]) {
            unset = 1;
            continue;
        }
        fprintf(f, "%s --set ", n++ ? "" : "  to match it:");
        shell_word(f, s);
    }
    if (unset)
        fprintf(f, "%s(d_k %d needs a d_model it divides)", n ? " " : "  to match it: ",
                lr_map_regimes[p->nearest].d_k);
    if (n || unset) fputc('\n', f);
}

int lr_map_report(FILE *f, const Config *c, int T, const char *corpus_base) {
    LrPlacement p;
    if (lr_map_place(c, T, corpus_base, &p) != 0) return -1;
    lr_map_verdict(f, &p, "verdict: ");
    char b[32], scale[48];
    /* a scale no name stands for, as written: the number, or C/d_k */
    snprintf(scale, sizeof scale, "%.15g%s", c->scale_value,
             c->scale_mode == SCALE_OVER_DK ? CONFIG_SCALE_OVER_DK : "");
    fprintf(f, "config: d_model %d, n_heads %d, d_k %d, attention.scale %s, optim.lr %s, init %s",
            p.d_model, p.n_heads, p.d_k, p.scale ? p.scale : scale, lr_str(p.lr, b, sizeof b),
            c->init == INIT_GPT2 ? "gpt2" : "fan_in");
    if (c->scale_mode == SCALE_VALUE && p.scale)
        fprintf(f, " (attention.scale %.17g is this scale's factor at d_k %d)", c->scale_value, p.d_k);
    if (c->init == INIT_GPT2) fprintf(f, " (std %g)", c->init_std);
    fprintf(f, "\npredicted step-0 logit std: %.4g (scale*sqrt(d_k)*d_model*sigma^2, sigma the qkv "
               "weight's init std%s)\n", p.predicted_std,
            c->qk_norm != QK_NORM_NONE ? "; with qk-norm scale*sqrt(d_k)" : "");
    if (p.regime >= 0) {
        regime_details(f, &p);
    } else if (p.nearest >= 0) {
        fprintf(f, "regime: none of the %d measured regimes has its settings; the nearest, %s (%s), "
                   "differs in:\n", lr_map_n_regimes, lr_map_regimes[p.nearest].id,
                lr_map_regimes[p.nearest].title);
        for (int i = 0; i < p.n_diffs; i++) fprintf(f, "  %s\n", SHOWN(p.diffs[i]));
        if (p.n_unlisted) fprintf(f, "  and %d more, not listed\n", p.n_unlisted);
        print_sets(f, &p);
    }
    return 0;
}
