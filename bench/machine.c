/* machine.c: what `make bench`'s figures are measured on and against: the CPU's model name, and
 * one core's FMA peak and bf16 peak (fma_peak.c) over FMA_RUNS probes each, the ceiling each shape's GFLOP/s is
 * printed as a share of (%peak against the fastest run, the table's probe range against the
 * fastest .. slowest, whose spread says how much %peak itself moves on this machine). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/matmul_bf16.h"

#include "bench_util.h"
#include "fma_peak.h"
#include "machine.h"

enum { FMA_RUNS = 5 };

Peak measure_peak(double seconds) {
    double runs[FMA_RUNS];
    for (int k = 0; k < FMA_RUNS; k++) runs[k] = fma_peak_gflops(seconds);
    qsort(runs, FMA_RUNS, sizeof runs[0], cmp_double);
    Peak p = {.min = runs[0], .median = runs[FMA_RUNS / 2], .best = runs[FMA_RUNS - 1]};
    printf("one-core FMA peak (%d chains of %d-byte vector FMAs, best probe): %.1f GFLOP/s\n"
           "  spread over %d runs of %.1f s: min %.1f, median %.1f, max %.1f GFLOP/s "
           "(max/min %.2f)\n",
           fma_probe_chains(), fma_probe_bytes(), p.best, FMA_RUNS, seconds, p.min, p.median,
           p.best, p.min > 0 ? p.best / p.min : 0);
    for (int k = 0; k < FMA_RUNS; k++) runs[k] = bf16_peak_gflops(seconds);
    qsort(runs, FMA_RUNS, sizeof runs[0], cmp_double);
    p.bf16_min = runs[0];
    p.bf16_median = runs[FMA_RUNS / 2];
    p.bf16_best = runs[FMA_RUNS - 1];
    if (p.bf16_best > 0)
        printf("one-core bf16 peak (16 chains of 64-byte vdpbf16ps, best probe): %.1f GFLOP/s = "
               "%.2fx the FMA peak\n"
               "  spread over %d runs of %.1f s: min %.1f, median %.1f, max %.1f GFLOP/s "
               "(max/min %.2f)\n",
               p.bf16_best, p.best > 0 ? p.bf16_best / p.best : 0, FMA_RUNS, seconds, p.bf16_min,
               p.bf16_median, p.bf16_best, p.bf16_min > 0 ? p.bf16_best / p.bf16_min : 0);
    else
        printf("no AVX512_BF16 on this CPU: bf16 steps run the %s kernel, %%peak against the "
               "FMA peak\n",
               matmul_bf16_kernel_name());
    return p;
}

void measure_team_peak(Peak *p, double seconds, int team_threads) {
    double runs[FMA_RUNS];
    for (int k = 0; k < FMA_RUNS; k++) runs[k] = fma_team_gflops(seconds, team_threads);
    qsort(runs, FMA_RUNS, sizeof runs[0], cmp_double);
    p->team_threads = team_threads;
    p->team_best = runs[FMA_RUNS - 1];
    p->team_min = runs[0];
    for (int k = 0; k < FMA_RUNS; k++) runs[k] = bf16_team_gflops(seconds, team_threads);
    qsort(runs, FMA_RUNS, sizeof runs[0], cmp_double);
    p->bf16_team_best = runs[FMA_RUNS - 1];
    p->bf16_team_min = runs[0];
    printf("\nthe same FMA probe on %d threads at once: best %.1f GFLOP/s = %.2fx one core's best "
           "(slowest run %.2fx):\n  the machine's own ceiling for the thread scaling below\n",
           team_threads, p->team_best, p->best > 0 ? p->team_best / p->best : 0,
           p->best > 0 ? p->team_min / p->best : 0);
    if (p->bf16_best > 0)
        printf("the bf16 probe on %d threads at once: best %.1f GFLOP/s = %.2fx one core's best "
               "(slowest run %.2fx)\n",
               team_threads, p->bf16_team_best, p->bf16_team_best / p->bf16_best,
               p->bf16_team_min / p->bf16_best);
}

/* CPU model name from /proc/cpuinfo: figures are comparable only on the same machine. */
void print_cpu(void) {
    char line[256], name[200] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            const char *c = strchr(line, ':');
            if (c) snprintf(name, sizeof name, "%s", c + 2);
            name[strcspn(name, "\n")] = 0;
            break;
        }
    if (f) fclose(f);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    printf("cpu: %s, %ld online\n", name, ncpu);
}

double peak_ceiling(const Peak *p, int path, int slow) {
    if (path == 1 && p->bf16_best > 0) return slow ? p->bf16_min : p->bf16_best;
    return slow ? p->min : p->best;
}
