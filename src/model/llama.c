/* llama.c: the LLaMA-style block, the whole model's forward and backward side by side
 * (llama.h), calling the layers of src/model/ in order: rmsnorm, matmul, qk-norm, rope,
 * attention, swiglu, loss. */
#include "model/llama.h"

#include <assert.h>
#include <string.h>

#include "model/attention.h"
#include "model/loss.h"
#include "model/matmul.h"
#include "model/model_internal.h"
#include "model/rmsnorm.h"
#include "model/rope.h"
#include "model/swiglu.h"
#include "model/vecmath.h"

/* RMSNorm over whole rows of C (NH = 1, hs = stride = C) */
static void row_rmsnorm_forward(real *out, real *rstd, const real *inp, const real *weight,
                                int N, int C, real eps) {
    rmsnorm_forward(out, rstd, inp, weight, N, 1, C, C, eps);
}

static void row_rmsnorm_backward(real *dinp, real *dweight, const real *dout, const real *inp,
                                 const real *weight, const real *rstd, int N, int C) {
    rmsnorm_backward(dinp, dweight, dout, inp, weight, rstd, N, 1, C, C);
}

real llama_forward(Model *m, const int *tokens, const int *targets, const float *mask, int B,
                   int T) {
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, F = c->d_ff, V = c->vocab_size, NH = c->n_heads, N = B * T;
    m->B = B;
    m->T = T;
    memcpy(m->tokens, tokens, (size_t)N * sizeof(int));
    memcpy(m->targets, targets, (size_t)N * sizeof(int));
    memcpy(m->mask, mask, (size_t)N * sizeof(float));

    /* x = tok_emb[token]: positions enter only through RoPE */
    for (int n = 0; n < N; n++)
        memcpy(m->acts[0].resid + (long)n * C, m->p.tok_emb + (long)tokens[n] * C,
               (size_t)C * sizeof(real));
    for (int l = 0; l < c->n_layers; l++) {
        BlockActs *a = &m->acts[l];
        BlockTensors *w = &m->p.block[l];
        real *out = l + 1 < c->n_layers ? m->acts[l + 1].resid : m->resid_final;
        assert(w->up_w == w->gate_w + (size_t)F * C); /* one [2F, C] matrix */
        row_rmsnorm_forward(a->ln1, a->ln1_rstd, a->resid, w->ln1_w, N, C, c->ln_eps);
        model_linear_forward(m, a->qkv, a->ln1, w->qkv_w, NULL, N, C, 3 * C);
        /* attn_qkv: qkv itself, or its qk- or v-normed copy; rotated in place either way */
        if (c->qk_norm || c->v_norm) model_qkvnorm_forward(m, l, N);
        rope_forward(a->attn_qkv, m->rope_cos, m->rope_sin, B, T, C, NH);
        model_attention_forward(m, l);
        model_linear_forward(m, a->attproj, a->atty, w->proj_w, NULL, N, C, C);
        residual_forward(a->resid2, a->resid, a->attproj, (long)N * C);
        row_rmsnorm_forward(a->ln2, a->ln2_rstd, a->resid2, w->ln2_w, N, C, c->ln_eps);
        model_linear_forward(m, a->gu, a->ln2, w->gate_w, NULL, N, C, 2 * F);
        swiglu_forward(a->swiglu, a->gu, N, F);
        model_linear_forward(m, a->fcproj, a->swiglu, w->down_w, NULL, N, F, C);
        residual_forward(out, a->resid2, a->fcproj, (long)N * C);
    }
    row_rmsnorm_forward(m->lnf, m->lnf_rstd, m->resid_final, m->p.lnf_w, N, C, c->ln_eps);
    model_readout_forward(m, N);
    m->loss = crossentropy_forward(m->losses, m->probs, m->logits, targets, mask, N, V);
    return m->loss;
}

void llama_backward(Model *m, int with_pass_stats) {
    const ModelConfig *c = &m->cfg;
    int B = m->B, T = m->T;
    int C = c->d_model, F = c->d_ff, V = c->vocab_size, NH = c->n_heads, N = B * T;

    /* As model.c's GPT-2 backward: kernels overwrite the activation gradients they produce,
     * and the RMSNorms add their dinp into the residual stream's gradient m->dx. */
    crossentropy_backward(m->dlogits, m->probs, m->targets, m->mask, N, V);
    model_readout_backward(m, N);
    memset(m->dx, 0, (size_t)N * C * sizeof(real));
    row_rmsnorm_backward(m->dx, m->g.lnf_w, m->dlnf, m->resid_final, m->p.lnf_w, m->lnf_rstd, N,
                         C);

    for (int l = c->n_layers - 1; l >= 0; l--) {
        BlockActs *a = &m->acts[l];
        BlockTensors *w = &m->p.block[l];
        BlockTensors *g = &m->g.block[l];

        /* out = resid2 + down(swiglu(gate, up)(ln2(resid2))) */
        model_linear_backward(m, m->dfch, g->down_w, NULL, m->dx, a->swiglu, w->down_w, N, F, C);
        swiglu_backward(m->dgu, m->dfch, a->gu, N, F);
        /* gate and up at once: g->gate_w, g->up_w are adjacent in the gradient buffer too */
        model_linear_backward(m, m->dln, g->gate_w, NULL, m->dgu, a->ln2, w->gate_w, N, C, 2 * F);
        row_rmsnorm_backward(m->dx, g->ln2_w, m->dln, a->resid2, w->ln2_w, a->ln2_rstd, N, C);

        /* resid2 = resid + attproj(attention(rope(qknorm(qkv(ln1(resid)))))) */
        model_linear_backward(m, m->datty, g->proj_w, NULL, m->dx, a->atty, w->proj_w, N, C, C);
        real *dattn_qkv = m->dattn_qkv ? m->dattn_qkv : m->dqkv;
        model_attention_backward(m, l, dattn_qkv, with_pass_stats);
        rope_backward(dattn_qkv, m->rope_cos, m->rope_sin, B, T, C, NH);
        if (m->dattn_qkv) model_qkvnorm_backward(m, l, N);
        model_linear_backward(m, m->dln, g->qkv_w, NULL, m->dqkv, a->ln1, w->qkv_w, N, C, 3 * C);
        row_rmsnorm_backward(m->dx, g->ln1_w, m->dln, a->resid, w->ln1_w, a->ln1_rstd, N, C);
    }
    /* tok_emb: rows in order, so a token seen twice sums its gradients in a fixed order */
    for (int n = 0; n < N; n++) {
        real *d = m->g.tok_emb + (long)m->tokens[n] * C;
        const real *dx = m->dx + (long)n * C;
        for (int k = 0; k < C; k++) d[k] += dx[k];
    }
}
