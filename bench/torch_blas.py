#!/usr/bin/env python3
"""torch_blas.py: which BLAS PyTorch's sgemm runs in, and how fast, for `make bench-torch`.

A yardstick's check, never part of the product. Debian's PyTorch is built with BLAS_INFO=generic:
its float matmuls call sgemm_ from whatever libblas.so.3 the dynamic linker gives it (the
libblas.so.3-x86_64-linux-gnu alternative, or an LD_PRELOAD). After one matmul this finds the
library that holds the sgemm_ the process resolves (the address of libblas.so.3's sgemm_, looked
up in /proc/self/maps) and prints its real path:

    torch_blas.py which              ->  PATH
    torch_blas.py gflops N THREADS   ->  GFLOP/s of out = x . W^T at N x N x N (2 N^3 FLOPs),
                                         best of a few calls after a warm-up, on THREADS threads
    torch_blas.py bf16gflops N THREADS  ->  the same product in bf16 (x and W bfloat16 tensors,
                                         what autocast gives nn.Linear), GFLOP/s

Run the timing with OPENBLAS_NUM_THREADS and OMP_NUM_THREADS set to THREADS
(bench/torch_compare.sh does): OpenBLAS reads them when it is loaded.
"""
import ctypes
import os
import sys
import time

import torch


def blas_path():
    a = torch.ones(64, 64)
    _ = a @ a.t()  # PyTorch's matmul has run: its BLAS is loaded
    lib = ctypes.CDLL("libblas.so.3")  # the one already loaded (same soname), not a new one
    addr = ctypes.cast(lib.sgemm_, ctypes.c_void_p).value
    with open("/proc/self/maps") as maps:
        for line in maps:
            f = line.split()
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            if lo <= addr < hi and len(f) >= 6:
                return os.path.realpath(f[5])
    return "unknown"


def sgemm_gflops(n, threads, calls=5, dtype=torch.float32):
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    x, w = (torch.rand(n, n) - 0.5).to(dtype), (torch.rand(n, n) - 0.5).to(dtype)
    out = torch.empty(n, n, dtype=dtype)
    torch.mm(x, w.t(), out=out)  # warm-up
    best = float("inf")
    for _ in range(calls):
        t0 = time.perf_counter()
        torch.mm(x, w.t(), out=out)
        best = min(best, time.perf_counter() - t0)
    return 2.0 * n ** 3 / best / 1e9


def main():
    if sys.argv[1:] == ["which"]:
        print(blas_path())
    elif len(sys.argv) == 4 and sys.argv[1] == "gflops":
        print("%.1f" % sgemm_gflops(int(sys.argv[2]), int(sys.argv[3])))
    elif len(sys.argv) == 4 and sys.argv[1] == "bf16gflops":
        print("%.1f" % sgemm_gflops(int(sys.argv[2]), int(sys.argv[3]), dtype=torch.bfloat16))
    else:
        sys.exit("usage: torch_blas.py which | gflops N THREADS | bf16gflops N THREADS")


if __name__ == "__main__":
    main()
