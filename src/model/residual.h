/* residual.h: the residual connection x + f(x) (He et al. 2016, eq. 1). */
#ifndef SCALEDOT_RESIDUAL_H
#define SCALEDOT_RESIDUAL_H

#include "model/real.h"

/* out = a + b, elementwise over N values. */
void residual_forward(real *out, const real *a, const real *b, long N);

/* da += dout, db += dout: the sum passes its gradient unchanged to both branches. */
void residual_backward(real *da, real *db, const real *dout, long N);

#endif
