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
