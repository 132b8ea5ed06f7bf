/* gelu.h: GELU activation in its tanh form,
 * GELU(u) = 0.5·u·(1 + tanh(√(2/π)·(u + 0.044715·u³)))  (Hendrycks and Gimpel 2016, sec. 2). */
#ifndef SCALEDOT_GELU_H
#define SCALEDOT_GELU_H

#include "model/real.h"

/* tanh as GELU uses it: libm's in the double build; in float a branch-free form that the
 * compiler vectorises (absolute error below 1e-6 of libm's tanhf; see gelu.c). */
real gelu_tanh(real x);

/* out[i] = GELU(inp[i]) and dgelu[i] = GELU'(inp[i]), the exact derivative of the tanh form,
 * over N values. dgelu may be inp (backward needs only the derivative, not the input). */
void gelu_forward(real *out, real *dgelu, const real *inp, long N);

/* dinp[i] = dgelu[i] · dout[i] (overwritten; dinp may be dout), dgelu from gelu_forward. */
void gelu_backward(real *dinp, const real *dgelu, const real *dout, long N);

#endif
