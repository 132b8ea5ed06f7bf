/* embedding.h: token + learned position embedding, the first layer of the model. */
#ifndef SCALEDOT_EMBEDDING_H
#define SCALEDOT_EMBEDDING_H

#include "model/real.h"

/* out[b,t,:] = tok_emb[tokens[b,t], :] + pos_emb[t, :].
 * out (B,T,C); tokens (B,T) ids in [0, V); tok_emb (V,C); pos_emb (max_seq_len,C), T <= max_seq_len.
 * (Vaswani et al. 2017, sec. 3.4-3.5, with learned positions as in GPT-2.) */
void embedding_forward(real *out, const int *tokens, const real *tok_emb, const real *pos_emb,
                       int B, int T, int C);

/* Accumulates (+=) dtok_emb (V,C) and dpos_emb (max_seq_len,C) from dout (B,T,C). A token that
 * occurs several times gets the sum of its rows' gradients. Runs serially in (b,t) order, so the
 * sum order is fixed whatever the thread count. */
void embedding_backward(real *dtok_emb, real *dpos_emb, const real *dout, const int *tokens,
                        int B, int T, int C);

#endif
