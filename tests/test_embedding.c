/* test_embedding.c: embedding_backward is the exact gradient of embedding_forward.
 *
 * With L = Σ w·out for fixed random w, dtok_emb and dpos_emb from embedding_backward (dout = w)
 * match central finite differences of L in double to < 1e-6 relative error. The tokens repeat
 * (token 1 three times, token 3 twice), so a token's row must get the SUM of its positions'
 * gradients; some tokens and the last position row never occur and must get exactly nothing
 * (the finite difference there is 0). Run once on zeroed buffers and once on buffers pre-filled
 * with GC_PREFILL to prove accumulation (+=). Each comparison also proves a 1 % error would fail. */
#include <stdio.h>

#include "gradcheck.h"
#include "model/embedding.h"
#include "testutil.h"

enum { B = 2, T = 4, C = 5, V = 6, MAXT = 6 };

static const int tokens[B * T] = {1, 3, 1, 5, 3, 0, 1, 2}; /* 4 never occurs */
static real tok_emb[V * C], pos_emb[MAXT * C], w[B * T * C], out[B * T * C];

static double loss(void *ctx) {
    (void)ctx;
    embedding_forward(out, tokens, tok_emb, pos_emb, B, T, C);
    return gc_dot(w, out, B * T * C);
}

START_TEST(test_embedding_grads) {
    real prefill = _i ? (real)GC_PREFILL : 0;
    Rng rng;
    rng_seed(&rng, 21);
    gc_fill_normal(tok_emb, V * C, &rng, 0, 1);
    gc_fill_normal(pos_emb, MAXT * C, &rng, 0, 1);
    gc_fill_normal(w, B * T * C, &rng, 0, 1);
    real dtok[V * C], dpos[MAXT * C];
    gc_fill(dtok, V * C, prefill);
    gc_fill(dpos, MAXT * C, prefill);
    embedding_backward(dtok, dpos, w, tokens, B, T, C);
    printf("embedding (prefill %g):\n", (double)prefill);
    gc_check("embedding dtok_emb", tok_emb, V * C, loss, NULL, GC_H, dtok, prefill, GC_TOL);
    gc_check("embedding dpos_emb", pos_emb, MAXT * C, loss, NULL, GC_H, dpos, prefill, GC_TOL);
    /* token 1 occurs at (0,0), (0,2), (1,2): its row is the sum of those three rows of w */
    for (int c = 0; c < C; c++) {
        double want = prefill + w[0 * C + c] + w[2 * C + c] + w[(T + 2) * C + c];
        ck_assert_msg(fabs(dtok[1 * C + c] - want) < 1e-12, "dtok_emb[1,%d] = %.17g, want %.17g",
                      c, (double)dtok[1 * C + c], want);
    }
}
END_TEST

TU_MAIN("embedding", TU_LOOP(test_embedding_grads, 0, 2));
