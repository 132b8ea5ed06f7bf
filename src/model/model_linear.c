/* model_linear.c: a linear layer of the model, float32 or bf16 as cfg.matmul says
 * (model_internal.h). A function of its own, not inline in the header: a call per layer costs
 * nothing beside the product, and a change here rebuilds one file. */
#include "model/model_internal.h"

#include "model/matmul.h"
#include "model/matmul_bf16.h"

void model_linear_forward(const Model *m, real *out, const real *inp, const real *weight,
                          const real *bias, int N, int C, int OC) {
    if (m->cfg.matmul == MODEL_MATMUL_BF16)
        matmul_bf16_forward(out, inp, weight, bias, N, C, OC, m->mm_scratch, m->mm_scratch_len);
    else
        matmul_forward_scratch(out, inp, weight, bias, N, C, OC, m->mm_scratch,
                               m->mm_scratch_len);
}

void model_linear_backward(const Model *m, real *dinp, real *dweight, real *dbias,
                           const real *dout, const real *inp, const real *weight, int N, int C,
                           int OC) {
    if (m->cfg.matmul == MODEL_MATMUL_BF16)
        matmul_bf16_backward(dinp, dweight, dbias, dout, inp, weight, N, C, OC, m->mm_scratch,
                             m->mm_scratch_len);
    else
        matmul_backward_scratch(dinp, dweight, dbias, dout, inp, weight, N, C, OC,
                                m->mm_scratch, m->mm_scratch_len);
}

/* The factor is applied to the logits, not folded into the weight, so that head.weight is what
 * the optimizer updates and the export carries, as in MuReadout. */
static int has_readout_mult(const Model *m) {
    return m->cfg.readout_mult != R(0.0) && m->cfg.readout_mult != R(1.0);
}

void model_readout_forward(Model *m, int N) {
    int C = m->cfg.d_model, V = m->cfg.vocab_size;
    model_linear_forward(m, m->logits, m->lnf, m->p.head_w, NULL, N, C, V);
    if (!has_readout_mult(m)) return;
    real f = m->cfg.readout_mult;
    for (size_t i = 0; i < (size_t)N * V; i++) m->logits[i] *= f;
}

void model_readout_backward(Model *m, int N) {
    int C = m->cfg.d_model, V = m->cfg.vocab_size;
    if (has_readout_mult(m)) {
        real f = m->cfg.readout_mult;
        for (size_t i = 0; i < (size_t)N * V; i++) m->dlogits[i] *= f;
    }
    model_linear_backward(m, m->dlnf, m->g.head_w, NULL, m->dlogits, m->lnf, m->p.head_w, N, C, V);
}
