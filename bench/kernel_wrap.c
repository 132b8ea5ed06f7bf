/* kernel_wrap.c: the per-kernel times of `make bench`, from the linker, not from the product.
 *
 * The Makefile links the bench with -Wl,--wrap=<kernel> for every kernel that model.c calls, so
 * model.c's call to, say, layernorm_forward lands in __wrap_layernorm_forward below, which times
 * the real kernel (__real_layernorm_forward) and adds the seconds to kernel_s. The product's
 * objects are linked unchanged and pay nothing. */
#include "model/attention.h"
#include "model/gelu.h"
#include "model/layernorm.h"
#include "model/loss.h"
#include "model/matmul.h"
#include "model/matmul_bf16.h"

#include "bench_util.h"
#include "kernel_wrap.h"

const char *const kernel_names[K_COUNT] = {"mm fwd", "mm bwd", "att fwd", "att bwd", "lnorm",
                                           "gelu",   "loss",   "optim",   "other"};
double kernel_s[K_COUNT];

/* Defines __wrap_NAME(PARAMS), which calls __real_NAME(ARGS) and adds its time to kernel_s[K]. */
#define TIMED(K, NAME, PARAMS, ARGS)                                                              \
    void __real_##NAME PARAMS;                                                                    \
    void __wrap_##NAME PARAMS;                                                                    \
    void __wrap_##NAME PARAMS {                                                                   \
        double t0 = now_s();                                                                      \
        __real_##NAME ARGS;                                                                       \
        kernel_s[K] += now_s() - t0;                                                              \
    }

TIMED(K_MM_FWD, matmul_forward,
      (real * out, const real *inp, const real *weight, const real *bias, int N, int C, int OC),
      (out, inp, weight, bias, N, C, OC))
TIMED(K_MM_BWD, matmul_backward,
      (real * dinp, real *dweight, real *dbias, const real *dout, const real *inp,
       const real *weight, int N, int C, int OC),
      (dinp, dweight, dbias, dout, inp, weight, N, C, OC))
TIMED(K_MM_FWD, matmul_forward_scratch,
      (real * out, const real *inp, const real *weight, const real *bias, int N, int C, int OC,
       real *scratch, size_t scratch_len),
      (out, inp, weight, bias, N, C, OC, scratch, scratch_len))
TIMED(K_MM_BWD, matmul_backward_scratch,
      (real * dinp, real *dweight, real *dbias, const real *dout, const real *inp,
       const real *weight, int N, int C, int OC, real *scratch, size_t scratch_len),
      (dinp, dweight, dbias, dout, inp, weight, N, C, OC, scratch, scratch_len))
TIMED(K_MM_FWD, matmul_bf16_forward,
      (real * out, const real *inp, const real *weight, const real *bias, int N, int C, int OC,
       real *scratch, size_t scratch_len),
      (out, inp, weight, bias, N, C, OC, scratch, scratch_len))
TIMED(K_MM_BWD, matmul_bf16_backward,
      (real * dinp, real *dweight, real *dbias, const real *dout, const real *inp,
       const real *weight, int N, int C, int OC, real *scratch, size_t scratch_len),
      (dinp, dweight, dbias, dout, inp, weight, N, C, OC, scratch, scratch_len))
TIMED(K_ATT_FWD, attention_forward,
      (real * out, real *preatt, real *att, const real *qkv, int B, int T, int C, int NH,
       AttnScores sc, real *smax),
      (out, preatt, att, qkv, B, T, C, NH, sc, smax))
TIMED(K_ATT_BWD, attention_backward,
      (real * dqkv, real *dpreatt, const real *dout, const real *qkv, const real *att, int B,
       int T, int C, int NH, AttnScores sc, double *dlog_scale, AttnGradStats *stats),
      (dqkv, dpreatt, dout, qkv, att, B, T, C, NH, sc, dlog_scale, stats))
TIMED(K_ATT_BWD, attention_backward_scratch,
      (real * dqkv, real *scratch, int slots, const real *dout, const real *qkv, const real *att,
       int B, int T, int C, int NH, AttnScores sc, double *dlog_scale, AttnGradStats *stats),
      (dqkv, scratch, slots, dout, qkv, att, B, T, C, NH, sc, dlog_scale, stats))
TIMED(K_LN, layernorm_forward,
      (real * out, real *mean, real *rstd, const real *inp, const real *weight, const real *bias,
       int N, int C, real eps),
      (out, mean, rstd, inp, weight, bias, N, C, eps))
TIMED(K_LN, layernorm_backward,
      (real * dinp, real *dweight, real *dbias, const real *dout, const real *inp,
       const real *weight, const real *mean, const real *rstd, int N, int C),
      (dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C))
TIMED(K_GELU, gelu_forward, (real * out, real *dgelu, const real *inp, long N),
      (out, dgelu, inp, N))
TIMED(K_GELU, gelu_backward, (real * dinp, const real *dgelu, const real *dout, long N),
      (dinp, dgelu, dout, N))

/* crossentropy_forward returns a value, so it is written out. */
real __real_crossentropy_forward(real *losses, real *probs, const real *logits, const int *targets,
                                 const float *mask, int N, int V);
real __wrap_crossentropy_forward(real *losses, real *probs, const real *logits, const int *targets,
                                 const float *mask, int N, int V);
real __wrap_crossentropy_forward(real *losses, real *probs, const real *logits, const int *targets,
                                 const float *mask, int N, int V) {
    double t0 = now_s();
    real r = __real_crossentropy_forward(losses, probs, logits, targets, mask, N, V);
    kernel_s[K_LOSS] += now_s() - t0;
    return r;
}
TIMED(K_LOSS, crossentropy_backward,
      (real * dlogits, const real *probs, const int *targets, const float *mask, int N, int V),
      (dlogits, probs, targets, mask, N, V))
