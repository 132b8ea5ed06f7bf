#!/usr/bin/env python3
"""experiments/mup_figure.py [DIR]: experiments/mup_map.sh's parts in one figure (issue 42 item 3).

Reads DIR/<series>_d<width>/sweep.csv (DIR: results/mup_map; series h2 = 2 heads, d_k = d_model / 2,
and dk32 = the control, d_k 32 fixed) and writes DIR/mup_map.svg: one row per series; in it one
panel per width with the final validation bits per byte (val_loss / ln 2) against lr, one line per
arm (model.param standard / mup x attention.scale 1/sqrt(d_k) / 8/d_k), the mean over the seeds
with a bar from their min to max, and a last panel with each arm's best lr (smallest mean) against
d_model: flat = the optimum transfers. The d_k 64 runs (h2_d128) were planned with sqrt_dk only,
where 8/d_k is the same number: they are drawn for both scales. A diverged run counts as its loss at
initialisation (loss0) in the mean, as in experiments/mup_transfer.sh, whose table gives the
numbers. Plain Python 3, no library."""
import csv
import math
import os
import sys

from svg_panel import legend, lr_text, panel, write_svg

D = sys.argv[1] if len(sys.argv) > 1 else "results/mup_map"
SERIES = [("h2", "2 heads (d_k = d_model / 2)"), ("dk32", "control: d_k 32 (heads = d_model / 32)")]
WIDTHS = [128, 256, 512, 768]
ARMS = [("standard", "sqrt_dk", "#1f77b4", "", "standard, 1/√d_k"),
        ("standard", "8/d_k", "#1f77b4", "5 3", "standard, 8/d_k"),
        ("mup", "sqrt_dk", "#d62728", "", "μP, 1/√d_k"),
        ("mup", "8/d_k", "#d62728", "5 3", "μP, 8/d_k")]
LN2 = math.log(2)


def rows(series, width):
    path = os.path.join(D, f"{series}_d{width}", "sweep.csv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r["status"] in ("ok", "diverged")]


def arms_of(r):
    """the arms a run stands for: both scales at d_k 64, where 8/d_k = 1/sqrt(d_k)"""
    scales = ["sqrt_dk", "8/d_k"] if r["scale"] == "sqrt_dk" and r["d_k"] == "64" else [r["scale"]]
    return [(r["model.param"], s) for s in scales]


def analyse(rs):
    """per arm: {lr: [bits per byte of each seed, loss0 for a diverged one]}, its best lr"""
    out = {}
    for r in rs:
        v = float(r["val_loss"] if r["status"] == "ok" else r["loss0"]) / LN2
        for arm in arms_of(r):
            out.setdefault(arm, {}).setdefault(float(r["optim.lr"]), []).append(v)
    best = {arm: min(by, key=lambda lr: sum(by[lr]) / len(by[lr])) for arm, by in out.items()}
    return out, best


def mean(v):
    return sum(v) / len(v)


def draw_lines(o, X, Y, by_arm, hi, tag):
    for param, scale, col, dash, label in ARMS:
        by = by_arm.get((param, scale))
        if not by:
            continue
        da = f' stroke-dasharray="{dash}"' if dash else ""
        lrs = sorted(by)
        d = " ".join(f"{'M' if k == 0 else 'L'}{X(lr):.1f},{Y(min(mean(by[lr]), hi)):.1f}" for k, lr in enumerate(lrs))
        o.append(f'<path d="{d}" fill="none" stroke="{col}" stroke-width="2"{da}/>')
        for lr in lrs:
            vs = by[lr]
            o.append(f'<line x1="{X(lr):.1f}" x2="{X(lr):.1f}" y1="{Y(min(min(vs), hi)):.1f}" '
                     f'y2="{Y(min(max(vs), hi)):.1f}" stroke="{col}"/>')
            o.append(f'<circle cx="{X(lr):.1f}" cy="{Y(min(mean(vs), hi)):.1f}" r="3" '
                     f'fill="{col if not dash else "white"}" stroke="{col}"><title>{tag} {label} lr '
                     f'{lr_text(lr)}: {", ".join(f"{v:.3f}" for v in vs)} bits per byte</title></circle>')


def main():
    data = {(s, w): analyse(rows(s, w)) for s, _ in SERIES for w in WIDTHS if rows(s, w)}
    if not data:
        sys.exit(f"mup_figure.py: no {D}/<series>_d<width>/sweep.csv with a finished run")
    series = [s for s in SERIES if any(k[0] == s[0] for k in data)]
    ncol = max(sum(1 for k in data if k[0] == s) for s, _ in series) + 1
    all_lrs = sorted({lr for by_arm, _ in data.values() for by in by_arm.values() for lr in by})
    vals = [mean(v) for by_arm, _ in data.values() for by in by_arm.values() for v in by.values()]
    lo_b = math.floor(min(vals) * 5) / 5
    hi_b = math.ceil(min(max(vals), min(vals) + 1.0) * 5) / 5
    PW, PH, L, G, RH = 230, 230, 60, 40, 330
    W = max(L + ncol * (PW + G) + 10, 820)
    H = 40 + len(series) * RH + 90
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
         f'font-family="sans-serif" font-size="12"><rect width="{W}" height="{H}" fill="white"/>']
    for row, (s, title) in enumerate(series):
        y = 60 + row * RH
        o.append(f'<text x="{L}" y="{y - 32}" font-weight="bold" font-size="13">{title}</text>')
        widths = [w for w in WIDTHS if (s, w) in data]
        for i, w in enumerate(widths):
            x = L + i * (PW + G)
            X, Y = panel(o, x, y, PW, PH, lo_b, hi_b, False, all_lrs, f"d_model {w}",
                         "final val bits per byte" if i == 0 else "")
            o.append(f'<text x="{x + PW / 2}" y="{y + PH + 30}" text-anchor="middle" font-size="11">lr</text>')
            draw_lines(o, X, Y, data[(s, w)][0], hi_b, f"{s} d_model {w}")
        x = L + len(widths) * (PW + G)
        X, Y = panel(o, x, y, PW, PH, all_lrs[0] / 1.5, all_lrs[-1] * 1.5, True,
                     widths if len(widths) > 1 else [widths[0] / 2, widths[0] * 2], "best lr against d_model",
                     "", fmt=lambda v: f"{v:g}")
        o.append(f'<text x="{x + PW / 2}" y="{y + PH + 30}" text-anchor="middle" font-size="11">d_model</text>')
        for k, (param, scale, col, dash, label) in enumerate(ARMS):
            pts = [(w, data[(s, w)][1][(param, scale)]) for w in widths if (param, scale) in data[(s, w)][1]]
            if not pts:
                continue
            off = (k - 1.5) * 0.02  # the arms side by side where their best lrs coincide
            da = f' stroke-dasharray="{dash}"' if dash else ""
            d = " ".join(f"{'M' if j == 0 else 'L'}{X(w * 2 ** off):.1f},{Y(lr):.1f}" for j, (w, lr) in enumerate(pts))
            o.append(f'<path d="{d}" fill="none" stroke="{col}" stroke-width="2"{da}/>')
            for w, lr in pts:
                o.append(f'<circle cx="{X(w * 2 ** off):.1f}" cy="{Y(lr):.1f}" r="3.5" fill="{col if not dash else "white"}" '
                         f'stroke="{col}"><title>{s} {label} d_model {w}: best lr {lr_text(lr)}</title></circle>')
    legend(o, ARMS, L, H - 72, 220)
    o.append(f'<text x="{L}" y="{H - 24}" font-size="11">text (KJV bytes), LLaMA block, the users\' recipe, 1000 '
             f'steps; points: mean over the seeds (a diverged run at its initial loss),</text>')
    o.append(f'<text x="{L}" y="{H - 10}" font-size="11">bars: min to max (above {hi_b:.1f}: at the top edge); '
             f'best lr: the smallest mean, side by side where arms coincide</text>')
    o.append("</svg>")
    path = os.path.join(D, "mup_map.svg")
    write_svg(path, o)
    print(f"mup_figure.py: {path}")


main()
