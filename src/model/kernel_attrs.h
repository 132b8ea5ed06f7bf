/* kernel_attrs.h: the two compiler hints the matmul kernels (matmul.c, matmul_bf16_*.c) share.
 * UNROLL asks gcc/clang to unroll the loop after it (up to 16 times: a micro-kernel's k loop);
 * ALWAYS_INLINE keeps a tile function inside its caller's loop nest, where its accumulators
 * stay in registers. Neither changes what is computed or its order; other compilers ignore them. */
#ifndef SCALEDOT_KERNEL_ATTRS_H
#define SCALEDOT_KERNEL_ATTRS_H

#if defined(__GNUC__)
#define UNROLL _Pragma("GCC unroll 16")
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define UNROLL
#define ALWAYS_INLINE inline
#endif

#endif
