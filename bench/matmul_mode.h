/* matmul_mode.h: `bench --matmul N` (matmul_mode.c). */
#ifndef SCALEDOT_MATMUL_MODE_H
#define SCALEDOT_MATMUL_MODE_H

/* Our linear layer alone at N x N x N on `threads` threads, the float32 (path 0) or bf16
 * (path 1) one; prints the GFLOP/s. Returns the exit code. */
int matmul_mode(int n, int threads, int path);

#endif
