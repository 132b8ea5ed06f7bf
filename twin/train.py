#!/usr/bin/env python3
"""twin/train.py CONFIG.ini [--steps N] [--seed S] [--init RUN.safetensors] [--csv FILE]: trains
the PyTorch twin (twin/model.py) on a generated task (sort, reverse or copy) or on a text
(task.name = text) with the settings of a resolved scaledot config (a run's config.ini, or
`./train configs/scaled.ini --print-config`; '-' reads it from stdin), to see the same effect of
attention.scale in another implementation. The data generator is this file's own (same task and
layout as src/tasks/generated.c, not the same random numbers; for text the same validation
windows as src/tasks/text_task.c, the training windows drawn by Python's generator), so the
numbers are not scaledot's; the gap between a scaled and an unscaled config is the point.
The initial parameters are drawn here (init.scheme = fan_in) or, with --init, read from a step-0
export (`./train CFG --set train.steps=0`, then `./train --export`): any init, the same as
./train's; init.q_mult and init.k_mult multiply the drawn q and k rows of attn.qkv (an export has
them already), and optim.lr_q_mult, optim.lr_k_mult their learning rate (AdamWRowRates);
model.param = mup (twin/model.py) starts W_q at 0 and head.weight at sqrt(m) times its draw (an
export has them already) and divides the hidden matrices' rate by m. Prints
the validation loss (nats, and bits per byte for text) and accuracies every
train.eval_every steps and at the end; --csv also writes them as step,val_loss,val_bpb,
val_token_acc,val_answer_acc."""
import argparse
import math
import random
import sys
import time

import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no twin/__pycache__ in the source tree
sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from model import (evaluate, hidden_params, parse_ini, qkv_thirds, twin_from_config,  # noqa: E402
                   width_mult)


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


# The keys that decide the model's parameters and what its forward pass computes: an --init
# export must agree with the config on each (run.seed and the data may differ).
MODEL_KEYS = ("model.", "attention.", "init.")


def initial_parameters(path, cfg):
    """The tensors of a step-0 export (./train --export of a run trained 0 steps) whose stored
    configuration describes the same model as cfg; exits naming the file and the first key that
    differs, or the step, instead of training from parameters the config does not describe."""
    from load import load
    try:
        tensors, meta = load(path)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"train.py: --init {path}: not a readable export ({e})")
    if "scaledot.config" not in meta:
        sys.exit(f"train.py: --init {path}: no scaledot.config in its metadata (not ./train's export)")
    step = meta.get("scaledot.step", "?")
    if step != "0":
        sys.exit(f"train.py: --init {path} holds step {step}; --init takes a step-0 export "
                 "(./train CONFIG --set train.steps=0, then ./train --export)")
    theirs = parse_ini(meta["scaledot.config"])
    for key in sorted(set(cfg) | set(theirs)):
        if key.startswith(MODEL_KEYS) or key in ("task.name", "task.seq_len"):
            if cfg.get(key) != theirs.get(key):
                sys.exit(f"train.py: --init {path} is of another model: {key} = "
                         f"{theirs.get(key, '(absent)')} there, {cfg.get(key, '(absent)')} in the config")
    return {k: v.float() for k, v in tensors.items()}


def open_new(path):
    """path opened for writing as a new file: never through a symbolic link, never over a file
    that exists (O_EXCL refuses both); exits naming it otherwise."""
    import os
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except OSError as e:
        sys.exit(f"train.py: cannot write '{path}': {e.strerror} (an existing file or link is "
                 "never replaced)")
    return os.fdopen(fd, "w")


def make_example(rng, kind, n, S, sep):
    """(tokens, targets, mask) of one example: n symbols, [separator], the answer; the model
    reads all but the last token and predicts the next one; the answer positions count."""
    prompt = [rng.randrange(S) for _ in range(n)]
    answer = sorted(prompt) if kind == "sort" else prompt[::-1] if kind == "reverse" else prompt
    seq = prompt + ([S] if sep else []) + answer
    first = n + (1 if sep else 0)  # index of the first answer token in seq
    T = len(seq) - 1
    return seq[:-1], seq[1:], [1.0 if i + 1 >= first else 0.0 for i in range(T)]


def text_task(cfg):
    """(bytes, training part's length, T, validation windows) of task.name = text as
    src/tasks/text_task.c makes them: the last floor(n * val_fraction) bytes held out, validation
    window k = the T + 1 bytes from train_n + k * T, at most task.val_size of them."""
    path = cfg["task.file"]
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        sys.exit(f"train.py: task.file '{path}' cannot be read: {e.strerror}")
    T, frac = int(cfg["task.seq_len"]), float(cfg["task.val_fraction"])
    train_n = len(data) - math.floor(len(data) * frac)
    n_val = min((len(data) - train_n - 1) // T, int(cfg["task.val_size"]))
    val = [window(data, train_n + k * T, T) for k in range(n_val)]
    return data, train_n, T, val


def window(data, start, T):
    """(tokens, targets, mask) of the T + 1 bytes from start: every position counts."""
    w = data[start:start + T + 1]
    return list(w[:-1]), list(w[1:]), [1.0] * T


def batch_of(examples):
    tok, tgt, m = zip(*examples)
    return torch.tensor(tok), torch.tensor(tgt), torch.tensor(m)


class AdamWRowRates:
    """AdamW (the reference README's rule, step for step as torch.optim.AdamW computes it) with a
    learning-rate multiplier per row of some parameters (optim.lr_q_mult, optim.lr_k_mult on the
    q and k thirds of attn.qkv, model.qkv_thirds), which torch's per-parameter groups cannot
    express: p <- p (1 - lr wd) - lr mult m_hat / (sqrt(v_hat) + eps). The decoupled decay stays
    lr wd, not multiplied (src/optim/optim.h). Used when a multiplier is not 1."""

    def __init__(self, groups, lr, betas, eps, mult):
        self.param_groups = [dict(g, lr=lr) for g in groups]
        self.b1, self.b2, self.eps, self.mult, self.t = betas[0], betas[1], eps, mult, 0
        self.state = {}

    def zero_grad(self, set_to_none=True):
        for g in self.param_groups:
            for p in g["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self):
        self.t += 1
        c1, c2 = 1 - self.b1 ** self.t, 1 - self.b2 ** self.t
        for g in self.param_groups:
            lr, wd = g["lr"], g["weight_decay"]
            for p in g["params"]:
                if p.grad is None:
                    continue
                m, v = self.state.setdefault(p, (torch.zeros_like(p), torch.zeros_like(p)))
                p.mul_(1 - lr * wd)
                m.lerp_(p.grad, 1 - self.b1)
                v.mul_(self.b2).addcmul_(p.grad, p.grad, value=1 - self.b2)
                denom = (v.sqrt() / math.sqrt(c2)).add_(self.eps)
                step = (m / denom) * (lr / c1)
                p.sub_(step * self.mult[p] if p in self.mult else step)


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
    ap.add_argument("--init", help="start from this export's parameters (a step-0 run)")
    ap.add_argument("--csv", help="also write the evaluations to this CSV file")
    a = ap.parse_args()
    torch.set_num_threads(1)
    text = sys.stdin.read() if a.config == "-" else open(a.config).read()
    cfg = parse_ini(text)
    kind = cfg["task.name"]
    if kind not in ("sort", "reverse", "copy", "text"):
        sys.exit(f"train.py: task.name = {kind}: only sort, reverse, copy and text are twinned")
    if cfg["optim.name"] != "adamw":
        sys.exit("train.py: only optim.name = adamw is twinned")
    if cfg.get("model.matmul", "float32") != "float32":
        sys.exit(f"train.py: model.matmul = {cfg['model.matmul']} is not twinned: the twin's "
                 "products are float32")
    if cfg["init.scheme"] != "fan_in" and not a.init:
        sys.exit(f"train.py: init.scheme = {cfg['init.scheme']} is not drawn here: give --init "
                 "with a step-0 export of the run")
    steps = a.steps or int(cfg["train.steps"])
    seed = a.seed if a.seed is not None else int(cfg["run.seed"])
    B, every = int(cfg["train.batch_size"]), int(cfg["train.eval_every"])
    clip, wd = float(cfg["optim.grad_clip"]), float(cfg["optim.weight_decay"])
    qk_clip = float(cfg.get("attention.qk_clip", "0"))

    vrng, trng = random.Random(f"val {seed}"), random.Random(f"train {seed}")
    if kind == "text":
        data, train_n, T, val = text_task(cfg)
        vocab = 256

        def train_example():  # a start in [0, train_n - T - 1], as src/tasks/stream.c draws it
            return window(data, trng.randrange(train_n - T), T)
    else:
        n, S = int(cfg["task.length"]), int(cfg["task.symbols"])
        sep = cfg["task.separator"] != "false"
        vocab = S + 2
        seen, val = set(), []
        while len(val) < int(cfg["task.val_size"]):  # distinct validation examples
            ex = make_example(vrng, kind, n, S, sep)
            if tuple(ex[0]) not in seen:
                seen.add(tuple(ex[0]))
                val.append(ex)

        def train_example():
            return make_example(trng, kind, n, S, sep)
    vtok, vtgt, vmask = batch_of(val)
    T = vtok.shape[1]
    model = twin_from_config(cfg, vocab, T)
    if a.init:
        model.load_state_dict(initial_parameters(a.init, cfg), strict=True)
    else:  # an --init export holds the multiplied init already
        model.init_fan_in(torch.Generator().manual_seed(seed))
        init_mult = qkv_thirds(model, float(cfg.get("init.q_mult", "1")),
                               float(cfg.get("init.k_mult", "1")))
        with torch.no_grad():
            for p, m in init_mult.items():
                p.mul_(m)
            if cfg.get("model.param", "standard") == "mup":  # src/model/model.c model_init_mup
                for b in model.blocks:
                    for p in (b.attn.qkv.weight, b.attn.qkv.bias):
                        if p is not None:
                            p[:p.shape[0] // 3] = 0
                model.head.weight.mul_(math.sqrt(width_mult(cfg)))
    # decoupled weight decay on embeddings and weight matrices only (reference README)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": wd}, {"params": rest, "weight_decay": 0.0}]
    betas = (float(cfg["optim.beta1"]), float(cfg["optim.beta2"]))
    lr_mult = qkv_thirds(model, float(cfg.get("optim.lr_q_mult", "1")),
                         float(cfg.get("optim.lr_k_mult", "1")))
    if width_mult(cfg) != 1.0:  # mup's hidden rate, composed with the q and k rows' factors
        for p in hidden_params(model):
            lr_mult[p] = lr_mult.get(p, 1.0) / width_mult(cfg)
    if lr_mult:
        opt = AdamWRowRates(groups, float(cfg["optim.lr"]), betas, float(cfg["optim.eps"]),
                            lr_mult)
    else:
        opt = torch.optim.AdamW(groups, lr=float(cfg["optim.lr"]), betas=betas,
                                eps=float(cfg["optim.eps"]))
    print(f"twin: {kind}, T={T}, vocab {vocab}, d_model {cfg['model.d_model']}, n_heads "
          f"{cfg['model.n_heads']}, n_layers {cfg['model.n_layers']}, attention.scale = "
          f"{cfg['attention.scale']} ({model.blocks[0].attn.scale:.6g}), {steps} steps of batch {B}",
          flush=True)
    print(f"ran on: {ran_on()}", flush=True)
    if a.csv and __import__("os").path.lexists(a.csv):
        sys.exit(f"train.py: --csv {a.csv} exists; an existing file is never replaced")
    csv = open_new(a.csv + ".tmp") if a.csv else None
    if csv:
        csv.write("step,val_loss,val_bpb,val_token_acc,val_answer_acc\n")
    t0 = time.time()
    for step in range(steps + 1):
        if step % every == 0 or step == steps:
            model.eval()
            last = evaluate(model, vtok, vtgt, vmask)
            model.train()
            bpb = last[0] / math.log(2)
            print(f"step {step:6d}  val loss {last[0]:.4f}" +
                  (f"  bpb {bpb:.4f}" if kind == "text" else f"  answer acc {100 * last[2]:5.1f}%") +
                  f"  token acc {100 * last[1]:5.1f}%  ({time.time() - t0:.0f} s)", flush=True)
            if csv:
                csv.write(f"{step},{last[0]:.6g},{bpb:.6g},{last[1]:.6g},{last[2]:.6g}\n")
        if step == steps:
            break
        tok, tgt, m = batch_of([train_example() for _ in range(B)])
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
    if csv:  # whole or absent: written beside and linked into place (link fails if it exists)
        csv.close()
        os = __import__("os")
        try:
            os.link(a.csv + ".tmp", a.csv)
        except OSError as e:
            os.unlink(a.csv + ".tmp")
            sys.exit(f"train.py: cannot write '{a.csv}': {e.strerror}")
        os.unlink(a.csv + ".tmp")
    print(f"final: val loss {last[0]:.4f}" +
          (f" ({last[0] / math.log(2):.4f} bits per byte), next-byte" if kind == "text" else
           f", answer accuracy {100 * last[2]:.1f}%,") +
          f" token accuracy {100 * last[1]:.1f}% after {steps} steps, attention.scale = "
          f"{cfg['attention.scale']}")


if __name__ == "__main__":
    main()
