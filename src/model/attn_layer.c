/* attn_layer.c: the attention sublayer as both blocks run it (model_internal.h): the qk-norm of
 * the configured kind around the raw q and k, the attention with the layer's AttnScores, and the
 * per-(b, head) results of the kernels added over the batch in order (largest logits for
 * QK-clip, d log_scale, the pass-through sums), so the sums do not depend on the thread count. */
#include <math.h>
#include <string.h>

#include "model/attention.h"
#include "model/model_internal.h"
#include "model/qknorm.h"
#include "model/rmsnorm.h"

AttnScores model_attn_scores(const Model *m, int l) {
    const ModelConfig *c = &m->cfg;
    AttnScores sc = {c->scale, c->learned_scale ? m->p.block[l].log_scale : NULL, c->softcap,
                     c->window};
    return sc;
}

/* ---- qk-norm and v-norm ----------------------------------------------------------------- */

/* acts[l].attn_qkv = [norm(q), norm(k), vnorm(v)] per head: qk-LayerNorm (qknorm.h) or
 * qk-RMSNorm (rmsnorm.h; q_rstd and k_rstd hold its rstd, q_mean and k_mean are unused), or q and
 * k copied; v through RMSNorm with the gain m->v_gain (ones: weightless), or copied. */
void model_qkvnorm_forward(Model *m, int l, int N) {
    BlockActs *a = &m->acts[l];
    const BlockTensors *w = &m->p.block[l];
    int C = m->cfg.d_model, NH = m->cfg.n_heads, hs = C / NH;
    long C3 = 3L * C;
    if (m->cfg.qk_norm == MODEL_QK_NORM_RMSNORM) {
        rmsnorm_forward(a->attn_qkv, a->q_rstd, a->qkv, w->qn_w, N, NH, hs, C3, m->cfg.ln_eps);
        rmsnorm_forward(a->attn_qkv + C, a->k_rstd, a->qkv + C, w->kn_w, N, NH, hs, C3,
                        m->cfg.ln_eps);
    } else if (m->cfg.qk_norm == MODEL_QK_NORM_LAYERNORM) {
        qknorm_forward(a->attn_qkv, a->q_mean, a->q_rstd, a->qkv, w->qn_w, w->qn_b, N, NH, hs, C3,
                       m->cfg.ln_eps);
        qknorm_forward(a->attn_qkv + C, a->k_mean, a->k_rstd, a->qkv + C, w->kn_w, w->kn_b, N, NH,
                       hs, C3, m->cfg.ln_eps);
    } else {
        for (int n = 0; n < N; n++)
            memcpy(a->attn_qkv + n * C3, a->qkv + n * C3, 2 * (size_t)C * sizeof(real));
    }
    if (m->cfg.v_norm)
        rmsnorm_forward(a->attn_qkv + 2 * C, a->v_rstd, a->qkv + 2 * C, m->v_gain, N, NH, hs, C3,
                        m->cfg.ln_eps);
    else
        for (int n = 0; n < N; n++)
            memcpy(a->attn_qkv + n * C3 + 2 * C, a->qkv + n * C3 + 2 * C, (size_t)C * sizeof(real));
}

/* From d attn_qkv (m->dattn_qkv) to d qkv (m->dqkv, overwritten: nothing else flows into the
 * raw q, k and v), accumulating the q_norm and k_norm gradients. */
void model_qkvnorm_backward(Model *m, int l, int N) {
    const BlockActs *a = &m->acts[l];
    const BlockTensors *w = &m->p.block[l];
    BlockTensors *g = &m->g.block[l];
    int C = m->cfg.d_model, NH = m->cfg.n_heads, hs = C / NH;
    long C3 = 3L * C;
    if (m->cfg.qk_norm == MODEL_QK_NORM_RMSNORM) {
        /* rmsnorm_backward accumulates: q and k start from 0 */
        for (int n = 0; n < N; n++) memset(m->dqkv + n * C3, 0, 2 * (size_t)C * sizeof(real));
        rmsnorm_backward(m->dqkv, g->qn_w, m->dattn_qkv, a->qkv, w->qn_w, a->q_rstd, N, NH, hs,
                         C3);
        rmsnorm_backward(m->dqkv + C, g->kn_w, m->dattn_qkv + C, a->qkv + C, w->kn_w, a->k_rstd, N,
                         NH, hs, C3);
    } else if (m->cfg.qk_norm == MODEL_QK_NORM_LAYERNORM) {
        qknorm_backward(m->dqkv, g->qn_w, g->qn_b, m->dattn_qkv, a->qkv, w->qn_w, a->q_mean,
                        a->q_rstd, N, NH, hs, C3);
        qknorm_backward(m->dqkv + C, g->kn_w, g->kn_b, m->dattn_qkv + C, a->qkv + C, w->kn_w,
                        a->k_mean, a->k_rstd, N, NH, hs, C3);
    } else { /* q and k pass through unchanged */
        for (int n = 0; n < N; n++)
            memcpy(m->dqkv + n * C3, m->dattn_qkv + n * C3, 2 * (size_t)C * sizeof(real));
    }
    if (m->cfg.v_norm) { /* from 0 too; the gain's gradient goes to dv_gain, never read */
        for (int n = 0; n < N; n++) memset(m->dqkv + n * C3 + 2 * C, 0, (size_t)C * sizeof(real));
        memset(m->dv_gain, 0, (size_t)hs * sizeof(real)); /* bounded: zeroed at every use */
        rmsnorm_backward(m->dqkv + 2 * C, m->dv_gain, m->dattn_qkv + 2 * C, a->qkv + 2 * C,
                         m->v_gain, a->v_rstd, N, NH, hs, C3);
    } else { /* v passes through unchanged */
        for (int n = 0; n < N; n++)
            memcpy(m->dqkv + n * C3 + 2 * C, m->dattn_qkv + n * C3 + 2 * C,
                   (size_t)C * sizeof(real));
    }
}

/* ---- attention ------------------------------------------------------------------------- */

/* Layer l's largest logit per head over the batch, from the forward's per-(b, head) maxima. */
static void collect_logit_max(Model *m, int l) {
    int NH = m->cfg.n_heads;
    for (int h = 0; h < NH; h++) {
        real mx = -INFINITY;
        for (int b = 0; b < m->B; b++) {
            real v = m->smax_pairs[b * NH + h];
            mx = v > mx ? v : mx;
        }
        m->logit_max[l * NH + h] = mx;
    }
}

void model_attention_forward(Model *m, int l) {
    BlockActs *a = &m->acts[l];
    attention_forward(a->atty, NULL, a->att, a->attn_qkv, m->B, m->T, m->cfg.d_model,
                      m->cfg.n_heads, model_attn_scores(m, l), m->smax_pairs);
    if (m->logit_max) collect_logit_max(m, l);
}

/* d loss / d attn.log_scale of layer l: the (b, head) terms added in batch order. */
static void collect_dlog_scale(Model *m, int l) {
    int NH = m->cfg.n_heads;
    for (int h = 0; h < NH; h++) {
        double g = 0;
        for (int b = 0; b < m->B; b++) g += m->dlog_scale_pairs[b * NH + h];
        m->g.block[l].log_scale[h] += (real)g;
    }
}

/* The per-(b, head) pass-through sums of layer l's attention_backward, added over the batch in
 * order b = 0, 1, ... (the same on every thread count). */
static void collect_pass_stats(Model *m, int l) {
    int NH = m->cfg.n_heads;
    const AttnGradStats *st = &m->attn_stats;
    for (int h = 0; h < NH; h++) {
        double ss = 0, zz = 0;
        long rows = 0, blocked = 0;
        for (int b = 0; b < m->B; b++) {
            ss += st->dprob_sumsq[b * NH + h];
            zz += st->dlogit_sumsq[b * NH + h];
            rows += st->rows[b * NH + h];
            blocked += st->blocked[b * NH + h];
        }
        m->dprob_norm[l * NH + h] = sqrt(ss);
        m->dpreatt_norm[l * NH + h] = sqrt(zz);
        m->blocked_rows[l * NH + h] = rows > 0 ? (double)blocked / (double)rows : 0;
    }
}

void model_attention_backward(Model *m, int l, real *dattn_qkv, int with_pass_stats) {
    const BlockActs *a = &m->acts[l];
    attention_backward_scratch(dattn_qkv, m->attn_scratch, m->attn_slots, m->datty, a->attn_qkv,
                               a->att, m->B, m->T, m->cfg.d_model, m->cfg.n_heads,
                               model_attn_scores(m, l), m->dlog_scale_pairs,
                               with_pass_stats ? &m->attn_stats : NULL);
    if (with_pass_stats) collect_pass_stats(m, l);
    if (m->cfg.learned_scale) collect_dlog_scale(m, l);
}
