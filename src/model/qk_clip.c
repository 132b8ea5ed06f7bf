/* qk_clip.c: QK-clip (model.h, model_qk_clip): after an update, the query and key weights of
 * every head whose largest logit exceeded the threshold shrink so that it would be the
 * threshold. Kimi K2 (arXiv 2507.20534, section 2.1, MuonClip) clips per head with
 * γ = τ / S_max and multiplies W_q and W_k each by √γ; that is this, with our q and k biases
 * scaled with their weights so that q and k themselves shrink by √γ. */
#include <math.h>

#include "model/model.h"

/* Rows [r0, r0 + n) of the (3C, C) weight and the same entries of the bias (NULL: the LLaMA
 * block has none), times f. */
static void scale_rows(real *w, real *bias, int C, int r0, int n, real f) {
    for (int r = r0; r < r0 + n; r++) {
        for (int c = 0; c < C; c++) w[(long)r * C + c] *= f;
        if (bias) bias[r] *= f;
    }
}

int model_qk_clip(Model *m, double tau) {
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, NH = c->n_heads, hs = C / NH, total = 0;
    if (!m->logit_max) return 0;
    for (int l = 0; l < c->n_layers; l++)
        for (int h = 0; h < NH; h++) {
            double smax = m->logit_max[l * NH + h];
            if (!(smax > tau)) continue; /* NaN never clips: the divergence checks handle it */
            real f = (real)sqrt(tau / smax);
            BlockTensors *w = &m->p.block[l];
            scale_rows(w->qkv_w, w->qkv_b, C, h * hs, hs, f);     /* head h's q */
            scale_rows(w->qkv_w, w->qkv_b, C, C + h * hs, hs, f); /* head h's k */
            m->clip_count[l * NH + h]++;
            total++;
        }
    return total;
}
