#!/usr/bin/env python3
"""twin/load.py RUN.safetensors VAL.safetensors [--float32] [--tol 1e-5]: loads a run exported
by `./train --export RUN_DIR RUN.safetensors --val VAL.safetensors` into the PyTorch twin
(twin/model.py, state-dict names checked strictly), evaluates it on the exported validation set
and compares the validation loss, token accuracy and answer accuracy with the ones the C program
computed (VAL's metadata), and the logits of the first batch with the C program's. Prints both
and exits 1 when any differs by more than its bound (--tol, --logit-tol).
Uses the `safetensors` package when it is installed, else the small reader below."""
import argparse
import json
import struct
import sys

import torch

sys.dont_write_bytecode = True  # no twin/__pycache__ in the source tree
sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from model import evaluate, parse_ini, twin_from_config  # noqa: E402

DTYPES = {"F32": torch.float32, "I32": torch.int32, "F64": torch.float64, "I64": torch.int64}


def read_safetensors(path):
    """(tensors by name, metadata): u64 little-endian header length, JSON header, data."""
    with open(path, "rb") as f:
        buf = f.read()
    (n,) = struct.unpack("<Q", buf[:8])
    header = json.loads(buf[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {})
    data = buf[8 + n:]
    tensors = {}
    for name, h in header.items():
        b, e = h["data_offsets"]
        t = torch.frombuffer(bytearray(data[b:e]), dtype=DTYPES[h["dtype"]])
        tensors[name] = t.reshape(h["shape"]).clone()
    return tensors, meta


def load(path):
    try:
        from safetensors import safe_open
    except ImportError:
        return read_safetensors(path)
    with safe_open(path, framework="pt") as f:
        return {k: f.get_tensor(k) for k in f.keys()}, f.metadata() or {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="RUN.safetensors (./train --export)")
    ap.add_argument("val", help="VAL.safetensors (./train --export ... --val)")
    ap.add_argument("--float32", action="store_true",
                    help="evaluate in float32 as the C program does (default: float64)")
    ap.add_argument("--tol", type=float, default=1e-5,
                    help="bound on |twin - scaledot| of the loss and accuracies (default 1e-5)")
    ap.add_argument("--logit-tol", type=float, default=1e-5,
                    help="bound on the logits' largest difference, relative to max(1, max "
                         "|logit|) (default 1e-5)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    params, meta = load(a.run)
    val, vmeta = load(a.val)
    cfg = parse_ini(meta["scaledot.config"])
    if cfg.get("model.matmul", "float32") != "float32":
        # the twin multiplies in float32 or float64: a bf16 run's logits differ by bf16's
        # rounding (about 1e-2 relative), far beyond --tol, and that would not be a bug
        sys.exit(f"load.py: {a.run} is a run with model.matmul = {cfg['model.matmul']}; the twin "
                 "reproduces float32 runs only (its products are not rounded to bf16)")
    V, C = params["tok_emb"].shape
    # max_seq_len: pos_emb's rows (the LLaMA block has none: its RoPE angles need no table)
    model = twin_from_config(cfg, V, params["pos_emb"].shape[0] if "pos_emb" in params else 0)
    # the scale this twin resolved from attention.scale against the one the C program used
    c_scale = float(meta["scaledot.attention_scale"])
    if abs(model.blocks[0].attn.scale - c_scale) > 1e-7 * c_scale:
        sys.exit(f"load.py: scale {model.blocks[0].attn.scale} resolved from attention.scale = "
                 f"{cfg['attention.scale']}, the export says {c_scale}")
    model.load_state_dict(params, strict=True)
    model = model.to(torch.float32 if a.float32 else torch.float64)
    tokens, targets, mask = val["tokens"].long(), val["targets"].long(), val["mask"]
    got = evaluate(model, tokens, targets, mask)
    # the C program's logits on the first batch, element by element (sharper than the loss)
    c_logits = val["logits"].double()
    with torch.no_grad():
        t_logits = model(tokens[:c_logits.shape[0]]).double()
    logit_diff = float((t_logits - c_logits).abs().max())
    logit_bound = a.logit_tol * max(1.0, float(c_logits.abs().max()))
    want = [float(vmeta[k]) for k in
            ("scaledot.val_loss", "scaledot.token_accuracy", "scaledot.answer_accuracy")]
    bad = 0
    print(f"{a.run}: step {meta.get('scaledot.step', '?')}, attention.scale = "
          f"{cfg['attention.scale']} ({c_scale:.6g}), {tokens.shape[0]} validation examples, "
          f"twin in {'float32' if a.float32 else 'float64'}")
    for name, g, w in zip(("val loss", "token accuracy", "answer accuracy"), got, want):
        ok = abs(g - w) <= a.tol
        bad += not ok
        print(f"  {name:16s} twin {g:.9f}  scaledot {w:.9f}  |diff| {abs(g - w):.2e}  "
              f"{'ok' if ok else 'DIFFERS'}")
    ok = logit_diff <= logit_bound
    bad += not ok
    print(f"  logits of {c_logits.shape[0]} examples: max |twin - scaledot| {logit_diff:.2e} "
          f"(bound {logit_bound:.1e}, max |logit| {float(c_logits.abs().max()):.1f})  "
          f"{'ok' if ok else 'DIFFERS'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
