#!/usr/bin/env python3
"""torch_step.py: the yardstick for `make bench-torch`, never part of the product.

Times whole AdamW training steps of the same model as scaledot (shared/reference's README: tok and
pos embeddings, pre-LayerNorm blocks with one fused qkv nn.Linear, causal softmax(scale*q.k^T),
proj, GELU(tanh) MLP with d_ff = 4C, final LayerNorm, head without bias, masked mean
cross-entropy) written the plain way in PyTorch, in float32 on the CPU, and prints one line:

    torch B T C L NH V threads steps median_ms min_ms max_ms n_params peak_rss_mb import_rss_mb

(n_params: the model's parameter count, which torch_compare.sh holds to bench's; peak_rss_mb:
the process's peak resident memory, getrusage ru_maxrss, which counts the interpreter and
PyTorch's libraries too; import_rss_mb: that peak right after `import torch`, before the model.)

(torch_bf16 in the first field with --bf16: the forward under torch.autocast("cpu",
dtype=torch.bfloat16), PyTorch's bf16 autocast: nn.Linear and the attention matmuls take bf16
operands and give bf16 outputs; the other ops follow the installed version's CPU autocast rules;
parameters, gradients and the AdamW state stay float32.)

The model is the one bench builds for every shape (bench/step_timing.c's ModelConfig), so at
GPT-2 small's shape (make bench-torch-gpt2: 4 64 768 12 12 50257) it is bench --gpt2's: the gpt2
block (LayerNorm, GELU; not the llama block), biases on all four linear layers of a block and on
every LayerNorm, head.weight its own tensor without bias (not tied to tok), pos of T rows, d_ff 4C,
eps 1e-5, scale 1/sqrt(d_k): 162,299,904 parameters, the count bench prints.

Usage: torch_step.py B T C L NH V THREADS [SECONDS] [--bf16]
A step is what scaledot's bench times: forward, zero_grad, backward, AdamW step. The first steps
are warm-up (allocator, OpenBLAS buffers); then steps run until SECONDS (default 6) have passed
and at least 5 were timed. Run it with OPENBLAS_CORETYPE set (bench/torch_compare.sh does): on
these CPUs OpenBLAS otherwise picks a slow generic kernel.
"""
import math
import resource
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

# Linux reports ru_maxrss in KiB
IMPORT_RSS_MB = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


class Block(nn.Module):
    def __init__(self, C, NH, T):
        super().__init__()
        self.NH = NH
        self.ln1 = nn.LayerNorm(C, eps=1e-5)
        self.qkv = nn.Linear(C, 3 * C)
        self.proj = nn.Linear(C, C)
        self.ln2 = nn.LayerNorm(C, eps=1e-5)
        self.fc = nn.Linear(C, 4 * C)
        self.fcproj = nn.Linear(4 * C, C)
        self.register_buffer("causal", torch.tril(torch.ones(T, T, dtype=torch.bool)))
        self.scale = 1.0 / math.sqrt(C // NH)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q = q.view(B, T, self.NH, C // self.NH).transpose(1, 2)
        k = k.view(B, T, self.NH, C // self.NH).transpose(1, 2)
        v = v.view(B, T, self.NH, C // self.NH).transpose(1, 2)
        s = (q @ k.transpose(-2, -1)) * self.scale
        s = s.masked_fill(~self.causal[:T, :T], float("-inf"))
        y = F.softmax(s, dim=-1) @ v
        x = x + self.proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.fcproj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class Model(nn.Module):
    def __init__(self, T, C, L, NH, V):
        super().__init__()
        self.tok = nn.Embedding(V, C)
        self.pos = nn.Embedding(T, C)
        self.blocks = nn.ModuleList([Block(C, NH, T) for _ in range(L)])
        self.lnf = nn.LayerNorm(C, eps=1e-5)
        self.head = nn.Linear(C, V, bias=False)

    def forward(self, tokens, targets, mask):
        T = tokens.shape[1]
        x = self.tok(tokens) + self.pos(torch.arange(T))
        for b in self.blocks:
            x = b(x)
        logits = self.head(self.lnf(x))
        losses = F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1),
                                 reduction="none")
        return (losses * mask.view(-1)).sum() / mask.sum()


def main():
    args = [a for a in sys.argv[1:] if a != "--bf16"]
    bf16 = len(args) < len(sys.argv) - 1
    if len(args) not in (7, 8):
        sys.exit("usage: torch_step.py B T C L NH V THREADS [SECONDS] [--bf16]")
    B, T, C, L, NH, V, threads = (int(a) for a in args[:7])
    seconds = float(args[7]) if len(args) == 8 else 6.0
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = Model(T, C, L, NH, V)
    # decoupled weight decay on matrices and embeddings only, as in scaledot
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": no_decay, "weight_decay": 0.0}], lr=1e-3)
    tokens = torch.randint(0, V, (B, T))
    targets = torch.randint(0, V, (B, T))
    mask = torch.ones(B, T)

    def step():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = model(tokens, targets, mask)
        opt.zero_grad(set_to_none=False)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    times = []
    start = time.perf_counter()
    while len(times) < 5 or time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        step()
        times.append(1e3 * (time.perf_counter() - t0))
        if len(times) >= 200:
            break
    times.sort()
    n = len(times)
    median = times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])
    name = "torch_bf16" if bf16 else "torch"
    n_params = sum(p.numel() for p in model.parameters())
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"{name} {B} {T} {C} {L} {NH} {V} {threads} {n} {median:.2f} {times[0]:.2f} {times[-1]:.2f}"
          f" {n_params} {peak_rss_mb:.1f} {IMPORT_RSS_MB:.1f}")


if __name__ == "__main__":
    main()
