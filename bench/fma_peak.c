/* fma_peak.c: the machine's ceilings for `make bench`: one core's fused multiply-add throughput,
 * and its AVX512_BF16 dot-product throughput (the ceiling of model.matmul = bf16 steps).
 *
 * Independent chains of vector FMAs (a = a·x + y), enough to cover the FMA latency of both pipes
 * on current x86 cores, so the loop is bound by FMA issue alone: with AVX-512, 16 chains of
 * 64-byte vectors (16 of the 32 zmm registers); otherwise 12 chains of 32-byte vectors, so that
 * chains, x and y fit AVX2's 16 ymm registers (16 chains of 64-byte vectors there took 32
 * registers and spilled: the probe read far below the kernels it is a ceiling for). Built with
 * the product's flags: a -march=native binary measures this CPU's peak, a portable x86-64-v3
 * build the 256-bit one, each the ceiling of that build's own kernels. GCC vector extensions,
 * not intrinsics: the same source for either width. */
#include "fma_peak.h"

#include <time.h>

#include "model/matmul_bf16.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_BF16_PROBE 1
#include <immintrin.h>
#else
#define HAVE_BF16_PROBE 0
#endif

#if defined(__AVX512F__)
enum { LANES = 16, CHAINS = 16 };
#else
enum { LANES = 8, CHAINS = 12 };
#endif
typedef float vf __attribute__((vector_size(LANES * sizeof(float))));

int fma_probe_chains(void) { return CHAINS; }
int fma_probe_bytes(void) { return LANES * (int)sizeof(float); }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 2·CHAINS·LANES FLOPs per iteration; the chains live in local variables (registers) and their
 * sum is returned so that no chain is dead code. Every thread starts from the same values. */
static float fma_chains(long iters) {
    vf acc[CHAINS], x, y;
    for (int l = 0; l < LANES; l++) {
        x[l] = 0.999f;
        y[l] = 1e-4f;
    }
    for (int j = 0; j < CHAINS; j++)
        for (int l = 0; l < LANES; l++) acc[j][l] = (float)j;
    for (long i = 0; i < iters; i++)
        for (int j = 0; j < CHAINS; j++) acc[j] = acc[j] * x + y; /* one FMA: -ffp-contract=fast */
    float s = 0;
    for (int j = 0; j < CHAINS; j++)
        for (int l = 0; l < LANES; l++) s += acc[j][l];
    return s;
}

/* Where the chains' sum goes, so that the compiler cannot drop them as unused. */
static volatile float sink;

double fma_peak_gflops(double seconds) {
    const long iters = 1L << 20; /* ~16-30 M FMAs per probe: a few ms */
    double best = 0, spent = 0;
    float s = 0;
    while (spent < seconds) {
        double t0 = now_s();
        s += fma_chains(iters);
        double dt = now_s() - t0;
        spent += dt;
        double g = 2.0 * CHAINS * LANES * (double)iters / dt / 1e9;
        if (g > best) best = g;
    }
    sink = s;
    return best;
}

double fma_team_gflops(double seconds, int threads) {
    const long iters = 1L << 20;
    double best = 0, spent = 0;
    float s = 0;
    while (spent < seconds) {
        double t0 = now_s();
#pragma omp parallel num_threads(threads) reduction(+ : s)
        s += fma_chains(iters);
        double dt = now_s() - t0;
        spent += dt;
        double g = 2.0 * CHAINS * LANES * (double)iters * threads / dt / 1e9;
        if (g > best) best = g;
    }
    sink = s;
    return best;
}

/* ---- the bf16 probe ------------------------------------------------------------------------ */

#if HAVE_BF16_PROBE
/* 16 independent chains of `vdpbf16ps` (acc += x_lo·y_lo + x_hi·y_hi in each of 16 float32
 * lanes): 16 · 16 · 2 products · 2 FLOPs = 1024 FLOPs per iteration, counted as PyTorch and
 * vendors count a bf16 multiply-add (2 FLOPs). Compiled for AVX512_BF16 by a target attribute;
 * called only when the CPU has it. x and y hold 2^-7 in every bf16 half, so the chains grow by
 * 2^-13 per step and stay finite. */
__attribute__((target("avx512bf16,avx512f,avx512bw,avx512vl"))) static float
dp_chains(long iters, float start) {
    __m512 acc[16];
    for (int j = 0; j < 16; j++) acc[j] = _mm512_set1_ps(start + (float)j);
    __m512bh x = (__m512bh)_mm512_set1_epi32(0x3c003c00), y = x;
    for (long i = 0; i < iters; i++)
        for (int j = 0; j < 16; j++) acc[j] = _mm512_dpbf16_ps(acc[j], x, y);
    __m512 s = acc[0];
    for (int j = 1; j < 16; j++) s = _mm512_add_ps(s, acc[j]);
    return _mm512_reduce_add_ps(s);
}
#endif

double bf16_peak_gflops(double seconds) {
#if HAVE_BF16_PROBE
    if (!matmul_bf16_available(BF16_KERNEL_AVX512)) return 0;
    const long iters = 1L << 20;
    double best = 0, spent = 0;
    float s = 0;
    while (spent < seconds) {
        double t0 = now_s();
        s += dp_chains(iters, 0);
        double dt = now_s() - t0;
        spent += dt;
        double g = 1024.0 * (double)iters / dt / 1e9;
        if (g > best) best = g;
    }
    sink = s;
    return best;
#else
    (void)seconds;
    return 0;
#endif
}

double bf16_team_gflops(double seconds, int threads) {
#if HAVE_BF16_PROBE
    if (!matmul_bf16_available(BF16_KERNEL_AVX512)) return 0;
    const long iters = 1L << 20;
    double best = 0, spent = 0;
    float s = 0;
    while (spent < seconds) {
        double t0 = now_s();
#pragma omp parallel num_threads(threads) reduction(+ : s)
        s += dp_chains(iters, 0);
        double dt = now_s() - t0;
        spent += dt;
        double g = 1024.0 * (double)iters * threads / dt / 1e9;
        if (g > best) best = g;
    }
    sink = s;
    return best;
#else
    (void)seconds;
    (void)threads;
    return 0;
#endif
}
