/* matmul_bf16_portable.c: the bf16 products' kernel in plain C, for any CPU (and the reference
 * the AVX2 and AVX512_BF16 kernels agree with bit for bit): one MR × NR tile, each pair's two
 * products added in vdpbf16ps's order, the operands packed by matmul_bf16_pack.c. */
#include "model/matmul_bf16_internal.h"

/* acc[i][j] over np pairs, high products first (the order of vdpbf16ps: Intel SDM, VDPBF16PS;
 * tests/test_matmul_bf16.c checks it on any CPU with AVX512_BF16; it passed on a Zen 5). Each
 * product is exact, so a contraction of a·b + acc into an FMA gives the same sum. */
static ALWAYS_INLINE void tile_acc_c(float acc[MR][NR], const uint32_t *ap, long ars, long acs,
                                     const uint32_t *bp, int np) {
    memset(acc, 0, sizeof(float) * MR * NR);
    for (int p = 0; p < np; p++) {
        float blo[NR], bhi[NR];
        for (int j = 0; j < NR; j++) {
            blo[j] = bits_float(bp[(long)p * NR + j] << 16);
            bhi[j] = bits_float(bp[(long)p * NR + j] & 0xffff0000u);
        }
        for (int i = 0; i < MR; i++) {
            uint32_t a = ap[i * ars + p * acs];
            float alo = bits_float(a << 16), ahi = bits_float(a & 0xffff0000u);
            for (int j = 0; j < NR; j++) {
                float s = acc[i][j] + ahi * bhi[j];
                acc[i][j] = s + alo * blo[j];
            }
        }
    }
}

static void tile_portable(const uint32_t *ap, int rows_layout, const uint32_t *bp, int np,
                          real *c, long ldc, int mr, int nr, const real *bias, int first) {
    float acc[MR][NR];
    if (rows_layout)
        tile_acc_c(acc, ap, KP, 1, bp, np);
    else
        tile_acc_c(acc, ap, 1, MR, bp, np);
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < nr; j++) {
            real *p = c + (long)i * ldc + j;
            *p = first ? (real)(acc[i][j] + (bias ? (float)bias[j] : 0.0f))
                       : (real)((float)*p + acc[i][j]);
        }
}

const Bf16Ops bf16_ops_portable = {tile_portable, bf16_pack_a_rows, bf16_pack_a_pairs,
                                   bf16_pack_b_panel};
