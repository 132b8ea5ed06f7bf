/* kernel_lines.h: `make bench`'s kernel lines: each product of the linear layer alone at a
 * shape's matrix sizes, one thread against its path's probe, and two threads against one
 * (kernel_lines.c). */
#ifndef SCALEDOT_KERNEL_LINES_H
#define SCALEDOT_KERNEL_LINES_H

#include "machine.h"
#include "step_timing.h"

/* For each shape (M = B·T rows, width C): the four linear layers of a block (qkv C -> 3C, proj
 * C -> C, fc C -> 4C, fc2 4C -> C), each product (forward, dinp, dweight) on each path (float32,
 * bf16) alone on one thread, `reps` calls after a warm-up; prints the best and median GFLOP/s
 * (2·M·C_in·C_out FLOPs per product), the best's share of the path's one-core probe and, with
 * two CPUs online, the best of `reps` 2-thread calls timed right after as a speed-up over the
 * 1-thread best (the split of issue 43's thread scaling between the kernels and the rest of a
 * step); then the same over all twelve products of a shape. Starts OpenMP threads in the calling
 * process: call it after the last run_in_child. Returns 0, or 1 when out of memory. */
int print_kernel_lines(const Shape *shapes, int n_shapes, const Peak *peak, int reps);

#endif
