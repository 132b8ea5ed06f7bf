/* matmul_bf16.h: the linear layer with bf16 inputs and float32 accumulation (model.matmul = bf16).
 *
 * The same three products as matmul.h (out = inp·Wᵀ + b; dinp = dout·W; dW += doutᵀ·inp), each
 * operand rounded to bfloat16 (round to nearest, ties to even) as it is packed, the products of
 * two bf16 numbers (exact in float32) summed in float32: what PyTorch's bf16 autocast computes
 * for nn.Linear, except that the outputs stay float32 here (autocast returns bf16 tensors).
 * Parameters, gradients and every other kernel stay float32. dbias is a float32 sum of dout.
 *
 * Three kernels give the same numbers: AVX512_BF16 (`vdpbf16ps`) when the CPU has it, else AVX2
 * with FMA, else portable C, each doing the same additions in the same order (checked at run
 * time, the rest of the build unchanged). See matmul_bf16.c for the arithmetic and where they
 * could differ. */
#ifndef SCALEDOT_MATMUL_BF16_H
#define SCALEDOT_MATMUL_BF16_H

#include <stddef.h>
#include <stdint.h>

#include "model/real.h"

/* The bfloat16 nearest to x (ties to even): the upper 16 bits of the rounded float32. NaN stays
 * a (quiet) NaN of the same sign, ±inf stays ±inf, finite values beyond bf16's largest round to
 * ±inf as IEEE rounding does. Subnormal x (|x| < 2^-126) gives ±0, as the AVX512_BF16 hardware
 * treats subnormal bf16 inputs as zero: both kernels then see the same numbers. */
uint16_t bf16_from_float(float x);

/* The float32 value of bf16 bits h (exact). */
float bf16_to_float(uint16_t h);

/* The matmul.h _scratch products in bf16 (same arguments, shapes and accumulation rules; scratch
 * from matmul_scratch_len is enough). Bitwise the same on any thread count and with either
 * kernel. */
void matmul_bf16_forward(real *out, const real *inp, const real *weight, const real *bias, int N,
                         int C, int OC, real *scratch, size_t scratch_len);
void matmul_bf16_backward(real *dinp, real *dweight, real *dbias, const real *dout,
                          const real *inp, const real *weight, int N, int C, int OC,
                          real *scratch, size_t scratch_len);

/* The backward's two products alone (matmul.h's matmul_backward_input_scratch and
 * matmul_backward_weight_scratch in bf16), with the same bits as matmul_bf16_backward's. For
 * timing each product by itself (bench/kernel_lines.c). */
void matmul_bf16_backward_input(real *dinp, const real *dout, const real *weight, int N, int C,
                                int OC, real *scratch, size_t scratch_len);
void matmul_bf16_backward_weight(real *dweight, const real *dout, const real *inp, int N, int C,
                                 int OC, real *scratch, size_t scratch_len);

/* The kernels that can run the products above, all giving the same bits (matmul_bf16.c). */
typedef enum {
    BF16_KERNEL_AUTO,     /* the fastest this CPU has (the default) */
    BF16_KERNEL_PORTABLE, /* plain C */
    BF16_KERNEL_AVX2,     /* AVX2 + FMA: the bf16 pairs widened to float32, two FMAs per pair */
    BF16_KERNEL_AVX512,   /* AVX512_BF16: vdpbf16ps */
} Bf16Kernel;

/* 1 when this CPU and build can run kernel k (AUTO and PORTABLE: always). */
int matmul_bf16_available(Bf16Kernel k);

/* Selects kernel k (AUTO: AVX512_BF16, else AVX2, else portable); returns 0, or -1 (selection
 * unchanged) when k is not available. For tests and the bench; call outside parallel regions. */
int matmul_bf16_select(Bf16Kernel k);

/* The kernel the products run (never AUTO), and its name ("portable C", "AVX2", "AVX512_BF16"). */
Bf16Kernel matmul_bf16_kernel(void);
const char *matmul_bf16_kernel_name(void);

#endif
