/* matmul_bf16_internal.h: what the files of the bf16 products share: matmul_bf16.c (the GEMM
 * driver, the kernel selection, the linear layer), matmul_bf16_pack.c (the operands rounded and
 * packed in C) and the three kernels, matmul_bf16_portable.c, matmul_bf16_avx2.c and
 * matmul_bf16_avx512.c. Here: the tile and block sizes, the rounding to bf16, the packed layouts
 * and the table of a kernel's functions (Bf16Ops). Not for use outside these files: the rest of
 * the build sees matmul_bf16.h. */
#ifndef SCALEDOT_MATMUL_BF16_INTERNAL_H
#define SCALEDOT_MATMUL_BF16_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "model/kernel_attrs.h"
#include "model/matmul.h"
#include "model/real.h"

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

/* ---- packing ------------------------------------------------------------------------------ */

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

/* The C packers (matmul_bf16_pack.c), each value rounded by round_hi; the portable and AVX2
 * kernels use them, the AVX512_BF16 one where its own do not apply. A's strip: rows i0 ..
 * i0+mr-1 (mr <= MR), k k0 .. k0+kc-1 (kc <= KC), into ap (MR·KP uint32s); B's panel: columns
 * j0 .. j0+nr-1 (nr <= NR), into bp (KP·NR uint32s). No errors. bf16_pack_a_rows: the "rows"
 * layout above (A.cs == 1). */
void bf16_pack_a_rows(uint32_t *ap, MatView A, int i0, int mr, int k0, int kc);
/* "pairs" layout, any A (doutᵀ: i contiguous): ap[p·MR + i], the same pairs; i >= mr zero. */
void bf16_pack_a_pairs(uint32_t *ap, MatView A, int i0, int mr, int k0, int kc);
/* B's micro-panel: bp[p·NR + jj] = pair(B(k0+2p, j0+jj), B(k0+2p+1, j0+jj)) for p < ceil(kc/2),
 * jj < nr; zero for nr <= jj < NR and in an odd kc's last high half. */
void bf16_pack_b_panel(uint32_t *bp, MatView B, int k0, int kc, int j0, int nr);

/* ---- kernels ------------------------------------------------------------------------------ */

/* One tile: C(i0 .. i0+mr, j0 .. j0+nr) at c (row stride ldc) from the packed A strip ap (layout
 * "rows" when rows_layout, else "pairs") and the B micro-panel bp over np k-pairs; first: c =
 * acc + bias (or acc), else c = c + acc. */
typedef void TileFn(const uint32_t *ap, int rows_layout, const uint32_t *bp, int np, real *c,
                    long ldc, int mr, int nr, const real *bias, int first);

/* A kernel: its tile and its packers (the portable and AVX2 kernels pack in C). */
typedef void PackAFn(uint32_t *ap, MatView A, int i0, int mr, int k0, int kc);
typedef void PackBFn(uint32_t *bp, MatView B, int k0, int kc, int j0, int nr);
typedef struct {
    TileFn *tile;
    PackAFn *pack_rows, *pack_pairs;
    PackBFn *pack_b;
} Bf16Ops;

/* The kernels (each file's own; all give the same bits): portable C always, AVX2 + FMA and
 * AVX512_BF16 where the build can compile them (matmul_bf16_available says whether the CPU can
 * run them). */
extern const Bf16Ops bf16_ops_portable;
#if HAVE_AVX512BF16_KERNEL
extern const Bf16Ops bf16_ops_avx2, bf16_ops_avx512;
#endif

#endif
