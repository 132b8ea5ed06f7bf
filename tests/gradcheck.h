/* gradcheck.h: finite-difference gradient checking shared by the test_<kernel> programs.
 *
 * A test wraps its forward pass in a GcLossFn that returns a scalar loss (usually Σ w_i·y_i with
 * fixed random weights w, so the backward kernel's dout is w), gets numeric gradients by central
 * differences in double, and compares them with the backward kernel's output by the max relative
 * error  max_i |a_i − n_i| / max(max_i |n_i|, GC_TINY).  Every comparison also asserts that the
 * analytic gradient multiplied by GC_BREAK (1.01) would FAIL the same tolerance, so each run
 * proves that the check would catch a backward kernel that is wrong by 1 %. Meant for the
 * double-precision build (-DSCALEDOT_DOUBLE); it compiles in float too. */
#ifndef SCALEDOT_GRADCHECK_H
#define SCALEDOT_GRADCHECK_H

#include <check.h>
#include <stddef.h>

#include "model/real.h"
#include "util/rng.h"

#define GC_H 1e-6     /* default finite-difference step */
#define GC_TOL 1e-6   /* default bound on the max relative error */
#define GC_BREAK 1.01 /* a kernel wrong by this factor must fail the bound */
#define GC_TINY 1e-12 /* floor of the denominator of the relative error */
#define GC_PREFILL 0.75 /* what the accumulation tests put in a gradient buffer first */

/* The scalar loss at the current contents of the buffers ctx refers to. */
typedef double (*GcLossFn)(void *ctx);

/* num[i] = (L(x_i + h) − L(x_i − h)) / (actual step) for i < n, one x_i at a time; each x_i is
 * restored exactly. The step is taken as the representable difference (x_i+h) − (x_i−h), so a
 * large |x_i| does not bias the quotient. */
void gc_numeric(real *x, size_t n, GcLossFn loss, void *ctx, double h, double *num);

/* max_i |factor·(a_i − prefill) − n_i| / max(max_i |n_i|, GC_TINY); INFINITY if any value is
 * not finite. prefill is the value the gradient buffer held before the backward call (0 for a
 * zeroed buffer), since backward kernels accumulate. */
double gc_compare(const real *analytic, real prefill, const double *numeric, size_t n,
                  double factor);

/* Returns err = gc_compare(..., 1) and sets *broken = gc_compare(..., GC_BREAK); prints both
 * (unless gc_quiet is set) but asserts nothing. The check passes when err < tol < *broken. */
extern int gc_quiet;
double gc_report(const char *name, const real *analytic, real prefill, const double *numeric,
                 size_t n, double tol, double *broken);

/* gc_report, then Check-asserts err < tol (the gradient is right) and *broken > tol (the check
 * would catch a 1 % error), naming `name` on failure. Returns the error. */
double gc_expect(const char *name, const real *analytic, real prefill, const double *numeric,
                 size_t n, double tol);

/* gc_numeric over x followed by gc_expect; the numeric buffer is allocated internally. */
double gc_check(const char *name, real *x, size_t n, GcLossFn loss, void *ctx, double h,
                const real *analytic, real prefill, double tol);

/* x[i] = mean + std·N(0,1) from rng, i < n. */
void gc_fill_normal(real *x, size_t n, Rng *rng, double mean, double std);

/* A malloc'd array of n N(0,1) draws from rng (the caller frees); fails the test when memory
 * runs out. */
real *gc_normal_array(size_t n, Rng *rng);
/* x[i] = v, i < n. */
void gc_fill(real *x, size_t n, real v);
/* Σ w_i·y_i summed in double. */
double gc_dot(const real *w, const real *y, size_t n);
/* calloc that aborts the test on failure. */
void *gc_alloc(size_t n, size_t size);

#endif
