/* diagnostics.c: the training loop's attention diagnostics (diagnostics.h): logit spread,
 * saturation and softmax pass-through per layer and head, and the step-0 init check, computed
 * from the model's activations and gradients for attention.csv and init_check.txt. */
#include "train/diagnostics.h"

#include <math.h>

#include "model/attention.h"

/* Running sums of one head's statistics, added (b, h) pair by pair in batch order; the same
 * order whether the logits come whole (diag_head_stats) or recomputed (diag_model_head_stats). */
typedef struct {
    HeadStats s;
    double sum, sumsq, n_logits, n_rows;
} HeadAcc;

/* hist: NULL, or the counts diag_model_head_hist adds the logits to. */
static void head_acc_add(HeadAcc *a, const real *z, const real *p, int T, int window, long *hist) {
    HeadStats *s = &a->s;
    AttnScores sc = {.window = window};
    for (int i = 0; i < T; i++) {
        const real *zr = z + (size_t)i * T, *pr = p + (size_t)i * T;
        double maxp = 0, ent = 0;
        int lo = attn_first_key(sc, i); /* the keys query i sees: lo .. i */
        for (int j = lo; j <= i; j++) {
            double v = zr[j];
            if (hist) hist[diag_hist_bin(v)]++;
            a->sum += v;
            a->sumsq += v * v;
            if (fabs(v) > s->logit_absmax) s->logit_absmax = fabs(v);
            if (pr[j] > maxp) maxp = pr[j];
            if (pr[j] > 0) ent -= pr[j] * log((double)pr[j]);
        }
        a->n_logits += i + 1 - lo;
        if (i - lo == 0) continue; /* one key: entropy 0 and maximum 1 whatever the logits */
        s->entropy += ent;
        s->entropy_norm += ent / log((double)(i + 1 - lo));
        s->max_weight += maxp;
        s->saturated_frac += maxp > 0.99;
        a->n_rows++;
    }
}

static HeadStats head_acc_finish(HeadAcc *a) {
    HeadStats s = a->s;
    if (a->n_logits > 0) {
        s.logit_mean = a->sum / a->n_logits;
        double var = a->sumsq / a->n_logits - s.logit_mean * s.logit_mean;
        s.logit_std = sqrt(var > 0 ? var : 0);
    }
    if (a->n_rows > 0) {
        s.entropy /= a->n_rows;
        s.entropy_norm /= a->n_rows;
        s.max_weight /= a->n_rows;
        s.saturated_frac /= a->n_rows;
    }
    return s;
}

HeadStats diag_head_stats(const real *preatt, const real *att, int B, int T, int NH, int h) {
    HeadAcc a = {0};
    for (int b = 0; b < B; b++)
        head_acc_add(&a, preatt + ((size_t)b * NH + h) * T * T, att + ((size_t)b * NH + h) * T * T,
                     T, 0, NULL);
    return head_acc_finish(&a);
}

HeadStats diag_model_head_hist(const Model *m, int layer, int h, long hist[DIAG_HIST_BINS + 1]) {
    const BlockActs *act = &m->acts[layer];
    int T = m->T, NH = m->cfg.n_heads;
    HeadAcc a = {0};
    for (int b = 0; b < m->B; b++) {
        attention_logits(m->attn_scratch, act->attn_qkv, b, h, T, m->cfg.d_model, NH,
                         model_attn_scores(m, layer));
        head_acc_add(&a, m->attn_scratch, act->att + ((size_t)b * NH + h) * T * T, T,
                     m->cfg.window, hist);
    }
    return head_acc_finish(&a);
}

HeadStats diag_model_head_stats(const Model *m, int layer, int h) {
    return diag_model_head_hist(m, layer, h, NULL);
}

/* Doublings of |logit| from 0.25 to 256: a scaled head's logits (std near 1) fill the middle
 * bins, an unscaled one's at d_k = 64 (std near 8 at step 0, 30 and more later) the outer ones. */
const double DIAG_HIST_EDGES[DIAG_HIST_BINS + 1] = {
    -INFINITY, -256, -128, -64, -32, -16, -8, -4, -2, -1, -0.5, -0.25, 0,
    0.25,      0.5,  1,    2,   4,   8,   16, 32, 64, 128, 256, INFINITY};

int diag_hist_bin(double v) {
    if (isnan(v)) return DIAG_HIST_BINS;
    int k = 0; /* the last edge <= v: the edges are few, a scan is clearer than a search */
    while (k + 1 < DIAG_HIST_BINS && DIAG_HIST_EDGES[k + 1] <= v) k++;
    return k;
}

/* Variance of channels [off, off + C) of the (N, 3C) qkv activations. */
static double qkv_part_variance(const real *qkv, int N, int C, int off) {
    double sum = 0, sumsq = 0;
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++) {
            double v = qkv[(size_t)n * 3 * C + off + c];
            sum += v;
            sumsq += v * v;
        }
    double cnt = (double)N * C, mean = sum / cnt;
    return sumsq / cnt - mean * mean;
}

InitCheck diag_init_check(const Model *m, int layer) {
    const BlockActs *a = &m->acts[layer];
    int B = m->B, T = m->T, C = m->cfg.d_model, NH = m->cfg.n_heads, hs = C / NH;
    InitCheck r = {.d_k = hs, .scale = m->cfg.scale};
    /* the q and k the dot product sees: after the normalisation when qk-norm is on */
    const real *qkv = a->attn_qkv;
    r.var_q = qkv_part_variance(qkv, B * T, C, 0);
    r.var_k = qkv_part_variance(qkv, B * T, C, C);
    double s1 = 0, s2 = 0, l1 = 0, l2 = 0, n = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            /* the logits the forward computed, recomputed bit for bit (it keeps only P) */
            attention_logits(m->attn_scratch, qkv, b, h, T, C, NH, model_attn_scores(m, layer));
            for (int i = 0; i < T; i++) {
                const real *q = qkv + ((size_t)b * T + i) * 3 * C + h * hs;
                const real *z = m->attn_scratch + (size_t)i * T;
                for (int j = 0; j <= i; j++) {
                    const real *k = qkv + ((size_t)b * T + j) * 3 * C + C + h * hs;
                    double dot = 0;
                    for (int d = 0; d < hs; d++) dot += (double)q[d] * k[d];
                    s1 += dot;
                    s2 += dot * dot;
                    l1 += z[j];
                    l2 += (double)z[j] * z[j];
                    n++;
                }
            }
        }
    r.var_qk = s2 / n - (s1 / n) * (s1 / n);
    r.var_logits = l2 / n - (l1 / n) * (l1 / n);
    return r;
}

/* With attention.softcap = C the softmax sees C·tanh(s/C), and the step-0 prediction is of s
 * before it. tanh(x)/x is 0.95 at x = 0.39: a logit beyond about 0.4·C is bent by 5 % or more. At
 * a pre-cap std of C/4 the largest logit of a row of 32-64 keys (about 2.4 std) sits near 0.6·C
 * and is cut by about 10 %: from that fraction of C on, the cap already acts at step 0. */
#define SOFTCAP_ACTIVE_FRACTION 0.25

/* The soft-cap's line below the verdict: what it bounds, and whether it acts from step 0 (the
 * pre-cap predicted std against C) or only once the logits grow. */
static void softcap_line(FILE *f, double cap, double predicted_std) {
    fprintf(f, "soft-cap: attention.softcap = %.6g: the softmax sees %.6g*tanh(s/%.6g), bounded "
               "by +-%.6g however large s = scale*q.k grows; ", cap, cap, cap, cap);
    if (isnan(predicted_std))
        fprintf(f, "it bends the logits that come near +-%.6g.\n", cap);
    else if (predicted_std >= SOFTCAP_ACTIVE_FRACTION * cap)
        fprintf(f, "the predicted step-0 std before the cap, %.3g, is %.2g times the cap (a "
                   "quarter or more): the cap is active from step 0, bending every logit beyond "
                   "about %.3g by 5 %% or more.\n", predicted_std, predicted_std / cap, 0.4 * cap);
    else
        fprintf(f, "the predicted step-0 std before the cap, %.3g, is %.2g times the cap (under a "
                   "quarter): at step 0 it leaves the logits nearly as they are (C*tanh(s/C) ~ s "
                   "for |s| well below C), and bounds them only if they grow toward +-%.6g.\n",
                predicted_std, predicted_std / cap, cap);
}

/* init_check.txt's opening lines: what the check assumes and, as they apply, qk-norm, the
 * predicted column and the soft cap. */
static void init_header(FILE *f, const Model *m, int has_pred, double cap) {
    fprintf(f, "init check (step 0, one validation batch): the 1/sqrt(d_k) argument assumes q and k\n"
               "entries of variance 1, so that q.k has variance d_k and the scaled logits variance 1.\n");
    if (m->cfg.qk_norm)
        fprintf(f, "qk-norm is on: var q, var k and q.k are of the normalised q and k (what the "
                   "softmax sees).\n");
    if (has_pred)
        fprintf(f, "std logits: measured; from init: predicted from the init alone, "
                   "scale*sqrt(d_k)*d_model*sigma^2 (sigma: std of the qkv weight; with qk-norm "
                   "scale*sqrt(d_k); model.h)\n");
    if (cap > 0)
        fprintf(f, "soft-capped logits (attention.softcap = %.6g): var logits and std logits are "
                   "measured after the cap, what the softmax sees; the predictions are of the "
                   "logits before it.\n", cap);
}

/* The table, a row per layer; returns 1 when every layer's q and k entries have variance near 1
 * (0.5 .. 2), and the smallest var q.k into *min_qk_out. */
static int init_table(FILE *f, const Model *m, const InitCheck *checks, int has_pred,
                      double predicted_std, double *min_qk_out) {
    fprintf(f, "%-6s %10s %10s %12s %12s %14s %14s", "layer", "var q", "var k", "var q.k",
            "predicted", "var logits", "predicted");
    if (has_pred) fprintf(f, " %12s %12s", "std logits", "from init");
    fputc('\n', f);
    int assumption_holds = 1;
    double min_qk = INFINITY;
    for (int l = 0; l < m->cfg.n_layers; l++) {
        const InitCheck *c = &checks[l];
        double pred_logits = c->d_k * c->scale * c->scale;
        fprintf(f, "%-6d %10.4f %10.4f %12.4f %12d %14.4f %14.4f", l, c->var_q, c->var_k, c->var_qk,
                c->d_k, c->var_logits, pred_logits);
        if (has_pred)
            fprintf(f, " %12.4f %12.4f", sqrt(c->var_logits > 0 ? c->var_logits : 0), predicted_std);
        fputc('\n', f);
        if (c->var_q < 0.5 || c->var_q > 2 || c->var_k < 0.5 || c->var_k > 2) assumption_holds = 0;
        if (c->var_qk < min_qk) min_qk = c->var_qk;
    }
    *min_qk_out = min_qk;
    return assumption_holds;
}

/* The verdict on layer 0: qk-norm's, the assumption holding, or not. */
static void init_verdict(FILE *f, const Model *m, const InitCheck *checks, int assumption_holds,
                         double min_qk) {
    const InitCheck *c0 = &checks[0];
    double pred0 = c0->d_k * c0->scale * c0->scale;
    const char *softmax_start = c0->var_logits > 4
                                    ? "large enough to saturate many softmax rows from the start."
                                    : "the softmax starts soft.";
    if (m->cfg.qk_norm)
        /* LayerNorm makes var q = var k ≈ 1 by construction, so the measured variances say
         * nothing about the initialisation, and only the scale decides the logits' spread. */
        fprintf(f, "verdict: qk-norm is on: each head's q and k pass through a LayerNorm before q.k, "
                   "so their entries have variance near 1 whatever the initialisation (layer 0: %.3g "
                   "and %.3g, as the softmax sees them) and q.k has variance near d_k = %d (measured "
                   "%.3g). With scale %.4g the logits have variance %.3g (predicted d_k*scale^2 = "
                   "%.3g): %s%s\n",
                c0->var_q, c0->var_k, c0->d_k, c0->var_qk, c0->scale, c0->var_logits, pred0,
                softmax_start,
                c0->var_logits > 4 ? " qk-norm bounds the logits but does not replace the "
                                     "1/sqrt(d_k) scale: without it the model starts saturated."
                                   : "");
    else if (c0->var_q == 0)
        /* μP (model.param = mup) starts W_q at exactly zero (Tensor Programs V; microsoft/mup):
         * the premise "q and k entries of variance 1" is not broken but not yet posed, so the
         * verdict says what the zero means rather than "does NOT hold". */
        fprintf(f, "verdict: q is exactly 0 at step 0 (W_q starts at zero: the zero-initialised query "
                   "of model.param = mup), so every logit is 0 and the softmax starts uniform whatever "
                   "the scale (var k %.3g); the premise of the 1/sqrt(d_k) argument applies once W_q has "
                   "learnt: watch logit_std in attention.csv.\n",
                c0->var_k);
    else if (assumption_holds)
        fprintf(f, "verdict: the assumption holds: q and k entries have variance near 1 (layer 0: %.3g "
                   "and %.3g), so q.k has variance near d_k = %d (measured %.3g). With scale %.4g the "
                   "logits have variance %.3g (predicted d_k*scale^2 = %.3g): %s\n",
                c0->var_q, c0->var_k, c0->d_k, c0->var_qk, c0->scale, c0->var_logits, pred0,
                softmax_start);
    else
        fprintf(f, "verdict: the assumption does NOT hold: q and k entries have variance far from 1 "
                   "(layer 0: %.3g and %.3g), so q.k has variance %.3g instead of d_k = %d. With q and k "
                   "this %s, the scale changes %s at step 0%s.\n",
                c0->var_q, c0->var_k, c0->var_qk, c0->d_k, c0->var_q < 0.5 ? "small" : "large",
                min_qk < 1 ? "little: the logits are small either way" : "a lot",
                min_qk < 1 ? " (only at step 0: during training the logits can still run away; "
                             "init_check.txt's lr map line places this run's learning rate)"
                           : "");
}

void diag_init_report(FILE *f, const Model *m, const InitCheck *checks, double predicted_std) {
    int has_pred = !isnan(predicted_std);
    double cap = (double)m->cfg.softcap, min_qk;
    init_header(f, m, has_pred, cap);
    int assumption_holds = init_table(f, m, checks, has_pred, predicted_std, &min_qk);
    init_verdict(f, m, checks, assumption_holds, min_qk);
    if (cap > 0) softcap_line(f, cap, predicted_std);
    /* Step 0 is not the whole story: with AdamW the logits can grow during training, and how fast
     * depends on the learning rate, the width and the scale (docs/attention_fixes.md; measured
     * by experiments/lr_width.sh) — a small start does not promise a small end. */
    fprintf(f, "note: this is step 0 only; the logits can grow during training, more the higher "
               "the learning rate and the wider the model, and faster without the scale: watch "
               "logit_std in attention.csv (its peak and first 10x step are in --compare and "
               "sweep.csv).\n");
}

double diag_qk_gain_rms(const Model *m, int layer) {
    if (m->cfg.qk_norm != MODEL_QK_NORM_RMSNORM) return NAN;
    const real *gq = m->p.block[layer].qn_w, *gk = m->p.block[layer].kn_w;
    int d_k = m->cfg.d_model / m->cfg.n_heads;
    double ss = 0;
    for (int c = 0; c < d_k; c++) {
        double p = (double)gq[c] * (double)gk[c];
        ss += p * p;
    }
    return sqrt(ss / d_k);
}
