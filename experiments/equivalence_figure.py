#!/usr/bin/env python3
"""experiments/equivalence_figure.py DIR: DIR/equivalence.svg from DIR/runs/*/loss.csv
(experiments/equivalence.sh writes them).

Left: the train loss (log axis) of the scaled run and of the unscaled run with W_q's init and learning rate
multiplied by 1/sqrt(d_k), step by step (eps 1e-30, no clipping): one curve on the other.
Right: |train loss difference| of the three pairs on a log axis: the exact pair is 0 at every
step (said in its label: a log axis cannot draw 0), eps 1e-8 and clipping at 1 drift apart.
Plain Python 3, no library."""
import math
import os
import sys

from svg_panel import write_svg

D = sys.argv[1] if len(sys.argv) > 1 else "results/equivalence"
BLUE, ORANGE, GREEN, PURPLE = "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd"


def loss(name):
    out = {}
    with open(os.path.join(D, "runs", name, "loss.csv")) as f:
        head = f.readline().strip().split(",")
        i = head.index("train_loss")
        for line in f:
            w = line.strip().split(",")
            if len(w) > i and w[i]:
                out[int(w[0])] = float(w[i])
    if not out:
        sys.exit(f"equivalence_figure.py: {name}: no train loss")
    return out


def diff(a, b):
    A, B = loss(a), loss(b)
    return [(s, abs(A[s] - B[s])) for s in sorted(A) if s in B]


class Panel:
    def __init__(self, o, x, y, w, h, xr, yr, logy, title, ylabel):
        self.o, self.x, self.y, self.w, self.h = o, x, y, w, h
        self.xr, self.yr, self.logy = xr, yr, logy
        o.append(f'<text x="{x + w / 2}" y="{y - 10}" text-anchor="middle" font-weight="bold">'
                 f'{title}</text>')
        o.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="none" stroke="#333"/>')
        for s in range(0, int(xr[1]) + 1, 500):
            o.append(f'<text x="{self.X(s):.1f}" y="{y + h + 16}" text-anchor="middle">{s}</text>')
        o.append(f'<text x="{x + w / 2}" y="{y + h + 34}" text-anchor="middle">step</text>')
        o.append(f'<text transform="translate({x - 46} {y + h / 2}) rotate(-90)" '
                 f'text-anchor="middle">{ylabel}</text>')
        if logy:
            for e in range(int(math.log10(yr[0])), int(math.log10(yr[1])) + 1):
                v = 10.0 ** e
                o.append(f'<line x1="{x}" x2="{x + w}" y1="{self.Y(v):.1f}" y2="{self.Y(v):.1f}" '
                         f'stroke="#ddd"/><text x="{x - 4}" y="{self.Y(v) + 4:.1f}" '
                         f'text-anchor="end">1e{e}</text>')
        else:
            v = yr[0]
            while v <= yr[1] + 1e-9:
                o.append(f'<line x1="{x}" x2="{x + w}" y1="{self.Y(v):.1f}" y2="{self.Y(v):.1f}" '
                         f'stroke="#ddd"/><text x="{x - 4}" y="{self.Y(v) + 4:.1f}" '
                         f'text-anchor="end">{v:.1f}</text>')
                v += 0.5

    def X(self, s):
        return self.x + self.w * (s - self.xr[0]) / (self.xr[1] - self.xr[0])

    def Y(self, v):
        if self.logy:
            a, b, v = math.log10(self.yr[0]), math.log10(self.yr[1]), math.log10(v)
        else:
            a, b = self.yr
        return self.y + self.h * (b - v) / (b - a)

    def line(self, pts, col, width=1.5, dash="", label="", ly=0):
        pts = [(s, v) for s, v in pts if not self.logy or v > 0]
        da = f' stroke-dasharray="{dash}"' if dash else ""
        if pts:
            d = " ".join(f"{'M' if i == 0 else 'L'}{self.X(s):.1f},{self.Y(v):.1f}"
                         for i, (s, v) in enumerate(pts))
            self.o.append(f'<path d="{d}" fill="none" stroke="{col}" stroke-width="{width}"{da}/>')
        if label:
            # below the panel, out of the curves' way
            ty = self.y + self.h + 52 + 16 * ly
            self.o.append(f'<line x1="{self.x}" x2="{self.x + 24}" y1="{ty - 4}" y2="{ty - 4}" '
                          f'stroke="{col}" stroke-width="2"{da if pts else ""}/>')
            self.o.append(f'<text x="{self.x + 30}" y="{ty}">{label}</text>')


def main():
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="980" height="420" viewBox="0 0 980 420" '
         'font-family="sans-serif" font-size="12"><rect width="980" height="420" fill="white"/>']
    a, b = loss("scaled_exact"), loss("unscaled_q_exact")
    steps = sorted(a)
    hi = max(max(a.values()), max(b.values()))
    lo_l = min(min(a.values()), min(b.values()))
    p = Panel(o, 70, 40, 380, 260, (0, steps[-1]), (10.0 ** math.floor(math.log10(lo_l)),
              10.0 ** math.ceil(math.log10(hi))), True,
              "train loss, eps 1e-30, no clipping", "train loss (nats, log)")
    p.line([(s, a[s]) for s in steps], BLUE, 4, label="scale 1/√d_k", ly=0)
    p.line([(s, b[s]) for s in steps if s in b], ORANGE, 1.5, "5 3",
           label="scale 1, W_q init and lr × 1/√d_k", ly=1)
    pairs = [("scaled_exact", "unscaled_q_exact", GREEN, "eps 1e-30, no clipping"),
             ("scaled_eps", "unscaled_q_eps", PURPLE, "eps 1e-8, no clipping"),
             ("scaled_clip", "unscaled_q_clip", ORANGE, "eps 1e-30, clipping at 1")]
    ds = [diff(x, y) for x, y, _, _ in pairs]
    pos = [v for d in ds for _, v in d if v > 0]
    lo = 10.0 ** math.floor(math.log10(min(pos))) if pos else 1e-8
    top = 10.0 ** math.ceil(math.log10(max(pos))) if pos else 1
    q = Panel(o, 570, 40, 380, 260, (0, steps[-1]), (lo, top), True,
              "|train loss difference| of each pair", "|difference| (nats, log)")
    for i, ((_, _, col, what), d) in enumerate(zip(pairs, ds)):
        zero = all(v == 0 for _, v in d)
        q.line(d, col, label=what + (": 0 at every step" if zero else ""), ly=i)
    o.append("</svg>")
    path = os.path.join(D, "equivalence.svg")
    write_svg(path, o)
    print(f"equivalence_figure.py: {path}")


main()
