#!/usr/bin/env python3
"""experiments/saturation_iid.py [STD [ROWS [SEED]]]: how often a softmax row saturates (its
largest weight above 0.99, attention.csv's saturated_frac) when its n logits are i.i.d.
N(0, STD^2), at n = 8, 16 and 64 keys (the windows of experiments/window_text.sh). Double
precision (Python floats), the row's maximum subtracted before exp; Monte Carlo over ROWS rows per
n (default STD 8, the unscaled step-0 logit std at d_k 64; 200000 rows; seed 1), with the standard
error of each fraction. Python's standard library only.

It answers docs/attention_fixes.md's window section: at a fixed logit spread, does a row of fewer
keys saturate less often or more? (More: fewer competitors for the largest logit.)
"""
import math
import random
import sys


def saturated_fraction(n, std, rows, rng, threshold=0.99):
    hits = 0
    for _ in range(rows):
        z = [rng.gauss(0.0, std) for _ in range(n)]
        m = max(z)
        total = math.fsum(math.exp(v - m) for v in z)
        if 1.0 / total > threshold:  # the largest weight is exp(0) / total
            hits += 1
    return hits / rows


def main():
    std = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    print(f"i.i.d. N(0, {std:g}^2) logits, {rows} rows per n, seed {seed}: "
          "fraction of rows whose largest softmax weight exceeds 0.99")
    print(f"{'n keys':>6}  {'saturated':>9}  {'std error':>9}")
    for n in (8, 16, 64):
        rng = random.Random(seed * 1000 + n)
        f = saturated_fraction(n, std, rows, rng)
        print(f"{n:>6}  {f:>9.4f}  {math.sqrt(f * (1 - f) / rows):>9.4f}")


if __name__ == "__main__":
    main()
