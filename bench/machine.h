/* machine.h: what `make bench`'s figures are measured on and held to: the CPU's name and its
 * measured FMA and bf16 ceilings (machine.c, over fma_peak.c's probes). */
#ifndef SCALEDOT_MACHINE_H
#define SCALEDOT_MACHINE_H

/* One core's FMA peak in GFLOP/s over FMA_RUNS probes: the fastest run (the ceiling %peak is
 * against), the median and the slowest; all 0 when not measured. */
typedef struct {
    double best, median, min;
    /* the probe on team_threads threads at once (fma_team_gflops), fastest and slowest of
     * FMA_RUNS; team_threads 0 when not measured */
    int team_threads;
    double team_best, team_min;
    /* the bf16 probe (bf16_peak_gflops), the ceiling of bf16 steps, the same way; all 0 when
     * the CPU has no AVX512_BF16 */
    double bf16_best, bf16_median, bf16_min, bf16_team_best, bf16_team_min;
} Peak;

/* The one-core ceiling of a path (0 float32: the FMA probe; 1 bf16: the bf16 probe, or the FMA
 * probe's when the CPU has no AVX512_BF16), its fastest (slow = 0) or slowest run. */
double peak_ceiling(const Peak *p, int path, int slow);

/* Prints the CPU model name from /proc/cpuinfo and the online CPU count. */
void print_cpu(void);
/* Runs the FMA probe FMA_RUNS times for `seconds` each; prints and returns the spread. */
Peak measure_peak(double seconds);
/* The probe FMA_RUNS times on team_threads threads at once; prints the spread against p's
 * one-core best and fills p's team fields. Starts OpenMP threads in the calling process, so
 * call it after the last run_in_child: libgomp's thread pool does not survive fork(), and a
 * child forked after it would wait forever at its first parallel region. */
void measure_team_peak(Peak *p, double seconds, int team_threads);

#endif
