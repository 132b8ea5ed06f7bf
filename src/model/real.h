/* real.h: the floating-point type of every tensor.
 *
 * The product is float32. The gradient-check tests build the same kernel sources with
 * -DSCALEDOT_DOUBLE, so that finite differences are accurate to ~1e-8 and a backward kernel
 * that is wrong by a factor of 1.01 fails by a wide margin instead of hiding in float noise. */
#ifndef SCALEDOT_REAL_H
#define SCALEDOT_REAL_H

#include <math.h>

#ifdef SCALEDOT_DOUBLE
typedef double real;
#define R(x) (x)
#define rexp exp
#define rlog log
#define rsqrt sqrt
#define rtanh tanh
#define rfabs fabs
#define rcosh cosh
#else
typedef float real;
#define R(x) (x##f)
#define rexp expf
#define rlog logf
#define rsqrt sqrtf
#define rtanh tanhf
#define rfabs fabsf
#define rcosh coshf
#endif

#endif
