/* figures.c: the figures of ./train --compare, one function each (made of the panel grid of
 * panels.h; the pass-through figure is in figure_passthru.c), and figures_write, which draws them
 * all and gives the page its captions. */
#include "report/figures.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/figure_passthru.h"
#include "runlog/log_query.h"
#include "report/panels.h"
#include "report/plot.h"
#include "report/svg.h"

/* Appends printf-style text to the figure's caption (cut at FIGURE_CAPTION_LEN). */
static void cap_add(FigureInfo *fi, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cap_add(FigureInfo *fi, const char *fmt, ...) {
    size_t len = strlen(fi->caption);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fi->caption + len, sizeof fi->caption - len, fmt, ap);
    va_end(ap);
}

/* Appends text to the caption with &, <, >, " and ' escaped (a run's name). */
static void cap_escaped(FigureInfo *fi, const char *text) {
    for (const char *p = text; *p; p++) {
        const char *e = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;"
                      : *p == '"' ? "&quot;" : *p == '\'' ? "&#39;" : NULL;
        if (e) cap_add(fi, "%s", e);
        else cap_add(fi, "%c", *p);
    }
}

/* The last logged value of loss.csv column col of run r, and its step (-1: none). */
static double last_loss(const Run *r, const char *col, int *step) {
    int c = csv_col(&r->loss, col), row = log_last_row(&r->loss, c);
    *step = row >= 0 ? log_step(&r->loss, row) : -1;
    return row >= 0 ? csv_num(&r->loss, row, c) : NAN;
}

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
        cap_add(fi, "Training loss (one batch per step, left) and validation loss (right) of "
                    "next-byte prediction, in bits per byte (nats per byte / ln 2; the "
                    "validation loss is <code>loss.csv</code>'s <code>val_bpb</code>). The grey "
                    "dashed line at 8 bits per byte is a uniform guess over the 256 byte values, "
                    "where an untrained model starts; lower is better. ");
    else
        cap_add(fi, "Training loss (one batch per step, left) and validation loss per answer "
                    "token (right), both in nats per answer token. ");
    if (lo <= hi)
        cap_add(fi, "The plotted losses span %.3g&#215; (%.3g to %.3g); the y axis is %s "
                    "(logarithmic by default past %.0f&#215;; --linear or --log-scale chooses). ",
                hi / lo, lo, hi, log_y ? "logarithmic (its label says \"log scale\")" : "linear",
                LOSS_LOG_SPAN);
    cap_add(fi, "Compare when each run's loss starts to fall and where it levels off; a run that "
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
    cap_add(fi, "Next-byte accuracy on the held-out text: the share of positions whose most "
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
    cap_add(fi, "Exact-match answer accuracy and per-token accuracy on the held-out examples: "
                "compare when each run climbs off chance level and whether it reaches 99%% (the "
                "verdict above and the summary table give the steps). Chance level of the "
                "generated tasks guesses each answer token uniformly among task.symbols: "
                "1/symbols for a token, 1/symbols<sup>length</sup> for a whole answer. ");
    int lines = (c_tok >= 0.5) + (c_ans >= 0.5);
    if (!isnan(c_tok) || !isnan(c_ans)) {
        cap_add(fi, "For these runs that is ");
        if (!isnan(c_tok)) cap_add(fi, "%.3g %% for a token", c_tok);
        if (!isnan(c_ans))
            cap_add(fi, "%s%.3g %% for a whole answer", isnan(c_tok) ? "" : " and ", c_ans);
        int both = !isnan(c_tok) && !isnan(c_ans);
        /* a token's level is never below a whole answer's: with one line, it is the token's */
        cap_add(fi, "%s", lines == 2 ? "; the grey dashed lines mark them."
                          : lines == 1 && both ? "; the grey dashed line marks the token's, the "
                                                 "whole answer's is 0 on this axis."
                          : lines == 1 ? "; the grey dashed line marks it."
                                       : "; too close to 0 on this axis for a line.");
    } else {
        cap_add(fi, "These runs do not say their chance level (a task read from a file, or "
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
 * W_q and W_k norms at its last logged step beside its final validation loss. */
static void gradient_caption(const Run *runs, int n, FigureInfo *fi) {
    cap_add(fi, "Gradient L2 norms before clipping, log scale: all parameters (top), then the "
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
        double v = last_loss(&runs[r], "val_loss", &sv);
        if (sq < 0 && sk < 0) continue;
        cap_add(fi, "%s", first ? "" : "; ");
        first = 0;
        cap_escaped(fi, runs[r].name);
        cap_add(fi, " layer 0 W<sub>q</sub> %.3g, W<sub>k</sub> %.3g (step %d)", q, k,
                sq >= 0 ? sq : sk);
        if (sv >= 0) cap_add(fi, ", final validation loss %.3g", v);
    }
    cap_add(fi, ". <code>--compare UNSCALED SCALED --at-equal-loss</code> reads two runs at equal "
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
    cap_add(fi, "Per layer, averaged over heads: the normalized attention entropy (left; 1 = "
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
        cap_add(fi, "%s", quoted++ ? "; " : " Here, layer 0 at its first logged step: ");
        cap_escaped(fi, runs[r].name);
        cap_add(fi, " logit std %.3g at step %d", std0, step);
        const char *dm = ini_get(&runs[r].config, "model.d_model");
        const char *nh = ini_get(&runs[r].config, "model.n_heads");
        if (dm && nh && atoi(nh) > 0) cap_add(fi, " (d_k %d)", atoi(dm) / atoi(nh));
    }
    if (quoted) cap_add(fi, ".");
    return 1;
}

/* One heatmap of the attention-map figure. */
typedef struct {
    int run, first_row, rows, layer, head;
    int step0;       /* from attn_map_step0.csv (before training), else attn_map.csv (the end) */
    const Csv *csv;  /* the one it comes from */
    char title[RUN_NAME_LEN + 64];
    double x, y, w, h;
} MapSlot;

/* Labels for positions 0..T-1: the token text from attn_map_tokens.csv, else the position. */
static void token_labels(const Run *r, int T, const char **labels, char (*num)[12]) {
    for (int p = 0; p < T; p++) {
        snprintf(num[p], 12, "%d", p);
        labels[p] = num[p];
    }
    if (!r->has_tokens) return;
    int cp = csv_col(&r->tokens, "position"), ct = csv_col(&r->tokens, "token");
    if (cp < 0 || ct < 0) return;
    for (int i = 0; i < r->tokens.n_rows; i++) {
        double p = csv_num(&r->tokens, i, cp);
        if (p >= 0 && p < T) labels[(int)p] = csv_str(&r->tokens, i, ct);
    }
}

/* Splits each run's attn_map_step0.csv, then attn_map.csv, into their (layer, head) blocks of
 * query rows, appending them to slots. */
static int map_slots(const Run *runs, int n, MapSlot **slots, int *n_slots) {
    int cap = 0;
    *slots = NULL;
    *n_slots = 0;
    for (int r = 0; r < n; r++)
        for (int which = 0; which < 2; which++) {
            const Csv *m = which ? &runs[r].map : &runs[r].map0;
            if (!(which ? runs[r].has_map : runs[r].has_map0)) continue;
            int cl = csv_col(m, "layer"), ch = csv_col(m, "head");
            if (cl < 0 || ch < 0 || csv_col(m, "k0") < 0) continue;
            for (int i = 0; i < m->n_rows; i++) {
                int layer = csv_int(m, i, cl, -1), head = csv_int(m, i, ch, -1);
                MapSlot *last = *n_slots ? &(*slots)[*n_slots - 1] : NULL;
                if (last && last->csv == m && last->layer == layer && last->head == head) {
                    last->rows++;
                    continue;
                }
                if (*n_slots == cap) {
                    cap = cap ? 2 * cap : 16;
                    MapSlot *s = realloc(*slots, (size_t)cap * sizeof *s);
                    if (!s) return -1;
                    *slots = s;
                }
                MapSlot *s = &(*slots)[(*n_slots)++];
                *s = (MapSlot){.run = r, .first_row = i, .rows = 1, .layer = layer, .head = head,
                               .step0 = !which, .csv = m};
                snprintf(s->title, sizeof s->title, "%s: layer %d, head %d, %s", runs[r].name,
                         layer, head, which ? "end" : "step 0");
            }
        }
    return 0;
}

/* The first position whose input token is part of the answer (attn_map_tokens.csv's answer
 * column), or 0 when the tokens file does not say, or for a text run (every next byte is an
 * answer: there is no prompt to mark off). */
static int answer_start(const Run *r, int T) {
    if (!r->has_tokens || run_is_text(r)) return 0;
    int cp = csv_col(&r->tokens, "position"), ca = csv_col(&r->tokens, "answer");
    if (cp < 0 || ca < 0) return 0;
    int first = 0;
    for (int i = 0; i < r->tokens.n_rows; i++) {
        int p = csv_int(&r->tokens, i, cp, -1);
        if (csv_int(&r->tokens, i, ca, 0) == 1 && p > 0 && p < T && (first == 0 || p < first))
            first = p;
    }
    return first;
}

/* Fills the heatmap description of a slot; v, labels and row labels are caller-provided buffers
 * of T*rows, T and rows entries. */
static PlotHeatmap slot_heatmap(const Run *runs, const MapSlot *s, int T, double *v,
                                const char **labels, const char **row_labels, char (*num)[12]) {
    const Run *r = &runs[s->run];
    const Csv *m = s->csv;
    int k0 = csv_col(m, "k0"), cq = csv_col(m, "query");
    token_labels(r, T, labels, num);
    for (int i = 0; i < s->rows; i++) {
        int q = cq >= 0 ? csv_int(m, s->first_row + i, cq, -1) : i;
        row_labels[i] = q >= 0 && q < T ? labels[q] : "?";
        /* causal attention: keys after the query are masked, not weights of 0 (NaN: hatched) */
        for (int j = 0; j < T; j++)
            v[(size_t)i * T + j] = q >= 0 && j > q ? NAN : csv_num(m, s->first_row + i, k0 + j);
    }
    return (PlotHeatmap){.title = s->title, .v = v, .rows = s->rows, .cols = T,
                         .row_labels = row_labels, .col_labels = labels, .row_axis = "query",
                         .col_axis = "key", .vmin = 0, .vmax = 1,
                         .boundary = s->rows == T ? answer_start(r, T) : 0};
}

/* Places the maps (their w and h set) in rows below the title: a row of its own per run and
 * moment (step 0, end), wrapped at about two panels' width, every map in a column as wide as the
 * widest (its title included), so a longer title (a longer run name) does not push the maps to
 * its right out of line with those above. *used_w: the widest row; *bottom: the last row's. */
static void layout_maps(MapSlot *slots, int n_slots, double *used_w, double *bottom) {
    const double max_w = 2 * PANEL_W - 90, gap = 26;
    double x = MARGIN, y = 48, row_h = 0, col_w = 0;
    *used_w = 0;
    for (int i = 0; i < n_slots; i++) col_w = fmax(col_w, slots[i].w);
    for (int i = 0; i < n_slots; i++) {
        int new_run = i > 0 && slots[i].csv != slots[i - 1].csv;
        if (i > 0 && (new_run || x + col_w > MARGIN + fmax(max_w, col_w))) {
            x = MARGIN;
            y += row_h + gap;
            row_h = 0;
        }
        slots[i].x = x;
        slots[i].y = y;
        x += col_w + gap;
        row_h = fmax(row_h, slots[i].h);
        *used_w = fmax(*used_w, x - gap);
    }
    *bottom = y + row_h;
}

/* Draws slots[0..n_slots) into dir/file under heading: each map, the colour bar. Returns 0, or
 * -1 after printing the error. */
static int draw_maps(const Run *runs, MapSlot *slots, int n_slots, const char *dir,
                     const char *file, const char *heading) {
    int T = 0, max_rows = 0, rc = -1;
    for (int i = 0; i < n_slots; i++) {
        const Csv *m = slots[i].csv;
        if (m->n_cols - csv_col(m, "k0") > T) T = m->n_cols - csv_col(m, "k0");
        if (slots[i].rows > max_rows) max_rows = slots[i].rows;
    }
    double *v = malloc((size_t)T * (size_t)max_rows * sizeof *v);
    const char **labels = malloc((size_t)T * sizeof *labels);
    const char **row_labels = malloc((size_t)max_rows * sizeof *row_labels);
    char(*num)[12] = malloc((size_t)T * sizeof *num);
    if (!v || !labels || !row_labels || !num) {
        fprintf(stderr, "error: out of memory drawing %s\n", file);
        goto done;
    }
    /* Cells big enough to read the tokens up to ~30 positions, never smaller than 6 px. */
    double cell = fmax(6, fmin(16, floor(240.0 / T)));
    for (int i = 0; i < n_slots; i++) {
        const Csv *m = slots[i].csv;
        PlotHeatmap hm = slot_heatmap(runs, &slots[i], m->n_cols - csv_col(m, "k0"), v, labels,
                                      row_labels, num);
        plot_heatmap_size(&hm, cell, &slots[i].w, &slots[i].h);
    }
    double used_w, bottom;
    layout_maps(slots, n_slots, &used_w, &bottom);
    Svg s;
    svg_begin(&s, used_w + 110, fmax(bottom + MARGIN, 320), "Attention maps");
    svg_text(&s, MARGIN, 28, "font-size=\"17\" font-weight=\"bold\"", heading);
    for (int i = 0; i < n_slots; i++) {
        const Csv *m = slots[i].csv;
        PlotHeatmap hm = slot_heatmap(runs, &slots[i], m->n_cols - csv_col(m, "k0"), v, labels,
                                      row_labels, num);
        plot_heatmap(&s, slots[i].x, slots[i].y, cell, &hm);
    }
    plot_colorbar(&s, used_w + 30, 80, 16, 200, 0, 1, "weight");
    rc = save_figure(&s, dir, file);
done:
    free(v);
    free(labels);
    free(row_labels);
    free(num);
    return rc;
}

/* How saturated a slot's head is: the mean, over its query rows that see two or more keys
 * (query >= 1), of the row's largest weight; NAN without such a row. */
static double slot_saturation(const MapSlot *s) {
    const Csv *m = s->csv;
    int k0 = csv_col(m, "k0"), cq = csv_col(m, "query"), count = 0;
    double sum = 0;
    for (int i = 0; i < s->rows; i++) {
        int q = cq >= 0 ? csv_int(m, s->first_row + i, cq, -1) : i;
        if (q < 1 || k0 + q >= m->n_cols) continue;
        double top = 0;
        for (int j = 0; j <= q; j++) top = fmax(top, csv_num(m, s->first_row + i, k0 + j));
        sum += top;
        count++;
    }
    return count ? sum / count : NAN;
}

/* The saturation that ranks slot i's head: its end map's, else its own (step 0). */
static double head_saturation(const MapSlot *slots, int n_slots, int i) {
    for (int j = 0; j < n_slots; j++)
        if (!slots[j].step0 && slots[j].run == slots[i].run &&
            slots[j].layer == slots[i].layer && slots[j].head == slots[i].head)
            return slot_saturation(&slots[j]);
    return slot_saturation(&slots[i]);
}

/* Marks in keep[] the slots attn_maps.svg shows: per run and layer, every head when there are at
 * most FIGURES_MAP_HEADS, else the most and the least saturated head (the first of equals), at
 * step 0 and at the end. Writes the chosen heads into the caption. Returns how many are kept. */
static int choose_maps(const Run *runs, const MapSlot *slots, int n_slots, int *keep,
                       FigureInfo *fi) {
    int kept = 0, first_note = 1;
    for (int i = 0; i < n_slots; i++) {
        int heads = 0, most = -1, least = -1;
        double hi = -INFINITY, lo = INFINITY;
        for (int j = 0; j < n_slots; j++) {
            if (slots[j].run != slots[i].run || slots[j].layer != slots[i].layer) continue;
            int seen = 0;
            for (int k = 0; k < j && !seen; k++)
                seen = slots[k].run == slots[j].run && slots[k].layer == slots[j].layer &&
                       slots[k].head == slots[j].head;
            if (seen) continue;
            heads++;
            double sat = head_saturation(slots, n_slots, j);
            if (sat > hi) hi = sat, most = slots[j].head;
            if (sat < lo) lo = sat, least = slots[j].head;
        }
        keep[i] = heads <= FIGURES_MAP_HEADS || most < 0 || slots[i].head == most ||
                  slots[i].head == least;
        kept += keep[i];
        /* the caption names the pair once per run and layer, at its first slot */
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = !(slots[j].run == slots[i].run && slots[j].layer == slots[i].layer);
        if (heads > FIGURES_MAP_HEADS && first && most >= 0) {
            cap_add(fi, "%s", first_note ? " Shown per run and layer: the most and the least "
                                           "saturated head (the mean over query rows of the "
                                           "largest weight, in the end map): " : "; ");
            first_note = 0;
            cap_escaped(fi, runs[slots[i].run].name);
            cap_add(fi, " layer %d: head %d (%.2f) and head %d (%.2f)", slots[i].layer, most, hi,
                    least, lo);
        }
    }
    if (!first_note)
        cap_add(fi, ". The other heads are in the next figure, behind its toggle.");
    return kept;
}

static int figure_maps(const Run *runs, int n, const char *dir, int log_scale, FigureInfo *fi) {
    (void)log_scale;
    MapSlot *slots = NULL, *more = NULL;
    int n_slots = 0, rc = -1, *keep = NULL;
    if (map_slots(runs, n, &slots, &n_slots) != 0) {
        free(slots);
        fprintf(stderr, "error: out of memory drawing attn_maps.svg\n");
        return -1;
    }
    if (n_slots == 0) {
        free(slots);
        return 0;
    }
    keep = malloc((size_t)n_slots * sizeof *keep);
    more = malloc((size_t)n_slots * sizeof *more);
    if (!keep || !more) {
        fprintf(stderr, "error: out of memory drawing attn_maps.svg\n");
        goto done;
    }
    cap_add(fi, "Attention weights of one validation example, for each run before the first "
                "update (step 0) and after the last (row = query position, column = key; white "
                "= 0, dark blue = 1; hatched grey = masked: a query never sees later keys). "
                "Where answer tokens are among the inputs (a task with a separator), red dashed "
                "lines mark where they begin, on both axes; without a separator (recall, text) "
                "no line is drawn. A saturated head puts almost all its weight on a single key "
                "in every row; without the scale that can be seen at step 0 already.");
    int kept = choose_maps(runs, slots, n_slots, keep, fi), n_more = 0;
    for (int i = 0, k = 0; i < n_slots; i++) {
        if (keep[i]) slots[k++] = slots[i];
        else more[n_more++] = slots[i];
    }
    if (draw_maps(runs, slots, kept, dir, "attn_maps.svg",
                  "Attention of one validation example: step 0 and end") != 0)
        goto done;
    rc = 1;
    if (n_more == 0) goto done;
    FigureInfo *rest = fi + 1;
    *rest = (FigureInfo){.file = "attn_maps_more.svg",
                         .title = "The other heads' attention maps", .folded = 1};
    cap_add(rest, "Attention maps of the heads the figure above leaves out (neither the most "
                  "nor the least saturated of their run and layer): %d maps, drawn as above.",
            n_more);
    rc = draw_maps(runs, more, n_more, dir, "attn_maps_more.svg",
                   "Attention of one validation example: the other heads") == 0 ? 2 : -1;
done:
    free(keep);
    free(more);
    free(slots);
    return rc;
}

typedef struct {
    int (*draw)(const Run *runs, int n, const char *dir, int log_scale, FigureInfo *fi);
    const char *file, *title;
} FigureSpec;

/* figure_passthru's caption is fixed: it quotes no run. */
static int figure_passthru_info(const Run *runs, int n, const char *dir, int log_scale,
                                FigureInfo *fi) {
    int w = figure_passthru(runs, n, dir, log_scale);
    if (w > 0) cap_add(fi, "%s", FIGURE_PASSTHRU_CAPTION);
    return w;
}

static const FigureSpec FIGURES[] = {
    {figure_loss, "loss.svg", "Loss against step"},
    {figure_accuracy, "accuracy.svg", "Validation accuracy against step"},
    {figure_gradients, "grad_norms.svg", "Gradient norms against step"},
    {figure_attention, "attention.svg", "Attention entropy and logit spread against step"},
    {figure_passthru_info, "passthru.svg", FIGURE_PASSTHRU_TITLE},
    {figure_maps, "attn_maps.svg", "Attention maps at step 0 and at the end of training"},
};

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
