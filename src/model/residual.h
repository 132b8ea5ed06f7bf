/* residual.h: the residual connection x + f(x) (He et al. 2016, eq. 1). */
#ifndef SCALEDOT_RESIDUAL_H
#define SCALEDOT_RESIDUAL_H

#include "model/real.h"

/* out = a + b, elementwise over N values. */
void residual_forward(real *out, const real *a, const real *b, long N);

/* There is no residual_backward: the sum passes its gradient unchanged to both inputs, so
 * model_backward hands the same buffer to both (tests/test_residual.c checks that identity by
 * finite differences). */

#endif
