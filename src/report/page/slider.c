/* slider.c: the "Step by step" section of the --compare page (page_internal.h): each run's
 * attn_steps.csv and the attention.csv rows of the same steps as JSON, and the script that draws
 * the picked layer and head of every run at the slider's step. */
#include "report/page/page_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/read/read.h"
#include "report/plot/plot.h"
#include "runlog/log_query.h"
#include "util/error_list.h"

/* A JSON string: quotes, backslashes and control characters escaped, and '<', '>' and '&' as
 * \u escapes so that the page stays well-formed XML (and no "</script>" can end the block). */
static void json_text(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') fprintf(f, "\\%c", *c);
        else if (*c < 0x20 || *c == '<' || *c == '>' || *c == '&') fprintf(f, "\\u%04x", *c);
        else fputc(*c, f);
    }
    fputc('"', f);
}

/* A number field as JSON: the value in %.6g (the logs' own precision), null when it is empty or
 * not finite (JSON has no NaN). */
static void json_num(FILE *f, const Csv *t, int row, int col) {
    double v = col >= 0 ? csv_num(t, row, col) : NAN;
    if (isfinite(v)) fprintf(f, "%.6g", v);
    else fputs("null", f);
}

typedef struct {
    int layer, head;
} Pair;

/* Appends (l, h) to the sorted set p[0..*n) (cap cap) unless there. Returns -1 when full. */
static int pair_add(Pair *p, int *n, int cap, int l, int h) {
    int at = 0;
    while (at < *n && (p[at].layer < l || (p[at].layer == l && p[at].head < h))) at++;
    if (at < *n && p[at].layer == l && p[at].head == h) return 0;
    if (*n == cap) return -1;
    memmove(p + at + 1, p + at, (size_t)(*n - at) * sizeof *p);
    p[at] = (Pair){l, h};
    (*n)++;
    return 0;
}

/* Every (layer, head) any log has, sorted; NULL when out of memory (*n = 0 and no rows: an empty
 * set is returned non-NULL). */
static Pair *collect_pairs(const Csv *logs, const int *has, int n, int *n_pairs) {
    int cap = 1;
    for (int i = 0; i < n; i++) cap += has[i] ? logs[i].n_rows : 0;
    Pair *p = malloc((size_t)cap * sizeof *p);
    *n_pairs = 0;
    for (int i = 0; p && i < n; i++) {
        if (!has[i]) continue;
        int cl = csv_col(&logs[i], "layer"), ch = csv_col(&logs[i], "head");
        for (int r = 0; r < logs[i].n_rows; r++)
            pair_add(p, n_pairs, cap, csv_int(&logs[i], r, cl, 0), csv_int(&logs[i], r, ch, 0));
    }
    return p;
}

/* The row of attention.csv at (step, layer, head), searched from *from on (the rows of one head
 * come in step order, so a walk over a head's steps moves *from forward only); -1 when none. */
static int attn_row(const Csv *attn, int step, int layer, int head, int *from) {
    int cs = csv_col(attn, "step"), cl = csv_col(attn, "layer"), ch = csv_col(attn, "head");
    if (cs < 0 || cl < 0 || ch < 0) return -1;
    for (int r = *from; r < attn->n_rows; r++)
        if (csv_int(attn, r, cs, -1) == step && csv_int(attn, r, cl, -1) == layer &&
            csv_int(attn, r, ch, -1) == head) {
            *from = r + 1;
            return r;
        }
    return -1;
}

/* The histogram's columns (n_LO_HI, n_nan left out) of log t, in order; their number. */
static int bin_cols(const Csv *t, int *cols, int cap) {
    int n = 0;
    for (int c = 0; c < t->n_cols && n < cap; c++)
        if (strncmp(t->cell[c], "n_", 2) == 0 && strcmp(t->cell[c], "n_nan") != 0) cols[n++] = c;
    return n;
}

#define SLIDER_MAX_BINS 64

/* "edges": LO of every bin column of the first log, then HI of the last. */
static void json_edges(FILE *f, const Csv *logs, const int *has, int n) {
    fputs("\"edges\":[", f);
    for (int i = 0; i < n; i++) {
        if (!has[i]) continue;
        int cols[SLIDER_MAX_BINS], nb = bin_cols(&logs[i], cols, SLIDER_MAX_BINS);
        char edge[64];
        for (int k = 0; k < nb; k++) {
            const char *name = logs[i].cell[cols[k]] + 2, *sep = strchr(name + 1, '_');
            if (!sep) continue;
            snprintf(edge, sizeof edge, "%.*s", (int)(sep - name), name);
            fputs(k ? "," : "", f);
            json_text(f, edge);
            if (k == nb - 1) {
                fputc(',', f);
                json_text(f, sep + 1);
            }
        }
        break;
    }
    fputs("]", f);
}

/* The side of the map of log t (q{i}k{j} columns, i < side) and the column of each weight in
 * row order (cols: side * (side + 1) / 2 entries, -1 for one it lacks); NULL when it has none
 * or memory runs out. */
static int *map_cols(const Csv *t, int *side) {
    *side = 0;
    char name[32];
    for (;; (*side)++) {
        snprintf(name, sizeof name, "q%dk0", *side);
        if (csv_col(t, name) < 0) break;
    }
    if (*side == 0) return NULL;
    int *cols = malloc((size_t)*side * (*side + 1) / 2 * sizeof *cols);
    for (int i = 0, k = 0; cols && i < *side; i++)
        for (int j = 0; j <= i; j++, k++) {
            snprintf(name, sizeof name, "q%dk%d", i, j);
            cols[k] = csv_col(t, name);
        }
    return cols;
}

/* One list of a head: field col of attention.csv at each of its steps, as text ("" when
 * attention.csv has no such row). */
static void json_stat(FILE *f, const char *key, const Run *r, const int *arows, int n,
                      const char *col) {
    int c = csv_col(&r->attn, col);
    fprintf(f, ",\"%s\":[", key);
    for (int k = 0; k < n; k++) {
        fputs(k ? "," : "", f);
        json_text(f, arows[k] >= 0 && c >= 0 ? csv_str(&r->attn, arows[k], c) : "");
    }
    fputc(']', f);
}

/* ,"key":[[...], ...]: for each of rows[0..n) of t, its fields cols[0..n_cols) as numbers. */
static void json_rows(FILE *f, const char *key, const Csv *t, const int *rows, int n,
                      const int *cols, int n_cols) {
    fprintf(f, ",\"%s\":[", key);
    for (int k = 0; k < n; k++) {
        fputs(k ? ",[" : "[", f);
        for (int c = 0; c < n_cols; c++) {
            fputs(c ? "," : "", f);
            json_num(f, t, rows[k], cols[c]);
        }
        fputc(']', f);
    }
    fputc(']', f);
}

/* The "heads" object of run r: for each pair its rows' steps, counts, weights and numbers. */
static int json_heads(FILE *f, const Run *r, const Csv *t, const Pair *pairs, int n_pairs) {
    int cs = csv_col(t, "step"), cl = csv_col(t, "layer"), ch = csv_col(t, "head");
    int bins[SLIDER_MAX_BINS], nb = bin_cols(t, bins, SLIDER_MAX_BINS), side;
    int *wcols = map_cols(t, &side), n_w = side * (side + 1) / 2;
    int *rows = malloc((size_t)(t->n_rows + 1) * sizeof *rows);
    int *arows = malloc((size_t)(t->n_rows + 1) * sizeof *arows);
    if (!rows || !arows || (side > 0 && !wcols)) {
        free(wcols);
        free(rows);
        free(arows);
        return -1;
    }
    fputs(",\"heads\":{", f);
    for (int p = 0, first = 1; p < n_pairs; p++) {
        int n = 0, from = 0;
        for (int row = 0; row < t->n_rows; row++)
            if (csv_int(t, row, cl, -1) == pairs[p].layer &&
                csv_int(t, row, ch, -1) == pairs[p].head)
                rows[n++] = row;
        if (n == 0) continue;
        fprintf(f, "%s\"%d.%d\":{\"steps\":[", first ? "" : ",", pairs[p].layer, pairs[p].head);
        first = 0;
        for (int k = 0; k < n; k++) {
            int step = csv_int(t, rows[k], cs, -1);
            fprintf(f, "%s%d", k ? "," : "", step);
            arows[k] = r->has_attn
                           ? attn_row(&r->attn, step, pairs[p].layer, pairs[p].head, &from)
                           : -1;
        }
        fputc(']', f);
        json_rows(f, "hist", t, rows, n, bins, nb);
        json_rows(f, "map", t, rows, n, wcols, n_w);
        json_stat(f, "sat", r, arows, n, "saturated_frac");
        json_stat(f, "std", r, arows, n, "logit_std");
        json_stat(f, "grad", r, arows, n, "dlogit_norm");
        fputc('}', f);
    }
    fputc('}', f);
    free(wcols);
    free(rows);
    free(arows);
    return 0;
}

/* The pair shown first: the largest saturated_frac at a run's last logged step of the pair
 * (where the runs differ most visibly); the first pair when no run has one. */
static int pick_pair(const Run *runs, const Csv *logs, const int *has, int n, const Pair *pairs,
                     int n_pairs) {
    int best = 0;
    double best_v = -1;
    for (int p = 0; p < n_pairs; p++)
        for (int i = 0; i < n; i++) {
            if (!has[i] || !runs[i].has_attn) continue;
            const Csv *t = &logs[i];
            int cs = csv_col(t, "step"), cl = csv_col(t, "layer"), ch = csv_col(t, "head");
            int last = -1, from = 0;
            for (int row = 0; row < t->n_rows; row++)
                if (csv_int(t, row, cl, -1) == pairs[p].layer &&
                    csv_int(t, row, ch, -1) == pairs[p].head)
                    last = csv_int(t, row, cs, -1);
            const Csv *a = &runs[i].attn;
            int ar = last >= 0 ? attn_row(a, last, pairs[p].layer, pairs[p].head, &from) : -1;
            double v = ar >= 0 ? csv_num(a, ar, csv_col(a, "saturated_frac")) : NAN;
            if (v > best_v) {
                best_v = v;
                best = p;
            }
        }
    return best;
}

/* The first `side` tokens of run r's attn_map_tokens.csv (example 0's inputs), as texts. */
static void json_tokens(FILE *f, const Run *r, int side) {
    int c = r->has_tokens ? csv_col(&r->tokens, "token") : -1;
    fputs(",\"tokens\":[", f);
    for (int k = 0; c >= 0 && k < side && k < r->tokens.n_rows; k++) {
        fputs(k ? "," : "", f);
        json_text(f, csv_str(&r->tokens, k, c));
    }
    fputc(']', f);
}

int slider_json(FILE *f, const Run *runs, const Csv *logs, const int *has, int n) {
    int n_pairs;
    Pair *pairs = collect_pairs(logs, has, n, &n_pairs);
    if (!pairs) return -1;
    fputc('{', f);
    json_edges(f, logs, has, n);
    fputs(",\"pairs\":[", f);
    for (int p = 0; p < n_pairs; p++)
        fprintf(f, "%s[%d,%d]", p ? "," : "", pairs[p].layer, pairs[p].head);
    fprintf(f, "],\"pick\":%d,\"runs\":[", pick_pair(runs, logs, has, n, pairs, n_pairs));
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        int side = 0;
        free(has[i] ? map_cols(&logs[i], &side) : NULL);
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        json_text(f, runs[i].name);
        fputs(",\"path\":", f);
        json_text(f, runs[i].path);
        fprintf(f, ",\"color\":\"%s\",\"side\":%d", plot_color(i), side);
        json_tokens(f, &runs[i], side);
        if (has[i]) rc = json_heads(f, &runs[i], &logs[i], pairs, n_pairs);
        else fputs(",\"heads\":{}", f);
        fputc('}', f);
    }
    fputs("]}", f);
    free(pairs);
    return rc;
}

/* The section's style (no '<', '>' or '&': the page stays well-formed XML). */
static const char CSS[] =
    ".slider-controls{padding:6px 0;font-size:14px;border-bottom:1px solid #eee}\n"
    ".slider-controls input[type=range]{width:420px;vertical-align:middle}\n"
    ".slider-controls label{margin-right:18px}\n"
    ".slider-runs{display:flex;flex-wrap:wrap;gap:18px;margin-top:10px}\n"
    ".slider-run{flex:0 0 530px;border:1px solid #e4e4e4;padding:6px 8px}\n"
    ".slider-run h3{font-size:15px;margin:2px 0 6px}\n"
    ".slider-run svg{display:inline-block;vertical-align:top;margin:4px 4px 4px 0}\n"
    ".slider-nums{font-size:13px;margin:4px 0}.slider-nums b{font-weight:600}\n";

/* The script: draws every run's column for the picked pair at the slider's step (each run at its
 * last logged step not after it), and the numbers as attention.csv logged them. Written without
 * '<', '>' and '&' (comparisons through Math.max), so the page stays well-formed XML. */
static const char SCRIPT[] =
    "(function () {\n"
    "'use strict';\n"
    "var NS = document.getElementById('slider-ns').namespaceURI; /* an inline svg's, no URL */\n"
    "var data = JSON.parse(document.getElementById('slider-data').textContent);\n"
    "var range = document.getElementById('slider-step');\n"
    "var pick = document.getElementById('slider-head');\n"
    "var shown = document.getElementById('slider-step-value');\n"
    "var box = document.getElementById('slider-runs');\n"
    "var steps = [], ymax = 1, cols = [];\n"
    "function el(name, attrs, parent, svg) {\n"
    "  var e = svg ? document.createElementNS(NS, name) : document.createElement(name);\n"
    "  Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });\n"
    "  if (parent) parent.appendChild(e);\n"
    "  return e;\n"
    "}\n"
    "function seq(n) { return Array.from({length: n}, function (x, i) { return i; }); }\n"
    "function key() { var p = data.pairs[Number(pick.value)] || [0, 0]; return p[0] + '.' + p[1]; }\n"
    "function notAfter(list, s) {\n"
    "  var k = -1;\n"
    "  list.forEach(function (t, i) { if (Math.max(t, s) === s) k = i; });\n"
    "  return k;\n"
    "}\n"
    "function total(c) { return c.reduce(function (a, b) { return a + (b || 0); }, 0) || 1; }\n"
    "function shade(w) {\n"
    "  var t = Math.min(1, Math.max(0, w || 0));\n"
    "  return 'rgb(' + [255 - 247 * t, 255 - 207 * t, 255 - 148 * t].map(Math.round).join(',') + ')';\n"
    "}\n"
    "var HW = 270, HH = 200, L = 40, B = 30, T = 10;\n"
    "function drawHist(svg, counts, color) {\n"
    "  svg.replaceChildren();\n"
    "  var n = data.edges.length - 1, w = (HW - L - 8) / n, ph = HH - B - T, sum = total(counts);\n"
    "  el('line', {x1: L, y1: HH - B, x2: HW - 8, y2: HH - B, stroke: '#888'}, svg, 1);\n"
    "  el('line', {x1: L, y1: T, x2: L, y2: HH - B, stroke: '#888'}, svg, 1);\n"
    "  counts.forEach(function (c, k) {\n"
    "    var f = (c || 0) / sum, h = ph * f / ymax;\n"
    "    el('rect', {x: L + k * w + 0.5, y: HH - B - h, width: Math.max(w - 1, 1), height: h,\n"
    "                fill: color, 'data-share': f}, svg, 1);\n"
    "  });\n"
    "  seq(n + 1).forEach(function (k) {\n"
    "    if (k % 3 || k === 0 || k === n) return;\n"
    "    var t = el('text', {x: L + k * w, y: HH - B + 13, 'text-anchor': 'middle',\n"
    "                        'font-size': 10, fill: '#444'}, svg, 1);\n"
    "    t.textContent = data.edges[k];\n"
    "  });\n"
    "  var lab = el('text', {x: (L + HW) / 2, y: HH - 3, 'text-anchor': 'middle', 'font-size': 11},\n"
    "               svg, 1);\n"
    "  lab.textContent = 'logit (bins double in width)';\n"
    "  var top = el('text', {x: L - 3, y: T + 8, 'text-anchor': 'end', 'font-size': 10}, svg, 1);\n"
    "  top.textContent = Math.round(100 * ymax) + '%';\n"
    "  var zero = el('text', {x: L - 3, y: HH - B, 'text-anchor': 'end', 'font-size': 10}, svg, 1);\n"
    "  zero.textContent = '0';\n"
    "  var yl = el('text', {transform: 'translate(11,' + (T + ph / 2) + ') rotate(-90)',\n"
    "                       'text-anchor': 'middle', 'font-size': 11}, svg, 1);\n"
    "  yl.textContent = 'share of logits';\n"
    "}\n"
    "function drawMap(svg, w, side, tokens) {\n"
    "  svg.replaceChildren();\n"
    "  var c = Math.max(4, Math.min(16, Math.floor(220 / Math.max(side, 1))));\n"
    "  var named = [Math.max(c, 10) === c, tokens.length === side].every(Boolean);\n"
    "  var off = named ? 38 : 4;\n"
    "  svg.setAttribute('width', off + side * c + 4);\n"
    "  svg.setAttribute('height', off + side * c + 4);\n"
    "  seq(side).forEach(function (i) {\n"
    "    seq(side).forEach(function (j) {\n"
    "      var seen = Math.max(i, j) === i, v = seen ? w[i * (i + 1) / 2 + j] : null;\n"
    "      var r = el('rect', {x: off + j * c, y: off + i * c, width: c, height: c,\n"
    "                          fill: seen ? shade(v) : '#eeeeee'}, svg, 1);\n"
    "      if (seen) el('title', {}, r, 1).textContent = 'query ' + i + ', key ' + j + ': ' + v;\n"
    "    });\n"
    "    if (!named) return;\n"
    "    var q = el('text', {x: off - 3, y: off + i * c + c - 2, 'text-anchor': 'end',\n"
    "                        'font-size': 9, fill: '#444'}, svg, 1);\n"
    "    q.textContent = tokens[i];\n"
    "    var k = el('text', {x: off + i * c + c / 2, y: off - 3, 'text-anchor': 'middle',\n"
    "                        'font-size': 9, fill: '#444'}, svg, 1);\n"
    "    k.textContent = tokens[i];\n"
    "  });\n"
    "}\n"
    "function build() {\n"
    "  box.replaceChildren();\n"
    "  cols = data.runs.map(function (r) {\n"
    "    var d = el('div', {'class': 'slider-run', 'data-path': r.path}, box);\n"
    "    el('h3', {style: 'color:' + r.color}, d).textContent = r.name;\n"
    "    var nums = el('p', {'class': 'slider-nums'}, d);\n"
    "    var hist = el('svg', {'class': 'slider-hist', width: HW, height: HH}, d, 1);\n"
    "    var map = el('svg', {'class': 'slider-map'}, d, 1);\n"
    "    return {run: r, nums: nums, hist: hist, map: map};\n"
    "  });\n"
    "}\n"
    "function setPair() {\n"
    "  var seen = {}, k = key();\n"
    "  ymax = 0;\n"
    "  data.runs.forEach(function (r) {\n"
    "    var h = r.heads[k];\n"
    "    if (!h) return;\n"
    "    h.steps.forEach(function (s) { seen[s] = 1; });\n"
    "    h.hist.forEach(function (c) {\n"
    "      var sum = total(c);\n"
    "      c.forEach(function (v) { ymax = Math.max(ymax, (v || 0) / sum); });\n"
    "    });\n"
    "  });\n"
    "  ymax = ymax || 1;\n"
    "  steps = Object.keys(seen).map(Number).sort(function (a, b) { return a - b; });\n"
    "  var at = Number(range.value), old = steps.length ? steps[Math.min(at, steps.length - 1)] : 0;\n"
    "  range.max = Math.max(steps.length - 1, 0);\n"
    "  range.value = Math.max(notAfter(steps, old), 0);\n"
    "  draw();\n"
    "}\n"
    "function put(p, label, value, k) {\n"
    "  p.append(label + ' ');\n"
    "  var b = el('b', {'data-k': k}, p);\n"
    "  b.textContent = value === '' ? '-' : value;\n"
    "}\n"
    "function draw() {\n"
    "  var s = steps[Number(range.value)], k = key();\n"
    "  shown.textContent = steps.length ? String(s) : 'none logged';\n"
    "  cols.forEach(function (c) {\n"
    "    var h = c.run.heads[k], i = h ? notAfter(h.steps, s) : -1;\n"
    "    c.nums.replaceChildren();\n"
    "    if (i === -1) {\n"
    "      c.nums.textContent = h ? 'not logged by step ' + s : (Object.keys(c.run.heads).length ?\n"
    "        'this layer and head not logged' : 'no attn_steps.csv (a run of an earlier version)');\n"
    "      c.hist.replaceChildren();\n"
    "      c.map.replaceChildren();\n"
    "      return;\n"
    "    }\n"
    "    put(c.nums, 'step', String(h.steps[i]), 'step');\n"
    "    c.nums.append(' \\u00b7 ');\n"
    "    put(c.nums, 'saturated share', h.sat[i], 'sat');\n"
    "    c.nums.append(' \\u00b7 ');\n"
    "    put(c.nums, 'logit std', h.std[i], 'std');\n"
    "    c.nums.append(' \\u00b7 ');\n"
    "    put(c.nums, 'gradient reaching the logits', h.grad[i], 'grad');\n"
    "    drawHist(c.hist, h.hist[i], c.run.color);\n"
    "    drawMap(c.map, h.map[i], c.run.side, c.run.tokens);\n"
    "  });\n"
    "}\n"
    "data.pairs.forEach(function (p, i) {\n"
    "  var o = el('option', {value: i}, pick);\n"
    "  o.textContent = 'layer ' + p[0] + ', head ' + p[1];\n"
    "});\n"
    "pick.value = String(data.pick);\n"
    "build();\n"
    "range.value = 1e9;\n"
    "setPair();\n"
    "range.value = range.max;\n"
    "draw();\n"
    "range.addEventListener('input', draw);\n"
    "pick.addEventListener('change', setPair);\n"
    "document.getElementById('slider-nojs').hidden = true;\n"
    "document.documentElement.dataset.slider = 'ready';\n"
    "})();\n";

int slider_has_data(const Run *runs, int n) {
    char p[4096];
    for (int i = 0; i < n; i++)
        if (log_path(p, sizeof p, runs[i].path, SLIDER_FILE) == 0 && access(p, F_OK) == 0) return 1;
    return 0;
}

int slider_section(FILE *f, const Run *runs, int n) {
    Csv *logs = calloc((size_t)(n > 0 ? n : 1), sizeof *logs);
    int *has = calloc((size_t)(n > 0 ? n : 1), sizeof *has);
    int any = 0, rc = 0;
    for (int i = 0; logs && has && i < n; i++) {
        char p[4096];
        if (log_read(&logs[i], runs[i].path, SLIDER_FILE, p, sizeof p, 0) == 0) {
            has[i] = csv_col(&logs[i], "layer") >= 0 && csv_col(&logs[i], "head") >= 0;
        } else if (errno != ENOENT) {
            fprintf(stderr, "note: %s: %s; left out of the report\n", SHOWN(p), strerror(errno));
        }
        any |= has[i];
    }
    if (!logs || !has) rc = -1;
    if (rc == 0 && any) {
        fprintf(f, "<h2 id=\"steps\">Step by step</h2>\n<style>\n%s</style>\n<p class=\"note\">"
                   "What each run logged at its evaluations (<code>" SLIDER_FILE "</code>), for "
                   "one layer and head at a time: drag the slider through training. The "
                   "histogram counts the attention logits of the diagnostics' validation batch "
                   "(the examples of <code>attention.csv</code>) in bins that double in width "
                   "away from 0; the map is the attention of validation example 0 (a row per "
                   "query, a column per key; grey: keys it cannot see). The numbers are "
                   "<code>attention.csv</code>'s at that step: the share of query rows whose "
                   "largest weight exceeds 0.99, the logits' standard deviation, and the norm of "
                   "the gradient that reaches the logits. Without the scale, watch the logits "
                   "spread to the outer bins, the map's rows turn to one dark cell and the "
                   "gradient fall; with it, the softmax stays soft.</p>\n"
                   "<div class=\"slider-controls\"><label>step <input type=\"range\" "
                   "id=\"slider-step\" min=\"0\" max=\"0\" value=\"0\"/></label> <output "
                   "id=\"slider-step-value\"></output> <label>&#160; layer and head <select "
                   "id=\"slider-head\"></select></label></div>\n<p id=\"slider-nojs\" "
                   "class=\"note\">(The slider is drawn by JavaScript.)</p>\n<div "
                   "id=\"slider-runs\" class=\"slider-runs\"></div>\n<svg id=\"slider-ns\" width=\"0\" "
                   "height=\"0\"></svg>\n<script "
                   "type=\"application/json\" id=\"slider-data\">", CSS);
        rc = slider_json(f, runs, logs, has, n);
        fprintf(f, "</script>\n<script>\n%s</script>\n", SCRIPT);
        if (rc != 0) fprintf(stderr, "error: out of memory writing the step slider\n");
    }
    for (int i = 0; logs && i < n; i++) csv_free(&logs[i]);
    free(logs);
    free(has);
    return rc != 0 ? -1 : any;
}
