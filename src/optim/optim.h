/* optim.h: AdamW and SGD with momentum over the flat parameter buffer, global gradient-norm
 * clipping, and the learning-rate schedule. */
#ifndef SCALEDOT_OPTIM_H
#define SCALEDOT_OPTIM_H

#include <stddef.h>

#include "model/model.h"

/* The update rule (optim.name). */
typedef enum { OPTIMIZER_ADAMW, OPTIMIZER_SGD } OptimizerKind;

typedef struct {
    OptimizerKind kind;
    double beta1, beta2, eps, weight_decay, momentum;
    double lr_q_mult, lr_k_mult; /* factors on the rate of W_q and W_k (optim_set_qk_lr_mult) */
    double lr_hidden_mult;       /* factor on the rate of the hidden matrices (optim_set_hidden_lr_mult) */
    long t;        /* steps taken so far (AdamW bias correction uses t + 1) */
    size_t n;
    real *m, *v;   /* AdamW first and second moments, or SGD momentum buffer (m), [n] each */
} Optimizer;

/* Allocates zeroed state for n parameters, the W_q and W_k rate multipliers 1. Returns 0, or -1
 * on out-of-memory. */
int optim_init(Optimizer *o, OptimizerKind kind, double beta1, double beta2, double eps,
               double weight_decay, double momentum, size_t n);

/* Per-tensor learning-rate multipliers (optim.lr_q_mult, optim.lr_k_mult; both > 0): from the
 * next optim_step on, the query third of every tensor with TensorInfo.qkv_thirds (W_q, the
 * rows of attn.qkv.weight making q, and those entries of attn.qkv.bias) is updated at rate
 * lr·q_mult, the key third at lr·k_mult, the rest at lr. The decoupled weight decay stays
 * lr·weight_decay (not multiplied): with it, training with attention factor c at rate lr is,
 * under AdamW with eps → 0 and no clipping, training with factor 1, W_q's init multiplied by c
 * and q_mult = c (issue 42): Adam's step m̂/√v̂ does not see the 1/c of W̃_q = c·W_q's gradient,
 * so W̃_q moves c·lr·step, c times W_q's move, and its decay c·W_q·lr·wd is c times W_q's. */
void optim_set_qk_lr_mult(Optimizer *o, double q_mult, double k_mult);

/* μP's learning rate for Adam (model.param = mup; Yang et al. 2022, Tensor Programs V, Table 3:
 * hidden weights at η/fan_in, relative to the base width η·base/d_model; microsoft/mup's MuAdam
 * divides the rate of every matrix-like tensor by its width_mult): from the next optim_step on,
 * every tensor with TensorInfo.hidden is updated at rate lr·mult (times the q or k multiplier on
 * its thirds, which compose); the embeddings, head.weight, norms and biases stay at lr. The
 * decoupled decay stays lr·weight_decay, as for the q and k multipliers: MuAdamW's default
 * (decoupled_wd = False) divides lr by width_mult and multiplies weight_decay by it, leaving
 * PyTorch AdamW's decay factor 1 − lr·wd unchanged. mult > 0; 1 by default. */
void optim_set_hidden_lr_mult(Optimizer *o, double mult);
void optim_free(Optimizer *o);

/* One update of params (n) from grads (n) at learning rate lr (W_q, W_k and the hidden
 * matrices at lr times their multipliers, optim_set_qk_lr_mult, optim_set_hidden_lr_mult).
 * AdamW (Loshchilov and Hutter 2019, Algorithm 2; PyTorch semantics):
 *   m = β1·m + (1−β1)·g;  v = β2·v + (1−β2)·g²;  m̂ = m/(1−β1ᵗ);  v̂ = v/(1−β2ᵗ)
 *   p = p·(1 − lr·wd) − lr·m̂/(√v̂ + eps)
 * (1 − β1), (1 − β2) and the bias corrections are computed in double, then rounded to real.
 * SGD with momentum (PyTorch semantics): m = μ·m + g;  p = p·(1 − lr·wd) − lr·m.
 * Weight decay is decoupled and applies only to tensors of 2 or more dimensions (embeddings and
 * weight matrices), never to biases or LayerNorm parameters, as in the reference README.
 * Elementwise, so the result does not depend on the thread count. */
void optim_step(Optimizer *o, real *params, const real *grads, const TensorInfo *tensors,
                int n_tensors, double lr);

/* The learning-rate schedule, filled by the caller (the training loop, from the optim.* keys and
 * train.steps). */
typedef enum { LR_CONSTANT, LR_COSINE } LrShape;
typedef struct {
    double lr;        /* the peak rate, reached at the end of the warm-up (optim.lr) */
    double min_lr;    /* the cosine's floor, reached at the last step (optim.min_lr) */
    int warmup_steps; /* steps of linear warm-up (optim.warmup_steps) */
    int steps;        /* steps of the whole run (train.steps) */
    LrShape shape;    /* after the warm-up: constant, or cosine (optim.schedule) */
} LrSchedule;

/* Learning rate at step (0-based): linear warm-up from lr/warmup to lr over warmup_steps, then
 * constant, or cosine from lr down to min_lr at the last step (Loshchilov and Hutter 2017). */
double optim_lr_at(const LrSchedule *s, int step);

/* Global-norm clipping (Pascanu et al. 2013): given the global L2 norm of the gradients (from
 * model_norm, so the caller can log it first), scales every gradient by max_norm / norm when
 * max_norm > 0 and norm > max_norm. A non-finite norm leaves the gradients as they are (the
 * training loop skips or stops on it and names the tensor that overflowed). */
void optim_clip_grads(real *grads, size_t n, double max_norm, double norm);

#endif
