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
 * per instruction, the forward's Wᵀ panel by 16 × 16 transpositions in registers.
 *
 * Files: this one holds the rounding's public entry points, the kernel selection, the GEMM driver
 * and the linear layer; matmul_bf16_pack.c the C packers; matmul_bf16_portable.c,
 * matmul_bf16_avx2.c and matmul_bf16_avx512.c the kernels (the last with its packers);
 * matmul_bf16_internal.h what they share. */
#include "model/matmul_bf16.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include "model/matmul.h"
#include "model/matmul_bf16_internal.h"

uint16_t bf16_from_float(float x) { return (uint16_t)(round_hi(float_bits(x)) >> 16); }

float bf16_to_float(uint16_t h) { return bits_float((uint32_t)h << 16); }

static int min_int(int a, int b) { return a < b ? a : b; }

/* ---- the kernel's selection --------------------------------------------------------------- */

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
    tile_fn = &bf16_ops_portable;
#if HAVE_AVX512BF16_KERNEL
    if (k == BF16_KERNEL_AVX512) tile_fn = &bf16_ops_avx512;
    if (k == BF16_KERNEL_AVX2) tile_fn = &bf16_ops_avx2;
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
