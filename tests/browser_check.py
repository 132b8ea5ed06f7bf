#!/usr/bin/env python3
"""tests/browser_check.py CHROMIUM PAGE_DIR...: checks each DIR/index.html in headless Chromium
(run by tests/browser.sh). For each page a copy gets two scripts of this test (an error collector
first in <head>, a driver at the end of <body>); Chromium's --dump-dom gives the DOM after the
driver ran, and the driver's findings (a JSON <pre>) are checked here:
  - the page's own script ran (<html data-scripts="ready">) and no script error was raised;
  - every SVG file in DIR is a <figure id=STEM> holding it inline (ids from the file names here);
  - a pointermove dispatched on a curve's middle vertex (a curve of 3 points or more, else 2) shows #tooltip, whose text holds that
    vertex's x and its y (the curve's data-x / data-y values, to 4 significant digits), and a
    pointermove far from every curve hides it;
  - one checkbox per run; unticking the hovered run hides all its elements in every figure (none
    visible, the other runs still visible), ticking it again shows them all;
  - a verdict line (#verdict) above the first figure;
  - on a page with the step slider (runs with attn_steps.csv), check_slider: moved to its first and
    last step (an input event) and to another layer and head, the numbers each run shows equal its
    attention.csv at its step, the histograms its attn_steps.csv, and the maps change; on a text pair's page (its folder's name
    starts with "text") the loss panels in bits per byte, one accuracy panel and the uniform-guess
    line named "chance" in the Show bar; a folded figure (the other heads' attention maps) keeps
    its <details> a line high until opened;
then a screenshot of the page (first screen) must not be blank: enough non-white pixels, many
distinct colours, and at least two of the run colours (plot_style.c) present."""
import csv
import json
import os
import re
import struct
import subprocess
import sys
import zlib

HEAD = """<script>window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });
</script>"""

DRIVER = r"""<script>
window.addEventListener('load', function () {
  var r = {errors: window.__errors, ready: document.documentElement.dataset.scripts || null,
           figures: [], hover: null, away: null, toggle: null, checkboxes: 0};
  try {
    document.querySelectorAll('figure').forEach(function (f) {
      r.figures.push({id: f.id, svg: f.querySelectorAll(':scope > svg').length,
                      series: f.querySelectorAll('path.series').length});
    });
    var vd = document.getElementById('verdict'), fig = document.querySelector('figure');
    r.verdict = vd ? {text: vd.textContent, top: vd.getBoundingClientRect().top,
                     figTop: fig ? fig.getBoundingClientRect().top : null} : null;
    r.lossLabels = Array.from(document.querySelectorAll('figure#loss g.chart')).map(function (g) {
      return g.dataset.yLabel;
    });
    r.accCharts = document.querySelectorAll('figure#accuracy g.chart').length;
    r.toggleLabels = Array.from(document.querySelectorAll('#run-toggles label')).map(function (l) {
      return l.textContent.trim();
    });
    var det = document.querySelector('details.more');
    if (det) {
      r.fold = {closed: det.getBoundingClientRect().height};
      det.open = true;
      r.fold.open = det.getBoundingClientRect().height;
      det.open = false;
    }
    function longer(n) {
      return Array.from(document.querySelectorAll('figure path.series')).filter(function (p) {
        return p.dataset.x && p.dataset.x.split(' ').length >= n;
      });
    }
    /* a curve of three points or more; a sweep of two values of one key has two-point lines */
    var paths = longer(3).length ? longer(3) : longer(2);
    var p = paths[0], xs = p.dataset.x.split(' '), ys = p.dataset.y.split(' ');
    var k = Math.floor(xs.length / 2);
    var v = p.getAttribute('d').match(/-?[0-9.]+/g).map(Number);
    var pt = new DOMPoint(v[2 * k], v[2 * k + 1]).matrixTransform(p.getScreenCTM());
    p.dispatchEvent(new PointerEvent('pointermove', {clientX: pt.x, clientY: pt.y, bubbles: true}));
    var tip = document.getElementById('tooltip');
    r.hover = {run: p.dataset.run, x: xs[k], y: ys[k],
               shown: !!tip && getComputedStyle(tip).display !== 'none',
               text: tip ? tip.textContent : null};
    var svg = p.ownerSVGElement, far = new DOMPoint(1, 1).matrixTransform(svg.getScreenCTM());
    svg.dispatchEvent(new PointerEvent('pointermove', {clientX: far.x, clientY: far.y, bubbles: true}));
    r.away = {shown: !!tip && getComputedStyle(tip).display !== 'none'};
    var boxes = document.querySelectorAll('#run-toggles input[type=checkbox]');
    r.checkboxes = boxes.length;
    var box = Array.from(boxes).find(function (b) { return b.dataset.toggleRun === p.dataset.run; });
    function visible(run, mine) {
      return Array.from(document.querySelectorAll('figure [data-run]')).filter(function (el) {
        return (el.dataset.run === run) === mine && getComputedStyle(el).display !== 'none';
      }).length;
    }
    r.toggle = {found: !!box, before: visible(p.dataset.run, true)};
    if (box) {
      box.click();
      r.toggle.after = visible(p.dataset.run, true);
      r.toggle.others = visible(p.dataset.run, false);
      box.click();
      r.toggle.again = visible(p.dataset.run, true);
    }
    var range = document.getElementById('slider-step');
    if (range) {
      /* the step slider: its state at the first step, the last, and the last of the first pair */
      var pick = document.getElementById('slider-head');
      function state() {
        return {index: Number(range.value), pair: pick.options[pick.selectedIndex].textContent,
                shown: document.getElementById('slider-step-value').textContent,
                runs: Array.from(document.querySelectorAll('.slider-run')).map(function (c) {
                  var nums = {};
                  c.querySelectorAll('.slider-nums b').forEach(function (b) { nums[b.dataset.k] = b.textContent; });
                  return {path: c.dataset.path, nums: nums,
                          map: Array.from(c.querySelectorAll('svg.slider-map rect')).map(function (x) {
                            return x.getAttribute('fill'); }).join(' '),
                          cells: c.querySelectorAll('svg.slider-map rect title').length,
                          shares: Array.from(c.querySelectorAll('svg.slider-hist rect')).map(function (x) {
                            return Number(x.dataset.share); })};
                })};
      }
      function move(v) { range.value = v; range.dispatchEvent(new Event('input', {bubbles: true})); }
      r.slider = {ready: document.documentElement.dataset.slider || null, max: Number(range.max),
                  height: document.getElementById('slider-runs').getBoundingClientRect().height,
                  pairs: pick.options.length, states: []};
      move(0);
      r.slider.states.push(state());
      move(range.max);
      r.slider.states.push(state());
      pick.value = '0';
      pick.dispatchEvent(new Event('change', {bubbles: true}));
      move(range.max);
      r.slider.states.push(state());
    }
  } catch (e) {
    r.errors.push('driver: ' + e);
  }
  var pre = document.createElement('pre');
  pre.id = 'browser-test-result';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
});
</script>"""

RUN_COLORS = [(0x00, 0x72, 0xb2), (0xd5, 0x5e, 0x00), (0x00, 0x9e, 0x73), (0xcc, 0x79, 0xa7)]
FLAGS = ["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
         "--no-first-run", "--virtual-time-budget=3000", "--window-size=1200,1500"]

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def chromium(exe, args):
    r = subprocess.run([exe] + FLAGS + args, capture_output=True, text=True, timeout=180)
    if r.returncode != 0:
        print(r.stderr[-2000:])
    return r


def png_pixels(path):
    """(width, height, rows of (r, g, b)) of an 8-bit non-interlaced RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0, "unsupported PNG %s" % (hdr,)
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, rows, at = zlib.decompress(idat), w * bpp, bytearray(w * bpp), [], 0
    for _ in range(h):
        f, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def check_slider(sl):
    """The step slider against the run folders' own logs: at each state, the slider's step is the
    state's index into the steps any run logged for the pair (attn_steps.csv); each run shows its
    last logged step not after it, attention.csv's saturated_frac, logit_std and dlogit_norm of
    that step as they are written, histogram bars of each bin's share of the counts, and a map of
    side * (side + 1) / 2 visible cells; the maps change between the first and the last step."""
    check(sl["ready"] == "ready", "the slider's script ran")
    check(sl["height"] < 800, "one layer and head at a time: the runs' pictures %d px high" % sl["height"])
    for st in sl["states"]:
        layer, head = [int(t) for t in re.findall(r"[0-9]+", st["pair"])]
        logs = {c["path"]: [r for r in read_csv(os.path.join(c["path"], "attn_steps.csv"))
                            if int(r["layer"]) == layer and int(r["head"]) == head]
                for c in st["runs"]}
        steps = sorted({int(r["step"]) for rows in logs.values() for r in rows})
        want_step = steps[st["index"]]
        check(st["shown"] == str(want_step), "slider at %d shows step %s, want %d"
              % (st["index"], st["shown"], want_step))
        for c in st["runs"]:
            rows = [r for r in logs[c["path"]] if int(r["step"]) <= want_step]
            row = rows[-1]
            step = row["step"]
            attn = [a for a in read_csv(os.path.join(c["path"], "attention.csv"))
                    if (a["step"], a["layer"], a["head"]) == (step, str(layer), str(head))][0]
            want = {"step": step, "sat": attn["saturated_frac"], "std": attn["logit_std"],
                    "grad": attn["dlogit_norm"]}
            check(c["nums"] == want, "%s, %s at step %d: numbers %s, the logs say %s"
                  % (c["path"], st["pair"], want_step, c["nums"], want))
            counts = [float(row[k]) for k in row if k.startswith("n_") and k != "n_nan"]
            shares = [n / sum(counts) for n in counts]
            check(len(c["shares"]) == len(shares) and
                  all(abs(a - b) <= 1e-9 for a, b in zip(c["shares"], shares)),
                  "%s: histogram bars are the bins' shares of attn_steps.csv's counts" % c["path"])
            side = sum(1 for k in row if re.fullmatch(r"q[0-9]+k0", k))
            check(c["cells"] == side * (side + 1) // 2, "%s: a map of %d visible cells, want %d"
                  % (c["path"], c["cells"], side * (side + 1) // 2))
    first, last = sl["states"][0], sl["states"][1]
    check(first["index"] == 0 and last["index"] == sl["max"] and sl["max"] > 0,
          "the slider moved from 0 to its last step (%d)" % sl["max"])
    check(all(a["map"] != b["map"] for a, b in zip(first["runs"], last["runs"])),
          "every run's map changes between the first and the last step")


def check_page(exe, d):
    page = os.path.join(d, "index.html")
    print("== " + page)
    html = open(page, encoding="utf-8").read()
    check("http" not in html and "src=" not in html, "no external URL or src= in the page")
    test_page = os.path.join(d, "browser_test.html")
    with open(test_page, "w", encoding="utf-8") as f:
        f.write(html.replace("<head>", "<head>\n" + HEAD, 1).replace("</body>", DRIVER + "</body>", 1))
    r = chromium(exe, ["--dump-dom", "file://" + test_page])
    m = re.search(r'<pre id="browser-test-result">(.*?)</pre>', r.stdout, re.S)
    check(m is not None, "the driver wrote its result into the DOM")
    if not m:
        return
    res = json.loads(m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                     .replace("&amp;", "&"))
    check(res["errors"] == [], "no script error: %s" % res["errors"])
    check(res["ready"] == "ready", "the page's script ran (data-scripts=ready)")
    want = sorted(f[:-4] for f in os.listdir(d) if f.endswith(".svg"))
    got = sorted(f["id"] for f in res["figures"] if f["svg"] == 1)
    check(want and got == want, "every figure inline under its id: want %s, got %s" % (want, got))
    hv = res["hover"] or {}
    text = hv.get("text") or ""
    check(hv.get("shown"), "pointermove on a curve shows the tooltip")
    x, y = float(hv.get("x", "nan")), float(hv.get("y", "nan"))
    nums = [float(t) for t in re.findall(r"-?(?:[0-9]+[.]?[0-9]*|[.][0-9]+)(?:e[-+]?[0-9]+)?", text)]
    check(any(abs(v - x) <= 5e-4 * abs(x) for v in nums), "tooltip %r holds x %g" % (text, x))
    check(any(abs(v - y) <= 5e-4 * abs(y) for v in nums), "tooltip %r holds y %g" % (text, y))
    check(res["away"] and not res["away"]["shown"], "pointermove away from the curves hides it")
    tg = res["toggle"] or {}
    runs = {json.dumps(m) for m in re.findall(r'data-run="([^"]*)"', html)}
    check(res["checkboxes"] == len(runs), "one checkbox per run: %d for %d runs"
          % (res["checkboxes"], len(runs)))
    check(tg.get("found") and tg.get("before", 0) > 0 and tg.get("after") == 0
          and tg.get("others", 0) > 0 and tg.get("again") == tg.get("before"),
          "unticking run %r hides its %s elements (after %s, others %s, again %s)"
          % (hv.get("run"), tg.get("before"), tg.get("after"), tg.get("others"), tg.get("again")))
    vd = res.get("verdict") or {}
    check(vd.get("text", "").startswith("Verdict:") and len(vd.get("text", "")) > 20,
          "a verdict line: %r" % vd.get("text", "")[:120])
    check(vd.get("figTop") is not None and vd.get("top", 1e9) < vd["figTop"],
          "the verdict stands above the first figure (%s < %s)" % (vd.get("top"), vd.get("figTop")))
    if os.path.basename(d).startswith("text"):
        labels = res.get("lossLabels") or []
        check(len(labels) == 2 and all(l.startswith("bits per byte") for l in labels),
              "text page: loss panels in bits per byte: %s" % labels)
        check(res.get("accCharts") == 1, "text page: one accuracy panel, got %s" % res.get("accCharts"))
        check("chance" in (res.get("toggleLabels") or []),
              "text page: the uniform-guess line is 'chance' in the Show bar: %s" % res.get("toggleLabels"))
    fold = res.get("fold")
    if fold is not None:
        check(fold["closed"] < 60 and fold["open"] > 300,
              "the other heads' maps folded: <details> %s px high closed, %s open"
              % (fold["closed"], fold["open"]))
    if res.get("slider") is not None:
        check_slider(res["slider"])
    os.remove(test_page)
    shot = os.path.join(d, "screenshot.png")
    chromium(exe, ["--screenshot=" + shot, "file://" + page])
    w, h, rows = png_pixels(shot)
    px = [p for row in rows for p in row]
    nonwhite = sum(1 for p in px if min(p) < 235) / len(px)
    colours = len(set(px))
    near = [c for c in RUN_COLORS if any(sum(abs(a - b) for a, b in zip(p, c)) <= 30 for p in px)]
    check(nonwhite > 0.02 and colours >= 50 and len(near) >= 2,
          "screenshot %dx%d not blank: %.1f %% non-white, %d colours, %d run colours"
          % (w, h, 100 * nonwhite, colours, len(near)))


def main():
    exe, dirs = sys.argv[1], sys.argv[2:]
    for d in dirs:
        check_page(exe, d)
    if failures:
        print("browser test: %d check(s) failed" % len(failures))
        sys.exit(1)
    print("browser test: all checks passed on %d pages" % len(dirs))


main()
