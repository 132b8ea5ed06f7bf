/* attention.c: causal attention of one (batch, head) pair as small GEMMs around a row softmax.
 *
 * With Q, K, V the head's (T × hs) slices of qkv (row stride 3C) and dO its slice of dout:
 *   forward:  S = f·Q·Kᵀ (lower triangle; f the head's factor, AttnScores), soft-capped if
 *             asked, into preatt or, in training, into att's own memory;  P = softmax of S's
 *             rows → att (in place);  O = P·V
 *   backward: dP = dO·Vᵀ;  dV += Pᵀ·dO;  dZ = P ⊙ (dP − rowsum(P ⊙ dP)), in dpreatt or, in
 *             training, in the thread's T × T slot; through the soft-cap (if on)
 *             dS = dZ ⊙ (1 − tanh²(S/c));  dQ += f·dS·K;  dK += f·dSᵀ·Q
 * Only P is kept between forward and backward: memory and traffic grow with B·NH·T² once per
 * layer, not three times.
 * and, for the diagnostics only, how much of dP each softmax row passes on to dZ
 * (softmax_row_pass), measured before dZ overwrites dP.
 * Every product goes through matmul_gemm (matmul.h): register tiles vectorised along the output
 * row, k innermost as a chain of FMAs, so the q·k and p·v dot products vectorise without
 * reassociating a float sum; it skips the tiles above the diagonal of S and dP and the zero
 * triangles of P and dZ, so the causal half is never computed.
 *
 * Threads share out the (b, h) pairs; a pair writes only its own slices (rows of batch b, the
 * columns of head h), and each element's summation order is fixed by the GEMM, so results do
 * not depend on the thread count. */
#include "model/attention.h"

#include "model/matmul.h"
#include "model/vecmath.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The row max, in LANES interleaved running maxima (see vecmath.h). */
static real row_max(const real *x, int n) {
    real m[LANES];
    for (int l = 0; l < LANES; l++) m[l] = -INFINITY;
    int j = 0;
    for (; j + LANES <= n; j += LANES)
        LANE_LOOP for (int l = 0; l < LANES; l++) m[l] = x[j + l] > m[l] ? x[j + l] : m[l];
    for (; j < n; j++) m[j % LANES] = x[j] > m[j % LANES] ? x[j] : m[j % LANES];
    real r = m[0];
    for (int l = 1; l < LANES; l++) r = m[l] > r ? m[l] : r;
    return r;
}

/* Row i of S and P: p_j = exp(z_j − max z) / Σ exp(...) over the visible keys lo .. n − 1 (n =
 * i + 1; lo > 0 only with a window), with the true row maximum; z and p are set to 0 for the
 * other keys. z and p may be the same row (the training forward keeps only P): each p_j depends
 * on z_j alone once the maximum is known, so overwriting in place changes no value. */
static void softmax_row(real *z, real *p, int lo, int n, int T) {
    real maxv = row_max(z + lo, n - lo);
    /* the exponentials and their sum in one pass, the sum in lane_sum's order (vecmath.h) */
    real acc[LANES] = {0}, tail = 0;
    int j = lo;
    for (; j + LANES <= n; j += LANES)
        EXP_LOOP for (int l = 0; l < LANES; l++) acc[l] += p[j + l] = exp_nonpositive(z[j + l] - maxv);
    for (; j < n; j++) tail += p[j] = exp_nonpositive(z[j] - maxv);
    real inv = R(1.0) / (lanes_total(acc) + tail);
    LANE_LOOP for (int j = lo; j < n; j++) p[j] *= inv;
    /* one store per zero: `z[j] = p[j] = 0` on one row (z == p) compiled to a scalar loop that
     * took 45 % of the softmax at T = 512 */
    for (int j = 0; j < lo; j++) p[j] = 0;
    for (int j = n; j < T; j++) p[j] = 0;
    if (z != p) {
        for (int j = 0; j < lo; j++) z[j] = 0;
        for (int j = n; j < T; j++) z[j] = 0;
    }
}

/* Softmax backward on row i: d holds dp_j on entry and dz_j = p_j·(dp_j − Σ_k p_k·dp_k) on
 * return for the n visible keys, 0 above the diagonal. O(T) per row: the Jacobian is never
 * formed. */
static void softmax_row_backward(real *restrict d, const real *restrict p, int n, int T) {
    real pdp = lane_dot(p, d, n);
    LANE_LOOP for (int j = 0; j < n; j++) d[j] = p[j] * (d[j] - pdp);
    for (int j = n; j < T; j++) d[j] = 0;
}

SoftmaxRowPass softmax_row_pass(const real *p, const real *dp, int n) {
    SoftmaxRowPass r = {0};
    double pdp = 0;
    for (int j = 0; j < n; j++) pdp += (double)p[j] * dp[j];
    for (int j = 0; j < n; j++) {
        double dz = p[j] * (dp[j] - pdp);
        r.dp_sumsq += (double)dp[j] * dp[j];
        r.dz_sumsq += dz * dz;
    }
    r.pass = r.dp_sumsq > 0 ? sqrt(r.dz_sumsq / r.dp_sumsq) : 0;
    r.counted = n >= 2 && r.dp_sumsq > 0;
    r.blocked = r.counted && r.pass < ATTN_BLOCKED_PASS;
    return r;
}

double diag_softmax_pass(double dlogit_norm, double dprob_norm) {
    return dprob_norm == 0 ? 0 : dlogit_norm / dprob_norm;
}

/* The pass-through sums of one (b, h) pair's rows while dz still holds dP (see AttnGradStats),
 * over the keys each query sees. */
static void pass_stats(AttnGradStats *st, long slot, const real *dp, const real *p, int T,
                       AttnScores sc) {
    double ss = 0;
    int rows = 0, blocked = 0;
    for (int i = 0; i < T; i++) {
        int lo = attn_first_key(sc, i);
        SoftmaxRowPass r = softmax_row_pass(p + (long)i * T + lo, dp + (long)i * T + lo, i + 1 - lo);
        ss += r.dp_sumsq;
        rows += r.counted;
        blocked += r.blocked;
    }
    st->dprob_sumsq[slot] = ss;
    st->rows[slot] = rows;
    st->blocked[slot] = blocked;
}

/* S = f_h·Q·Kᵀ of one (b, h) pair into s (T × T, row stride T): the lower triangle and the
 * tiles that straddle the diagonal; what lies above the diagonal is left to the caller. */
static void raw_logits(real *s, const real *qkv, int b, int h, int T, int C, int NH,
                       AttnScores sc) {
    int hs = C / NH;
    long C3 = 3L * C;
    const real *q = qkv + (long)b * T * C3 + h * hs, *k = q + C;
    MatView Q = {q, C3, 1}, Kt = {k, 1, C3};
    /* (T × hs)·(hs × T), lower triangle */
    matmul_gemm(T, T, hs, attn_factor(sc, h), Q, Kt, s, T, 1, MAT_C_LOWER);
}

/* The logits the softmax sees of one (b, h) pair into s: raw_logits, then the soft-cap on the
 * visible entries; *smax (when not NULL) gets the largest visible entry before the cap. One
 * function for the forward and attention_logits, so the two give the same bits. */
static void pair_logits(real *s, const real *qkv, int b, int h, int T, int C, int NH,
                        AttnScores sc, real *smax) {
    raw_logits(s, qkv, b, h, T, C, NH, sc);
    if (smax) {
        real mx = -INFINITY;
        for (int i = 0; i < T; i++) {
            int lo = attn_first_key(sc, i);
            real r = row_max(s + (long)i * T + lo, i + 1 - lo);
            mx = r > mx ? r : mx;
        }
        *smax = mx;
    }
    if (sc.softcap > 0) {
        real c = sc.softcap, inv = R(1.0) / sc.softcap;
        for (int i = 0; i < T; i++)
            for (int j = 0; j <= i; j++) s[(long)i * T + j] = c * rtanh(s[(long)i * T + j] * inv);
    }
}

void attention_forward(real *out, real *preatt, real *att, const real *qkv, int B, int T, int C,
                       int NH, AttnScores sc, real *smax) {
    int hs = C / NH;
    long C3 = 3L * C;
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            const real *v = qkv + (long)b * T * C3 + h * hs + 2 * C;
            real *p = att + ((long)b * NH + h) * T * T;
            /* without preatt, S is built where P goes and the softmax runs in place */
            real *s = preatt ? preatt + ((long)b * NH + h) * T * T : p;
            pair_logits(s, qkv, b, h, T, C, NH, sc, smax ? smax + (long)b * NH + h : NULL);
            for (int i = 0; i < T; i++)
                softmax_row(s + (long)i * T, p + (long)i * T, attn_first_key(sc, i), i + 1, T);
            /* O = P·V: (T × T, zero above the diagonal)·(T × hs) */
            MatView P = {p, T, 1}, V = {v, C3, 1};
            matmul_gemm(T, hs, T, R(1.0), P, V, out + (long)b * T * C + h * hs, C, 1,
                        MAT_A_LOWER);
        }
}

void attention_logits(real *s, const real *qkv, int b, int h, int T, int C, int NH,
                      AttnScores sc) {
    pair_logits(s, qkv, b, h, T, C, NH, sc, NULL);
    for (int i = 0; i < T; i++) {
        for (int j = 0; j < attn_first_key(sc, i); j++) s[(long)i * T + j] = 0;
        for (int j = i + 1; j < T; j++) s[(long)i * T + j] = 0;
    }
}

/* Through the soft-cap, in place on dz (the gradient at the capped logits s' = c·tanh(S/c)):
 * dS = dZ·(1 − tanh²(S/c)), with S recomputed into sbuf (T × T) exactly as the forward made it. */
static void softcap_backward(real *dz, real *sbuf, const real *qkv, int b, int h, int T, int C,
                             int NH, AttnScores sc) {
    raw_logits(sbuf, qkv, b, h, T, C, NH, sc);
    real inv = R(1.0) / sc.softcap;
    for (int i = 0; i < T; i++)
        for (int j = 0; j <= i; j++) {
            real t = rtanh(sbuf[(long)i * T + j] * inv);
            dz[(long)i * T + j] *= R(1.0) - t * t;
        }
}

/* The backward of one (b, h) pair, with dz (T × T) its dP and then dZ; sbuf (T × T) is the
 * soft-cap's work space (unused without it). */
static void backward_pair(real *dqkv, real *dz, real *sbuf, const real *dout, const real *qkv,
                          const real *att, int b, int h, int T, int C, int NH, AttnScores sc,
                          double *dlog_scale, AttnGradStats *stats) {
    int hs = C / NH;
    long C3 = 3L * C;
    const real *q = qkv + (long)b * T * C3 + h * hs, *k = q + C, *v = q + 2 * C;
    real *dq = dqkv + (long)b * T * C3 + h * hs, *dk = dq + C, *dv = dq + 2 * C;
    const real *p = att + ((long)b * NH + h) * T * T;
    MatView dO = {dout + (long)b * T * C + h * hs, C, 1};
    MatView Q = {q, C3, 1}, K = {k, C3, 1}, Vt = {v, 1, C3};
    MatView Pt = {p, 1, T}, dZ = {dz, T, 1}, dZt = {dz, 1, T};
    /* dP = dO·Vᵀ (lower triangle, into dz), dV = Pᵀ·dO */
    matmul_gemm(T, T, hs, R(1.0), dO, Vt, dz, T, 1, MAT_C_LOWER);
    matmul_gemm(T, hs, T, R(1.0), Pt, dO, dv, C3, 1, MAT_A_UPPER);
    long slot = (long)b * NH + h;
    if (stats) pass_stats(stats, slot, dz, p, T, sc);
    for (int i = 0; i < T; i++) softmax_row_backward(dz + (long)i * T, p + (long)i * T, i + 1, T);
    if (stats) stats->dlogit_sumsq[slot] = lane_sumsq_double(dz, (size_t)T * T);
    if (sc.softcap > 0) softcap_backward(dz, sbuf, qkv, b, h, T, C, NH, sc);
    /* through S = f·Q·Kᵀ: dQ = f·dZ·K, dK = f·dZᵀ·Q */
    real f = attn_factor(sc, h);
    matmul_gemm(T, hs, T, f, dZ, K, dq, C3, 1, MAT_A_LOWER);
    matmul_gemm(T, hs, T, f, dZt, Q, dk, C3, 1, MAT_A_UPPER);
    if (dlog_scale) {
        /* dS/d log f = S, so d/d log f = Σ dS ⊙ S = Σ_i q_i · (f Σ_j dS_ij k_j) = Σ_i q_i · dq_i */
        double acc = 0;
        for (int i = 0; i < T; i++)
            for (int d = 0; d < hs; d++) acc += (double)q[(long)i * C3 + d] * dq[(long)i * C3 + d];
        dlog_scale[slot] = acc;
    }
}

static int max_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static int thread_num(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

void attention_backward(real *dqkv, real *dpreatt, const real *dout, const real *qkv,
                        const real *att, int B, int T, int C, int NH, AttnScores sc,
                        double *dlog_scale, AttnGradStats *stats) {
    real *sbufs = NULL;
    if (sc.softcap > 0) {
        sbufs = malloc((size_t)max_threads() * T * T * sizeof(real));
        if (!sbufs) {
            fprintf(stderr, "attention_backward: out of memory\n");
            abort();
        }
    }
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++)
            backward_pair(dqkv, dpreatt + ((long)b * NH + h) * T * T,
                          sbufs ? sbufs + (long)thread_num() * T * T : NULL, dout, qkv, att, b, h,
                          T, C, NH, sc, dlog_scale, stats);
    free(sbufs);
}

void attention_backward_scratch(real *dqkv, real *scratch, int slots, const real *dout,
                                const real *qkv, const real *att, int B, int T, int C, int NH,
                                AttnScores sc, double *dlog_scale, AttnGradStats *stats) {
    int threads = max_threads();
    if (threads > slots) threads = slots; /* one slot per thread, never shared */
    long per = attention_scratch_per_slot(T, sc);
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            real *slot = scratch + (long)thread_num() * per;
            backward_pair(dqkv, slot, slot + (long)T * T, dout, qkv, att, b, h, T, C, NH, sc,
                          dlog_scale, stats);
        }
}
