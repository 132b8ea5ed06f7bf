/* matmul_bf16_avx512.c: the bf16 products' kernel for CPUs with AVX512_BF16 (`vdpbf16ps`, a
 * 12 × 32 register tile) and its packers, which round with the CPU's `vcvtne2ps2bf16`; compiled
 * with a target attribute (the rest of the build keeps its flags) and chosen at run time
 * (matmul_bf16.c). */
#include "model/matmul_bf16_internal.h"

#if HAVE_AVX512BF16_KERNEL
#define BF16_TARGET __attribute__((target("avx512bf16,avx512f,avx512bw,avx512vl")))

/* The register tile: 24 float32 accumulators, two B vectors (16 pairs each), one broadcast. */
static BF16_TARGET ALWAYS_INLINE void tile_acc_avx(__m512 acc[MR][2], const uint32_t *ap,
                                                   long ars, long acs, const uint32_t *bp,
                                                   int np) {
    UNROLL
    for (int i = 0; i < MR; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (int p = 0; p < np; p++) {
        __m512bh b0 = (__m512bh)_mm512_loadu_si512((const void *)(bp + (long)p * NR));
        __m512bh b1 = (__m512bh)_mm512_loadu_si512((const void *)(bp + (long)p * NR + 16));
        UNROLL
        for (int i = 0; i < MR; i++) {
            __m512bh x = (__m512bh)_mm512_set1_epi32((int)ap[i * ars + p * acs]);
            acc[i][0] = _mm512_dpbf16_ps(acc[i][0], x, b0);
            acc[i][1] = _mm512_dpbf16_ps(acc[i][1], x, b1);
        }
    }
}

static BF16_TARGET void tile_avx512(const uint32_t *ap, int rows_layout, const uint32_t *bp,
                                    int np, real *c, long ldc, int mr, int nr, const real *bias,
                                    int first) {
    __m512 acc[MR][2];
    /* C's lines (read-added or written at the end), fetched while the products run: C is
     * M × N, far beyond L2 at the width shapes, and 24 misses at the end of each tile stalled it */
    for (int i = 0; i < mr; i++) {
        __builtin_prefetch(c + (long)i * ldc, 1, 3);
        __builtin_prefetch(c + (long)i * ldc + 16, 1, 3);
    }
    if (rows_layout)
        tile_acc_avx(acc, ap, KP, 1, bp, np);
    else
        tile_acc_avx(acc, ap, 1, MR, bp, np);
    for (int i = 0; i < mr; i++)
        for (int v = 0; v < 2; v++) {
            int w = nr - 16 * v;
            if (w <= 0) break;
            __mmask16 k = w >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << w) - 1);
            float *p = c + (long)i * ldc + 16 * v;
            __m512 base = !first ? _mm512_maskz_loadu_ps(k, p)
                          : bias ? _mm512_maskz_loadu_ps(k, bias + 16 * v)
                                 : _mm512_setzero_ps();
            _mm512_mask_storeu_ps(p, k, _mm512_add_ps(base, acc[i][v]));
        }
}

/* Packing with AVX512_BF16's own rounding: `vcvtne2ps2bf16` rounds to nearest even, keeps NaN a
 * quiet NaN of its sign and inf inf, and reads float32 subnormals as ±0 (Intel SDM,
 * VCVTNE2PS2BF16, convert_fp32_to_bfloat16): round_hi's rule bit for bit, 32 values per
 * instruction. _mm512_cvtne2ps_pbh(hi, lo) holds bf16(lo) in its 16 low bf16 elements and
 * bf16(hi) in its 16 high ones. Masked-off lanes load as 0, whose bf16 is 0: the zero padding of
 * edges and of an odd kc's last high half. */
static inline __mmask16 lanes(int w) { /* the first w of 16 lanes, w clamped to 0 .. 16 */
    return w <= 0 ? (__mmask16)0 : w >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << w) - 1);
}

/* 16 pairs (lo[l], hi[l]) from two vectors of 16 floats: converted, then the two halves
 * interleaved (bf16 element 2l = lo[l], 2l + 1 = hi[l]). */
static BF16_TARGET ALWAYS_INLINE __m512i pairs16(__m512 lo, __m512 hi) {
    const __m512i zip = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9,
                                         24, 8, 23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1,
                                         16, 0);
    return _mm512_permutexvar_epi16(zip, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
}

/* bf16_pack_a_rows's layout: a row's kc contiguous floats converted in order are its pairs
 * (little-endian: the even k in the low half). */
static BF16_TARGET void pack_row_avx512(uint32_t *dst, const real *src, int kc) {
    int np = (kc + 1) / 2;
    for (int p = 0; p < np; p += 16) {
        int nf = kc - 2 * p; /* floats left in the row */
        __m512 v0 = _mm512_maskz_loadu_ps(lanes(nf), src + 2 * p);
        __m512 v1 = _mm512_maskz_loadu_ps(lanes(nf - 16), src + 2 * p + 16);
        _mm512_mask_storeu_epi32(dst + p, lanes(np - p), (__m512i)_mm512_cvtne2ps_pbh(v1, v0));
    }
}

static BF16_TARGET void pack_a_rows_avx512(uint32_t *ap, MatView A, int i0, int mr, int k0,
                                           int kc) {
    pack_rows_with(ap, A, i0, mr, k0, kc, pack_row_avx512);
}

/* bf16_pack_a_pairs for A.rs == 1 (doutᵀ: the MR values of one k contiguous); else the C one. */
static BF16_TARGET void pack_a_pairs_avx512(uint32_t *ap, MatView A, int i0, int mr, int k0,
                                            int kc) {
    if (A.rs != 1) {
        bf16_pack_a_pairs(ap, A, i0, mr, k0, kc);
        return;
    }
    int np = (kc + 1) / 2;
    for (int p = 0; p < np; p++) {
        const real *s0 = A.p + i0 + (long)(k0 + 2 * p) * A.cs;
        __m512 lo = _mm512_maskz_loadu_ps(lanes(mr), s0);
        __m512 hi = 2 * p + 1 < kc ? _mm512_maskz_loadu_ps(lanes(mr), s0 + A.cs)
                                   : _mm512_setzero_ps();
        _mm512_mask_storeu_epi32(ap + (long)p * MR, lanes(MR), pairs16(lo, hi));
    }
}

/* r[l] element q -> r[q] element l: a 16 × 16 transposition of 32-bit values in four rounds
 * (pairs of values, pairs of pairs, then 128-bit lanes twice). */
static BF16_TARGET ALWAYS_INLINE void transpose16(__m512i r[16]) {
    __m512i t[16];
    UNROLL
    for (int i = 0; i < 8; i++) { /* t[2i] lane b: r[2i][4b], r[2i+1][4b], r[2i][4b+1], ... */
        t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    UNROLL
    for (int i = 0; i < 4; i++) { /* r[4i+c] lane b: element 4b+c of rows 4i .. 4i+3 */
        r[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
        r[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
        r[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
        r[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    UNROLL
    for (int c = 0; c < 4; c++) { /* element 4b+c gathers lane b of r[c], r[4+c], r[8+c], r[12+c] */
        __m512i x0 = _mm512_shuffle_i32x4(r[c], r[4 + c], _MM_SHUFFLE(1, 0, 1, 0));
        __m512i x1 = _mm512_shuffle_i32x4(r[c], r[4 + c], _MM_SHUFFLE(3, 2, 3, 2));
        __m512i y0 = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], _MM_SHUFFLE(1, 0, 1, 0));
        __m512i y1 = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], _MM_SHUFFLE(3, 2, 3, 2));
        t[c] = _mm512_shuffle_i32x4(x0, y0, _MM_SHUFFLE(2, 0, 2, 0));
        t[4 + c] = _mm512_shuffle_i32x4(x0, y0, _MM_SHUFFLE(3, 1, 3, 1));
        t[8 + c] = _mm512_shuffle_i32x4(x1, y1, _MM_SHUFFLE(2, 0, 2, 0));
        t[12 + c] = _mm512_shuffle_i32x4(x1, y1, _MM_SHUFFLE(3, 1, 3, 1));
    }
    UNROLL
    for (int i = 0; i < 16; i++) r[i] = t[i];
}

/* bf16_pack_b_panel's layout: rows of B contiguous (W, inp) as two interleaved rows per pair;
 * B = Wᵀ (B.rs == 1: W's rows are B's columns, each pair two adjacent floats of a row) by
 * converting 16 pairs of 16 columns at a time in order and transposing the 16 × 16 block; else
 * the C one. */
static BF16_TARGET void pack_b_panel_avx512(uint32_t *bp, MatView B, int k0, int kc, int j0,
                                            int nr) {
    int np = (kc + 1) / 2;
    if (B.cs == 1) {
        for (int p = 0; p < np; p++) {
            const real *s0 = B.p + (long)(k0 + 2 * p) * B.rs + j0;
            int has_hi = 2 * p + 1 < kc;
            for (int v = 0; v < 2; v++) {
                __mmask16 m = lanes(nr - 16 * v);
                __m512 lo = _mm512_maskz_loadu_ps(m, s0 + 16 * v);
                __m512 hi = has_hi ? _mm512_maskz_loadu_ps(m, s0 + B.rs + 16 * v)
                                   : _mm512_setzero_ps();
                _mm512_storeu_si512((void *)(bp + (long)p * NR + 16 * v), pairs16(lo, hi));
            }
        }
        return;
    }
    if (B.rs != 1) {
        bf16_pack_b_panel(bp, B, k0, kc, j0, nr);
        return;
    }
    for (int v = 0; v < 2; v++)           /* columns 16v .. 16v+15 */
        for (int p0 = 0; p0 < np; p0 += 16) { /* pairs p0 .. p0+15 */
            __m512i r[16];
            int nf = kc - 2 * p0; /* floats left in each column's run */
            for (int l = 0; l < 16; l++) {
                if (16 * v + l >= nr) {
                    r[l] = _mm512_setzero_si512();
                    continue;
                }
                const real *src = B.p + (long)(j0 + 16 * v + l) * B.cs + k0 + 2 * p0;
                __m512 f0 = _mm512_maskz_loadu_ps(lanes(nf), src);
                __m512 f1 = _mm512_maskz_loadu_ps(lanes(nf - 16), src + 16);
                r[l] = (__m512i)_mm512_cvtne2ps_pbh(f1, f0); /* element q: pair p0+q */
            }
            transpose16(r); /* r[q] element l: pair p0+q of column 16v+l */
            for (int q = 0; q < 16 && p0 + q < np; q++)
                _mm512_storeu_si512((void *)(bp + (long)(p0 + q) * NR + 16 * v), r[q]);
        }
}

const Bf16Ops bf16_ops_avx512 = {tile_avx512, pack_a_rows_avx512, pack_a_pairs_avx512,
                                 pack_b_panel_avx512};
#endif
