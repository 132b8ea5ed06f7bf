#!/usr/bin/env python3
"""twin/train.py CONFIG.ini [--steps N] [--seed S]: trains the PyTorch twin (twin/model.py) on
a generated task (sort, reverse or copy) with the settings of a resolved scaledot config (a run's
config.ini, or `./train configs/scaled.ini --print-config`; '-' reads it from stdin), to see the
same effect of attention.scale in another implementation. The data generator is this file's own
(same task and layout as src/tasks/generated.c, not the same random numbers), so the numbers
are not scaledot's; the gap between a scaled and an unscaled config is the point.
Prints the validation loss and accuracies every train.eval_every steps and at the end."""
import argparse
import math
import random
import sys
import time

import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no twin/__pycache__ in the source tree
sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from model import evaluate, parse_ini, twin_from_config  # noqa: E402


def ran_on():
    """What this process computes with: PyTorch's version, its threads, and the BLAS and OpenMP
    libraries actually loaded (from /proc/self/maps after a matmul: Debian's libblas.so.3 is
    whichever BLAS the alternatives system points to, the reference BLAS or OpenBLAS), and
    OPENBLAS_CORETYPE, which picks OpenBLAS's kernels. A training run's digits move with these."""
    torch.ones(64, 64) @ torch.ones(64, 64)
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                name = path.rsplit("/", 1)[-1]
                if "blas" in name or "lapack" in name or name.startswith("libgomp"):
                    libs.add(path)
    except OSError:
        libs.add("(no /proc/self/maps)")
    import os
    core = os.environ.get("OPENBLAS_CORETYPE", "unset")
    return (f"PyTorch {torch.__version__}, {torch.get_num_threads()} thread(s), libraries "
            f"{', '.join(sorted(libs)) or 'none found'}, OPENBLAS_CORETYPE {core}")


def make_example(rng, kind, n, S, sep):
    """(tokens, targets, mask) of one example: n symbols, [separator], the answer; the model
    reads all but the last token and predicts the next one; the answer positions count."""
    prompt = [rng.randrange(S) for _ in range(n)]
    answer = sorted(prompt) if kind == "sort" else prompt[::-1] if kind == "reverse" else prompt
    seq = prompt + ([S] if sep else []) + answer
    first = n + (1 if sep else 0)  # index of the first answer token in seq
    T = len(seq) - 1
    return seq[:-1], seq[1:], [1.0 if i + 1 >= first else 0.0 for i in range(T)]


def batch_of(examples):
    tok, tgt, m = zip(*examples)
    return torch.tensor(tok), torch.tensor(tgt), torch.tensor(m)


def lr_at(cfg, step, steps):
    """src/optim/optim.c optim_lr_at: linear warmup over warmup_steps, then constant or cosine
    down to min_lr at the last step."""
    lr, warm = float(cfg["optim.lr"]), int(cfg["optim.warmup_steps"])
    min_lr = float(cfg["optim.min_lr"])
    if step < warm:
        return lr * (step + 1) / warm
    if cfg["optim.schedule"] == "constant" or steps - warm <= 1:
        return lr
    progress = min(1.0, (step - warm) / (steps - warm - 1))
    return min_lr + 0.5 * (lr - min_lr) * (1 + math.cos(math.pi * progress))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config", help="a resolved scaledot config ('-': stdin)")
    ap.add_argument("--steps", type=int, help="train.steps (the schedule follows it)")
    ap.add_argument("--seed", type=int, help="run.seed")
    a = ap.parse_args()
    torch.set_num_threads(1)
    text = sys.stdin.read() if a.config == "-" else open(a.config).read()
    cfg = parse_ini(text)
    kind = cfg["task.name"]
    if kind not in ("sort", "reverse", "copy"):
        sys.exit(f"train.py: task.name = {kind}: only sort, reverse and copy are generated here")
    if cfg["optim.name"] != "adamw" or cfg["init.scheme"] != "fan_in":
        sys.exit("train.py: only optim.name = adamw with init.scheme = fan_in is twinned")
    n, S = int(cfg["task.length"]), int(cfg["task.symbols"])
    sep = cfg["task.separator"] != "false"
    steps = a.steps or int(cfg["train.steps"])
    seed = a.seed if a.seed is not None else int(cfg["run.seed"])
    B, every = int(cfg["train.batch_size"]), int(cfg["train.eval_every"])
    clip, wd = float(cfg["optim.grad_clip"]), float(cfg["optim.weight_decay"])
    qk_clip = float(cfg.get("attention.qk_clip", "0"))

    vrng, trng = random.Random(f"val {seed}"), random.Random(f"train {seed}")
    seen, val = set(), []
    while len(val) < int(cfg["task.val_size"]):  # distinct validation examples
        ex = make_example(vrng, kind, n, S, sep)
        if tuple(ex[0]) not in seen:
            seen.add(tuple(ex[0]))
            val.append(ex)
    vtok, vtgt, vmask = batch_of(val)
    T = vtok.shape[1]
    model = twin_from_config(cfg, S + 2, T)
    gen = torch.Generator().manual_seed(seed)
    model.init_fan_in(gen)
    # decoupled weight decay on embeddings and weight matrices only (reference README)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": wd},
                             {"params": rest, "weight_decay": 0.0}],
                            lr=float(cfg["optim.lr"]),
                            betas=(float(cfg["optim.beta1"]), float(cfg["optim.beta2"])),
                            eps=float(cfg["optim.eps"]))
    print(f"twin: {kind}, T={T}, vocab {S + 2}, d_model {cfg['model.d_model']}, n_heads "
          f"{cfg['model.n_heads']}, n_layers {cfg['model.n_layers']}, attention.scale = "
          f"{cfg['attention.scale']} ({model.blocks[0].attn.scale:.6g}), {steps} steps of batch {B}",
          flush=True)
    print(f"ran on: {ran_on()}", flush=True)
    t0 = time.time()
    for step in range(steps + 1):
        if step % every == 0 or step == steps:
            model.eval()
            last = evaluate(model, vtok, vtgt, vmask)
            model.train()
            print(f"step {step:6d}  val loss {last[0]:.4f}  answer acc {100 * last[2]:5.1f}%  "
                  f"token acc {100 * last[1]:5.1f}%  ({time.time() - t0:.0f} s)", flush=True)
        if step == steps:
            break
        tok, tgt, m = batch_of([make_example(trng, kind, n, S, sep) for _ in range(B)])
        for g in opt.param_groups:
            g["lr"] = lr_at(cfg, step, steps)
        logits = model(tok)
        nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1),
                              reduction="none").view_as(m)
        loss = (nll * m).sum() / m.sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        if qk_clip > 0:  # on this step's largest scores (src/model/qk_clip.c)
            for b in model.blocks:
                b.attn.qk_clip(qk_clip)
    print(f"final: val loss {last[0]:.4f}, answer accuracy {100 * last[2]:.1f}%, token accuracy "
          f"{100 * last[1]:.1f}% after {steps} steps, attention.scale = {cfg['attention.scale']}")


if __name__ == "__main__":
    main()
