/* bench_util.h: the small chores every part of `make bench` shares (the clock, the thread count,
 * a comparator); header-only, so that no part includes another's header for them. */
#ifndef SCALEDOT_BENCH_UTIL_H
#define SCALEDOT_BENCH_UTIL_H

#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Seconds on clock `id`; now_s is the monotonic one. Inline here (as when the bench was one file)
 * so that the timing wrappers around each kernel call cost no extra call. */
static inline double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

/* The number of OpenMP threads of the next parallel regions (nothing without OpenMP). */
static inline void set_threads(int n) {
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

/* qsort comparator for ascending doubles. */
static inline int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
