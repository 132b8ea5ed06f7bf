/* loss.h: softmax cross-entropy over the vocabulary, averaged over the masked positions. */
#ifndef SCALEDOT_LOSS_H
#define SCALEDOT_LOSS_H

#include "model/real.h"

/* logits, probs (N,V) for N = B·T positions; targets (N); mask (N), 1 = counts in the loss.
 * losses (N) gets −log softmax(logits)[target] at every position (masked or not), computed as
 * logsumexp − logit with the true row maximum subtracted, so it is finite for any finite
 * logits; probs gets the softmax. Returns Σ mask·losses / Σ mask, or 0 when Σ mask = 0. */
real crossentropy_forward(real *losses, real *probs, const real *logits, const int *targets,
                          const float *mask, int N, int V);

/* Writes dlogits (N,V) (overwritten) of the returned mean: (probs − onehot(target)) · mask / Σ mask;
 * rows with mask 0 (and all rows when Σ mask = 0) get zeros. */
void crossentropy_backward(real *dlogits, const real *probs, const int *targets,
                           const float *mask, int N, int V);

#endif
