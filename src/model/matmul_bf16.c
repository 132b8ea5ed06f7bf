/* matmul_bf16.c: the linear layer's three products with bf16 inputs and float32 accumulation
 * (model.matmul = bf16), on the blocking scheme of matmul.c.
 *
 * Arithmetic. Every operand value is rounded to bfloat16 (bf16_from_float: round to nearest,
 * ties to even) when it is packed: nothing is converted or allocated ahead, and parameters,
 * activations and gradients stay float32 in memory. The K dimension is taken in pairs
 * (k, k+1): a packed uint32 holds bf16(X(., k)) in its low half and bf16(X(., k+1)) in its high
 * half, which is the operand layout of AVX512_BF16's `vdpbf16ps`. For one output element and one
 * K block of KC = 256 values (an odd tail padded with a zero),
 *     acc = 0;  for each pair p:  acc = acc + a_hi·b_hi;  acc = acc + a_lo·b_lo
 * where the products of two bf16 numbers (8-bit significands) are exact in float32 and each sum
 * is rounded once to float32 (round to nearest even); then C = acc (+ bias) for the first block
 * and C = C + acc for the others, as in matmul.c. Nothing depends on the thread count or the N
 * blocking, so results are bitwise the same on any number of threads.
 *
 * Kernels, chosen at run time from the CPU's features, each compiled with a target attribute so
 * that the rest of the build keeps its flags: AVX512_BF16 (`_mm512_dpbf16_ps`, 12 × 32 register
 * tile as matmul.c's float kernel), else AVX2 + FMA (pairs widened to float32, one FMA per
 * product: acc + a·b rounded once, the same sum), else portable C; all three do the additions
 * above in the same order and agree bit for bit (tests/test_matmul_bf16.c) on normal numbers.
 * They could differ only where the hardware flushes: `vdpbf16ps` treats subnormal bf16 inputs as
 * zero (our rounding already gives ±0 for them, so every kernel sees the same inputs) and flushes
 * subnormal float32 results to zero, which the others do not: products or sums below 2^-126 in
 * magnitude (where a product of two bf16 numbers is no longer exact in float32 either).
 *
 * Packing: B's micro-panels (NR pairs per k-pair) go into the caller's scratch as in matmul.c;
 * A's MR-row strip is always packed (into a stack buffer), in one of two layouts the kernel
 * reads with constant strides: "rows" (A.cs == 1: inp, dout; each row's pairs contiguous, a
 * plain conversion of a contiguous run) or "pairs" (doutᵀ: MR contiguous pairs per k-pair).
 * The portable and AVX2 kernels pack in C (round_hi per value); the AVX512_BF16 one with the
 * CPU's `vcvtne2ps2bf16`, whose rounding is round_hi's bit for bit (see its packers), 32 values
 * per instruction, the forward's Wᵀ panel by 16 × 16 transpositions in registers. */
#include "model/matmul_bf16.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "model/matmul.h"

#if !defined(SCALEDOT_DOUBLE) && defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX512BF16_KERNEL 1 /* and the AVX2 one */
#include <immintrin.h>
#else
#define HAVE_AVX512BF16_KERNEL 0
#endif

enum {
    MR = 12,          /* rows per tile */
    NR = 32,          /* columns per tile: two vectors of 16 float32 lanes */
    KC = 256,         /* K block (even, so that pairs never straddle two blocks) */
    KP = KC / 2,      /* k pairs per K block */
    NC_MAX = 1024,    /* N block cap: packed B, KC × NC_MAX bf16 = 512 KB, stays in L2 */
};

#if defined(__GNUC__)
#define UNROLL _Pragma("GCC unroll 16")
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define UNROLL
#define ALWAYS_INLINE inline
#endif

/* ---- rounding ----------------------------------------------------------------------------- */

static inline uint32_t float_bits(real x) {
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float bits_float(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The float32 bits u rounded to bf16, in the upper 16 bits (the lower 16 zero). Adding 0x7fff
 * plus the kept part's lowest bit, then cutting, rounds to nearest with ties to even (a carry
 * into the exponent is the correct next binade, or inf). Branch-free, so packing loops
 * vectorise. */
static inline uint32_t round_hi(uint32_t u) {
    uint32_t mag = u & 0x7fffffffu;
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    r = mag > 0x7f800000u ? (u | 0x00400000u) & 0xffff0000u : r; /* NaN: quiet, sign kept */
    r = mag < 0x00800000u ? u & 0x80000000u : r;                  /* ±0 or subnormal: ±0 */
    return r;
}

uint16_t bf16_from_float(float x) { return (uint16_t)(round_hi(float_bits(x)) >> 16); }

float bf16_to_float(uint16_t h) { return bits_float((uint32_t)h << 16); }

/* The packed pair (bf16(lo) in the low half, bf16(hi) in the high half). */
static inline uint32_t pair(real lo, real hi) {
    return round_hi(float_bits(lo)) >> 16 | round_hi(float_bits(hi));
}

/* ---- packing ------------------------------------------------------------------------------ */

static int min_int(int a, int b) { return a < b ? a : b; }

/* "rows" layout, A's rows contiguous (A.cs == 1): ap[i·KP + p] = pair(A(i0+i, k0+2p),
 * A(i0+i, k0+2p+1)) for p < ceil(kc/2) (an odd kc's last high half 0); rows mr .. MR-1 zero. */
typedef void PackRowFn(uint32_t *dst, const real *src, int kc); /* one row's pairs */

static ALWAYS_INLINE void pack_rows_with(uint32_t *ap, MatView A, int i0, int mr, int k0, int kc,
                                         PackRowFn *row) {
    for (int i = 0; i < MR; i++) {
        uint32_t *dst = ap + (long)i * KP;
        if (i >= mr)
            memset(dst, 0, (size_t)(kc + 1) / 2 * sizeof *dst);
        else
            row(dst, A.p + (long)(i0 + i) * A.rs + k0, kc);
    }
}

static void pack_row(uint32_t *dst, const real *src, int kc) {
    int half = kc / 2;
    for (int p = 0; p < half; p++) dst[p] = pair(src[2 * p], src[2 * p + 1]);
    if (kc & 1) dst[half] = pair(src[kc - 1], 0);
}

static void pack_a_rows(uint32_t *ap, MatView A, int i0, int mr, int k0, int kc) {
    pack_rows_with(ap, A, i0, mr, k0, kc, pack_row);
}

/* "pairs" layout, any A (doutᵀ: i contiguous): ap[p·MR + i], the same pairs; i >= mr zero. */
static void pack_a_pairs(uint32_t *ap, MatView A, int i0, int mr, int k0, int kc) {
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

/* B's micro-panel: bp[p·NR + jj] = pair(B(k0+2p, j0+jj), B(k0+2p+1, j0+jj)) for p < ceil(kc/2),
 * jj < nr; zero for nr <= jj < NR and in an odd kc's last high half. */
static void pack_b_panel(uint32_t *bp, MatView B, int k0, int kc, int j0, int nr) {
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

/* ---- kernels ------------------------------------------------------------------------------ */

/* One tile: C(i0 .. i0+mr, j0 .. j0+nr) at c (row stride ldc) from the packed A strip ap (layout
 * "rows" when rows_layout, else "pairs") and the B micro-panel bp over np k-pairs; first: c =
 * acc + bias (or acc), else c = c + acc. */
typedef void TileFn(const uint32_t *ap, int rows_layout, const uint32_t *bp, int np, real *c,
                    long ldc, int mr, int nr, const real *bias, int first);

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

/* pack_a_rows: a row's kc contiguous floats converted in order are its pairs (little-endian: the
 * even k in the low half). */
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

/* pack_a_pairs for A.rs == 1 (doutᵀ: the MR values of one k contiguous); else the C one. */
static BF16_TARGET void pack_a_pairs_avx512(uint32_t *ap, MatView A, int i0, int mr, int k0,
                                            int kc) {
    if (A.rs != 1) {
        pack_a_pairs(ap, A, i0, mr, k0, kc);
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

/* pack_b_panel: rows of B contiguous (W, inp) as two interleaved rows per pair; B = Wᵀ (B.rs ==
 * 1: W's rows are B's columns, each pair two adjacent floats of a row) by converting 16 pairs of
 * 16 columns at a time in order and transposing the 16 × 16 block; else the C one. */
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
        pack_b_panel(bp, B, k0, kc, j0, nr);
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
#endif

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
#endif

/* A kernel: its tile and its packers (the portable and AVX2 kernels pack in C). */
typedef void PackAFn(uint32_t *ap, MatView A, int i0, int mr, int k0, int kc);
typedef void PackBFn(uint32_t *bp, MatView B, int k0, int kc, int j0, int nr);
typedef struct {
    TileFn *tile;
    PackAFn *pack_rows, *pack_pairs;
    PackBFn *pack_b;
} Bf16Ops;

static const Bf16Ops ops_portable = {tile_portable, pack_a_rows, pack_a_pairs, pack_b_panel};
#if HAVE_AVX512BF16_KERNEL
static const Bf16Ops ops_avx2 = {tile_avx2, pack_a_rows, pack_a_pairs, pack_b_panel};
static const Bf16Ops ops_avx512 = {tile_avx512, pack_a_rows_avx512, pack_a_pairs_avx512,
                                   pack_b_panel_avx512};
#endif

static const Bf16Ops *tile_fn; /* the selected kernel; NULL until the first use or selection */
static Bf16Kernel tile_kind;

int matmul_bf16_available(Bf16Kernel k) {
#if HAVE_AVX512BF16_KERNEL
    __builtin_cpu_init();
    if (k == BF16_KERNEL_AVX512)
        return __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl");
    if (k == BF16_KERNEL_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    if (k == BF16_KERNEL_AVX512 || k == BF16_KERNEL_AVX2) return 0;
#endif
    return 1;
}

int matmul_bf16_select(Bf16Kernel k) {
    if (k == BF16_KERNEL_AUTO)
        k = matmul_bf16_available(BF16_KERNEL_AVX512) ? BF16_KERNEL_AVX512
            : matmul_bf16_available(BF16_KERNEL_AVX2) ? BF16_KERNEL_AVX2
                                                      : BF16_KERNEL_PORTABLE;
    if (!matmul_bf16_available(k)) return -1;
    tile_fn = &ops_portable;
#if HAVE_AVX512BF16_KERNEL
    if (k == BF16_KERNEL_AVX512) tile_fn = &ops_avx512;
    if (k == BF16_KERNEL_AVX2) tile_fn = &ops_avx2;
#endif
    tile_kind = k;
    return 0;
}

static const Bf16Ops *selected(void) {
    if (!tile_fn) matmul_bf16_select(BF16_KERNEL_AUTO);
    return tile_fn;
}

Bf16Kernel matmul_bf16_kernel(void) {
    selected();
    return tile_kind;
}

const char *matmul_bf16_kernel_name(void) {
    Bf16Kernel k = matmul_bf16_kernel();
    return k == BF16_KERNEL_AVX512 ? "AVX512_BF16" : k == BF16_KERNEL_AVX2 ? "AVX2" : "portable C";
}

/* ---- the GEMM driver (matmul.c's, for MAT_FULL products) ----------------------------------- */

/* C (M×N, row stride ldc) = A·B (+ bias) when overwrite, else C += A·B. */
typedef struct {
    int M, N, K;
    MatView A, B;
    real *C;
    long ldc;
    const real *bias;
    int overwrite;
    const Bf16Ops *ops;
} Gemm16;

/* Strip s of A (MR rows) times the packed B block (columns jc .. jc+nc-1, k pc .. pc+kc-1). */
static void gemm_strip(const Gemm16 *g, int s, int jc, int nc, int pc, int kc,
                       const uint32_t *bpack, uint32_t *ap) {
    int i0 = s * MR, mr = min_int(MR, g->M - i0), np = (kc + 1) / 2;
    int rows_layout = g->A.cs == 1;
    if (rows_layout)
        g->ops->pack_rows(ap, g->A, i0, mr, pc, kc);
    else
        g->ops->pack_pairs(ap, g->A, i0, mr, pc, kc);
    int first = g->overwrite && pc == 0;
    for (int jp = 0; jp * NR < nc; jp++) {
        int j0 = jc + jp * NR;
        g->ops->tile(ap, rows_layout, bpack + (long)jp * np * NR, np, g->C + (long)i0 * g->ldc + j0,
                g->ldc, mr, min_int(NR, nc - jp * NR), g->bias ? g->bias + j0 : NULL, first);
    }
}

/* Strips s0 .. s1-1 times columns n0 .. n1-1, B packed into bpack (cap uint32s, >= KP·NR) one
 * block of columns and one K block at a time. */
static void gemm_rect(const Gemm16 *g, int s0, int s1, int n0, int n1, uint32_t *bpack,
                      size_t cap) {
    _Alignas(64) uint32_t ap[MR * KP];
    size_t w = cap / ((size_t)KP * NR) * NR;
    int nc_max = w > NC_MAX ? NC_MAX : (int)w;
    for (int jc = n0; jc < n1; jc += nc_max) {
        int nc = min_int(nc_max, n1 - jc);
        for (int pc = 0; pc < g->K; pc += KC) {
            int kc = min_int(KC, g->K - pc), np = (kc + 1) / 2;
            for (int jp = 0; jp * NR < nc; jp++)
                g->ops->pack_b(bpack + (long)jp * np * NR, g->B, pc, kc, jc + jp * NR,
                             min_int(NR, nc - jp * NR));
            for (int s = s0; s < s1; s++) gemm_strip(g, s, jc, nc, pc, kc, bpack, ap);
        }
    }
}

static void share(int n, int t, int T, int *lo, int *hi) {
    *lo = (int)((long)n * t / T);
    *hi = (int)((long)n * (t + 1) / T);
}

/* The calling thread's share when every thread of a parallel region calls it (matmul.c's
 * gemm_share): strips or panels shared out (matmul_share_strips); each thread packs
 * into its own part of the scratch, or its stack when that part is too small. */
static void gemm_share(const Gemm16 *g, real *scratch, size_t len) {
    int t = 0, T = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    T = omp_get_num_threads();
#endif
    int strips = (g->M + MR - 1) / MR, panels = (g->N + NR - 1) / NR;
    int s0 = 0, s1 = strips, p0 = 0, p1 = panels;
    if (matmul_share_strips(strips, panels, T))
        share(strips, t, T, &s0, &s1);
    else
        share(panels, t, T, &p0, &p1);
    size_t mine = scratch ? len * sizeof(real) / (size_t)T / 64 * 64 : 0; /* bytes */
    _Alignas(64) uint32_t stack[KP * NR];
    uint32_t *bpack = stack;
    size_t cap = KP * NR;
    if (mine / sizeof(uint32_t) >= (size_t)KP * NR) {
        bpack = (uint32_t *)(void *)((char *)scratch + (size_t)t * mine);
        cap = mine / sizeof(uint32_t);
    }
    if (s0 < s1 && p0 < p1) gemm_rect(g, s0, s1, p0 * NR, min_int(p1 * NR, g->N), bpack, cap);
}

/* ---- the linear layer --------------------------------------------------------------------- */

void matmul_bf16_forward(real *out, const real *inp, const real *weight, const real *bias, int N,
                         int C, int OC, real *scratch, size_t scratch_len) {
    MatView x = {inp, C, 1};     /* A(n, c) = inp[n·C + c] */
    MatView wT = {weight, 1, C}; /* B(c, o) = weight[o·C + c] */
    Gemm16 g = {N, OC, C, x, wT, out, OC, bias, 1, selected()};
#pragma omp parallel
    gemm_share(&g, scratch, scratch_len);
}

/* The backward's two products: dinp (N, C) = dout · W (overwrite), dweight (OC, C) += doutᵀ · inp. */
static Gemm16 dinp_gemm(real *dinp, const real *dout, const real *weight, int N, int C, int OC) {
    MatView dy = {dout, OC, 1}; /* dout (N, OC) */
    MatView w = {weight, C, 1}; /* weight (OC, C) */
    return (Gemm16){N, C, OC, dy, w, dinp, C, NULL, 1, selected()};
}

static Gemm16 dweight_gemm(real *dweight, const real *dout, const real *inp, int N, int C,
                           int OC) {
    MatView dyT = {dout, 1, OC}; /* doutᵀ (OC, N) */
    MatView x = {inp, C, 1};     /* inp (N, C) */
    return (Gemm16){OC, C, N, dyT, x, dweight, C, NULL, 0, selected()};
}

void matmul_bf16_backward(real *dinp, real *dweight, real *dbias, const real *dout,
                          const real *inp, const real *weight, int N, int C, int OC,
                          real *scratch, size_t scratch_len) {
    Gemm16 gx = dinp_gemm(dinp, dout, weight, N, C, OC);
    Gemm16 gw = dweight_gemm(dweight, dout, inp, N, C, OC);
#pragma omp parallel
    {
        gemm_share(&gx, scratch, scratch_len);
        gemm_share(&gw, scratch, scratch_len);
        if (dbias) matmul_bias_grad_share(dbias, dout, N, OC);
    }
}

void matmul_bf16_backward_input(real *dinp, const real *dout, const real *weight, int N, int C,
                                int OC, real *scratch, size_t scratch_len) {
    Gemm16 g = dinp_gemm(dinp, dout, weight, N, C, OC);
#pragma omp parallel
    gemm_share(&g, scratch, scratch_len);
}

void matmul_bf16_backward_weight(real *dweight, const real *dout, const real *inp, int N, int C,
                                 int OC, real *scratch, size_t scratch_len) {
    Gemm16 g = dweight_gemm(dweight, dout, inp, N, C, OC);
#pragma omp parallel
    gemm_share(&g, scratch, scratch_len);
}
