#include "gradcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int gc_quiet;

/* On one thread: the loss is thousands of forward passes over tiny shapes, where OpenMP's
 * fork and join cost far more than the work (test_model took 78 CPU seconds on two threads
 * beside a training run, 1.9 on one). The kernels give each output element one writer and a
 * summation order fixed by the shapes, so the loss is the same on any thread count
 * (test_determinism checks it bit for bit); the analytic gradient it is compared with is
 * computed by the caller on the usual thread count. */
void gc_numeric(real *x, size_t n, GcLossFn loss, void *ctx, double h, double *num) {
#ifdef _OPENMP
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    for (size_t i = 0; i < n; i++) {
        real saved = x[i];
        real xp = (real)(saved + h), xm = (real)(saved - h);
        x[i] = xp;
        double lp = loss(ctx);
        x[i] = xm;
        double lm = loss(ctx);
        x[i] = saved;
        num[i] = (lp - lm) / ((double)xp - (double)xm);
    }
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
}

double gc_compare(const real *analytic, real prefill, const double *numeric, size_t n,
                  double factor) {
    double maxn = 0, maxd = 0;
    for (size_t i = 0; i < n; i++) {
        double a = factor * ((double)analytic[i] - (double)prefill);
        if (!isfinite(a) || !isfinite(numeric[i])) return INFINITY;
        maxn = fmax(maxn, fabs(numeric[i]));
        maxd = fmax(maxd, fabs(a - numeric[i]));
    }
    return maxd / fmax(maxn, GC_TINY);
}

double gc_report(const char *name, const real *analytic, real prefill, const double *numeric,
                 size_t n, double tol, double *broken) {
    double err = gc_compare(analytic, prefill, numeric, n, 1.0);
    *broken = gc_compare(analytic, prefill, numeric, n, GC_BREAK);
    if (!gc_quiet) {
        printf("  %-50s max rel err %.2e  (tol %.0e; x%.2f gives %.2e)%s\n", name, err, tol,
               GC_BREAK, *broken, err < tol && *broken > tol ? "" : "  FAIL");
        fflush(stdout);
    }
    return err;
}

double gc_expect(const char *name, const real *analytic, real prefill, const double *numeric,
                 size_t n, double tol) {
    double broken;
    double err = gc_report(name, analytic, prefill, numeric, n, tol, &broken);
    ck_assert_msg(err < tol, "%s: analytic gradient differs from finite differences: max rel err "
                  "%.3e >= tol %.1e", name, err, tol);
    ck_assert_msg(broken > tol, "%s: check too weak: the gradient x%.2f still passes (%.3e <= %.1e)",
                  name, GC_BREAK, broken, tol);
    return err;
}

double gc_check(const char *name, real *x, size_t n, GcLossFn loss, void *ctx, double h,
                const real *analytic, real prefill, double tol) {
    double *num = gc_alloc(n, sizeof *num);
    gc_numeric(x, n, loss, ctx, h, num);
    double err = gc_expect(name, analytic, prefill, num, n, tol);
    free(num);
    return err;
}

void gc_fill_normal(real *x, size_t n, Rng *rng, double mean, double std) {
    for (size_t i = 0; i < n; i++) x[i] = (real)(mean + std * rng_normal(rng));
}

real *gc_normal_array(size_t n, Rng *rng) {
    real *x = malloc(n * sizeof(real));
    ck_assert_ptr_nonnull(x);
    gc_fill_normal(x, n, rng, 0, 1);
    return x;
}

void gc_fill(real *x, size_t n, real v) {
    for (size_t i = 0; i < n; i++) x[i] = v;
}

double gc_dot(const real *w, const real *y, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)w[i] * (double)y[i];
    return s;
}

void *gc_alloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    ck_assert_msg(p != NULL, "out of memory (%zu x %zu bytes)", n, size);
    return p;
}
