/* attention.h: multi-head causal scaled dot-product attention (Vaswani et al. 2017, eq. 1):
 * Attention(Q,K,V) = softmax(scale · Q·Kᵀ) · V, with query i seeing keys 0..i.
 * The paper's scale is 1/√d_k: for q, k with independent unit-variance entries, q·k has
 * variance d_k, and the scale brings it back to 1 so the softmax does not saturate. Here the
 * scale is a parameter so the experiment can remove it. */
#ifndef SCALEDOT_ATTENTION_H
#define SCALEDOT_ATTENTION_H

#include <stddef.h>

#include "model/real.h"

/* What multiplies q·k and what is done to the product before the mask and softmax: the
 * variants of the fixes large models use against attention-logit growth
 * (../shared/reference/README.md defines each):
 *   s = f_h · q·k      f_h = scale, or exp(log_scale[h]) when log_scale is set (a learned
 *                      temperature per head, Henry et al. 2020, "Query-Key Normalization for
 *                      Transformers", arXiv 2010.04245)
 *   s ← c·tanh(s / c)  when softcap = c > 0 (logit soft-capping, Gemma 2, arXiv 2408.00118),
 *                      after the factor, before the mask
 * and a causal window of the last w keys when window = w > 0 (the keys before it get weight 0,
 * as if masked). The plain paper's attention is {scale, NULL, 0, 0}: attn_scores_fixed(scale). */
typedef struct {
    real scale;            /* the factor when log_scale is NULL */
    const real *log_scale; /* [NH] or NULL: head h's factor is exp(log_scale[h]) */
    real softcap;          /* c > 0: cap the logits at ±c (smoothly); 0 = off */
    int window;            /* w > 0: query i sees only its last w keys, max(0, i − w + 1) .. i
                            * (sliding-window attention, Child et al. 2019, Beltagy et al. 2020);
                            * 0 = every key j ≤ i */
} AttnScores;

static inline AttnScores attn_scores_fixed(real scale) { return (AttnScores){scale, NULL, 0, 0}; }

/* The first key query i sees. */
static inline int attn_first_key(AttnScores sc, int i) {
    return sc.window > 0 && i >= sc.window ? i - sc.window + 1 : 0;
}

/* The factor on q·k of head h. */
static inline real attn_factor(AttnScores sc, int h) {
    return sc.log_scale ? rexp(sc.log_scale[h]) : sc.scale;
}

/* qkv (B,T,3C): channels 0..C-1 are q, C..2C-1 k, 2C..3C-1 v; head h uses channels
 * h·d_k .. (h+1)·d_k − 1 of each, d_k = C/NH.
 * preatt (B,NH,T,T) or NULL: the logits the softmax sees, f_h·q_i·k_j, soft-capped when
 *   sc.softcap > 0 (the keys query i sees; 0 elsewhere).
 *   Training passes NULL: backward needs only att, so the logits are built in att's memory and
 *   the softmax overwrites them, which saves a (B,NH,T,T) buffer per layer and its memory
 *   traffic; the values of att and out are the same bits either way. attention_logits gives
 *   the logits back to the diagnostics when they need them.
 * att (B,NH,T,T): softmax over the keys query i sees (j ≤ i, within the window) with the true
 *   row maximum subtracted (0 elsewhere);
 * out (B,T,C): Σ_j att[i,j]·v_j, heads concatenated.
 * smax [B·NH] or NULL: the largest logit f_h·q_i·k_j (keys seen) of each (b, h) pair, before the
 *   soft-cap: the S_max that QK-clip compares with its threshold (model.h). */
void attention_forward(real *out, real *preatt, real *att, const real *qkv, int B, int T, int C,
                       int NH, AttnScores sc, real *smax);

/* The logits of one (b, h) pair as the softmax sees them, s (T × T, row-major; 0 for the keys
 * a query does not see), recomputed from qkv exactly as attention_forward computes them (the same product,
 * the same bits as its preatt slice). For the diagnostics, outside the training step; not
 * parallel. */
void attention_logits(real *s, const real *qkv, int b, int h, int T, int C, int NH,
                      AttnScores sc);

/* How much of the gradient reaching one softmax row p (n visible keys) it passes on to the
 * logits: with dp = dL/dp, dz = dL/dz = p ⊙ (dp − Σ_j p_j·dp_j) (the softmax Jacobian, which is
 * symmetric), pass = |dz| / |dp| (L2 norms over the n keys). A uniform row passes
 * |dp − mean dp| / (n·|dp|); a one-hot row passes exactly 0 whatever dp is: it can no longer
 * move its attention. */
typedef struct {
    double dp_sumsq, dz_sumsq; /* Σ_j dp_j², Σ_j dz_j², in double */
    double pass;               /* sqrt(dz_sumsq / dp_sumsq); 0 when dp_sumsq = 0 */
    int counted;               /* n >= 2 and dp != 0: a row the blocked fraction counts */
    int blocked;               /* counted and pass < ATTN_BLOCKED_PASS */
} SoftmaxRowPass;

/* Below this pass-through a row counts as blocked. */
#define ATTN_BLOCKED_PASS 0.01

/* The pass-through of one row, computed in double from p and dp (n entries each; neither is
 * changed). A row with one key (n = 1: p ≡ 1, dz ≡ 0) or with dp = 0 (no gradient reaches it,
 * e.g. the last layer's query rows at positions the loss does not read) is not counted: the
 * softmax cannot be said to block a gradient that never arrives. */
SoftmaxRowPass softmax_row_pass(const real *p, const real *dp, int n);

/* The fraction of the gradient reaching the attention probabilities that the softmax passes to
 * the logits, over many rows: dlogit_norm / dprob_norm (the L2 norms of dL/dZ and dL/dP, e.g.
 * the roots of softmax_row_pass's sums), and 0 when dprob_norm is 0 (no gradient arrives, so none
 * passes; this keeps a 0/0 NaN out of the logs of a head the loss does not reach). A NaN or Inf
 * norm of a diverged run still gives NaN: it is not hidden. Here, beside the per-row sums it is
 * the ratio of, so that the training loop's diagnostics (train/) and --softmax-table (report/)
 * compute it in one place without report/ including train/ (issue 46). */
double diag_softmax_pass(double dlogit_norm, double dprob_norm);

/* Per-(b, head) sums of the softmax pass-through, slot b·NH + h, from one attention_backward:
 *   dprob_sumsq  Σ over rows i and visible keys j ≤ i of (dL/dP_ij)², before the softmax backward
 *   rows         rows softmax_row_pass counts (≥ 2 visible keys, dp ≠ 0)
 *   blocked      those of them that are blocked (pass < ATTN_BLOCKED_PASS)
 * Each slot has one writer, so the sums do not depend on the thread count. */
typedef struct {
    double *dprob_sumsq;  /* [B·NH] */
    double *dlogit_sumsq; /* [B·NH]: Σ over all T × T entries of (dL/dZ)², after it */
    int *rows, *blocked;  /* [B·NH] each */
} AttnGradStats;

/* Writes dqkv (B,T,3C) (overwritten) from dout (B,T,C), using qkv and att from the forward pass.
 * dpreatt (B,NH,T,T) is overwritten with the gradient reaching the pre-softmax logits (0 above
 * the diagonal). Softmax backward uses dz = p ⊙ (dp − Σ_j p_j·dp_j), O(T²) per head, not the
 * O(T³) Jacobian product; with sc.softcap = c the gradient then passes the cap,
 * dS = dZ ⊙ (1 − tanh²(S/c)), S recomputed from q and k (dpreatt keeps dZ, the gradient at the
 * softmax's input). Parallel over (b, head): each writes its own slice of dqkv, so the result
 * does not depend on the thread count. dlog_scale [B·NH] or NULL: with sc.log_scale, the
 * gradient of each (b, h) pair's loss term with respect to log_scale[h], Σ_ij dS_ij·S_ij (=
 * Σ_i q_i·dq_i, computed so, in double), overwritten; the caller adds the pairs of a head in
 * batch order. stats (NULL in training steps, which then do no extra work) gets the
 * pass-through sums of every (b, head); the gradients are the same with or without it. With
 * the soft-cap on, this entry point allocates its T × T work space (it serves tests and tools;
 * the training step uses attention_backward_scratch). */
void attention_backward(real *dqkv, real *dpreatt, const real *dout, const real *qkv,
                        const real *att, int B, int T, int C, int NH, AttnScores sc,
                        double *dlog_scale, AttnGradStats *stats);

/* attention_backward for the training step: the same dqkv and stats, bit for bit, but each
 * (b, head)'s dP / dZ lives only in a per-thread slot of scratch instead of a (B,NH,T,T)
 * buffer, so the backward's memory no longer grows with B·NH·T². A slot is
 * attention_scratch_per_slot(T, sc) reals (T·T; 2·T·T with the soft-cap, whose backward needs
 * the recomputed logits beside dZ). At most `slots` threads run; fewer slots than threads only
 * costs parallelism. */
void attention_backward_scratch(real *dqkv, real *scratch, int slots, const real *dout,
                                const real *qkv, const real *att, int B, int T, int C, int NH,
                                AttnScores sc, double *dlog_scale, AttnGradStats *stats);

/* Reals in one thread's slot of attention_backward_scratch. */
static inline long attention_scratch_per_slot(int T, AttnScores sc) {
    return (sc.softcap > 0 ? 2L : 1L) * T * T;
}

#endif
