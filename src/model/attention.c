#include "model/attention.h"

void attention_forward(real *out, real *preatt, real *att, const real *qkv, int B, int T, int C,
                       int NH, real scale) {
    int hs = C / NH;
    long C3 = 3L * C;
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            const real *base = qkv + (long)b * T * C3;
            real *pre = preatt + ((long)b * NH + h) * T * T;
            real *p = att + ((long)b * NH + h) * T * T;
            for (int i = 0; i < T; i++) {
                const real *q = base + i * C3 + h * hs;
                real *zrow = pre + (long)i * T;
                real *prow = p + (long)i * T;
                real maxv = -INFINITY;
                for (int j = 0; j <= i; j++) {
                    const real *k = base + j * C3 + C + h * hs;
                    real dot = 0;
                    for (int d = 0; d < hs; d++) dot += q[d] * k[d];
                    zrow[j] = dot * scale;
                    if (zrow[j] > maxv) maxv = zrow[j];
                }
                real sum = 0;
                for (int j = 0; j <= i; j++) {
                    prow[j] = rexp(zrow[j] - maxv);
                    sum += prow[j];
                }
                real inv = R(1.0) / sum;
                for (int j = 0; j <= i; j++) prow[j] *= inv;
                for (int j = i + 1; j < T; j++) zrow[j] = prow[j] = 0;
                real *o = out + ((long)b * T + i) * C + h * hs;
                for (int d = 0; d < hs; d++) o[d] = 0;
                for (int j = 0; j <= i; j++) {
                    const real *v = base + j * C3 + 2 * C + h * hs;
                    real w = prow[j];
                    for (int d = 0; d < hs; d++) o[d] += w * v[d];
                }
            }
        }
}

void attention_backward(real *dqkv, real *dpreatt, const real *dout, const real *qkv,
                        const real *att, int B, int T, int C, int NH, real scale) {
    int hs = C / NH;
    long C3 = 3L * C;
#pragma omp parallel for collapse(2) schedule(static)
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            const real *base = qkv + (long)b * T * C3;
            real *dbase = dqkv + (long)b * T * C3;
            const real *p = att + ((long)b * NH + h) * T * T;
            real *dz = dpreatt + ((long)b * NH + h) * T * T;
            for (int i = 0; i < T; i++) {
                const real *prow = p + (long)i * T;
                real *dzrow = dz + (long)i * T;
                const real *dy = dout + ((long)b * T + i) * C + h * hs;
                /* dp_j = dy·v_j; dv_j += p_ij·dy */
                real pdp = 0;
                for (int j = 0; j <= i; j++) {
                    const real *v = base + j * C3 + 2 * C + h * hs;
                    real *dv = dbase + j * C3 + 2 * C + h * hs;
                    real dp = 0;
                    for (int d = 0; d < hs; d++) {
                        dp += dy[d] * v[d];
                        dv[d] += prow[j] * dy[d];
                    }
                    dzrow[j] = dp;
                    pdp += prow[j] * dp;
                }
                /* softmax backward, then through z = scale·q·k */
                const real *q = base + i * C3 + h * hs;
                real *dq = dbase + i * C3 + h * hs;
                for (int j = 0; j <= i; j++) {
                    dzrow[j] = prow[j] * (dzrow[j] - pdp);
                    real g = dzrow[j] * scale;
                    const real *k = base + j * C3 + C + h * hs;
                    real *dk = dbase + j * C3 + C + h * hs;
                    for (int d = 0; d < hs; d++) {
                        dq[d] += g * k[d];
                        dk[d] += g * q[d];
                    }
                }
                for (int j = i + 1; j < T; j++) dzrow[j] = 0;
            }
        }
}
