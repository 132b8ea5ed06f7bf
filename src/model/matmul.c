/* matmul.c: the linear layer's three products, and attention's, as one cache-blocked,
 * register-tiled GEMM.
 *
 * All of them are C (M×N) = A (M×K) · B (K×N), only the layouts differ:
 *   forward  out  = inp · Wᵀ     A = inp (rows, k contiguous)   B = Wᵀ (W's rows = its columns)
 *   backward dinp = dout · W     A = dout (rows, k contiguous)  B = W (row-major)
 *   backward dW   = doutᵀ · inp  A = doutᵀ (i contiguous)      B = inp (row-major)
 * so one driver takes A and B as strided views (MatView) and packs what needs packing.
 *
 * Blocking (the BLIS/GotoBLAS scheme, Van Zee and van de Geijn 2015):
 *   - the micro-kernel computes an MR×NR tile of C with MR·NR/VL accumulators held in vector
 *     registers (VL = lanes per vector), reading an A strip (MR rows × kc) and a packed B
 *     micro-panel (kc × NR, NR contiguous values per k);
 *   - K is cut into blocks of KC so that one A strip and one B micro-panel stay in L1 while the
 *     kernel runs; N into blocks of at most NC_MAX columns whose packed B (KC × NC) stays in L2;
 *   - gemm_parallel (the linear layer): per (N block, K block), all threads pack B into the
 *     caller's scratch, then share out the MR-row strips of A, each strip swept across the
 *     whole N block; gemm_serial (attention, already parallel over heads): the same strips
 *     against one B micro-panel at a time, packed on the stack.
 * A strips that are rows of a row-major matrix are read in place (packing them would be a
 * transposition costing ~20% at C = 128); transposed ones are packed, which is a plain copy.
 *
 * Determinism: every C element belongs to one tile, and a tile is computed by exactly one thread.
 * Its value is  C = ((C + a·s_0) + a·s_1) + ...,  s_b the FMA chain over K block b in k order:
 * KC is a constant, so the summation order depends on neither the thread count nor the N
 * blocking (which only follows the scratch size). The results differ from a naive k loop in the
 * last bits only.
 *
 * Vector back-ends: AVX-512 or AVX2+FMA intrinsics for float (explicit FMA, since -std=c11 turns
 * contraction off and gcc keeps to 256-bit vectors by default); plain C otherwise, which is what
 * the double-precision gradient tests use. The three share the driver and the kernel source. */
#include "model/matmul.h"

#include <limits.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "model/kernel_attrs.h"

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
/* x[l] = p[l·stride] for l < VL, stride·(VL − 1) < 2^31 */
static inline vec vgather(const real *p, int stride) {
    __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm512_i32gather_ps(_mm512_mullo_epi32(lane, _mm512_set1_epi32(stride)), p, 4);
}
#elif !defined(SCALEDOT_DOUBLE) && defined(__AVX2__) && defined(__FMA__)
/* 16 ymm registers: 12 accumulators (6×16 tile), 2 for B, 1 broadcast. */
typedef __m256 vec;
enum { VL = 8, MR = 6 };
static inline vec vzero(void) { return _mm256_setzero_ps(); }
static inline vec vload(const real *p) { return _mm256_loadu_ps(p); }
static inline void vstore(real *p, vec x) { _mm256_storeu_ps(p, x); }
static inline vec vbcast(real x) { return _mm256_set1_ps(x); }
static inline vec vfma(vec a, vec b, vec c) { return _mm256_fmadd_ps(a, b, c); }
static inline vec vgather(const real *p, int stride) {
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_i32gather_ps(p, _mm256_mullo_epi32(lane, _mm256_set1_epi32(stride)), 4);
}
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
static inline vec vgather(const real *p, int stride) {
    vec r;
    for (int l = 0; l < VL; l++) r.x[l] = p[(long)l * stride];
    return r;
}
#endif

enum {
    NV = 2,        /* vectors per tile row */
    NR = NV * VL,  /* columns per tile */
    KC = 256,      /* K block: the length of one FMA chain before it is added to C */
    AR_LD = KC + 16, /* row stride of a copied A strip: rows 17 cache lines apart, see gemm_strip */
    NC_MAX = 1024, /* N block cap: packed B (KC × NC_MAX reals, 1 MB in float) stays in L2 */
};

/* ---- micro-kernel ------------------------------------------------------------------------ */

/* acc (MR×NR) = Σ_k A(i, k) · bp[k·NR + j] over kc steps in k order, one FMA chain per element,
 * for the first `rows` rows of the tile (the others are left 0). A(i, k) is at a[i·ars + k·acs];
 * the callers fix ars, acs and rows to constants (rows of a row-major A, or a packed strip; a
 * full or an edge strip), so after inlining the broadcasts use constant offsets and an edge
 * strip of few rows does not pay for MR. */
static ALWAYS_INLINE void tile_fma(vec acc[MR][NV], const real *a, long ars, long acs,
                                   const real *bp, int kc, int rows) {
    UNROLL
    for (int i = 0; i < MR; i++)
        UNROLL
        for (int v = 0; v < NV; v++) acc[i][v] = vzero();
    for (int k = 0; k < kc; k++) {
        vec b[NV];
        UNROLL
        for (int v = 0; v < NV; v++) b[v] = vload(bp + v * VL);
        UNROLL
        for (int i = 0; i < rows; i++) {
            vec x = vbcast(a[i * ars]);
            UNROLL
            for (int v = 0; v < NV; v++) acc[i][v] = vfma(x, b[v], acc[i][v]);
        }
        a += acs;
        bp += NR;
    }
}

/* A full MR×NR tile at c (row stride ldc): c = alpha·acc (+ bias[j]) when first, else
 * c = c + alpha·acc, each with one FMA. Inlined, so the accumulators never leave registers. */
static ALWAYS_INLINE void tile_store(vec acc[MR][NV], real *c, long ldc, real alpha,
                                     const real *bias, int first) {
    vec va = vbcast(alpha);
    UNROLL
    for (int i = 0; i < MR; i++)
        UNROLL
        for (int v = 0; v < NV; v++) {
            real *p = c + i * ldc + v * VL;
            vec base = !first ? vload(p) : bias ? vload(bias + v * VL) : vzero();
            vstore(p, vfma(va, acc[i][v], base));
        }
}

/* tile_store for an edge tile (mr < MR or nr < NR): through a zero-padded copy, so that its
 * elements take exactly the same arithmetic as interior ones. */
static void tile_store_edge(vec acc[MR][NV], real *c, long ldc, int mr, int nr, real alpha,
                            const real *bias, int first) {
    real t[MR][NR] = {{0}}, tb[NR] = {0};
    for (int i = 0; i < mr; i++) memcpy(t[i], c + i * ldc, (size_t)nr * sizeof(real));
    if (bias) memcpy(tb, bias, (size_t)nr * sizeof(real));
    tile_store(acc, &t[0][0], NR, alpha, bias ? tb : NULL, first);
    for (int i = 0; i < mr; i++) memcpy(c + i * ldc, t[i], (size_t)nr * sizeof(real));
}

/* ---- the GEMM ---------------------------------------------------------------------------- */

/* One product C (M×N, row stride ldc) = or += alpha · A (M×K) · B (K×N), see matmul.h. */
typedef struct {
    int M, N, K;
    MatView A, B;
    real *C;
    long ldc;
    real alpha;
    const real *bias; /* (N) or NULL; only with overwrite */
    int overwrite;    /* C = alpha·A·B + bias instead of C += alpha·A·B */
    MatTri tri;
} Gemm;

static int min_int(int a, int b) { return a < b ? a : b; }
static int max_int(int a, int b) { return a > b ? a : b; }

/* bp[k·NR + jj] = B(k0 + k, j0 + jj) for k < kc, jj < nr; zero for nr <= jj < NR. */
static void pack_b_panel(real *bp, MatView B, int k0, int kc, int j0, int nr) {
    if (B.cs == 1) { /* rows of B are contiguous: copy nr values per k */
        for (int k = 0; k < kc; k++) {
            real *dst = bp + (long)k * NR;
            const real *src = B.p + (long)(k0 + k) * B.rs + j0;
            if (nr == NR) /* a constant size: two vector moves (a variable one became rep movs,
                             whose start-up cost made packing 10% of a step) */
                memcpy(dst, src, NR * sizeof(real));
            else {
                memcpy(dst, src, (size_t)nr * sizeof(real));
                for (int jj = nr; jj < NR; jj++) dst[jj] = 0;
            }
        }
        return;
    }
    if (nr == NR && B.cs < INT_MAX / NR) { /* a transposition: VL columns per gather */
        for (int k = 0; k < kc; k++)
            for (int v = 0; v < NV; v++)
                vstore(bp + (long)k * NR + v * VL,
                       vgather(B.p + (long)(j0 + v * VL) * B.cs + (long)(k0 + k) * B.rs, (int)B.cs));
        return;
    }
    for (int jj = 0; jj < nr; jj++) { /* columns of B are contiguous (B = Wᵀ): read along k */
        const real *src = B.p + (long)(j0 + jj) * B.cs + (long)k0 * B.rs;
        for (int k = 0; k < kc; k++) bp[(long)k * NR + jj] = src[(long)k * B.rs];
    }
    for (int jj = nr; jj < NR; jj++)
        for (int k = 0; k < kc; k++) bp[(long)k * NR + jj] = 0;
}

/* ap[k·MR + ii] = A(i0 + ii, k0 + k) for ii < mr; zero for mr <= ii < MR. */
static void pack_a_strip(real *ap, MatView A, int i0, int mr, int k0, int kc) {
    for (int k = 0; k < kc; k++) {
        real *dst = ap + (long)k * MR;
        const real *src = A.p + (long)i0 * A.rs + (long)(k0 + k) * A.cs;
        if (A.rs == 1 && mr == MR) /* Aᵀ stored row-major (doutᵀ, Pᵀ): mr contiguous values */
            memcpy(dst, src, MR * sizeof(real)); /* (a constant size: a few vector moves) */
        else if (A.rs == 1)
            memcpy(dst, src, (size_t)mr * sizeof(real));
        else
            for (int ii = 0; ii < mr; ii++) dst[ii] = src[(long)ii * A.rs];
        for (int ii = mr; ii < MR; ii++) dst[ii] = 0;
    }
}

/* Packs the micro-panels of B's block of columns jc .. jc+nc-1 and rows pc .. pc+kc-1. */
static void pack_b_block(const Gemm *g, real *bpack, int jc, int nc, int pc, int kc) {
    for (int jp = 0; jp * NR < nc; jp++)
        pack_b_panel(bpack + (long)jp * kc * NR, g->B, pc, kc, jc + jp * NR,
                     min_int(NR, nc - jp * NR));
}

/* The k range [lo, hi) that strip rows i0 .. i0+mr-1 need, given A's triangle. */
static void strip_k_range(const Gemm *g, int i0, int mr, int *lo, int *hi) {
    *lo = g->tri == MAT_A_UPPER ? min_int(i0, g->K) : 0;
    *hi = g->tri == MAT_A_LOWER ? min_int(i0 + mr, g->K) : g->K;
}

/* Whether an A strip read in place (MR rows of a row-major A, row stride rs reals) is copied
 * first into rows AR_LD apart: when rs is a multiple of 4 KB, all MR rows fall into one set of
 * the L1 cache (64 sets of 64-byte lines on the machines we measure), more lines than it has
 * ways once the B panel's lines pass through it. Measured (bench --kernels, Zen 5, one thread,
 * old and new alternated over four rounds): in the two rounds where the fc layer's dinp and
 * fc2's forward (rs = 4·d_model) ran at 122–137 GFLOP/s (the other products 150–190), the copy
 * ran them at 155–191; in the other two rounds both ran at 174–198 (docs/performance.md). */
static int copy_rows(long rs) { return (rs * (long)sizeof(real)) % 4096 == 0; }

/* Multiplies the MR-row strip s by the packed B block (columns jc .. jc+nc-1, rows pc .. pc+kc-1)
 * into C. ap: MR·AR_LD reals for packing the strip, or copying its rows (copy_rows). */
static void gemm_strip(const Gemm *g, int s, int jc, int nc, int pc, int kc, const real *bpack,
                       real *ap) {
    int i0 = s * MR, mr = min_int(MR, g->M - i0), lo, hi;
    strip_k_range(g, i0, mr, &lo, &hi);
    int ks = max_int(pc, lo), ke = min_int(pc + kc, hi);
    if (lo >= hi && g->overwrite && pc == 0) /* A's rows are all zero here (MAT_A_UPPER, i >= K) */
        for (int i = 0; i < mr; i++)
            for (int j = jc; j < jc + nc; j++)
                g->C[(long)(i0 + i) * g->ldc + j] = g->bias ? g->bias[j] : 0;
    if (ks >= ke) return;
    /* the first K block a strip touches (the one holding its first nonzero column, lo) stores
     * instead of adding when overwriting */
    int first = g->overwrite && ks == lo;
    /* rows of a row-major A are read in place; an edge strip is packed so that its missing rows
     * are zeros and not reads past A, and so is a transposed A (i contiguous) */
    int in_place = g->A.cs == 1 && mr == MR;
    const real *ar = g->A.p + (long)i0 * g->A.rs + ks;
    int copied = in_place && copy_rows(g->A.rs);
    if (!in_place)
        pack_a_strip(ap, g->A, i0, mr, ks, ke - ks);
    else if (copied)
        for (int i = 0; i < MR; i++)
            memcpy(ap + i * AR_LD, ar + i * g->A.rs, (size_t)(ke - ks) * sizeof(real));
    for (int jp = 0; jp * NR < nc; jp++) {
        int j0 = jc + jp * NR, nr = min_int(NR, nc - jp * NR);
        if (g->tri == MAT_C_LOWER && j0 > i0 + mr - 1) break; /* tile wholly above the diagonal */
        const real *bp = bpack + (long)jp * kc * NR + (long)(ks - pc) * NR;
        real *c = g->C + (long)i0 * g->ldc + j0;
        const real *bias = g->bias ? g->bias + j0 : NULL;
        vec acc[MR][NV];
        /* edge strips (attention's T is often not a multiple of MR) take a kernel of a third or
         * two thirds of the rows: the rows past mr are zeros of the packed strip */
        if (copied)
            tile_fma(acc, ap, AR_LD, 1, bp, ke - ks, MR);
        else if (in_place)
            tile_fma(acc, ar, g->A.rs, 1, bp, ke - ks, MR);
        else if (mr > 2 * MR / 3)
            tile_fma(acc, ap, 1, MR, bp, ke - ks, MR);
        else if (mr > MR / 3)
            tile_fma(acc, ap, 1, MR, bp, ke - ks, 2 * MR / 3);
        else
            tile_fma(acc, ap, 1, MR, bp, ke - ks, MR / 3 > 0 ? MR / 3 : 1);
        if (mr == MR && nr == NR)
            tile_store(acc, c, g->ldc, g->alpha, bias, first);
        else
            tile_store_edge(acc, c, g->ldc, mr, nr, g->alpha, bias, first);
    }
}

/* Columns per packed B block that a scratch of len reals allows (a multiple of NR). */
static int block_width(size_t len) {
    size_t w = len / KC / NR * NR;
    return w > NC_MAX ? NC_MAX : (int)w;
}

/* The calling thread: C's strips s0 .. s1-1 times its columns n0 .. n1-1, B packed into bpack
 * (len >= KC·NR reals) one block of columns at a time. */
static void gemm_rect(const Gemm *g, int s0, int s1, int n0, int n1, real *bpack, size_t len) {
    _Alignas(64) real ap[MR * AR_LD];
    int nc_max = block_width(len);
    for (int jc = n0; jc < n1; jc += nc_max) {
        int nc = min_int(nc_max, n1 - jc);
        /* with MAT_C_LOWER, strips wholly above the diagonal of this block are skipped */
        int sfirst = g->tri == MAT_C_LOWER ? max_int(s0, jc / MR) : s0;
        for (int pc = 0; pc < g->K; pc += KC) {
            int kc = min_int(KC, g->K - pc);
            pack_b_block(g, bpack, jc, nc, pc, kc);
            for (int s = sfirst; s < s1; s++) gemm_strip(g, s, jc, nc, pc, kc, bpack, ap);
        }
    }
}

/* [lo, hi): thread t's share of n units, T threads, contiguous, sizes differing by at most 1. */
static void share(int n, int t, int T, int *lo, int *hi) {
    *lo = (int)((long)n * t / T);
    *hi = (int)((long)n * (t + 1) / T);
}

/* Fraction of T threads' time spent working when n equal units are shared out. */
static double balance(int n, int T) { return n / (double)(T * ((n + T - 1) / T)); }

int matmul_share_strips(int strips, int panels, int threads) {
    return strips >= 16 * threads || balance(strips, threads) >= balance(panels, threads);
}

/* This thread's id and the team size, (0, 1) outside a parallel region or without OpenMP. */
static void team(int *t, int *T) {
    *t = 0;
    *T = 1;
#ifdef _OPENMP
    *t = omp_get_thread_num();
    *T = omp_get_num_threads();
#endif
}

/* The calling thread's share of the product, when every thread of a parallel region calls it:
 * each computes its own rectangle of C, the strips or the NR-column panels being shared out
 * (matmul_share_strips). Each packs the B it needs into its own part of the scratch
 * (or, if that is too small, its own stack), so the threads never wait for one another. */
static void gemm_share(const Gemm *g, real *scratch, size_t len) {
    int t, T, strips = (g->M + MR - 1) / MR, panels = (g->N + NR - 1) / NR;
    team(&t, &T);
    int s0 = 0, s1 = strips, p0 = 0, p1 = panels;
    if (matmul_share_strips(strips, panels, T))
        share(strips, t, T, &s0, &s1);
    else
        share(panels, t, T, &p0, &p1);
    size_t mine = scratch ? len / (size_t)T / 16 * 16 : 0; /* parts stay 64-byte aligned */
    _Alignas(64) real stack[KC * NR];
    real *bpack = stack;
    if (mine >= (size_t)KC * NR)
        bpack = scratch + (size_t)t * mine;
    else
        mine = KC * NR;
    if (s0 < s1 && p0 < p1) gemm_rect(g, s0, s1, p0 * NR, min_int(p1 * NR, g->N), bpack, mine);
}

/* The calling thread alone, packing B on the stack, SERIAL_PANELS micro-panels at a time (enough
 * for a head of 64 channels, so that attention packs each A strip once). */
enum { SERIAL_PANELS = 64 / NR > 1 ? 64 / NR : 1 };

static void gemm_serial(const Gemm *g) {
    _Alignas(64) real bpack[KC * NR * SERIAL_PANELS];
    gemm_rect(g, 0, (g->M + MR - 1) / MR, 0, g->N, bpack, KC * NR * SERIAL_PANELS);
}

void matmul_gemm(int M, int N, int K, real alpha, MatView A, MatView B, real *C, long ldc,
                 int overwrite, MatTri tri) {
    Gemm g = {M, N, K, A, B, C, ldc, alpha, NULL, overwrite, tri};
    gemm_serial(&g);
}

/* ---- the linear layer -------------------------------------------------------------------- */

size_t matmul_scratch_len(int max_width) {
    size_t w = (size_t)(max_width + NR - 1) / NR * NR, threads = 1;
    if (w > NC_MAX) w = NC_MAX;
#ifdef _OPENMP
    threads = (size_t)omp_get_max_threads();
#endif
    return threads * KC * w;
}

/* One parallel region per call, and no barrier inside it but the closing one. */
void matmul_forward_scratch(real *out, const real *inp, const real *weight, const real *bias,
                            int N, int C, int OC, real *scratch, size_t scratch_len) {
    MatView x = {inp, C, 1};     /* A(n, c) = inp[n·C + c] */
    MatView wT = {weight, 1, C}; /* B(c, o) = weight[o·C + c] */
    Gemm g = {N, OC, C, x, wT, out, OC, R(1.0), bias, 1, MAT_FULL};
#pragma omp parallel
    gemm_share(&g, scratch, scratch_len);
}

/* The calling thread's share of dbias[o] += Σ_n dout[n·OC + o], rows summed in order. Threads
 * take chunks of BW columns; within a chunk the columns are independent sums, vectorised across
 * (no reassociation). */
enum { BW = 64 };

static void bias_grad_chunk(real *dbias, const real *dout, int N, int OC, int w) {
    real acc[BW] = {0};
    if (w == BW) /* the usual case, with a constant trip count the compiler vectorises */
        for (int n = 0; n < N; n++)
            for (int j = 0; j < BW; j++) acc[j] += dout[(long)n * OC + j];
    else
        for (int n = 0; n < N; n++)
            for (int j = 0; j < w; j++) acc[j] += dout[(long)n * OC + j];
    for (int j = 0; j < w; j++) dbias[j] += acc[j];
}

void matmul_bias_grad_share(real *dbias, const real *dout, int N, int OC) {
    int t, T, lo, hi;
    team(&t, &T);
    share((OC + BW - 1) / BW, t, T, &lo, &hi);
    for (int ch = lo; ch < hi; ch++)
        bias_grad_chunk(dbias + ch * BW, dout + ch * BW, N, OC, min_int(BW, OC - ch * BW));
}

/* The backward's two products: dinp (N, C) = dout · W (overwrite), dweight (OC, C) += doutᵀ · inp. */
static Gemm dinp_gemm(real *dinp, const real *dout, const real *weight, int N, int C, int OC) {
    MatView dy = {dout, OC, 1}; /* dout (N, OC) */
    MatView w = {weight, C, 1}; /* weight (OC, C) */
    return (Gemm){N, C, OC, dy, w, dinp, C, R(1.0), NULL, 1, MAT_FULL};
}

static Gemm dweight_gemm(real *dweight, const real *dout, const real *inp, int N, int C, int OC) {
    MatView dyT = {dout, 1, OC}; /* doutᵀ (OC, N) */
    MatView x = {inp, C, 1};     /* inp (N, C) */
    return (Gemm){OC, C, N, dyT, x, dweight, C, R(1.0), NULL, 0, MAT_FULL};
}

/* dinp, dweight and dbias are independent outputs, so each thread does its share of all three
 * in one parallel region, without waiting for the others in between. */
void matmul_backward_scratch(real *dinp, real *dweight, real *dbias, const real *dout,
                             const real *inp, const real *weight, int N, int C, int OC,
                             real *scratch, size_t scratch_len) {
    Gemm gx = dinp_gemm(dinp, dout, weight, N, C, OC);
    Gemm gw = dweight_gemm(dweight, dout, inp, N, C, OC);
#pragma omp parallel
    {
        gemm_share(&gx, scratch, scratch_len);
        gemm_share(&gw, scratch, scratch_len);
        if (dbias) matmul_bias_grad_share(dbias, dout, N, OC);
    }
}

void matmul_backward_input_scratch(real *dinp, const real *dout, const real *weight, int N, int C,
                                   int OC, real *scratch, size_t scratch_len) {
    Gemm g = dinp_gemm(dinp, dout, weight, N, C, OC);
#pragma omp parallel
    gemm_share(&g, scratch, scratch_len);
}

void matmul_backward_weight_scratch(real *dweight, const real *dout, const real *inp, int N,
                                    int C, int OC, real *scratch, size_t scratch_len) {
    Gemm g = dweight_gemm(dweight, dout, inp, N, C, OC);
#pragma omp parallel
    gemm_share(&g, scratch, scratch_len);
}

void matmul_forward(real *out, const real *inp, const real *weight, const real *bias, int N,
                    int C, int OC) {
    matmul_forward_scratch(out, inp, weight, bias, N, C, OC, NULL, 0);
}

void matmul_backward(real *dinp, real *dweight, real *dbias, const real *dout, const real *inp,
                     const real *weight, int N, int C, int OC) {
    matmul_backward_scratch(dinp, dweight, dbias, dout, inp, weight, N, C, OC, NULL, 0);
}
