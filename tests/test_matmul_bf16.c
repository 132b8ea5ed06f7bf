/* test_matmul_bf16.c: model.matmul = bf16's kernels (src/model/matmul_bf16*.c).
 *
 * - bf16_from_float against a table of bit patterns worked out by hand (ties to even, carries,
 *   inf, NaN, subnormals), and this file's own rounding (rne_bf16, in double) against the table.
 * - The three products of the linear layer, on each kernel this machine has, element by element
 *   against two exact (double) products:
 *   (1) of the inputs rounded to bf16 by rne_bf16: the kernel may differ only by its float32
 *       summation. Each product of two bf16 numbers (8-bit significands) is exact in float32;
 *       whatever the blocking, a term passes through at most K + 1 additions in its K block's
 *       chains (an odd K's padded zero included), at most K additions of a block into C, and one
 *       of the bias or the old C, each rounding with relative error at most u = 2^-24, so
 *       (Higham, Accuracy and Stability, 2nd ed., eq. 4.4 and lemma 3.1)
 *           |got − exact| <= γ_n · Σ|terms|,  γ_n = n·u / (1 − n·u),  n = 2K + 2,
 *       with Σ|terms| = |init| + Σ_k |a'_k·b'_k| (init: bias or the accumulated dW).
 *   (2) of the unrounded float32 inputs: rounding to nearest with p = 8 significant bits (7
 *       stored and the implicit one) changes a value by at most half a unit in the last place,
 *       2^-8 of it relative (the unit roundoff 2^-p; in [1, 2) bf16 values are 2^-7 apart, and
 *       1 + 2^-8 rounds to 1: not 2^-9), so a product moves by at most
 *       (1 + 2^-8)² − 1 = 2^-7 + 2^-16 of |a·b|; the bound is that times Σ|a·b| plus (1)'s.
 *   Double's own error on these sums (< 1e-13 relative) is inside a 1e-12·Σ|terms| allowance.
 * - A hand-made case that shows the order and rounding of a pair's two products (high first,
 *   each sum rounded), which the portable kernel copies from `vdpbf16ps`.
 * - The portable kernel agrees bit for bit with the AVX2 and the AVX512_BF16 kernel (each where
 *   the CPU has it; a kernel the CPU lacks is reported as skipped), and 1 and 2 threads agree.
 * - The model's linear layers run the bf16 products when cfg.matmul = MODEL_MATMUL_BF16. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gradcheck.h"
#include "model/matmul.h"
#include "model/matmul_bf16.h"
#include "model/model.h"
#include "testutil.h"
#include "util/rng.h"

static const double U32 = 0x1p-24; /* float32's unit roundoff (round to nearest) */
static const double UBF = 0x1p-8;  /* bf16's: 8-bit significand (7 stored), round to nearest */

/* x rounded to 8 significant bits, ties to even (nearbyint in the default rounding mode),
 * |x| < 2^-126 to ±0: bf16 rounding done in double arithmetic, independently of the kernel's
 * bit manipulation. x is a float32 value well inside bf16's range. */
static double rne_bf16(double x) {
    if (x == 0 || !isfinite(x)) return x;
    if (fabs(x) < 0x1p-126) return copysign(0.0, x);
    int e;
    frexp(x, &e); /* |x| = f·2^e, f in [0.5, 1) */
    double scale = ldexp(1.0, 8 - e);
    return nearbyint(x * scale) / scale;
}

static double gamma_n(int n) { return n * U32 / (1 - n * U32); }

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- rounding ------------------------------------------------------------------------------ */

static const struct {
    uint32_t in;
    uint16_t out;
    const char *why;
} round_cases[] = {
    {0x3f800000u, 0x3f80, "1.0 is a bf16"},
    {0x3f808000u, 0x3f80, "1 + 2^-8: a tie, to the even 1.0"},
    {0x3f818000u, 0x3f82, "1 + 3·2^-8: a tie, to the even 1 + 2^-6"},
    {0x3f808001u, 0x3f81, "just above the tie: up"},
    {0x3f807fffu, 0x3f80, "just below the tie: down"},
    {0xbf818000u, 0xbf82, "-(1 + 3·2^-8): a tie, to the even magnitude"},
    {0x407fffffu, 0x4080, "4 - 2^-21: the carry makes 4.0"},
    {0x7f7fffffu, 0x7f80, "FLT_MAX: beyond bf16's largest, +inf"},
    {0x7f800000u, 0x7f80, "+inf"},
    {0xff800000u, 0xff80, "-inf"},
    {0x7f800001u, 0x7fc0, "a NaN whose payload is in the cut bits: a quiet NaN, not inf"},
    {0xffc00000u, 0xffc0, "-NaN keeps its sign"},
    {0x00800000u, 0x0080, "the smallest normal float is kept"},
    {0x00400000u, 0x0000, "a subnormal becomes +0 (as vdpbf16ps reads subnormal inputs)"},
    {0x80000001u, 0x8000, "a negative subnormal becomes -0"},
    {0x80000000u, 0x8000, "-0"},
};

START_TEST(test_rounding_table) {
    for (size_t i = 0; i < sizeof round_cases / sizeof round_cases[0]; i++) {
        float x = float_of(round_cases[i].in);
        uint16_t got = bf16_from_float(x);
        ck_assert_msg(got == round_cases[i].out, "%08x: got %04x, want %04x (%s)",
                      round_cases[i].in, got, round_cases[i].out, round_cases[i].why);
        /* this file's rounding agrees with the table on the finite cases */
        if (isfinite(x) && fabsf(x) < 0x1p127f) {
            double r = rne_bf16(x);
            ck_assert_msg(bits_of((float)r) == (uint32_t)round_cases[i].out << 16,
                          "rne_bf16(%08x) = %a (%s)", round_cases[i].in, r, round_cases[i].why);
        }
    }
    ck_assert(bf16_to_float(0x3f82) == 1.015625f);
    ck_assert(bf16_to_float(0xc040) == -3.0f);
}
END_TEST

/* ---- the products against exact ones -------------------------------------------------------- */

/* A(i, k) = a[i·ars + k·acs]; B(k, j) = b[k·brs + j·bcs]; init (may be NULL) at i·irs + j·ics. */
typedef struct {
    const real *p;
    long rs, cs;
} View;

static double at(View v, int r, int c) { return v.p ? (double)v.p[(long)r * v.rs + (long)c * v.cs] : 0; }

/* got (M × Nn, row-major) = init + A·B (K), checked element by element against (1) and (2) of
 * the header; returns the largest |error| / bound of (1), printed with what. */
static double check_product(const char *what, const real *got, int M, int Nn, int K, View A,
                            View B, View init) {
    double worst1 = 0, worst2 = 0, g = gamma_n(2 * K + 2);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < Nn; j++) {
            double c0 = at(init, i, j), exact_r = c0, exact_u = c0, abs_r = fabs(c0), abs_u = 0;
            for (int k = 0; k < K; k++) {
                double a = at(A, i, k), b = at(B, k, j);
                double ar = rne_bf16(a), br = rne_bf16(b);
                exact_r += ar * br;
                abs_r += fabs(ar * br);
                exact_u += a * b;
                abs_u += fabs(a * b);
            }
            double v = got[(long)i * Nn + j];
            double bound1 = g * abs_r + 1e-12 * abs_r + 1e-300;
            double bound2 = (2 * UBF + UBF * UBF) * abs_u + bound1;
            double e1 = fabs(v - exact_r), e2 = fabs(v - exact_u);
            TU_CHECK_MSG(e1 <= bound1, "%s (%d,%d): %.9g, bf16-rounded inputs' product %.9g: "
                          "error %.3g > float32 summation bound %.3g",
                          what, i, j, v, exact_r, e1, bound1);
            TU_CHECK_MSG(e2 <= bound2, "%s (%d,%d): %.9g, float32 inputs' product %.9g: "
                          "error %.3g > bf16 rounding bound %.3g", what, i, j, v, exact_u, e2,
                          bound2);
            if (e1 / bound1 > worst1) worst1 = e1 / bound1;
            if (e2 / bound2 > worst2) worst2 = e2 / bound2;
        }
    printf("%s: worst error / bound %.3g (bf16-rounded inputs), %.3g (float32 inputs)\n", what,
           worst1, worst2);
    return worst1;
}

/* (N, C, OC): full tiles and two K blocks in every product; odd K and edges everywhere; one row;
 * K = 2 (one pair); 400 rows, 34 strips, which 2 threads share by strips (matmul_share_strips)
 * where the first shape's products share panels. */
static const int shapes[][3] = {{300, 320, 256}, {37, 71, 45}, {1, 33, 17}, {13, 2, 3},
                                {400, 70, 45}};

/* The kernels, indexed by the loop tests' kernel number. */
static const Bf16Kernel kernels[] = {BF16_KERNEL_PORTABLE, BF16_KERNEL_AVX2, BF16_KERNEL_AVX512};
static const char *const kernel_names[] = {"portable", "avx2", "avx512_bf16"};
enum { N_KERNELS = 3 };

/* Selects kernel k; 0 when this CPU does not have it (the test then says so and passes). */
static int use_kernel(int k) {
    if (!matmul_bf16_available(kernels[k])) {
        printf("%s kernel: not on this CPU, skipped\n", kernel_names[k]);
        return 0;
    }
    ck_assert_int_eq(matmul_bf16_select(kernels[k]), 0);
    ck_assert_int_eq(matmul_bf16_kernel(), kernels[k]);
    return 1;
}

/* Random inputs of one shape. */
typedef struct {
    int N, C, OC;
    real *x, *w, *b, *dy, *dw0;
} Inputs;

static Inputs inputs(int s, unsigned seed) {
    Inputs in = {shapes[s][0], shapes[s][1], shapes[s][2], NULL, NULL, NULL, NULL, NULL};
    Rng rng;
    rng_seed(&rng, seed);
    in.x = gc_normal_array((size_t)in.N * in.C, &rng);
    in.w = gc_normal_array((size_t)in.OC * in.C, &rng);
    in.b = gc_normal_array((size_t)in.OC, &rng);
    in.dy = gc_normal_array((size_t)in.N * in.OC, &rng);
    in.dw0 = gc_normal_array((size_t)in.OC * in.C, &rng); /* dweight accumulates onto this */
    return in;
}

static void free_inputs(Inputs *in) { free(in->x), free(in->w), free(in->b), free(in->dy), free(in->dw0); }

/* The three products of in with the selected kernel, packing scratch sized as the model's. */
typedef struct {
    real *out, *dx, *dw, *db;
} Outputs;

static Outputs run_bf16(const Inputs *in) {
    int N = in->N, C = in->C, OC = in->OC;
    size_t len = matmul_scratch_len(C > OC ? C : OC);
    real *scratch = malloc(len * sizeof(real));
    Outputs o = {malloc(sizeof(real) * N * OC), malloc(sizeof(real) * N * C),
                 malloc(sizeof(real) * OC * C), calloc((size_t)OC, sizeof(real))};
    ck_assert(scratch && o.out && o.dx && o.dw && o.db);
    for (long i = 0; i < (long)N * C; i++) o.dx[i] = 7; /* overwritten */
    memcpy(o.dw, in->dw0, sizeof(real) * OC * C);
    matmul_bf16_forward(o.out, in->x, in->w, in->b, N, C, OC, scratch, len);
    matmul_bf16_backward(o.dx, o.dw, o.db, in->dy, in->x, in->w, N, C, OC, scratch, len);
    free(scratch);
    return o;
}

static void free_outputs(Outputs *o) { free(o->out), free(o->dx), free(o->dw), free(o->db); }

/* _i = shape × kernel */
START_TEST(test_products_vs_exact) {
    int s = _i / N_KERNELS, k = _i % N_KERNELS;
    if (!use_kernel(k)) return;
    Inputs in = inputs(s, 11 + (unsigned)s);
    int N = in.N, C = in.C, OC = in.OC;
    Outputs o = run_bf16(&in);
    char what[96];
    const char *kname = kernel_names[k];
    snprintf(what, sizeof what, "%s (%d,%d,%d) forward", kname, N, C, OC);
    check_product(what, o.out, N, OC, C, (View){in.x, C, 1}, (View){in.w, 1, C},
                  (View){in.b, 0, 1});
    snprintf(what, sizeof what, "%s (%d,%d,%d) dinp", kname, N, C, OC);
    check_product(what, o.dx, N, C, OC, (View){in.dy, OC, 1}, (View){in.w, C, 1},
                  (View){NULL, 0, 0});
    snprintf(what, sizeof what, "%s (%d,%d,%d) dweight", kname, N, C, OC);
    check_product(what, o.dw, OC, C, N, (View){in.dy, 1, OC}, (View){in.x, C, 1},
                  (View){in.dw0, C, 1});
    /* dbias is a float32 sum of N terms: γ_N · Σ|dy| */
    for (int j = 0; j < OC; j++) {
        double want = 0, abs = 0;
        for (int n = 0; n < N; n++) want += in.dy[n * OC + j], abs += fabs(in.dy[n * OC + j]);
        ck_assert_msg(fabs(o.db[j] - want) <= gamma_n(N) * abs + 1e-300, "dbias[%d] %.9g, want %.9g",
                      j, (double)o.db[j], want);
    }
    free_outputs(&o);
    free_inputs(&in);
    matmul_bf16_select(BF16_KERNEL_AUTO);
}
END_TEST

/* One pair's two products, ordered and rounded as `vdpbf16ps` does (Intel SDM, VDPBF16PS: the
 * high products are added first, then the low ones, each sum rounded to float32). With t = 2^-12
 * (a bf16), W = [1, 0, t, t] and, K = 4 = two pairs, the accumulator is 1 after the first pair:
 *   x = [1, 0, t, -t]: high first: 1 - 2^-24 (exact), + 2^-24 = 1 exactly; low first would give
 *       1 + 2^-24 -> 1 (tie to even), then - 2^-24 = 1 - 2^-24.
 *   x = [1, 0, t, t]:  1 + 2^-24 -> 1, twice: 1; one rounding of 1 + 2^-24 + 2^-24 would give
 *       1 + 2^-23. */
START_TEST(test_pair_order_and_rounding) {
    int k = _i;
    if (!use_kernel(k)) return;
    const real t = R(0x1p-12);
    real w[4] = {1, 0, t, t}, x[8] = {1, 0, t, -t, 1, 0, t, t}, out[2] = {0, 0};
    matmul_bf16_forward(out, x, w, NULL, 2, 4, 1, NULL, 0);
    ck_assert_msg(out[0] == R(1.0), "%s: high products first: %a, want 1", kernel_names[k],
                  (double)out[0]);
    ck_assert_msg(out[1] == R(1.0), "%s: each sum rounded: %a, want 1", kernel_names[k],
                  (double)out[1]);
    matmul_bf16_select(BF16_KERNEL_AUTO);
}
END_TEST

/* Every packing path rounds as the table says (ties, carries, subnormals, signed zeros): with
 * one operand an identity matrix, each output is one input value rounded to bf16. V holds the
 * table's finite cases; n × n, n = 48 (whole pairs) and 47 (an odd last pair, edge tiles):
 *   forward x = V, W = I: out = V (A's rows);  x = I, W = V: out = Vᵀ (B = Wᵀ);
 *   backward dout = I, W = inp = V: dinp = V (B = W), dW = V (B = inp);
 *   backward dout = V, W = inp = I: dinp = V (A = dout), dW = Vᵀ (A = doutᵀ).
 * _i = kernel × size. */
START_TEST(test_packing_rounds_as_table) {
    int k = _i / 2, n = _i % 2 ? 47 : 48;
    if (!use_kernel(k)) return;
    float cases[16], want[16];
    int nc = 0;
    for (size_t c = 0; c < sizeof round_cases / sizeof round_cases[0]; c++) {
        float x = float_of(round_cases[c].in), r = float_of((uint32_t)round_cases[c].out << 16);
        if (isfinite(x) && isfinite(r) && nc < 16) cases[nc] = x, want[nc++] = r;
    }
    size_t nn = (size_t)n * n;
    real *v = malloc(nn * sizeof(real)), *id = calloc(nn, sizeof(real));
    real *o1 = malloc(nn * sizeof(real)), *o2 = calloc(nn, sizeof(real));
    int *which = malloc(nn * sizeof(int));
    ck_assert(v && id && o1 && o2 && which);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            which[r * n + c] = (5 * r + 3 * c) % nc;
            v[r * n + c] = cases[which[r * n + c]];
            id[r * n + c] = r == c;
        }
    /* t: 0 the output is V, 1 it is Vᵀ */
#define CHECK_ALL(out, t, what)                                                                   \
    for (int r = 0; r < n; r++)                                                                   \
        for (int c = 0; c < n; c++) {                                                             \
            int w = t ? which[c * n + r] : which[r * n + c];                                      \
            ck_assert_msg((out)[r * n + c] == want[w], "%s n=%d %s (%d,%d): %a, want %a (%a)",    \
                          kernel_names[k], n, what, r, c, (double)(out)[r * n + c],               \
                          (double)want[w], (double)cases[w]);                                     \
        }
    matmul_bf16_forward(o1, v, id, NULL, n, n, n, NULL, 0);
    CHECK_ALL(o1, 0, "forward, x = V");
    matmul_bf16_forward(o1, id, v, NULL, n, n, n, NULL, 0);
    CHECK_ALL(o1, 1, "forward, W = V");
    matmul_bf16_backward(o1, o2, NULL, id, v, v, n, n, n, NULL, 0);
    CHECK_ALL(o1, 0, "dinp, W = V");
    CHECK_ALL(o2, 0, "dweight, inp = V");
    memset(o2, 0, nn * sizeof(real));
    matmul_bf16_backward(o1, o2, NULL, v, id, id, n, n, n, NULL, 0);
    CHECK_ALL(o1, 0, "dinp, dout = V");
    CHECK_ALL(o2, 1, "dweight, dout = V");
#undef CHECK_ALL
    free(v), free(id), free(o1), free(o2), free(which);
    matmul_bf16_select(BF16_KERNEL_AUTO);
}
END_TEST

static void assert_same_bits(const real *a, const real *b, size_t n, const char *what) {
    size_t diff = 0, first = n;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(real)) != 0) {
            diff++;
            if (first == n) first = i;
        }
    ck_assert_msg(diff == 0, "%s: %zu of %zu values differ (first at %zu: %a vs %a)", what, diff,
                  n, first, first < n ? (double)a[first] : 0.0, first < n ? (double)b[first] : 0.0);
}

static void assert_same_outputs(const Outputs *a, const Outputs *b, const Inputs *in,
                                const char *what) {
    char w[128];
    snprintf(w, sizeof w, "%s forward", what);
    assert_same_bits(a->out, b->out, (size_t)in->N * in->OC, w);
    snprintf(w, sizeof w, "%s dinp", what);
    assert_same_bits(a->dx, b->dx, (size_t)in->N * in->C, w);
    snprintf(w, sizeof w, "%s dweight", what);
    assert_same_bits(a->dw, b->dw, (size_t)in->OC * in->C, w);
    snprintf(w, sizeof w, "%s dbias", what);
    assert_same_bits(a->db, b->db, (size_t)in->OC, w);
}

/* The portable kernel gives the AVX2 and the AVX512_BF16 kernel's numbers bit for bit;
 * _i = shape × fast kernel (1 AVX2, 2 AVX512_BF16). */
START_TEST(test_portable_equals_fast) {
    int s = _i / 2, k = 1 + _i % 2;
    Inputs in = inputs(s, 50 + (unsigned)s);
    if (!use_kernel(k)) {
        free_inputs(&in);
        return;
    }
    Outputs v = run_bf16(&in);
    ck_assert(use_kernel(0));
    Outputs p = run_bf16(&in);
    char what[64];
    snprintf(what, sizeof what, "portable vs %s (%d,%d,%d)", kernel_names[k], in.N, in.C, in.OC);
    assert_same_outputs(&p, &v, &in, what);
    printf("%s: same bits\n", what);
    free_outputs(&p);
    free_outputs(&v);
    free_inputs(&in);
    matmul_bf16_select(BF16_KERNEL_AUTO);
}
END_TEST

/* The backward's products alone (bench/kernel_lines.c times them so) give
 * matmul_bf16_backward's bits (the selected kernel); _i = shape. */
START_TEST(test_backward_products_alone) {
    Inputs in = inputs(_i, 90 + (unsigned)_i);
    int N = in.N, C = in.C, OC = in.OC;
    Outputs o = run_bf16(&in);
    size_t len = matmul_scratch_len(C > OC ? C : OC);
    real *scratch = malloc(len * sizeof(real)), *dx = malloc(sizeof(real) * N * C);
    real *dw = malloc(sizeof(real) * OC * C);
    ck_assert(scratch && dx && dw);
    memcpy(dw, in.dw0, sizeof(real) * OC * C);
    for (long i = 0; i < (long)N * C; i++) dx[i] = 7; /* overwritten */
    matmul_bf16_backward_input(dx, in.dy, in.w, N, C, OC, scratch, len);
    matmul_bf16_backward_weight(dw, in.dy, in.x, N, C, OC, scratch, len);
    assert_same_bits(o.dx, dx, (size_t)N * C, "dinp alone");
    assert_same_bits(o.dw, dw, (size_t)OC * C, "dweight alone");
    free(scratch), free(dx), free(dw);
    free_outputs(&o);
    free_inputs(&in);
}
END_TEST

/* 1 and 2 threads give the same bits (the selected kernel); _i: panels shared (shape 0) or strips
 * (shape 4). */
START_TEST(test_threads_same_bits) {
#ifdef _OPENMP
    Inputs in = inputs(_i == 0 ? 0 : 4, 77);
    omp_set_num_threads(1);
    Outputs one = run_bf16(&in);
    omp_set_num_threads(2);
    Outputs two = run_bf16(&in);
    assert_same_outputs(&one, &two, &in, "1 vs 2 threads");
    free_outputs(&one);
    free_outputs(&two);
    free_inputs(&in);
#endif
}
END_TEST

/* ---- the model's wiring --------------------------------------------------------------------- */

/* With cfg.matmul = bf16, the model's linear layers are matmul_bf16's products of the model's own
 * saved inputs, bit for bit, forward and (the head's) backward, and not the float32 products;
 * _i = block (gpt2, llama). */
START_TEST(test_model_uses_bf16) {
    ModelConfig mc = {.vocab_size = 11, .d_model = 24, .n_heads = 2, .n_layers = 2, .d_ff = 40,
                      .max_seq_len = 5, .ln_eps = R(1e-5), .scale = R(0.25), .block = _i,
                      .matmul = MODEL_MATMUL_BF16};
    int B = 3, T = 5, N = B * T, C = 24, F = 40, V = 11;
    Model m;
    ck_assert_int_eq(model_build(&m, &mc, B), 0);
    Rng rng;
    rng_seed(&rng, 5);
    model_init_fan_in(&m, &rng);
    int tokens[15], targets[15];
    float mask[15];
    for (int i = 0; i < N; i++) {
        tokens[i] = (int)rng_below(&rng, (uint32_t)V);
        targets[i] = (int)rng_below(&rng, (uint32_t)V);
        mask[i] = 1;
    }
    model_forward(&m, tokens, targets, mask, B, T);
    model_zero_grad(&m);
    model_backward(&m);
    size_t big = (size_t)N * 2 * F + (size_t)V * C;
    real *want = malloc(big * sizeof(real)), *want2 = calloc(big, sizeof(real));
    real *f32 = malloc(big * sizeof(real));
    for (int l = 0; l < 2; l++) {
        BlockActs *a = &m.acts[l];
        BlockTensors *w = &m.p.block[l];
        if (_i == MODEL_BLOCK_GPT2) { /* (llama's qkv is rotated in place by RoPE) */
            matmul_bf16_forward(want, a->ln1, w->qkv_w, w->qkv_b, N, C, 3 * C, NULL, 0);
            assert_same_bits(a->qkv, want, (size_t)N * 3 * C, "qkv");
        }
        matmul_bf16_forward(want, a->atty, w->proj_w, w->proj_b, N, C, C, NULL, 0);
        assert_same_bits(a->attproj, want, (size_t)N * C, "attn proj");
        if (_i == MODEL_BLOCK_LLAMA) {
            matmul_bf16_forward(want, a->ln2, w->gate_w, NULL, N, C, 2 * m.cfg.d_ff, NULL, 0);
            assert_same_bits(a->gu, want, (size_t)N * 2 * m.cfg.d_ff, "gate|up");
            matmul_bf16_forward(want, a->swiglu, w->down_w, NULL, N, m.cfg.d_ff, C, NULL, 0);
        } else {
            matmul_bf16_forward(want, a->fch_gelu, w->fcproj_w, w->fcproj_b, N, F, C, NULL, 0);
        }
        assert_same_bits(a->fcproj, want, (size_t)N * C, "mlp out");
    }
    matmul_bf16_forward(want, m.lnf, m.p.head_w, NULL, N, C, V, NULL, 0);
    assert_same_bits(m.logits, want, (size_t)N * V, "logits");
    matmul_forward(f32, m.lnf, m.p.head_w, NULL, N, C, V);
    int differs = memcmp(f32, m.logits, (size_t)N * V * sizeof(real)) != 0;
    /* the head's backward: dlnf and head.weight's gradient from the saved dlogits */
    matmul_bf16_backward(want, want2, NULL, m.dlogits, m.lnf, m.p.head_w, N, C, V, NULL, 0);
    assert_same_bits(m.dlnf, want, (size_t)N * C, "d ln_f");
    assert_same_bits(m.g.head_w, want2, (size_t)V * C, "d head.weight");
    ck_assert_msg(differs, "the float32 head product equals the bf16 one");
    free(want), free(want2), free(f32);
    model_free(&m);
}
END_TEST

int main(void) {
    Suite *s = suite_create("matmul_bf16");
    TCase *tr = tcase_create("rounding");
    tcase_add_test(tr, test_rounding_table);
    tcase_add_loop_test(tr, test_pair_order_and_rounding, 0, N_KERNELS);
    tcase_add_loop_test(tr, test_packing_rounds_as_table, 0, 2 * N_KERNELS);
    suite_add_tcase(s, tr);
    int n_shapes = sizeof shapes / sizeof shapes[0];
    TCase *tp = tcase_create("products");
    tcase_set_timeout(tp, 60);
    tcase_add_loop_test(tp, test_products_vs_exact, 0, N_KERNELS * n_shapes);
    tcase_add_loop_test(tp, test_portable_equals_fast, 0, 2 * n_shapes);
    tcase_add_loop_test(tp, test_threads_same_bits, 0, 2);
    tcase_add_loop_test(tp, test_backward_products_alone, 0, n_shapes);
    suite_add_tcase(s, tp);
    TCase *tm = tcase_create("model");
    tcase_add_loop_test(tm, test_model_uses_bf16, 0, 2);
    suite_add_tcase(s, tm);
    return tu_run(s);
}
