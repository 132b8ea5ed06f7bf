/* fma_peak.h: one core's measured FMA throughput, the ceiling `make bench` reports against. */
#ifndef SCALEDOT_FMA_PEAK_H
#define SCALEDOT_FMA_PEAK_H

/* The best of repeated short probes over `seconds` of wall time, in GFLOP/s (an FMA counts 2
 * FLOPs), on the calling thread. The best, not the median: the ceiling is what the core can do
 * when nothing else runs; a busy machine only lowers probes. */
double fma_peak_gflops(double seconds);

#endif
