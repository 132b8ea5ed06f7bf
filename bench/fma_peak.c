/* fma_peak.c: the machine's ceilings for `make bench`: one core's fused multiply-add throughput,
 * and its AVX512_BF16 dot-product throughput (the ceiling of model.matmul = bf16 steps).
 *
 * 16 independent chains of 16-float vector FMAs (a = a·x + y), enough to cover the FMA latency
 * of both pipes on current x86 cores, so the loop is bound by FMA issue alone. Built with the
 * product's flags: a -march=native binary on an AVX-512 CPU measures the 512-bit peak, a
 * portable x86-64-v3 build the 256-bit one, each the ceiling of that build's own kernels.
 * GCC vector extensions, not intrinsics: the same source for either width. */
#include "fma_peak.h"

#include <time.h>

#include "model/matmul_bf16.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_BF16_PROBE 1
#include <immintrin.h>
#else
#define HAVE_BF16_PROBE 0
#endif

typedef float v16 __attribute__((vector_size(64)));

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 2·16·16 FLOPs per iteration; the sum of the chains is returned so no chain is dead code. */
/* x and y by pointer: a 64-byte vector passed by value changes the ABI without AVX-512, which
 * clang reports as an error (-Wpsabi) on an AVX2-only CPU with -march=native. */
static float fma_chains(long iters, v16 acc[16], const v16 *xp, const v16 *yp) {
    v16 x = *xp, y = *yp;
    for (long i = 0; i < iters; i++)
        for (int j = 0; j < 16; j++) acc[j] = acc[j] * x + y; /* one FMA: -ffp-contract=fast */
    float s = 0;
    for (int j = 0; j < 16; j++)
        for (int l = 0; l < 16; l++) s += acc[j][l];
    return s;
}

/* Where the chains' sum goes, so that the compiler cannot drop them as unused. */
static volatile float sink;

/* The probe's starting values, the same on every thread. */
static void chains_init(v16 acc[16], v16 *x, v16 *y) {
    for (int l = 0; l < 16; l++) {
        (*x)[l] = 0.999f;
        (*y)[l] = 1e-4f;
    }
    for (int j = 0; j < 16; j++)
        for (int l = 0; l < 16; l++) acc[j][l] = (float)j;
}

double fma_peak_gflops(double seconds) {
    v16 acc[16], x, y;
    chains_init(acc, &x, &y);
    const long iters = 1L << 20; /* ~30 M FMAs per probe: a few ms */
    double best = 0, spent = 0;
    float s = 0;
    while (spent < seconds) {
        double t0 = now_s();
        s += fma_chains(iters, acc, &x, &y);
        double dt = now_s() - t0;
        spent += dt;
        double g = 2.0 * 16 * 16 * (double)iters / dt / 1e9;
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
        {
            v16 acc[16], x, y;
            chains_init(acc, &x, &y);
            s += fma_chains(iters, acc, &x, &y);
        }
        double dt = now_s() - t0;
        spent += dt;
        double g = 2.0 * 16 * 16 * (double)iters * threads / dt / 1e9;
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
