/* diagnostics.h: the links of the √d_k chain as numbers: logit spread, softmax saturation and
 * the gradient that reaches the logits, per layer and head; and the step-0 check of the
 * argument's assumption (unit-variance q and k entries). */
#ifndef SCALEDOT_DIAGNOSTICS_H
#define SCALEDOT_DIAGNOSTICS_H

#include <stdio.h>

#include "model/model.h"

typedef struct {
    double logit_mean, logit_std, logit_absmax; /* over visible (j ≤ i) scaled logits */
    double entropy;        /* mean over rows of −Σ p log p, nats */
    double entropy_norm;   /* mean over rows of entropy / log(visible keys): 1 = uniform */
    double max_weight;     /* mean over rows of max_j p_ij */
    double saturated_frac; /* fraction of rows with max_j p_ij > 0.99 */
    double dlogit_norm;    /* L2 norm of d loss / d logits of this head (0 if not computed) */
    /* The softmax pass-through (0 if not computed; see model_backward_diag, attention.h): */
    double dprob_norm;     /* L2 norm of d loss / d attention probabilities, before the softmax */
    double softmax_pass;   /* dlogit_norm / dprob_norm (diag_softmax_pass) */
    double blocked_rows;   /* fraction of counted rows with pass-through < ATTN_BLOCKED_PASS */
    /* Set by the training loop for the fixes' columns of attention.csv (runlog.h): */
    double attn_scale;     /* the head's factor on q·k (attention.scale = learned) */
    int clipped_steps;     /* updates QK-clip clipped this head since the previous row */
    double qk_gain_rms;    /* the layer's diag_qk_gain_rms (attention.qk_norm = rmsnorm) */
} HeadStats;

/* With qk-RMSNorm (m->cfg.qk_norm = MODEL_QK_NORM_RMSNORM): the root mean square over the d_k
 * channels of the product of layer `layer`'s q and k gains, sqrt(mean_c (g_q[c]·g_k[c])²), in
 * double. Why (issue 42 item 4): q̂·k̂ = Σ_c g_q[c] g_k[c] n_q[c] n_k[c] with n_q, n_k of mean
 * square 1, so for directions independent of each other the logit std is about
 * scale·√d_k·rms(g_q ⊙ g_k): with scale none (Gemma 4) the gains alone can learn the 1/√d_k.
 * NAN without qk-RMSNorm. */
double diag_qk_gain_rms(const Model *m, int layer);

/* Statistics of head h from preatt and att (B,NH,T,T) as written by attention_forward. Rows
 * with one visible key (query 0) are left out of the row statistics (their entropy is 0 and
 * their maximum 1 by construction, whatever the scale); their single logit counts in the
 * logit statistics. dlogit_norm is left 0. */
HeadStats diag_head_stats(const real *preatt, const real *att, int B, int T, int NH, int h);

/* diag_head_stats of head h of layer `layer` after the last model_forward, which keeps only
 * att: each (b, h) pair's logits are recomputed by attention_logits into m->attn_scratch (the
 * same bits as the forward's), so the result equals diag_head_stats on the whole logits. */
HeadStats diag_model_head_stats(const Model *m, int layer, int h);

/* The histogram of the logits, with bins fixed for every run and step so that a reader can
 * compare them (the slider of --compare): a logit spread of 1 and one of 30 must both show. Each
 * bin spans a doubling of |logit|: [-inf, -256), [-256, -128), ..., [-0.5, -0.25), [-0.25, 0),
 * [0, 0.25), [0.25, 0.5), ..., [128, 256), [256, inf); DIAG_HIST_EDGES[k] and [k + 1] bound bin k.
 * A NaN logit (a diverged run) is in no bin: it is counted at index DIAG_HIST_BINS. */
#define DIAG_HIST_BINS 24
extern const double DIAG_HIST_EDGES[DIAG_HIST_BINS + 1];

/* The bin of logit v (DIAG_HIST_EDGES[k] <= v < DIAG_HIST_EDGES[k + 1]; -inf in bin 0, +inf in
 * the last), or DIAG_HIST_BINS for a NaN. */
int diag_hist_bin(double v);

/* diag_model_head_stats that also adds each visible logit (j <= i, inside the window) of the
 * batch to hist[diag_hist_bin(logit)] (hist: DIAG_HIST_BINS + 1 counts, zeroed by the caller): the
 * counts then sum to the logits the statistics are over. No allocation. */
HeadStats diag_model_head_hist(const Model *m, int layer, int h, long hist[DIAG_HIST_BINS + 1]);

/* Step-0 check of one layer, from the activations of the last model_forward. */
typedef struct {
    int d_k;
    double scale;
    double var_q, var_k;    /* variance of the q and k entries (all heads, positions), as the
                             * dot product sees them: after the LayerNorm with qk-norm */
    double var_qk;          /* variance of the unscaled q·k over visible (i, j ≤ i) pairs */
    double var_logits;      /* variance of scale·q·k, from the stored logits */
} InitCheck;

InitCheck diag_init_check(const Model *m, int layer);

/* Writes the check of every layer, the predictions of the √d_k argument (var q = var k = 1,
 * var q·k = d_k, var logits = d_k·scale²) and a plain-language verdict to f. With qk-norm the
 * variance-1 premise holds by construction (unit LayerNorm weights at init), so the verdict says
 * so, and says when the scale leaves the logits large enough to saturate the softmax. Beside each
 * layer's measured logit std it prints predicted_std, the step-0 std predicted from the init
 * (model_predicted_logit_std; the same for every layer); NAN leaves those two columns out. With
 * a soft-cap C (m->cfg.softcap > 0) the measured logits are after the cap and the predictions
 * before it, which a line says; a line after the verdict says the cap bounds what the softmax
 * sees at ±C and, when predicted_std is a sizable fraction of C (a quarter or more), that the cap
 * is active from step 0. Without a cap the text is as it always was. */
void diag_init_report(FILE *f, const Model *m, const InitCheck *checks, double predicted_std);

#endif
