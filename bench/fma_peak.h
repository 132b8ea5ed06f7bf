/* fma_peak.h: one core's measured FMA and bf16 dot-product throughput, the ceilings `make bench`
 * reports against. */
#ifndef SCALEDOT_FMA_PEAK_H
#define SCALEDOT_FMA_PEAK_H

/* The best of repeated short probes over `seconds` of wall time, in GFLOP/s (an FMA counts 2
 * FLOPs), on the calling thread. The best, not the median: the ceiling is what the core can do
 * when nothing else runs; a busy machine only lowers probes. */
double fma_peak_gflops(double seconds);

/* The same probe on `threads` threads at once, each its own chains, for `seconds` of wall time:
 * the best total GFLOP/s of one parallel region (fixed work per thread, so the slowest thread
 * sets the time, as it sets a training step's). Against `threads` × fma_peak_gflops it is the
 * machine's own multi-core ceiling: cores that share a power or frequency budget, or a host
 * that gives the second vCPU less, lower it before any code of ours runs. */
double fma_team_gflops(double seconds, int threads);

/* The FMA probe's shape in this build: independent chains, and bytes per vector. */
int fma_probe_chains(void);
int fma_probe_bytes(void);

/* The bf16 ceiling, the same way: chains of AVX512_BF16 `vdpbf16ps` (two bf16 products summed
 * into each float32 lane; a product and its addition count 2 FLOPs), best GFLOP/s of repeated
 * probes on the calling thread, or on `threads` threads at once. 0 when the CPU has no
 * AVX512_BF16 (model.matmul = bf16 then runs its portable kernel, with no ceiling of its own). */
double bf16_peak_gflops(double seconds);
double bf16_team_gflops(double seconds, int threads);

#endif
