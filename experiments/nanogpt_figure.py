#!/usr/bin/env python3
"""experiments/nanogpt_figure.py [CURVES.txt [OUT.svg]]: the nanoGPT baseline's figure.

Reads the table experiments/nanogpt_baseline.sh writes (results/text/nanogpt/curves.txt: the
validation bits per byte of ./train and of the PyTorch twin, scaled and unscaled, median over the
seeds, every 100 steps) and draws it as one SVG (results/text/nanogpt/curves.svg): ./train solid,
the twin dashed, blue with the 1/sqrt(d_k) scale and orange without, as in the reports. Step 0
(8.06 bits per byte for all four: uniform over 256 bytes would be 8) is left off the axis and said
in the caption, so that the part where they differ is readable. Plain Python 3, no library."""
import os
import re
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else "results/text/nanogpt/curves.txt"
OUT = sys.argv[2] if len(sys.argv) > 2 else "results/text/nanogpt/curves.svg"
NAMES = ["train scaled", "twin scaled", "train unscaled", "twin unscaled"]
STYLE = {  # colour, dash, label
    "train scaled": ("#1f77b4", "", "./train, scale 1/√d_k"),
    "twin scaled": ("#1f77b4", "6 4", "PyTorch twin, scale 1/√d_k"),
    "train unscaled": ("#ff7f0e", "", "./train, no scale"),
    "twin unscaled": ("#ff7f0e", "6 4", "PyTorch twin, no scale"),
}


def read(path):
    rows, ran_on = [], ""
    with open(path) as f:
        for line in f:
            w = line.split()
            if line.startswith("twin ran on:"):
                ran_on = line.strip()
            elif w and w[0].isdigit() and len(w) == 5:
                rows.append([int(w[0])] + [float(x) for x in w[1:]])
    if not rows:
        sys.exit(f"nanogpt_figure.py: {path}: no rows 'step v v v v'")
    return rows, ran_on


def main():
    rows, ran_on = read(SRC)
    pts = [r for r in rows if r[0] > 0]
    W, H, L, R, T, B = 640, 380, 60, 190, 30, 50
    x0, x1 = 0, max(r[0] for r in pts)
    lo = min(min(r[1:]) for r in pts)
    hi = max(max(r[1:]) for r in pts)
    y0, y1 = 0.2 * int(lo / 0.2), 0.2 * (int(hi / 0.2) + 1)

    def X(s):
        return L + (W - L - R) * (s - x0) / (x1 - x0)

    def Y(v):
        return T + (H - T - B) * (y1 - v) / (y1 - y0)

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
         f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{L}" y="18" font-size="13">nanoGPT\'s CPU recipe on KJV bytes: validation '
         f'bits per byte (median of seeds 1–2)</text>']
    v = y0
    while v <= y1 + 1e-9:
        o.append(f'<line x1="{L}" x2="{W - R}" y1="{Y(v):.1f}" y2="{Y(v):.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{L - 6}" y="{Y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
        v += 0.2
    for s in range(0, x1 + 1, 500):
        o.append(f'<line x1="{X(s):.1f}" x2="{X(s):.1f}" y1="{H - B}" y2="{H - B + 4}" stroke="#333"/>')
        o.append(f'<text x="{X(s):.1f}" y="{H - B + 17}" text-anchor="middle">{s}</text>')
    o.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="#333"/>')
    o.append(f'<text x="{(L + W - R) / 2:.0f}" y="{H - 14}" text-anchor="middle">step '
             f'(step 0: 8.06 for all four)</text>')
    o.append(f'<text transform="translate(16 {(T + H - B) / 2:.0f}) rotate(-90)" '
             f'text-anchor="middle">bits per byte</text>')
    for i, name in enumerate(NAMES):
        col, dash, label = STYLE[name]
        path = " ".join(f"{'M' if k == 0 else 'L'}{X(r[0]):.1f},{Y(r[1 + i]):.1f}"
                        for k, r in enumerate(pts))
        d = f' stroke-dasharray="{dash}"' if dash else ""
        o.append(f'<path d="{path}" fill="none" stroke="{col}" stroke-width="2"{d}>'
                 f'<title>{label}: {pts[-1][1 + i]:.3f} at step {pts[-1][0]}</title></path>')
        ly = T + 14 + 20 * i
        o.append(f'<line x1="{W - R + 10}" x2="{W - R + 36}" y1="{ly}" y2="{ly}" stroke="{col}" '
                 f'stroke-width="2"{d}/>')
        o.append(f'<text x="{W - R + 42}" y="{ly + 4}">{label}</text>')
    if ran_on:
        # the twin's library and BLAS, as twin/train.py printed them
        lib = "PyTorch" + ran_on.split("PyTorch", 1)[1].split(",", 1)[0] if "PyTorch" in ran_on else ""
        blas = re.search(r"libopenblas\w*-r([0-9.]+)\.so", ran_on)
        o.append(f'<text x="{W - R + 10}" y="{T + 110}" font-size="11" fill="#555">twin: {lib}</text>')
        if blas:
            o.append(f'<text x="{W - R + 10}" y="{T + 125}" font-size="11" fill="#555">'
                     f'with OpenBLAS {blas.group(1)}</text>')
    o.append("</svg>")
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(o) + "\n")
    os.replace(tmp, OUT)
    print(f"nanogpt_figure.py: {OUT}")


main()
