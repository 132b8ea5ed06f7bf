/* matmul_bf16_pack.c: the bf16 products' operands rounded to bf16 and packed in C, into the
 * layouts of matmul_bf16_internal.h: A's MR-row strip ("rows" or "pairs") and B's micro-panels
 * (NR pairs per k-pair). The portable and AVX2 kernels pack with these; the AVX512_BF16 kernel
 * where its own packers (matmul_bf16_avx512.c) do not apply. */
#include "model/matmul_bf16_internal.h"

/* The packed pair (bf16(lo) in the low half, bf16(hi) in the high half). */
static inline uint32_t pair(real lo, real hi) {
    return round_hi(float_bits(lo)) >> 16 | round_hi(float_bits(hi));
}

static void pack_row(uint32_t *dst, const real *src, int kc) {
    int half = kc / 2;
    for (int p = 0; p < half; p++) dst[p] = pair(src[2 * p], src[2 * p + 1]);
    if (kc & 1) dst[half] = pair(src[kc - 1], 0);
}

void bf16_pack_a_rows(uint32_t *ap, MatView A, int i0, int mr, int k0, int kc) {
    pack_rows_with(ap, A, i0, mr, k0, kc, pack_row);
}

void bf16_pack_a_pairs(uint32_t *ap, MatView A, int i0, int mr, int k0, int kc) {
    int np = (kc + 1) / 2;
    for (int p = 0; p < np; p++) {
        uint32_t *dst = ap + (long)p * MR;
        int has_hi = 2 * p + 1 < kc;
        const real *s0 = A.p + (long)i0 * A.rs + (long)(k0 + 2 * p) * A.cs;
        const real *s1 = has_hi ? s0 + A.cs : s0; /* (not read without a high half) */
        if (A.rs == 1 && mr == MR && has_hi) /* the usual case: a constant trip count */
            for (int i = 0; i < MR; i++) dst[i] = pair(s0[i], s1[i]);
        else
            for (int i = 0; i < MR; i++)
                dst[i] = i >= mr  ? 0
                         : has_hi ? pair(s0[(long)i * A.rs], s1[(long)i * A.rs])
                                  : pair(s0[(long)i * A.rs], 0);
    }
}

void bf16_pack_b_panel(uint32_t *bp, MatView B, int k0, int kc, int j0, int nr) {
    int half = kc / 2, np = (kc + 1) / 2;
    if (B.cs == 1) { /* rows of B contiguous (W, inp): two rows interleaved per k-pair */
        for (int p = 0; p < np; p++) {
            uint32_t *dst = bp + (long)p * NR;
            const real *s0 = B.p + (long)(k0 + 2 * p) * B.rs + j0;
            const real *s1 = p < half ? s0 + B.rs : s0; /* (not read in an odd kc's last pair) */
            if (p < half && nr == NR)
                for (int jj = 0; jj < NR; jj++) dst[jj] = pair(s0[jj], s1[jj]);
            else
                for (int jj = 0; jj < NR; jj++)
                    dst[jj] = jj >= nr   ? 0
                              : p < half ? pair(s0[jj], s1[jj])
                                         : pair(s0[jj], 0);
        }
        return;
    }
    for (int jj = 0; jj < nr; jj++) { /* columns of B along k (B = Wᵀ: W's rows) */
        const real *src = B.p + (long)(j0 + jj) * B.cs + (long)k0 * B.rs;
        for (int p = 0; p < half; p++)
            bp[(long)p * NR + jj] = pair(src[2L * p * B.rs], src[(2L * p + 1) * B.rs]);
        if (kc & 1) bp[(long)half * NR + jj] = pair(src[(long)(kc - 1) * B.rs], 0);
    }
    for (int jj = nr; jj < NR; jj++)
        for (int p = 0; p < np; p++) bp[(long)p * NR + jj] = 0;
}
