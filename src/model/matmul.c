/* matmul.c: the linear layer's three products as one cache-blocked, register-tiled GEMM.
 *
 * All three products are C (M×N) = A (M×K) · B (K×N), only the layouts differ:
 *   forward  out  = inp · Wᵀ     A = inp (rows, k contiguous)   B = Wᵀ (W's rows are its columns)
 *   backward dinp = dout · W     A = dout (rows, k contiguous)  B = W (row-major)
 *   backward dW   = doutᵀ · inp  A = doutᵀ (i contiguous)      B = inp (row-major)
 * so one driver (gemm) takes A and B as strided views and packs what needs packing.
 *
 * Blocking (BLIS/GotoBLAS scheme, Van Zee and van de Geijn 2015):
 *   - the micro-kernel computes an MR×NR tile of C with MR·NR/VL accumulators held in vector
 *     registers (VL = lanes per vector), reading an A strip (MR rows × kc) and a packed B
 *     micro-panel (kc × NR, NR contiguous values per k);
 *   - K is cut into blocks of KC so that one A strip and one B micro-panel stay in L1 while the
 *     kernel runs; N into blocks of at most NC_MAX columns whose packed B (KC × NC) stays in L2;
 *   - per (N block, K block), B is packed once into the shared scratch by all threads, then the
 *     threads share out the MR-row strips of A and sweep each strip across the whole N block.
 *
 * Determinism: every C element belongs to one tile, and a tile is computed by exactly one thread.
 * Its value is  C = ((C + s_0) + s_1) + ...,  s_b the FMA chain over K block b in k order: KC is a
 * constant, so the summation order depends on neither the thread count nor the N blocking (which
 * only follows the scratch size). The results differ from a naive k loop in the last bits only.
 *
 * Vector back-ends: AVX-512 or AVX2+FMA intrinsics for float (explicit FMA, since -std=c11 turns
 * contraction off and gcc keeps to 256-bit vectors by default); plain C otherwise, which is what
 * the double-precision gradient tests use. The three share the driver and the kernel source. */
#include "model/matmul.h"

#include <string.h>

#if !defined(SCALEDOT_DOUBLE) && (defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__)))
#include <immintrin.h>
#endif

/* ---- vector back-end: vec, VL lanes, and MR (rows per tile, sized to the register file) ---- */

#if !defined(SCALEDOT_DOUBLE) && defined(__AVX512F__)
/* 32 zmm registers: 24 accumulators (12×32 tile), 2 for B, the rest for broadcasts. */
typedef __m512 vec;
enum { VL = 16, MR = 12 };
static inline vec vzero(void) { return _mm512_setzero_ps(); }
static inline vec vload(const real *p) { return _mm512_loadu_ps(p); }
static inline void vstore(real *p, vec x) { _mm512_storeu_ps(p, x); }
static inline vec vbcast(real x) { return _mm512_set1_ps(x); }
static inline vec vfma(vec a, vec b, vec c) { return _mm512_fmadd_ps(a, b, c); }
static inline vec vadd(vec a, vec b) { return _mm512_add_ps(a, b); }
#elif !defined(SCALEDOT_DOUBLE) && defined(__AVX2__) && defined(__FMA__)
/* 16 ymm registers: 12 accumulators (6×16 tile), 2 for B, 1 broadcast. */
typedef __m256 vec;
enum { VL = 8, MR = 6 };
static inline vec vzero(void) { return _mm256_setzero_ps(); }
static inline vec vload(const real *p) { return _mm256_loadu_ps(p); }
static inline void vstore(real *p, vec x) { _mm256_storeu_ps(p, x); }
static inline vec vbcast(real x) { return _mm256_set1_ps(x); }
static inline vec vfma(vec a, vec b, vec c) { return _mm256_fmadd_ps(a, b, c); }
static inline vec vadd(vec a, vec b) { return _mm256_add_ps(a, b); }
#else
/* Portable: a small array the compiler may vectorise; a·b + c rounds twice (no FMA). */
typedef struct {
    real x[8];
} vec;
enum { VL = 8, MR = 4 };
static inline vec vzero(void) { return (vec){{0}}; }
static inline vec vload(const real *p) {
    vec r;
    memcpy(r.x, p, sizeof r.x);
    return r;
}
static inline void vstore(real *p, vec x) { memcpy(p, x.x, sizeof x.x); }
static inline vec vbcast(real s) {
    vec r;
    for (int l = 0; l < VL; l++) r.x[l] = s;
    return r;
}
static inline vec vfma(vec a, vec b, vec c) {
    for (int l = 0; l < VL; l++) c.x[l] += a.x[l] * b.x[l];
    return c;
}
static inline vec vadd(vec a, vec b) {
    for (int l = 0; l < VL; l++) a.x[l] += b.x[l];
    return a;
}
#endif

enum {
    NV = 2,           /* vectors per tile row */
    NR = NV * VL,     /* columns per tile */
    KC = 256,         /* K block: the length of one FMA chain before it is added to C */
    NC_MAX = 1024,    /* N block cap: packed B (KC × NC_MAX reals) should stay in L2 */
};

#if defined(__GNUC__)
#define UNROLL _Pragma("GCC unroll 16")
#else
#define UNROLL
#endif

/* ---- operands ---------------------------------------------------------------------------- */

/* A strided matrix view: element (r, c) is at p[r·rs + c·cs]. */
typedef struct {
    const real *p;
    long rs, cs;
} View;

static inline real view_at(View v, long r, long c) { return v.p[r * v.rs + c * v.cs]; }

/* ---- micro-kernel ------------------------------------------------------------------------ */

/* acc (MR×NR) = Σ_k A(i, k) · bp[k·NR + j] over kc steps in k order, one FMA chain per element.
 * A(i, k) is at a[i·ars + k·acs]; the callers fix ars and acs to constants (rows of a row-major
 * A, or a packed strip), so after inlining the broadcasts use constant offsets. */
static inline void tile_fma(vec acc[MR][NV], const real *a, long ars, long acs, const real *bp,
                            int kc) {
    UNROLL
    for (int i = 0; i < MR; i++)
        UNROLL
        for (int v = 0; v < NV; v++) acc[i][v] = vzero();
    for (int k = 0; k < kc; k++) {
        vec b[NV];
        UNROLL
        for (int v = 0; v < NV; v++) b[v] = vload(bp + v * VL);
        UNROLL
        for (int i = 0; i < MR; i++) {
            vec x = vbcast(a[i * ars]);
            UNROLL
            for (int v = 0; v < NV; v++) acc[i][v] = vfma(x, b[v], acc[i][v]);
        }
        a += acs;
        bp += NR;
    }
}

/* Adds the tile to C (mr×nr valid part of MR×NR at c, row stride ldc), or with first set stores
 * it, plus bias[j] when bias is not NULL. Edge tiles go through a buffer; x + y is the same
 * number either way, so edge and interior elements round alike. */
static void tile_write(vec acc[MR][NV], real *c, long ldc, int mr, int nr, const real *bias,
                       int first) {
    if (mr == MR && nr == NR) {
        UNROLL
        for (int i = 0; i < MR; i++)
            UNROLL
            for (int v = 0; v < NV; v++) {
                real *p = c + i * ldc + v * VL;
                vec base = first ? (bias ? vload(bias + v * VL) : vzero()) : vload(p);
                vstore(p, first && !bias ? acc[i][v] : vadd(base, acc[i][v]));
            }
        return;
    }
    real t[MR][NR];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++) vstore(&t[i][v * VL], acc[i][v]);
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < nr; j++) {
            real *p = c + i * ldc + j;
            *p = first ? (bias ? bias[j] + t[i][j] : t[i][j]) : *p + t[i][j];
        }
}

/* Tile from an A strip that is MR rows of a row-major matrix (row stride lda, k contiguous). */
static void kernel_rows(const real *a, long lda, const real *bp, int kc, real *c, long ldc, int mr,
                        int nr, const real *bias, int first) {
    vec acc[MR][NV];
    tile_fma(acc, a, lda, 1, bp, kc);
    tile_write(acc, c, ldc, mr, nr, bias, first);
}

/* Tile from a packed A strip: MR contiguous values per k. */
static void kernel_packed(const real *ap, const real *bp, int kc, real *c, long ldc, int mr, int nr,
                          const real *bias, int first) {
    vec acc[MR][NV];
    tile_fma(acc, ap, 1, MR, bp, kc);
    tile_write(acc, c, ldc, mr, nr, bias, first);
}

/* ---- packing ----------------------------------------------------------------------------- */

/* bp[k·NR + jj] = B(k0 + k, j0 + jj) for k < kc, jj < nr; zero for nr <= jj < NR. */
static void pack_b_panel(real *bp, View B, int k0, int kc, int j0, int nr) {
    if (B.cs == 1) { /* rows of B are contiguous: copy nr values per k */
        for (int k = 0; k < kc; k++) {
            const real *src = B.p + (long)(k0 + k) * B.rs + j0;
            real *dst = bp + (long)k * NR;
            memcpy(dst, src, (size_t)nr * sizeof(real));
            for (int jj = nr; jj < NR; jj++) dst[jj] = 0;
        }
        return;
    }
    for (int jj = 0; jj < nr; jj++) { /* columns of B are contiguous (B = Wᵀ): read along k */
        const real *src = B.p + (long)(j0 + jj) * B.cs + k0;
        for (int k = 0; k < kc; k++) bp[(long)k * NR + jj] = src[k];
    }
    for (int jj = nr; jj < NR; jj++)
        for (int k = 0; k < kc; k++) bp[(long)k * NR + jj] = 0;
}

/* ap[k·MR + ii] = A(i0 + ii, k0 + k) for ii < mr; zero for mr <= ii < MR. */
static void pack_a_strip(real *ap, View A, int i0, int mr, int k0, int kc) {
    for (int k = 0; k < kc; k++) {
        real *dst = ap + (long)k * MR;
        if (A.rs == 1) /* Aᵀ stored row-major (doutᵀ): the strip's mr values are contiguous */
            memcpy(dst, A.p + i0 + (long)(k0 + k) * A.cs, (size_t)mr * sizeof(real));
        else
            for (int ii = 0; ii < mr; ii++) dst[ii] = view_at(A, i0 + ii, k0 + k);
        for (int ii = mr; ii < MR; ii++) dst[ii] = 0;
    }
}

/* ---- driver ------------------------------------------------------------------------------ */

static int min_int(int a, int b) { return a < b ? a : b; }

/* C (M×N, row stride ldc) = or += A·B; with overwrite, C = bias + A·B (bias (N) may be NULL).
 * bpack holds packed B: at least KC·NR reals, and the N block is as wide as it allows (up to
 * NC_MAX). Must be called outside any parallel region; opens its own. A strips with contiguous
 * k are read in place; others (Aᵀ of the weight gradient) are packed per strip on the stack. */
static void gemm(int M, int N, int K, View A, View B, real *C, long ldc, const real *bias,
                 int overwrite, real *bpack, size_t bpack_len) {
    int nc_max = (int)(bpack_len / KC) / NR * NR;
    if (nc_max > NC_MAX) nc_max = NC_MAX;
    int strips = (M + MR - 1) / MR;
#pragma omp parallel
    for (int jc = 0; jc < N; jc += nc_max) {
        int nc = min_int(nc_max, N - jc), panels = (nc + NR - 1) / NR;
        for (int pc = 0; pc < K; pc += KC) {
            int kc = min_int(KC, K - pc), first = overwrite && pc == 0;
#pragma omp for schedule(static)
            for (int jp = 0; jp < panels; jp++)
                pack_b_panel(bpack + (long)jp * kc * NR, B, pc, kc, jc + jp * NR,
                             min_int(NR, nc - jp * NR));
            /* (implicit barrier: B is packed before anyone reads it) */
#pragma omp for schedule(static)
            for (int s = 0; s < strips; s++) {
                int i0 = s * MR, mr = min_int(MR, M - i0);
                /* an edge strip is packed too: its missing rows become zeros, not reads past A */
                int in_place = A.cs == 1 && mr == MR;
                _Alignas(64) real ap[MR * KC];
                if (!in_place) pack_a_strip(ap, A, i0, mr, pc, kc);
                for (int jp = 0; jp < panels; jp++) {
                    int j0 = jc + jp * NR;
                    const real *bp = bpack + (long)jp * kc * NR;
                    real *c = C + (long)i0 * ldc + j0;
                    const real *bj = bias ? bias + j0 : NULL;
                    int nr = min_int(NR, nc - jp * NR);
                    if (in_place)
                        kernel_rows(A.p + (long)i0 * A.rs + pc, A.rs, bp, kc, c, ldc, mr, nr, bj,
                                    first);
                    else
                        kernel_packed(ap, bp, kc, c, ldc, mr, nr, bj, first);
                }
            }
            /* (implicit barrier: everyone is done with B before it is repacked) */
        }
    }
}

/* ---- the linear layer -------------------------------------------------------------------- */

size_t matmul_scratch_len(int max_width) {
    size_t w = (size_t)(max_width + NR - 1) / NR * NR;
    if (w > NC_MAX) w = NC_MAX;
    return (size_t)KC * w;
}

/* Without (enough) caller scratch, B is packed one micro-panel at a time into a buffer on the
 * stack: slower, same numbers, since the N blocking changes no element's summation order. */
enum { STACK_LEN = KC * NR };

void matmul_forward_scratch(real *out, const real *inp, const real *weight, const real *bias,
                            int N, int C, int OC, real *scratch, size_t scratch_len) {
    _Alignas(64) real stack[STACK_LEN];
    if (!scratch || scratch_len < STACK_LEN) {
        scratch = stack;
        scratch_len = STACK_LEN;
    }
    View A = {inp, C, 1};    /* A(n, c) = inp[n·C + c] */
    View B = {weight, 1, C}; /* B(c, o) = weight[o·C + c] */
    gemm(N, OC, C, A, B, out, OC, bias, 1, scratch, scratch_len);
}

/* dbias[o] += Σ_n dout[n·OC + o], rows summed in order; threads take 64-column chunks, and the
 * columns within a chunk are independent sums, so the compiler vectorises across them. */
static void bias_grad(real *dbias, const real *dout, int N, int OC) {
    enum { W = 64 };
    int chunks = (OC + W - 1) / W;
#pragma omp parallel for schedule(static)
    for (int ch = 0; ch < chunks; ch++) {
        int o0 = ch * W, w = min_int(W, OC - o0);
        real acc[W] = {0};
        for (int n = 0; n < N; n++) {
            const real *row = dout + (long)n * OC + o0;
            for (int j = 0; j < w; j++) acc[j] += row[j];
        }
        for (int j = 0; j < w; j++) dbias[o0 + j] += acc[j];
    }
}

void matmul_backward_scratch(real *dinp, real *dweight, real *dbias, const real *dout,
                             const real *inp, const real *weight, int N, int C, int OC,
                             real *scratch, size_t scratch_len) {
    _Alignas(64) real stack[STACK_LEN];
    if (!scratch || scratch_len < STACK_LEN) {
        scratch = stack;
        scratch_len = STACK_LEN;
    }
    View dy = {dout, OC, 1};  /* dout (N, OC) */
    View dyT = {dout, 1, OC}; /* doutᵀ (OC, N) */
    View W = {weight, C, 1};  /* weight (OC, C) */
    View X = {inp, C, 1};     /* inp (N, C) */
    gemm(N, C, OC, dy, W, dinp, C, NULL, 0, scratch, scratch_len);
    gemm(OC, C, N, dyT, X, dweight, C, NULL, 0, scratch, scratch_len);
    if (dbias) bias_grad(dbias, dout, N, OC);
}

void matmul_forward(real *out, const real *inp, const real *weight, const real *bias, int N,
                    int C, int OC) {
    matmul_forward_scratch(out, inp, weight, bias, N, C, OC, NULL, 0);
}

void matmul_backward(real *dinp, real *dweight, real *dbias, const real *dout, const real *inp,
                     const real *weight, int N, int C, int OC) {
    matmul_backward_scratch(dinp, dweight, dbias, dout, inp, weight, N, C, OC, NULL, 0);
}
