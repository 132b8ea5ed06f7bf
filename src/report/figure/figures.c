/* figures.c: the figures of ./train --compare, one function each (made of the panel grid of
 * panels.c; the pass-through figure is in figure_passthru.c, the attention maps in figure_maps.c),
 * and figures_write, which draws them all and gives the page its captions. */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/figure/figure_internal.h"
#include "runlog/log_query.h"
#include "report/plot/plot.h"

/* The figures, one function each: returns the number of figures written (1, or 2 for the maps
 * and their folded rest, each filling one FigureInfo of fi: file, title, caption), 0 when there
 * was nothing to draw, -1 on error (printed). log_scale (the loss axis; the other figures ignore
 * it): 1 log, 0 linear, FIGURES_LOG_AUTO log when the plotted losses span more than
 * LOSS_LOG_SPAN. */
#define LOSS_LOG_SPAN 30.0

/* A uniform guess over the 256 byte values: log2(256) bits per byte. */
#define UNIFORM_BITS 8.0

static int figure_loss(const Run *runs, int n, const char *dir, int log_scale, FigureInfo *fi) {
    int text = runs_are_text(runs, n);
    const char *unit = text ? "bits per byte" : "loss (nats/token)";
    Figure f = figure_init(runs, n);
    Panel *train = figure_panel(&f, "training loss (one batch per step)", "train loss", unit, 0, 1);
    Panel *val = figure_panel(&f, "validation loss", "val loss", unit, 0, 1);
    int rc = f.failed ? -1 : 0;
    /* text: bits per byte = nats per byte / ln 2 (loss.csv's val_bpb where it has one) */
    double to_bits = 1 / log(2.0);
    for (int r = 0; r < n && rc == 0; r++) {
        int bpb = text && csv_col(&runs[r].loss, "val_bpb") >= 0;
        rc = xy_column(&train->xy[r], &runs[r].loss, "train_loss", text ? to_bits : 1) |
             xy_column(&val->xy[r], &runs[r].loss, bpb ? "val_bpb" : "val_loss",
                       text && !bpb ? to_bits : 1);
    }
    double lo = INFINITY, hi = -INFINITY;
    int log_y = 0;
    if (rc == 0) {
        /* A loss that falls from 2 to 0.003 is a flat line on the x axis of a linear plot: the
         * default axis is logarithmic once the values (> 0) span more than LOSS_LOG_SPAN. */
        for (int i = 0; i < f.n; i++)
            for (int r = 0; r < n; r++) {
                const XY *xy = &f.p[i].xy[r];
                PlotSeries ps = {runs[r].name, "", xy->x, xy->y, xy->n, r};
                double a, b;
                if (plot_y_range(&ps, 1, 1, &a, &b)) lo = fmin(lo, a), hi = fmax(hi, b);
            }
        log_y = log_scale == FIGURES_LOG_AUTO ? lo <= hi && hi > LOSS_LOG_SPAN * lo : log_scale;
        for (int i = 0; i < f.n; i++) {
            f.p[i].ax.log_y = log_y;
            f.p[i].ax.y_from_zero = !log_y;
            f.p[i].ax.y_label = text ? (log_y ? "bits per byte (log scale)" : "bits per byte")
                                     : (log_y ? "loss (nats/token, log scale)" : "loss (nats/token)");
        }
        if (share_y_range(&f, 0, 2, 1, runs) && text)
            for (int i = 0; i < f.n; i++) f.p[i].ax.y_hi = fmax(f.p[i].ax.y_hi, UNIFORM_BITS);
        for (int i = 0; i < f.n && text; i++) {
            f.p[i].ref_y = UNIFORM_BITS;
            f.p[i].ref_label = "uniform guess over the 256 byte values (8 bits per byte)";
        }
        rc = figure_write(&f, runs, "Loss against step", dir, "loss.svg");
    } else {
        fprintf(stderr, "error: out of memory drawing loss.svg\n");
    }
    figure_free(&f);
    if (rc) return -1;
    if (text)
        caption_add(fi, "Training loss (one batch per step, left) and validation loss (right) of "
                    "next-byte prediction, in bits per byte (nats per byte / ln 2; the "
                    "validation loss is <code>loss.csv</code>'s <code>val_bpb</code>). The grey "
                    "dashed line at 8 bits per byte is a uniform guess over the 256 byte values, "
                    "where an untrained model starts; lower is better. ");
    else
        caption_add(fi, "Training loss (one batch per step, left) and validation loss per answer "
                    "token (right), both in nats per answer token. ");
    if (lo <= hi)
        caption_add(fi, "The plotted losses span %.3g&#215; (%.3g to %.3g); the y axis is %s "
                    "(logarithmic by default past %.0f&#215;; --linear or --log-scale chooses). ",
                hi / lo, lo, hi, log_y ? "logarithmic (its label says \"log scale\")" : "linear",
                LOSS_LOG_SPAN);
    caption_add(fi, "Compare when each run's loss starts to fall and where it levels off; a run that "
                "diverged ends with a cross at its last finite value.");
    return 1;
}

/* Chance level of a run in percent, guessing each answer token uniformly among task.symbols:
 * 100 / symbols for a token (per_answer 0), 100 / symbols^length for a whole answer of length
 * tokens (per_answer 1; recall answers with one token). NAN when config.ini does not say, or the
 * task is not a generated one (file, text: their tokens are not uniform). */
static double chance_percent(const Run *r, int per_answer) {
    const char *task = ini_get(&r->config, "task.name"), *sym = ini_get(&r->config, "task.symbols");
    const char *len = ini_get(&r->config, "task.length");
    if (!task || !sym) return NAN;
    int recall = strcmp(task, "recall") == 0;
    if (!recall && strcmp(task, "sort") != 0 && strcmp(task, "reverse") != 0 &&
        strcmp(task, "copy") != 0)
        return NAN;
    double S = strtod(sym, NULL), L = recall ? 1 : len ? strtod(len, NULL) : NAN;
    if (!(S >= 1) || !(L >= 1)) return NAN;
    return 100 * pow(S, per_answer ? -L : -1);
}

/* Gives panel p a chance line when every run that knows its chance level agrees on it and the
 * line stands clear of the axis (>= 0.5%: a sort answer's 16^-8 does not). Returns the level
 * (percent), NAN when the runs do not say or disagree. */
static double chance_line(Panel *p, const Run *runs, int n, int per_answer) {
    double c = NAN;
    for (int r = 0; r < n; r++) {
        double v = chance_percent(&runs[r], per_answer);
        if (isnan(v)) continue;
        if (!isnan(c) && fabs(v - c) > 1e-9 * c) return NAN;
        c = v;
    }
    if (!(c >= 0.5)) return c;
    p->ref_y = c;
    p->ref_label = "chance level (guessing uniformly among task.symbols)";
    return c;
}

/* A text page: one panel, next-byte accuracy ("answer" and "token" are the same on text). */
static int figure_text_accuracy(const Run *runs, int n, const char *dir, FigureInfo *fi) {
    Figure f = figure_init(runs, n);
    Panel *p = figure_panel(&f, "validation next-byte accuracy (greedy)", "val next-byte acc",
                            "accuracy (%)", 0, 2);
    int rc = f.failed ? -1 : 0;
    for (int r = 0; r < n && rc == 0; r++)
        rc = xy_column(&p->xy[r], &runs[r].loss, "val_token_acc", 100);
    if (rc == 0) {
        p->ax.y_lo = 0, p->ax.y_hi = 100;
        rc = figure_write(&f, runs, "Validation next-byte accuracy against step", dir,
                          "accuracy.svg");
    } else {
        fprintf(stderr, "error: out of memory drawing accuracy.svg\n");
    }
    figure_free(&f);
    if (rc) return -1;
    fi->title = "Validation next-byte accuracy against step";
    caption_add(fi, "Next-byte accuracy on the held-out text: the share of positions whose most "
                "likely next byte is the right one. On text every next byte is an answer, so the "
                "answer and token accuracies of the other tasks are this one number, drawn once. "
                "A uniform guess gets 1/256 = 0.39 %%, too close to 0 for a line of its own; the "
                "bits per byte above are the finer measure.");
    return 1;
}

static int figure_accuracy(const Run *runs, int n, const char *dir, int log_scale,
                           FigureInfo *fi) {
    (void)log_scale;
    if (runs_are_text(runs, n)) return figure_text_accuracy(runs, n, dir, fi);
    Figure f = figure_init(runs, n);
    Panel *ans = figure_panel(&f, "validation answer accuracy (whole answer right)",
                              "val answer acc", "accuracy (%)", 0, 1);
    Panel *tok = figure_panel(&f, "validation token accuracy (answer tokens)", "val token acc",
                              "accuracy (%)", 0, 1);
    int rc = f.failed ? -1 : 0;
    double c_ans = NAN, c_tok = NAN;
    for (int r = 0; r < n && rc == 0; r++)
        rc = xy_column(&ans->xy[r], &runs[r].loss, "val_answer_acc", 100) |
             xy_column(&tok->xy[r], &runs[r].loss, "val_token_acc", 100);
    for (int i = 0; i < f.n; i++) f.p[i].ax.y_lo = 0, f.p[i].ax.y_hi = 100;
    if (rc == 0) c_ans = chance_line(ans, runs, n, 1), c_tok = chance_line(tok, runs, n, 0);
    if (rc == 0)
        rc = figure_write(&f, runs, "Validation accuracy against step", dir, "accuracy.svg");
    else fprintf(stderr, "error: out of memory drawing accuracy.svg\n");
    figure_free(&f);
    if (rc) return -1;
    caption_add(fi, "Exact-match answer accuracy and per-token accuracy on the held-out examples: "
                "compare when each run climbs off chance level and whether it reaches 99%% (the "
                "verdict above and the summary table give the steps). Chance level of the "
                "generated tasks guesses each answer token uniformly among task.symbols: "
                "1/symbols for a token, 1/symbols<sup>length</sup> for a whole answer. ");
    int lines = (c_tok >= 0.5) + (c_ans >= 0.5);
    if (!isnan(c_tok) || !isnan(c_ans)) {
        caption_add(fi, "For these runs that is ");
        if (!isnan(c_tok)) caption_add(fi, "%.3g %% for a token", c_tok);
        if (!isnan(c_ans))
            caption_add(fi, "%s%.3g %% for a whole answer", isnan(c_tok) ? "" : " and ", c_ans);
        int both = !isnan(c_tok) && !isnan(c_ans);
        /* a token's level is never below a whole answer's: with one line, it is the token's */
        caption_add(fi, "%s", lines == 2 ? "; the grey dashed lines mark them."
                          : lines == 1 && both ? "; the grey dashed line marks the token's, the "
                                                 "whole answer's is 0 on this axis."
                          : lines == 1 ? "; the grey dashed line marks it."
                                       : "; too close to 0 on this axis for a line.");
    } else {
        caption_add(fi, "These runs do not say their chance level (a task read from a file, or "
                    "runs that disagree): no line is drawn.");
    }
    return 1;
}

/* The last logged value of grad_norms.csv column col of run r, and its step (-1: none). */
static double last_grad(const Run *r, const char *col, int *step) {
    int c = r->has_grads ? csv_col(&r->grads, col) : -1, row = log_last_row(&r->grads, c);
    *step = row >= 0 ? log_step(&r->grads, row) : -1;
    return row >= 0 ? csv_num(&r->grads, row, c) : NAN;
}

/* The caption of grad_norms.svg: what the lines can and cannot say, then each run's layer-0
 * W_q and W_k norms at its last logged step beside its final validation loss (in bits per byte
 * for a text run, as the loss figure gives it, else nats per answer token). */
static void gradient_caption(const Run *runs, int n, FigureInfo *fi) {
    caption_add(fi, "Gradient L2 norms before clipping, log scale: all parameters (top), then the "
                "query and key weights W<sub>q</sub>, W<sub>k</sub> of each layer. Two effects "
                "pull these apart when the 1/&#8730;d<sub>k</sub> scale is removed: saturated "
                "softmax rows pass less gradient, and the missing factor multiplies it by "
                "&#8730;d<sub>k</sub>. Which one wins cannot be read off these lines at equal "
                "step: a gradient shrinks with the loss, so the norms are confounded by the loss "
                "level, and once one run has converged (loss near 0) its lines fall below the "
                "other's for that reason alone. Here, at each run's last logged step: ");
    for (int r = 0, first = 1; r < n; r++) {
        int sq, sk, sv;
        double q = last_grad(&runs[r], "blocks.0.attn.qkv.weight.q", &sq);
        double k = last_grad(&runs[r], "blocks.0.attn.qkv.weight.k", &sk);
        int text = run_is_text(&runs[r]);
        double v = text ? run_last_bpb(&runs[r], &sv) : run_last_logged(&runs[r], "val_loss", &sv);
        if (sq < 0 && sk < 0) continue;
        caption_add(fi, "%s", first ? "" : "; ");
        first = 0;
        caption_escaped(fi, runs[r].name);
        caption_add(fi, " layer 0 W<sub>q</sub> %.3g, W<sub>k</sub> %.3g (step %d)", q, k,
                sq >= 0 ? sq : sk);
        if (sv >= 0)
            caption_add(fi, ", final validation loss %.3g %s", v,
                        text ? "bits per byte" : "nats per answer token");
    }
    caption_add(fi, ". <code>--compare UNSCALED SCALED --at-equal-loss</code> reads two runs at equal "
                "validation loss instead (docs/findings.md, link 4 of the chain).");
}

static int figure_gradients(const Run *runs, int n, const char *dir, int log_scale,
                            FigureInfo *fi) {
    (void)log_scale;
    int layers = 0, any = 0;
    for (int r = 0; r < n; r++) {
        any |= runs[r].has_grads;
        if (grad_layers(&runs[r]) > layers) layers = grad_layers(&runs[r]);
    }
    if (!any) return 0;
    Figure f = figure_init(runs, n);
    /* Titles and column names live in these arrays until the figure is written. */
    char titles[2 * 64][64], cols[2 * 64][64];
    if (layers > 64) layers = 64;
    int rc = 0;
    Panel *g = figure_panel(&f, "global gradient norm (all parameters)", "global",
                            "gradient L2 norm", 1, 2);
    for (int r = 0; r < n && g && rc == 0; r++)
        if (runs[r].has_grads) rc = xy_column(&g->xy[r], &runs[r].grads, "global", 1);
    for (int l = 0; l < layers && rc == 0 && !f.failed; l++)
        for (int part = 0; part < 2 && rc == 0; part++) {
            int k = 2 * l + part;
            snprintf(titles[k], sizeof titles[k], "layer %d: gradient of W_%c (%s weights)", l,
                     "qk"[part], part ? "key" : "query");
            snprintf(cols[k], sizeof cols[k], "blocks.%d.attn.qkv.weight.%c", l, "qk"[part]);
            Panel *p = figure_panel(&f, titles[k], cols[k], "gradient L2 norm", 1, 1);
            for (int r = 0; r < n && p && rc == 0; r++)
                if (runs[r].has_grads) rc = xy_column(&p->xy[r], &runs[r].grads, cols[k], 1);
        }
    if (f.failed) rc = -1;
    if (rc == 0) share_y_range(&f, 1, f.n, 1, runs);
    if (rc == 0)
        rc = figure_write(&f, runs, "Gradient norms against step (log scale)", dir,
                          "grad_norms.svg");
    else
        fprintf(stderr, "error: out of memory drawing grad_norms.svg\n");
    figure_free(&f);
    if (rc) return -1;
    gradient_caption(runs, n, fi);
    return 1;
}

static int figure_attention(const Run *runs, int n, const char *dir, int log_scale,
                            FigureInfo *fi) {
    (void)log_scale;
    int layers = 0;
    for (int r = 0; r < n; r++)
        if (attn_layers(&runs[r]) > layers) layers = attn_layers(&runs[r]);
    if (layers == 0) return 0;
    if (layers > 64) layers = 64;
    Figure f = figure_init(runs, n);
    char titles[2 * 64][64];
    int rc = 0;
    for (int l = 0; l < layers && rc == 0; l++)
        for (int k = 0; k < 2 && rc == 0; k++) {
            snprintf(titles[2 * l + k], sizeof titles[0], "layer %d: %s", l,
                     k ? "logit standard deviation" : "normalized attention entropy");
            Panel *p = figure_panel(&f, titles[2 * l + k], k ? "logit std" : "entropy norm",
                                    k ? "std of logits (scale \u00d7 q\u00b7k)"
                                      : "entropy / log(keys) (1 = uniform)", 0, 1);
            if (!p) {
                rc = -1;
                break;
            }
            if (!k) p->ax.y_lo = 0, p->ax.y_hi = 1;
            for (int r = 0; r < n && rc == 0; r++)
                if (runs[r].has_attn)
                    rc = xy_attention(&p->xy[r], &runs[r].attn, l,
                                      k ? "logit_std" : "entropy_norm", 1);
        }
    if (rc == 0) {
        /* Shared logit-std axis across layers (the odd panels), from 0 unless it dips below. */
        if (share_y_range(&f, 1, f.n, 2, runs))
            for (int i = 1; i < f.n; i += 2) f.p[i].ax.y_lo = fmin(0, f.p[i].ax.y_lo);
        rc = figure_write(&f, runs, "Attention logits against step (mean over heads)", dir,
                          "attention.svg");
    } else {
        fprintf(stderr, "error: out of memory drawing attention.svg\n");
    }
    figure_free(&f);
    if (rc) return -1;
    caption_add(fi, "Per layer, averaged over heads: the normalized attention entropy (left; 1 = "
                "uniform weights, 0 = all weight on one key) and the standard deviation of the "
                "scaled logits (right). Without the scale the logit std at step 0 is about "
                "&#8730;d<sub>k</sub> times larger, and a low entropy then means a saturated "
                "softmax; the share of saturated rows is in the next figure.");
    /* the runs' own step-0 spread, beside their d_k */
    int quoted = 0;
    for (int r = 0; r < n; r++) {
        int step = runs[r].has_attn ? attn_step(&runs[r], 0) : -1;
        double std0 = step >= 0 ? log_head_mean(&runs[r].attn, step, 0, "logit_std", NULL) : NAN;
        if (isnan(std0)) continue;
        caption_add(fi, "%s", quoted++ ? "; " : " Here, layer 0 at its first logged step: ");
        caption_escaped(fi, runs[r].name);
        caption_add(fi, " logit std %.3g at step %d", std0, step);
        const char *dm = ini_get(&runs[r].config, "model.d_model");
        const char *nh = ini_get(&runs[r].config, "model.n_heads");
        if (dm && nh && atoi(nh) > 0) caption_add(fi, " (d_k %d)", atoi(dm) / atoi(nh));
    }
    if (quoted) caption_add(fi, ".");
    return 1;
}

typedef struct {
    int (*draw)(const Run *runs, int n, const char *dir, int log_scale, FigureInfo *fi);
    const char *file, *title;
} FigureSpec;

/* figure_passthru's caption is fixed: it quotes no run. */
static int figure_passthru_info(const Run *runs, int n, const char *dir, int log_scale,
                                FigureInfo *fi) {
    int w = figure_passthru(runs, n, dir, log_scale);
    if (w > 0) caption_add(fi, "%s", FIGURE_PASSTHRU_CAPTION);
    return w;
}

/* figure_maps takes no loss axis. */
static int figure_maps_info(const Run *runs, int n, const char *dir, int log_scale,
                            FigureInfo *fi) {
    (void)log_scale;
    return figure_maps(runs, n, dir, fi);
}

static const FigureSpec FIGURES[] = {
    {figure_loss, "loss.svg", "Loss against step"},
    {figure_accuracy, "accuracy.svg", "Validation accuracy against step"},
    {figure_gradients, "grad_norms.svg", "Gradient norms against step"},
    {figure_attention, "attention.svg", "Attention entropy and logit spread against step"},
    {figure_passthru_info, "passthru.svg", FIGURE_PASSTHRU_TITLE},
    {figure_maps_info, "attn_maps.svg", "Attention maps at step 0 and at the end of training"},
};

int figures_file_names(const char **names) {
    int n = 0;
    for (size_t i = 0; i < sizeof FIGURES / sizeof *FIGURES; i++) names[n++] = FIGURES[i].file;
    names[n++] = FIGURE_MAPS_MORE_FILE;
    return n;
}

int figures_write(const Run *runs, int n, const char *dir, int log_scale, FigureInfo *figs,
                  int *n_figs) {
    int rc = 0;
    *n_figs = 0;
    for (size_t i = 0; i < sizeof FIGURES / sizeof *FIGURES; i++) {
        FigureInfo *fi = &figs[*n_figs];
        *fi = (FigureInfo){.file = FIGURES[i].file, .title = FIGURES[i].title};
        errno = 0;
        int w = FIGURES[i].draw(runs, n, dir, log_scale, fi);
        if (w > 0) *n_figs += w;
        if (w < 0) { /* a figure that failed stays on the list: the page says it is missing, and why */
            fi->err = errno ? errno : EIO;
            (*n_figs)++;
            rc = -1;
        }
    }
    return rc;
}
