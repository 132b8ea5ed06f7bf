/* html_page.c: what every page of ours shares (page_internal.h): the inline style and script, and a
 * figure's SVG inlined with its caption. */
#include "report/page/page_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plot/plot.h"
#include "util/error_list.h"
#include "util/file_check.h"

static const char CSS[] =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;color:#222;margin:24px auto;"
    "max-width:1120px;padding:0 16px;line-height:1.45}\n"
    "h1{font-size:24px;margin-bottom:4px}h2{font-size:19px;margin-top:32px;"
    "border-bottom:1px solid #ddd;padding-bottom:4px}\n"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0 12px}\n"
    "th,td{border:1px solid #ddd;padding:3px 10px;text-align:right;white-space:nowrap}\n"
    "th{background:#f4f6f8}th:first-child,td:first-child{text-align:left}\n"
    "td.text{text-align:left}\n"
    "tr.section td{background:#eef2f6;font-weight:bold;text-align:left}\n"
    "tr.diff td{background:#fff3c4}\n"
    "figure{margin:20px 0 32px}figure img{max-width:100%;border:1px solid #e4e4e4}\n"
    "figcaption{font-size:14px;color:#444;margin-top:6px;max-width:960px}\n"
    "code{background:#f4f4f4;padding:0 3px}.swatch{vertical-align:middle;margin-right:6px}\n"
    ".note{color:#666;font-size:13px}td.bad{color:#b00020;font-weight:bold}\n"
    "td.sample{vertical-align:top;white-space:normal;text-align:left}\n"
    "pre.sample{white-space:pre-wrap;max-width:520px;margin:4px 0;font-size:12px}\n"
    ".prompt{color:#888}\n"
    "figure svg{max-width:100%;height:auto;border:1px solid #e4e4e4;display:block}\n"
    ".run-hidden{display:none}\n"
    ".tooltip{position:fixed;z-index:10;pointer-events:none;background:#fff;border:1px solid #888;"
    "border-radius:3px;padding:3px 7px;font-size:12px;box-shadow:0 1px 4px rgba(0,0,0,0.25)}\n"
    ".toggles{position:sticky;top:0;z-index:5;background:#fff;padding:6px 0;font-size:13px;"
    "border-bottom:1px solid #ddd}\n"
    ".toggles label{margin-right:14px;white-space:nowrap;cursor:pointer}\n"
    ".swatch-box{display:inline-block;width:16px;height:4px;vertical-align:middle;margin:0 5px}\n"
    "nav{font-size:14px}pre.text{font-size:12px;overflow-x:auto}\n"
    ".verdict{font-size:15px;background:#f4f8fc;border-left:4px solid #0072b2;"
    "padding:6px 12px;margin:10px 0}\n"
    "details.more{margin:0 0 28px}details.more summary{cursor:pointer;font-size:14px}\n";

/* What the page's script adds (written without <, > and &, so the page stays well-formed XML):
 * a tooltip with the run, the series and the nearest point's x and y values (the data-x / data-y
 * lists plot_lines writes, or a scatter point's data-x / data-y) when the pointer is within 16
 * units of a drawn point, and one checkbox per data-run value in #run-toggles that hides that
 * run's elements (class run-hidden) in every figure. When done it sets
 * <html data-scripts="ready">. Without JavaScript the page is the same minus these. */
static const char SCRIPT[] =
    "(function () {\n"
    "'use strict';\n"
    "var tip = null;\n"
    "function nums(s) { return (s || '').split(' ').filter(function (t) { return t !== ''; })"
    ".map(Number); }\n"
    "function short(label) {\n"
    "  return (label || '').replace(/, log scale/, '').replace(/ [(]log scale[)]/, '');\n"
    "}\n"
    "function fmtX(v) { return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4))); }\n"
    "function fmtY(v) { return String(Number(v.toPrecision(4))); }\n"
    "function nearest(svg, cx, cy) {\n"
    "  var best = null, bestD = 16;\n"
    "  svg.querySelectorAll('path.series, path.point').forEach(function (p) {\n"
    "    if (p.classList.contains('run-hidden')) return;\n"
    "    var m = p.getScreenCTM();\n"
    "    if (!m) return;\n"
    "    var q = new DOMPoint(cx, cy).matrixTransform(m.inverse());\n"
    "    var xs = nums(p.dataset.x), ys = nums(p.dataset.y), v;\n"
    "    if (p.classList.contains('point')) {\n"
    "      var b = p.getBBox();\n"
    "      v = [b.x + b.width / 2, b.y + b.height / 2];\n"
    "    } else {\n"
    "      v = ((p.getAttribute('d') || '').match(/-?[0-9.]+/g) || []).map(Number);\n"
    "    }\n"
    "    xs.forEach(function (x, i) {\n"
    "      var d = Math.hypot(v[2 * i] - q.x, v[2 * i + 1] - q.y);\n"
    "      if (d === Math.min(d, bestD)) { bestD = d; best = {path: p, x: x, y: ys[i]}; }\n"
    "    });\n"
    "  });\n"
    "  return best;\n"
    "}\n"
    "function show(hit, cx, cy) {\n"
    "  var g = hit.path.closest('g.chart'), p = hit.path.dataset;\n"
    "  var head = document.createElement('b'), body = document.createElement('div');\n"
    "  head.textContent = p.run + (p.series ? ': ' + p.series : '');\n"
    "  body.textContent = short(g ? g.dataset.xLabel : 'x') + ' ' + fmtX(hit.x) + ', ' +\n"
    "    short(g ? g.dataset.yLabel : 'y') + ' ' + fmtY(hit.y);\n"
    "  tip.replaceChildren(head, body);\n"
    "  tip.style.left = (cx + 14) + 'px';\n"
    "  tip.style.top = (cy + 14) + 'px';\n"
    "  tip.hidden = false;\n"
    "}\n"
    "function setRun(run, on) {\n"
    "  document.querySelectorAll('figure svg [data-run]').forEach(function (el) {\n"
    "    if (el.dataset.run === run) el.classList.toggle('run-hidden', !on);\n"
    "  });\n"
    "  tip.hidden = true;\n"
    "}\n"
    "function toggles() {\n"
    "  var box = document.getElementById('run-toggles'), runs = [], color = {};\n"
    "  if (!box) return;\n"
    "  document.querySelectorAll('figure svg [data-run]').forEach(function (el) {\n"
    "    var r = el.dataset.run;\n"
    "    if (runs.indexOf(r) !== -1) return;\n"
    "    runs.push(r);\n"
    "    color[r] = el.getAttribute('stroke') || el.getAttribute('fill');\n"
    "  });\n"
    "  if (runs.length === 0) return;\n"
    "  var lead = document.createElement('span');\n"
    "  lead.textContent = 'Show: ';\n"
    "  box.appendChild(lead);\n"
    "  runs.forEach(function (r) {\n"
    "    var l = document.createElement('label'), c = document.createElement('input');\n"
    "    var sw = document.createElement('span');\n"
    "    c.type = 'checkbox';\n"
    "    c.checked = true;\n"
    "    c.dataset.toggleRun = r;\n"
    "    c.addEventListener('change', function () { setRun(r, c.checked); });\n"
    "    sw.className = 'swatch-box';\n"
    "    sw.style.background = color[r];\n"
    "    l.append(c, sw, r);\n"
    "    box.appendChild(l);\n"
    "  });\n"
    "  box.hidden = false;\n"
    "}\n"
    "function init() {\n"
    "  tip = document.createElement('div');\n"
    "  tip.id = 'tooltip';\n"
    "  tip.className = 'tooltip';\n"
    "  tip.hidden = true;\n"
    "  tip.setAttribute('role', 'status');\n"
    "  document.body.appendChild(tip);\n"
    "  document.querySelectorAll('figure svg').forEach(function (svg) {\n"
    "    svg.addEventListener('pointermove', function (ev) {\n"
    "      var hit = nearest(svg, ev.clientX, ev.clientY);\n"
    "      if (hit) show(hit, ev.clientX, ev.clientY); else tip.hidden = true;\n"
    "    });\n"
    "    svg.addEventListener('pointerleave', function () { tip.hidden = true; });\n"
    "  });\n"
    "  toggles();\n"
    "  document.documentElement.dataset.scripts = 'ready';\n"
    "}\n"
    "if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);\n"
    "else init();\n"
    "})();\n";

void html_head(FILE *f) {
    fprintf(f, "<style>\n%s</style>\n<script>\n%s</script>\n", CSS, SCRIPT);
}

/* Largest figure inlined: the attention maps of many runs stay far below. */
#define FIGURE_MAX_BYTES ((size_t)64 << 20)

/* The figure's id: file up to its first '.', each character other than an ASCII letter, digit,
 * '_' or '-' made '_', at most FIGURE_ID_MAX characters; "figure" when that leaves nothing. */
#define FIGURE_ID_MAX 64
static void figure_id(char out[FIGURE_ID_MAX + 1], const char *file) {
    int n = 0;
    for (const char *p = file; *p && *p != '.' && n < FIGURE_ID_MAX; p++, n++) {
        char c = *p;
        int safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '-';
        out[n] = safe ? c : '_';
    }
    out[n] = '\0';
    if (n == 0) snprintf(out, FIGURE_ID_MAX + 1, "figure");
}

void html_figure_missing(FILE *f, const char *file, const char *title, const char *why) {
    char id[FIGURE_ID_MAX + 1];
    figure_id(id, file);
    fprintf(f, "<figure id=\"");
    xml_escape_file(f, id);
    fprintf(f, "\">\n<p class=\"note\">Figure <code>");
    xml_escape_file(f, file);
    fprintf(f, "</code> (");
    xml_escape_file(f, title);
    fprintf(f, ") is missing: it could not be written (");
    xml_escape_file(f, why);
    fprintf(f, "); the command that wrote this page said so and exited with code 1.</p>\n"
               "</figure>\n");
}

int html_figure(FILE *f, const char *dir, const char *file, const char *title,
                const char *caption, int caption_is_html) {
    char id[FIGURE_ID_MAX + 1];
    figure_id(id, file);
    char path[PATH_MAX], why[256];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *svg = file_read_regular(path, FIGURE_MAX_BYTES, &len, why, sizeof why);
    const char *p = svg ? strstr(svg, "<svg") : NULL;
    int ok = p != NULL;
    fprintf(f, "<figure id=\"");
    xml_escape_file(f, id); /* safe characters only; escaped all the same, as every attribute */
    fprintf(f, "\">\n");
    if (!p) {
        fprintf(stderr, "warning: %s: cannot inline '%s' (%s); the page names it instead\n",
                SHOWN(dir), SHOWN(file), svg ? "no <svg> element" : why);
        fprintf(f, "<p class=\"note\">Figure <code>");
        xml_escape_file(f, file);
        fprintf(f, "</code> could not be read.</p>\n");
    }
    /* The SVG as it is on disk, minus its XML declaration and namespace (implied in HTML), with
     * its ids (clip paths) prefixed by the figure's id so that figures never share one. */
    static const char XMLNS[] = " xmlns=\"http://www.w3.org/2000/svg\"";
    static const char *const REFS[] = {"id=\"", "url(#", "href=\"#"};
    while (p && *p) {
        int done = 0;
        if (strncmp(p, XMLNS, sizeof XMLNS - 1) == 0) p += sizeof XMLNS - 1, done = 1;
        for (int k = 0; k < 3 && !done; k++)
            if (strncmp(p, REFS[k], strlen(REFS[k])) == 0) {
                fprintf(f, "%s%s-", REFS[k], id);
                p += strlen(REFS[k]);
                done = 1;
            }
        if (!done) fputc(*p++, f);
    }
    free(svg);
    fprintf(f, "<figcaption><b>");
    xml_escape_file(f, title);
    fprintf(f, ".</b> ");
    if (caption_is_html) fputs(caption, f);
    else xml_escape_file(f, caption);
    fprintf(f, " <a class=\"note\" href=\"");
    xml_escape_file(f, file);
    fprintf(f, "\">(");
    xml_escape_file(f, file);
    fprintf(f, ")</a></figcaption>\n</figure>\n");
    return ok ? 0 : -1;
}
