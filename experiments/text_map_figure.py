#!/usr/bin/env python3
"""experiments/text_map_figure.py [DIR]: the users'-regime text map in one figure and one table
(issue 41; experiments/text_map.sh calls it after publishing).

Reads DIR/<part>/sweep.csv (DIR: results/text_map; parts d128, d256, d512, d768, bf16_d768,
gpt2_d256 as present) and writes
  DIR/text_map.svg   top row: final validation bits per byte (val_loss / ln 2) against lr, one
                     panel per part, one line per arm (scale x qk-norm), the median over the seeds
                     with a bar from their min to max (Wortsman et al. 2023, Figure 1); bottom
                     row: every run's peak head-mean logit std (log axis), same colours.
  DIR/lr_sensitivity.txt  per part and arm: the best lr, its bits per byte (median) and runs, the
                     stable range (lrs at which every seed ended within 0.1 bits per byte of the
                     part's best run, the text_users regime's criterion, experiments/
                     regimes.txt), the LR sensitivity in bits per byte and the largest peak
                     logit std.
LR sensitivity (Wortsman et al. 2023, arXiv 2309.14322, sec. 2.2): the mean over the lr grid of
min(l(lr), l0) - l*, l(lr) the mean final val_loss over the seeds (a diverged run counts as l0),
l0 the mean loss at initialisation (loss0), l* the arm's best l(lr); here in bits (/ ln 2).
Only runs with status ok or diverged count. Plain Python 3, no library."""
import csv
import math
import os
import sys

from svg_panel import legend, lr_text, panel, write_svg

D = sys.argv[1] if len(sys.argv) > 1 else "results/text_map"
PARTS = ["d128", "d256", "d512", "d768", "bf16_d768", "gpt2_d256"]
TITLE = {"d128": "d_model 128", "d256": "d_model 256", "d512": "d_model 512",
         "d768": "d_model 768", "bf16_d768": "d_model 768, bf16 matmul",
         "gpt2_d256": "d_model 256, GPT-2 block"}
ARMS = [("sqrt_dk", "none", "#1f77b4", "", "scale 1/√d_k"),
        ("none", "none", "#ff7f0e", "", "no scale"),
        ("sqrt_dk", "rmsnorm", "#1f77b4", "5 3", "1/√d_k + qk-RMSNorm"),
        ("none", "rmsnorm", "#ff7f0e", "5 3", "no scale + qk-RMSNorm (Gemma 4)")]
LN2 = math.log(2)
NEAR = 0.1  # bits per byte: the text_users regime's "near the best"


def rows(part):
    path = os.path.join(D, part, "sweep.csv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r["status"] in ("ok", "diverged")]


def med(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def arm_of(r):
    return (r["scale"], r["attention.qk_norm"])


def analyse(rs):
    """Per arm: {lr: [bpb of each ok seed]}, {lr: [peak]}, and the LR sensitivity in bits."""
    ok = [r for r in rs if r["status"] == "ok" and r["val_loss"]]
    best_run = min(float(r["val_loss"]) for r in ok) / LN2 if ok else float("nan")
    l0s = [float(r["loss0"]) for r in rs if r["loss0"]]
    l0 = sum(l0s) / len(l0s) if l0s else float("nan")
    out = {}
    for scale, qk, *_ in ARMS:
        mine = [r for r in rs if arm_of(r) == (scale, qk)]
        if not mine:
            continue
        lrs = sorted({float(r["optim.lr"]) for r in mine})
        bpb, peak, mean_l = {}, {}, {}
        for lr in lrs:
            at = [r for r in mine if float(r["optim.lr"]) == lr]
            bpb[lr] = [float(r["val_loss"]) / LN2 for r in at if r["status"] == "ok" and r["val_loss"]]
            peak[lr] = [float(r["logit_std_peak"]) for r in at if r["logit_std_peak"]]
            ls = [float(r["val_loss"]) if r["status"] == "ok" and r["val_loss"] else l0 for r in at]
            mean_l[lr] = sum(ls) / len(ls)
        lstar = min(mean_l.values())
        sens = sum(min(v, l0) - lstar for v in mean_l.values()) / len(mean_l) / LN2
        best_lr = min(mean_l, key=mean_l.get)
        stable = [lr for lr in lrs if bpb[lr] and len(bpb[lr]) == len([r for r in mine if float(r["optim.lr"]) == lr])
                  and max(bpb[lr]) <= best_run + NEAR]
        seeds = sorted({r["seed"] for r in mine})
        out[(scale, qk)] = dict(lrs=lrs, bpb=bpb, peak=peak, sens=sens, best_lr=best_lr,
                                best=med(bpb[best_lr]) if bpb[best_lr] else float("nan"),
                                stable=stable, seeds=seeds)
    return out, best_run


def main():
    parts = [p for p in PARTS if rows(p)]
    if not parts:
        sys.exit(f"text_map_figure.py: no {D}/<part>/sweep.csv with a finished run")
    data = {p: analyse(rows(p)) for p in parts}
    all_lrs = sorted({lr for p in parts for a in data[p][0].values() for lr in a["lrs"]})
    bmin = min(v for p in parts for a in data[p][0].values() for vs in a["bpb"].values() for v in vs)
    bmax = max(v for p in parts for a in data[p][0].values() for vs in a["bpb"].values() for v in vs)
    lo_b, hi_b = math.floor(bmin * 5) / 5, math.ceil(min(bmax, bmin + 1.6) * 5) / 5
    peaks = [v for p in parts for a in data[p][0].values() for vs in a["peak"].values() for v in vs if v > 0]
    lo_p, hi_p = 10 ** math.floor(math.log10(min(peaks))), 10 ** math.ceil(math.log10(max(peaks)))
    PW, PH, PH2, L, G = 250, 250, 150, 60, 30
    W = L + len(parts) * (PW + G) + 10
    H = 40 + PH + 50 + PH2 + 110
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
         f'font-family="sans-serif" font-size="12"><rect width="{W}" height="{H}" fill="white"/>']
    for i, p in enumerate(parts):
        arms, best_run = data[p]
        x = L + i * (PW + G)
        X, Y = panel(o, x, 40, PW, PH, lo_b, hi_b, False, all_lrs, TITLE[p],
                     "final val bits per byte" if i == 0 else "")
        X2, Y2 = panel(o, x, 40 + PH + 50, PW, PH2, lo_p, hi_p, True, all_lrs, "",
                       "peak logit std (log)" if i == 0 else "")
        o.append(f'<text x="{x + PW / 2}" y="{40 + PH + 32}" text-anchor="middle" font-size="11">lr</text>')
        for scale, qk, col, dash, _ in ARMS:
            a = arms.get((scale, qk))
            if not a:
                continue
            da = f' stroke-dasharray="{dash}"' if dash else ""
            pts = [(lr, med(a["bpb"][lr])) for lr in a["lrs"] if a["bpb"][lr]]
            clipped = [(lr, min(v, hi_b)) for lr, v in pts]
            d = " ".join(f"{'M' if k == 0 else 'L'}{X(lr):.1f},{Y(v):.1f}" for k, (lr, v) in enumerate(clipped))
            o.append(f'<path d="{d}" fill="none" stroke="{col}" stroke-width="2"{da}/>')
            for lr in a["lrs"]:
                vs = a["bpb"][lr]
                if vs:
                    o.append(f'<line x1="{X(lr):.1f}" x2="{X(lr):.1f}" y1="{Y(min(min(vs), hi_b)):.1f}" '
                             f'y2="{Y(min(max(vs), hi_b)):.1f}" stroke="{col}"/>')
                    o.append(f'<circle cx="{X(lr):.1f}" cy="{Y(min(med(vs), hi_b)):.1f}" r="3" '
                             f'fill="{col if not dash else "white"}" stroke="{col}">'
                             f'<title>{p} {scale} qk-norm {qk} lr {lr_text(lr)}: '
                             f'{", ".join(f"{v:.3f}" for v in vs)} bits per byte</title></circle>')
                for v in a["peak"][lr]:
                    if v > 0:
                        o.append(f'<circle cx="{X(lr) + (3 if dash else -3):.1f}" cy="{Y2(v):.1f}" r="2.5" '
                                 f'fill="{col if not dash else "white"}" stroke="{col}"/>')
        o.append(f'<line x1="{x}" x2="{x + PW}" y1="{Y(best_run + NEAR):.1f}" y2="{Y(best_run + NEAR):.1f}" '
                 f'stroke="#2ca02c" stroke-dasharray="2 3"/>')
        o.append(f'<text x="{x + PW - 4}" y="{Y(best_run + NEAR) - 4:.1f}" text-anchor="end" font-size="10" '
                 f'fill="#2ca02c">best + 0.1</text>')
    legend(o, ARMS, L, H - 62, 260)
    o.append(f'<text x="{L}" y="{H - 20}" font-size="11">text (KJV bytes), the users\' recipe, 1000 steps; '
             f'points: median over the seeds, bars: their min to max</text>')
    o.append(f'<text x="{L}" y="{H - 6}" font-size="11">(above {hi_b:.1f}: drawn at the top edge); '
             f'bottom: each run\'s peak head-mean logit std</text>')
    o.append("</svg>")
    path = os.path.join(D, "text_map.svg")
    write_svg(path, o)

    t = ["# experiments/text_map_figure.py: per part and arm, from results/text_map/<part>/sweep.csv",
         "# best lr: smallest mean final val_loss over the seeds; bpb: its median (bits per byte), n:",
         "# its runs with status ok (a grid still filling compares lrs with different seed counts);",
         "# stable lrs: every seed within 0.1 bits per byte of the part's best run; LR sens.: Wortsman",
         "# et al. 2023 sec. 2.2 in bits per byte; peak: the largest peak logit std of any run", ""]
    t.append(f"{'part':<10} {'arm':<32} {'seeds':<6} {'best lr':<8} {'bpb':<7} {'n':<2} {'stable lrs':<26} {'LR sens.':<9} peak")
    for p in parts:
        arms, best_run = data[p]
        t.append(f"{p:<10} {'(best run: ' + format(best_run, '.4f') + ' bits per byte)':<32}")
        for scale, qk, _, _, label in ARMS:
            a = arms.get((scale, qk))
            if not a:
                continue
            st = a["stable"]
            rng = "none" if not st else lr_text(st[0]) if len(st) == 1 else f"{lr_text(st[0])}-{lr_text(st[-1])} ({len(st)})"
            pk = max((v for vs in a["peak"].values() for v in vs), default=float("nan"))
            t.append(f"{'':<10} {label:<32} {','.join(a['seeds']):<6} {lr_text(a['best_lr']):<8} "
                     f"{a['best']:<7.4f} {len(a['bpb'][a['best_lr']]):<2} {rng:<26} {a['sens']:<9.4f} {pk:.3g}")
    with open(os.path.join(D, "lr_sensitivity.txt.tmp"), "w") as f:
        f.write("\n".join(t) + "\n")
    os.replace(os.path.join(D, "lr_sensitivity.txt.tmp"), os.path.join(D, "lr_sensitivity.txt"))
    print("\n".join(t))
    print(f"text_map_figure.py: {path}")


main()
