/* embedding.c: the model's first layer, token + position embedding, forward and backward side
 * by side (embedding.h). */
#include "model/embedding.h"

void embedding_forward(real *out, const int *tokens, const real *tok_emb, const real *pos_emb,
                       int B, int T, int C) {
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            real *o = out + ((long)b * T + t) * C;
            const real *te = tok_emb + (long)tokens[b * T + t] * C;
            const real *pe = pos_emb + (long)t * C;
            for (int c = 0; c < C; c++) o[c] = te[c] + pe[c];
        }
}

void embedding_backward(real *dtok_emb, real *dpos_emb, const real *dout, const int *tokens,
                        int B, int T, int C) {
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            const real *d = dout + ((long)b * T + t) * C;
            real *dte = dtok_emb + (long)tokens[b * T + t] * C;
            real *dpe = dpos_emb + (long)t * C;
            for (int c = 0; c < C; c++) {
                dte[c] += d[c];
                dpe[c] += d[c];
            }
        }
}
