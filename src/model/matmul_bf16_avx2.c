/* matmul_bf16_avx2.c: the bf16 products' kernel for CPUs with AVX2 and FMA but no AVX512_BF16,
 * compiled with a target attribute (the rest of the build keeps its flags) and chosen at run time
 * (matmul_bf16.c); the operands packed by matmul_bf16_pack.c. */
#include "model/matmul_bf16_internal.h"

#if HAVE_AVX512BF16_KERNEL
#define AVX2_TARGET __attribute__((target("avx2,fma")))

/* AVX2 + FMA: a pair (lo, hi) widens to two float32 values by a shift and a mask (bf16 is the
 * upper half of a float32), and each product is one FMA: acc + a·b rounded once, which is the
 * sum vdpbf16ps rounds, since a·b is exact. 16 ymm registers: the 12 × 32 tile is done as six
 * sub-tiles of 4 rows × 16 columns (8 accumulators, 4 widened B vectors, 2 widened A values),
 * each element's chain in the same order as the other kernels. */
static AVX2_TARGET ALWAYS_INLINE void sub_acc_avx2(__m256 acc[4][2], const uint32_t *ap,
                                                   long ars, long acs, const uint32_t *bp,
                                                   int np) {
    const __m256i hi_mask = _mm256_set1_epi32((int)0xffff0000u);
    UNROLL
    for (int r = 0; r < 4; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    for (int p = 0; p < np; p++) {
        __m256i b0 = _mm256_loadu_si256((const __m256i *)(const void *)(bp + (long)p * NR));
        __m256i b1 = _mm256_loadu_si256((const __m256i *)(const void *)(bp + (long)p * NR + 8));
        __m256 b0l = _mm256_castsi256_ps(_mm256_slli_epi32(b0, 16));
        __m256 b0h = _mm256_castsi256_ps(_mm256_and_si256(b0, hi_mask));
        __m256 b1l = _mm256_castsi256_ps(_mm256_slli_epi32(b1, 16));
        __m256 b1h = _mm256_castsi256_ps(_mm256_and_si256(b1, hi_mask));
        UNROLL
        for (int r = 0; r < 4; r++) {
            __m256i x = _mm256_set1_epi32((int)ap[r * ars + p * acs]);
            __m256 xl = _mm256_castsi256_ps(_mm256_slli_epi32(x, 16));
            __m256 xh = _mm256_castsi256_ps(_mm256_and_si256(x, hi_mask));
            acc[r][0] = _mm256_fmadd_ps(xh, b0h, acc[r][0]); /* high product first */
            acc[r][0] = _mm256_fmadd_ps(xl, b0l, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(xh, b1h, acc[r][1]);
            acc[r][1] = _mm256_fmadd_ps(xl, b1l, acc[r][1]);
        }
    }
}

static AVX2_TARGET void tile_avx2(const uint32_t *ap, int rows_layout, const uint32_t *bp,
                                  int np, real *c, long ldc, int mr, int nr, const real *bias,
                                  int first) {
    for (int h = 0; h < 2 && 16 * h < nr; h++)       /* column halves */
        for (int g = 0; g < MR / 4 && 4 * g < mr; g++) { /* row groups */
            __m256 acc[4][2];
            if (rows_layout)
                sub_acc_avx2(acc, ap + (long)4 * g * KP, KP, 1, bp + 16 * h, np);
            else
                sub_acc_avx2(acc, ap + 4 * g, 1, MR, bp + 16 * h, np);
            for (int r = 0; r < 4 && 4 * g + r < mr; r++)
                for (int v = 0; v < 2; v++) {
                    int j0 = 16 * h + 8 * v, w = nr - j0;
                    if (w <= 0) break;
                    float *p = c + (long)(4 * g + r) * ldc + j0;
                    __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32(w),
                                                   _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
                    __m256 base = !first ? _mm256_maskload_ps(p, k)
                                  : bias ? _mm256_maskload_ps(bias + j0, k)
                                         : _mm256_setzero_ps();
                    _mm256_maskstore_ps(p, k, _mm256_add_ps(base, acc[r][v]));
                }
        }
}

const Bf16Ops bf16_ops_avx2 = {tile_avx2, bf16_pack_a_rows, bf16_pack_a_pairs, bf16_pack_b_panel};
#endif
