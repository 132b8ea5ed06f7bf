/* kernel_lines.h: `make bench`'s kernel lines: each product of the linear layer alone at a
 * shape's matrix sizes, one thread, against its path's probe (kernel_lines.c). */
#ifndef SCALEDOT_KERNEL_LINES_H
#define SCALEDOT_KERNEL_LINES_H

#include "machine.h"
#include "step_timing.h"

/* For each shape (M = B·T rows, width C): the four linear layers of a block (qkv C -> 3C, proj
 * C -> C, fc C -> 4C, fc2 4C -> C), each product (forward, dinp, dweight) on each path (float32,
 * bf16) alone on one thread, `reps` calls after a warm-up; prints the best and median GFLOP/s
 * (2·M·C_in·C_out FLOPs per product) and the best's share of the path's one-core probe, and the
 * same over all twelve products of a shape. Starts OpenMP (one thread) in the calling process:
 * call it after the last run_in_child. Returns 0, or 1 when out of memory. */
int print_kernel_lines(const Shape *shapes, int n_shapes, const Peak *peak, int reps);

#endif
