/* test_matmul_float.c: the float build's vector kernels compute the right products.
 *
 * test_matmul checks the gradients in double, which uses the portable back-end of matmul.c; the
 * product runs the AVX-512 or AVX2 one (register tiles, gathers for transposed B panels, edge
 * strips of a third or two thirds of the rows). Here the float linear layer (forward with bias,
 * backward dinp, dweight, dbias) and matmul_gemm with each MatTri are compared with a naive
 * double product, at shapes with full and partial tiles and more than one K block: relative
 * error (max |diff| / max |value|) below 1e-5. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/matmul.h"
#include "gradcheck.h"
#include "testutil.h"
#include "util/rng.h"

/* max |got − want| / max |want| over n values; asserts it is below 1e-5. */
static void assert_close(const real *got, const double *want, size_t n, const char *what) {
    double err = 0, scale = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(got[i] - want[i]);
        err = d > err || isnan(d) ? d : err;
        scale = fabs(want[i]) > scale ? fabs(want[i]) : scale;
    }
    printf("%s: relative error %.3g\n", what, err / scale);
    ck_assert_msg(err / scale < 1e-5, "%s: relative error %.3g", what, err / scale);
}

/* _i picks a shape (N, C, OC): full tiles and two K blocks; edges everywhere; one row; rows 4 KB
 * and 8 KB apart (C 1024, OC 2048 in float), whose strips the forward and dinp copy first. */
static const int shapes[][3] = {{300, 320, 256}, {37, 70, 45}, {1, 33, 17}, {40, 1024, 2048}};

START_TEST(test_linear_layer) {
    int N = shapes[_i][0], C = shapes[_i][1], OC = shapes[_i][2];
    Rng rng;
    rng_seed(&rng, 3 + (unsigned)_i);
    real *x = gc_normal_array((size_t)N * C, &rng), *w = gc_normal_array((size_t)OC * C, &rng);
    real *b = gc_normal_array(OC, &rng), *dy = gc_normal_array((size_t)N * OC, &rng);
    real *out = malloc(sizeof(real) * N * OC), *dx = malloc(sizeof(real) * N * C);
    real *dw = calloc((size_t)OC * C, sizeof(real)), *db = calloc(OC, sizeof(real));
    double *want = calloc((size_t)(N > OC ? N : OC) * (C > OC ? C : OC), sizeof(double));
    matmul_forward(out, x, w, b, N, C, OC);
    for (int n = 0; n < N; n++)
        for (int o = 0; o < OC; o++) {
            double s = b[o];
            for (int c = 0; c < C; c++) s += (double)x[n * C + c] * w[o * C + c];
            want[n * OC + o] = s;
        }
    assert_close(out, want, (size_t)N * OC, "forward out");
    for (size_t i = 0; i < (size_t)N * C; i++) dx[i] = 7; /* overwritten */
    matmul_backward(dx, dw, db, dy, x, w, N, C, OC);
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++) {
            double s = 0;
            for (int o = 0; o < OC; o++) s += (double)dy[n * OC + o] * w[o * C + c];
            want[n * C + c] = s;
        }
    assert_close(dx, want, (size_t)N * C, "backward dinp");
    for (int o = 0; o < OC; o++)
        for (int c = 0; c < C; c++) {
            double s = 0;
            for (int n = 0; n < N; n++) s += (double)dy[n * OC + o] * x[n * C + c];
            want[o * C + c] = s;
        }
    assert_close(dw, want, (size_t)OC * C, "backward dweight");
    for (int o = 0; o < OC; o++) {
        double s = 0;
        for (int n = 0; n < N; n++) s += dy[n * OC + o];
        want[o] = s;
    }
    assert_close(db, want, OC, "backward dbias");
    free(x), free(w), free(b), free(dy), free(out), free(dx), free(dw), free(db), free(want);
}
END_TEST

/* The backward's products alone (bench/kernel_lines.c times them so) give matmul_backward's
 * bits, which test_linear_layer checks against the naive product; _i picks a shape. */
START_TEST(test_backward_products_alone) {
    int N = shapes[_i][0], C = shapes[_i][1], OC = shapes[_i][2];
    Rng rng;
    rng_seed(&rng, 5 + (unsigned)_i);
    real *x = gc_normal_array((size_t)N * C, &rng), *w = gc_normal_array((size_t)OC * C, &rng);
    real *dy = gc_normal_array((size_t)N * OC, &rng), *dw0 = gc_normal_array((size_t)OC * C, &rng);
    real *dx = malloc(sizeof(real) * N * C), *dw = malloc(sizeof(real) * OC * C);
    real *dx1 = malloc(sizeof(real) * N * C), *dw1 = malloc(sizeof(real) * OC * C);
    size_t len = matmul_scratch_len(C > OC ? C : OC);
    real *scratch = malloc(len * sizeof(real));
    memcpy(dw, dw0, sizeof(real) * OC * C);
    memcpy(dw1, dw0, sizeof(real) * OC * C);
    for (size_t i = 0; i < (size_t)N * C; i++) dx1[i] = 7; /* overwritten */
    matmul_backward_scratch(dx, dw, NULL, dy, x, w, N, C, OC, scratch, len);
    matmul_backward_input_scratch(dx1, dy, w, N, C, OC, scratch, len);
    matmul_backward_weight_scratch(dw1, dy, x, N, C, OC, scratch, len);
    ck_assert_msg(memcmp(dx, dx1, sizeof(real) * N * C) == 0, "dinp alone differs");
    ck_assert_msg(memcmp(dw, dw1, sizeof(real) * OC * C) == 0, "dweight alone differs");
    free(x), free(w), free(dy), free(dw0), free(dx), free(dw), free(dx1), free(dw1), free(scratch);
}
END_TEST

/* matmul_gemm as attention uses it (T × T by T × hs and T × hs by hs × T, transposed views),
 * with each MatTri, overwrite and accumulate; _i = T. */
START_TEST(test_gemm_triangles) {
    int T = _i, hs = 40;
    Rng rng;
    rng_seed(&rng, 17 + (unsigned)T);
    real *q = gc_normal_array((size_t)T * hs, &rng), *k = gc_normal_array((size_t)T * hs, &rng);
    real *p = gc_normal_array((size_t)T * T, &rng), *c = malloc(sizeof(real) * T * T);
    double *want = calloc((size_t)T * T, sizeof(double));
    for (int i = 0; i < T; i++) /* P lower triangular (as attention's probabilities) */
        for (int j = i + 1; j < T; j++) p[i * T + j] = 0;
    MatView Q = {q, hs, 1}, Kt = {k, 1, hs}, P = {p, T, 1}, Pt = {p, 1, T}, K = {k, hs, 1};
    /* S = 0.5·Q·Kᵀ, lower triangle (tiles above it are not computed: compare j <= i only) */
    matmul_gemm(T, T, hs, 0.5f, Q, Kt, c, T, 1, MAT_C_LOWER);
    for (int i = 0; i < T; i++)
        for (int j = 0; j <= i; j++) {
            double s = 0;
            for (int d = 0; d < hs; d++) s += (double)q[i * hs + d] * k[j * hs + d];
            want[i * T + j] = 0.5 * s;
        }
    for (int i = 0; i < T; i++) /* above the diagonal: not part of the result */
        for (int j = i + 1; j < T; j++) c[i * T + j] = 0, want[i * T + j] = 0;
    assert_close(c, want, (size_t)T * T, "gemm MAT_C_LOWER (Q·Kᵀ)");
    /* O = P·K (P lower) overwriting, then Pᵀ·K (upper) accumulated onto it */
    real *o = malloc(sizeof(real) * T * hs);
    double *wo = calloc((size_t)T * hs, sizeof(double));
    for (int i = 0; i < T * hs; i++) o[i] = 3; /* overwritten */
    matmul_gemm(T, hs, T, 1.0f, P, K, o, hs, 1, MAT_A_LOWER);
    matmul_gemm(T, hs, T, 2.0f, Pt, K, o, hs, 0, MAT_A_UPPER);
    for (int i = 0; i < T; i++)
        for (int d = 0; d < hs; d++) {
            double s = 0;
            for (int j = 0; j < T; j++)
                s += ((double)p[i * T + j] + 2.0 * p[j * T + i]) * k[j * hs + d];
            wo[i * hs + d] = s;
        }
    assert_close(o, wo, (size_t)T * hs, "gemm MAT_A_LOWER + MAT_A_UPPER (P·K + 2·Pᵀ·K)");
    /* MAT_A_UPPER overwriting (attention's dV = Pᵀ·dO): every row written */
    for (int i = 0; i < T * hs; i++) o[i] = 3;
    matmul_gemm(T, hs, T, 1.0f, Pt, K, o, hs, 1, MAT_A_UPPER);
    for (int i = 0; i < T; i++)
        for (int d = 0; d < hs; d++) {
            double s = 0;
            for (int j = 0; j < T; j++) s += (double)p[j * T + i] * k[j * hs + d];
            wo[i * hs + d] = s;
        }
    assert_close(o, wo, (size_t)T * hs, "gemm MAT_A_UPPER overwrite (Pᵀ·K)");
    free(q), free(k), free(p), free(c), free(want), free(o), free(wo);
}
END_TEST

int main(void) {
    Suite *s = suite_create("matmul_float");
    TCase *tc = tcase_create("vs naive");
    tcase_add_loop_test(tc, test_linear_layer, 0, sizeof shapes / sizeof shapes[0]);
    tcase_add_loop_test(tc, test_backward_products_alone, 0, sizeof shapes / sizeof shapes[0]);
    suite_add_tcase(s, tc);
    TCase *tt = tcase_create("gemm"); /* T = 1..3, 16, 37, 300 (two K blocks) */
    tcase_add_loop_test(tt, test_gemm_triangles, 1, 4);
    tcase_add_loop_test(tt, test_gemm_triangles, 16, 17);
    tcase_add_loop_test(tt, test_gemm_triangles, 37, 38);
    tcase_add_loop_test(tt, test_gemm_triangles, 300, 301);
    suite_add_tcase(s, tt);
    return tu_run(s);
}
