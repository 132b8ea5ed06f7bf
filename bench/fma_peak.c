/* fma_peak.c: the machine's ceiling for `make bench`, one core's fused multiply-add throughput.
 *
 * 16 independent chains of 16-float vector FMAs (a = a·x + y), enough to cover the FMA latency
 * of both pipes on current x86 cores, so the loop is bound by FMA issue alone. Built with the
 * product's flags: a -march=native binary on an AVX-512 CPU measures the 512-bit peak, a
 * portable x86-64-v3 build the 256-bit one, each the ceiling of that build's own kernels.
 * GCC vector extensions, not intrinsics: the same source for either width. */
#include "fma_peak.h"

#include <time.h>

typedef float v16 __attribute__((vector_size(64)));

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 2·16·16 FLOPs per iteration; the sum of the chains is returned so no chain is dead code. */
static float fma_chains(long iters, v16 acc[16], v16 x, v16 y) {
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
        s += fma_chains(iters, acc, x, y);
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
            s += fma_chains(iters, acc, x, y);
        }
        double dt = now_s() - t0;
        spent += dt;
        double g = 2.0 * 16 * 16 * (double)iters * threads / dt / 1e9;
        if (g > best) best = g;
    }
    sink = s;
    return best;
}
