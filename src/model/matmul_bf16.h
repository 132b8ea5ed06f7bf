/* matmul_bf16.h: the linear layer with bf16 inputs and float32 accumulation (model.matmul = bf16).
 *
 * The same three products as matmul.h (out = inp·Wᵀ + b; dinp = dout·W; dW += doutᵀ·inp), each
 * operand rounded to bfloat16 (round to nearest, ties to even) as it is packed, the products of
 * two bf16 numbers (exact in float32) summed in float32: what PyTorch's bf16 autocast computes
 * for nn.Linear, except that the outputs stay float32 here (autocast returns bf16 tensors).
 * Parameters, gradients and every other kernel stay float32. dbias is a float32 sum of dout.
 *
 * Two kernels give the same numbers: AVX512_BF16 (`vdpbf16ps`) when the CPU has it (checked at
 * run time, the rest of the build unchanged), else portable C doing the same additions in the
 * same order. See matmul_bf16.c for the arithmetic and where the two could differ. */
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

/* Which kernel the products above run. AUTO (the default): AVX512_BF16 when this CPU and build
 * have it, else portable. For tests and the bench; call outside parallel regions. */
typedef enum { BF16_KERNEL_AUTO, BF16_KERNEL_PORTABLE, BF16_KERNEL_AVX512 } Bf16Kernel;

/* Selects kernel k; returns 0, or -1 (selection unchanged) when k is AVX512 and the CPU or build
 * lacks it. */
int matmul_bf16_select(Bf16Kernel k);

/* 1 when the AVX512_BF16 kernel is the one selected, 0 when the portable one is. */
int matmul_bf16_fast(void);

/* 1 when this CPU and build can run the AVX512_BF16 kernel. */
int matmul_bf16_fast_available(void);

#endif
