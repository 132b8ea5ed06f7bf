"""experiments/svg_panel.py: the plot panel the experiments' figure scripts share (text_map_figure.py,
mup_figure.py): plain SVG text, no library."""
import math
import os


def lr_text(v):
    """v as the sweeps write a learning rate: 1.2e-3"""
    e = math.floor(math.log10(v))
    m = f"{v / 10 ** e:.3g}"
    return f"{m}e{e}"


def panel(o, x, y, w, h, lo, hi, logy, xs, title, ylabel, fmt=lr_text):
    """Appends to o (a list of SVG lines) a w x h panel at (x, y): its frame, title, a log2 x axis
    over xs (ticks labelled by fmt) and a y axis from lo to hi (log10 when logy); returns the
    x and y maps, X(value) and Y(value), for the caller's lines."""
    def X(lr):
        return x + w * (math.log2(lr) - math.log2(xs[0]) + 0.3) / (math.log2(xs[-1]) - math.log2(xs[0]) + 0.6)

    def Y(v):
        if logy:
            return y + h * (math.log10(hi) - math.log10(v)) / (math.log10(hi) - math.log10(lo))
        return y + h * (hi - v) / (hi - lo)

    o.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="none" stroke="#333"/>')
    if title:
        o.append(f'<text x="{x + w / 2}" y="{y - 8}" text-anchor="middle" font-weight="bold">{title}</text>')
    for lr in xs:
        o.append(f'<line x1="{X(lr):.1f}" x2="{X(lr):.1f}" y1="{y}" y2="{y + h}" stroke="#eee"/>')
        o.append(f'<text x="{X(lr):.1f}" y="{y + h + 14}" text-anchor="middle" font-size="10">{fmt(lr)}</text>')
    if logy:
        for e in range(int(math.floor(math.log10(lo))), int(math.ceil(math.log10(hi))) + 1):
            v = 10.0 ** e
            if lo <= v <= hi:
                o.append(f'<line x1="{x}" x2="{x + w}" y1="{Y(v):.1f}" y2="{Y(v):.1f}" stroke="#ddd"/>')
                o.append(f'<text x="{x - 4}" y="{Y(v) + 4:.1f}" text-anchor="end" font-size="10">{v:g}</text>')
    else:
        step = 0.2 if hi - lo <= 1.6 else 0.5
        v = math.ceil(lo / step) * step
        while v <= hi + 1e-9:
            o.append(f'<line x1="{x}" x2="{x + w}" y1="{Y(v):.1f}" y2="{Y(v):.1f}" stroke="#ddd"/>')
            o.append(f'<text x="{x - 4}" y="{Y(v) + 4:.1f}" text-anchor="end" font-size="10">{v:.1f}</text>')
            v += step
    if ylabel:
        o.append(f'<text transform="translate({x - 36} {y + h / 2}) rotate(-90)" text-anchor="middle">{ylabel}</text>')
    return X, Y


def legend(o, arms, x, y, dx):
    """Appends a two-row legend at (x, y): arms are tuples ending in (colour, dash, label), two per
    column, columns dx apart; a dashed entry draws its line dashed."""
    for k, (*_, col, dash, label) in enumerate(arms):
        lx, ly = x + (k // 2) * dx, y + 18 * (k % 2)
        da = f' stroke-dasharray="{dash}"' if dash else ""
        o.append(f'<line x1="{lx}" x2="{lx + 28}" y1="{ly}" y2="{ly}" stroke="{col}" stroke-width="2"{da}/>')
        o.append(f'<text x="{lx + 34}" y="{ly + 4}">{label}</text>')


def write_svg(path, o):
    """Writes the SVG lines o to path through a temporary name renamed over it (a reader never
    sees half a figure); o must end with its </svg> line."""
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(o) + "\n")
    os.replace(path + ".tmp", path)
