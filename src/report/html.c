/* html.c: index.html of ./train --compare. Every text that comes from the runs (names, paths,
 * settings, table cells) goes through xml_escape_file. */
#include "report/html.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/plot.h"
#include "report/svg.h"
#include "report/verdict.h"
#include "util/file_check.h"
#include "util/provenance.h"
#include "util/whole_write.h"

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
        fprintf(stderr, "warning: %s: cannot inline '%s' (%s); the page names it instead\n", dir,
                file, svg ? "no <svg> element" : why);
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

static void html_runs_header(FILE *f, const Run *runs, int n) {
    fprintf(f, "<tr><th>run</th>");
    for (int i = 0; i < n; i++) {
        /* The run's line sample, drawn exactly as in the figures. */
        fprintf(f, "<th><svg class=\"swatch\" width=\"30\" height=\"8\"><line x1=\"0\" y1=\"4\" "
                   "x2=\"30\" y2=\"4\" stroke=\"%s\" stroke-width=\"2.5\" stroke-dasharray=\"%s\"/>"
                   "</svg>", plot_color(i), *plot_dash(i) ? plot_dash(i) : "none");
        xml_escape_file(f, runs[i].name);
        fprintf(f, "</th>");
    }
    fprintf(f, "</tr>\n");
}

static void html_summary(FILE *f, const Table *t, const Run *runs) {
    fprintf(f, "<table class=\"summary\">\n");
    html_runs_header(f, runs, t->n_runs);
    for (int r = 0; r < t->n; r++) {
        const Row *row = &t->row[r];
        if (row->section) {
            fprintf(f, "<tr class=\"section\"><td colspan=\"%d\">", t->n_runs + 1);
            xml_escape_file(f, row->label);
            fprintf(f, "</td></tr>\n");
            continue;
        }
        fprintf(f, "<tr><td>");
        xml_escape_file(f, row->label);
        fprintf(f, "</td>");
        for (int i = 0; i < t->n_runs; i++) {
            const char *c = row->cell[i];
            int bad = strncmp(c, "diverged", 8) == 0 || strncmp(c, "nan", 3) == 0 ||
                      strncmp(c, "inf", 3) == 0 || strncmp(c, "-inf", 4) == 0;
            fprintf(f, bad ? "<td class=\"bad\">" : "<td>");
            xml_escape_file(f, c);
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n<p class=\"note\">(@N): logged at step N, the nearest to the row's step; "
               "-: not logged near that step; n/a: not in this run's logs.</p>\n");
}

/* Every key of any run's config.ini, in order of first appearance. */
static const char **config_keys(const Run *runs, int n, int *n_keys) {
    int cap = 0;
    for (int i = 0; i < n; i++) cap += runs[i].config.n;
    const char **keys = malloc((size_t)(cap ? cap : 1) * sizeof *keys);
    *n_keys = 0;
    if (!keys) return NULL;
    for (int i = 0; i < n; i++)
        for (int e = 0; e < runs[i].config.n; e++) {
            const char *k = runs[i].config.e[e].key;
            int seen = 0;
            for (int j = 0; j < *n_keys && !seen; j++) seen = strcmp(keys[j], k) == 0;
            if (!seen) keys[(*n_keys)++] = k;
        }
    return keys;
}

static int key_differs(const Run *runs, int n, const char *key) {
    const char *first = ini_get(&runs[0].config, key);
    for (int i = 1; i < n; i++) {
        const char *v = ini_get(&runs[i].config, key);
        if (!first != !v || (v && strcmp(first, v) != 0)) return 1;
    }
    return 0;
}

/* run.name and run.dir always differ and say nothing about the experiment. */
static int is_bookkeeping(const char *key) {
    return strcmp(key, "run.name") == 0 || strcmp(key, "run.dir") == 0;
}

static void html_config_table(FILE *f, const Run *runs, int n, const char **keys, int n_keys,
                              int only_diff) {
    fprintf(f, "<table class=\"config\">\n");
    html_runs_header(f, runs, n);
    for (int k = 0; k < n_keys; k++) {
        int diff = key_differs(runs, n, keys[k]);
        if (only_diff && (!diff || is_bookkeeping(keys[k]))) continue;
        fprintf(f, "<tr%s><td><code>", diff ? " class=\"diff\"" : "");
        xml_escape_file(f, keys[k]);
        fprintf(f, "</code></td>");
        for (int i = 0; i < n; i++) {
            const char *v = ini_get(&runs[i].config, keys[k]);
            fprintf(f, "<td class=\"text\">");
            xml_escape_file(f, v ? v : "(not set)");
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* Where each run came from: the provenance comments of its config.ini (util/provenance.h). */
static void html_provenance(FILE *f, const Run *runs, int n) {
    fprintf(f, "<h2 id=\"provenance\">Provenance</h2>\n<p class=\"note\">Program version and commit, compiler and "
               "flags, command line, start time, threads and CPU of each run, from the comments "
               "at the top of its <code>config.ini</code>.</p>\n<table class=\"config\">\n");
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX], *text = NULL, *lines = NULL;
        size_t len = 0, text_len = 0;
        snprintf(path, sizeof path, "%s/config.ini", runs[i].path);
        char why[128];
        text = file_read_regular(path, FILE_MAX_TEXT_BYTES, &text_len, why, sizeof why);
        FILE *mem = open_memstream(&lines, &len);
        int found = 0;
        if (text && mem) found = provenance_print_lines(text, "", mem);
        if (mem) fclose(mem);
        fprintf(f, "<tr><td class=\"text\">");
        xml_escape_file(f, runs[i].name);
        fprintf(f, "</td><td class=\"text\"><pre>");
        xml_escape_file(f, found && lines ? lines : "not recorded (a run of a version before 0.11)");
        fprintf(f, "</pre></td></tr>\n");
        free(text);
        free(lines);
    }
    fprintf(f, "</table>\n");
}

/* Largest sample.txt shown: a sample is a few hundred bytes. */
#define SAMPLE_MAX_BYTES (1 << 20)

/* One run's sample.txt in its cell: the '#' comment lines as a note, then the text in <pre>,
 * the first N characters (its "# prompt: N characters" line) marked as the prompt. */
static void html_sample_cell(FILE *f, char *text) {
    size_t n_prompt = 0;
    char *body = text;
    fprintf(f, "<div class=\"note\">");
    while (*body == '#') {
        char *eol = strchr(body, '\n');
        size_t k;
        if (sscanf(body, "# prompt: %zu characters", &k) == 1) n_prompt = k;
        if (eol) *eol = 0;
        xml_escape_file(f, body + 1 + (body[1] == ' '));
        fputs(eol ? "<br/>" : "", f);
        body = eol ? eol + 1 : body + strlen(body);
    }
    fprintf(f, "</div><pre class=\"sample\"><span class=\"prompt\">");
    size_t len = strlen(body);
    if (n_prompt > len) n_prompt = len;
    char keep = body[n_prompt];
    body[n_prompt] = 0;
    xml_escape_file(f, body);
    body[n_prompt] = keep;
    fprintf(f, "</span>");
    xml_escape_file(f, body + n_prompt);
    fprintf(f, "</pre>");
}

/* The runs' sample.txt side by side (a text run writes one at the end of training), each run's
 * text escaped; nothing when no run folder holds one. */
static int has_samples(const Run *runs, int n) {
    char path[PATH_MAX];
    int any = 0;
    for (int i = 0; i < n && !any; i++) {
        snprintf(path, sizeof path, "%s/sample.txt", runs[i].path);
        any = access(path, F_OK) == 0;
    }
    return any;
}

static void html_samples(FILE *f, const Run *runs, int n) {
    char path[PATH_MAX];
    int any = has_samples(runs, n);
    if (!any) return;
    fprintf(f, "<h2 id=\"samples\">Samples</h2>\n<p class=\"note\">Text each run generated after the same "
               "prompt (grey), from its <code>sample.txt</code>; bytes other than printable ASCII "
               "and newlines are shown as \\xHH, a backslash as \\\\.</p>\n"
               "<table class=\"samples\">\n");
    html_runs_header(f, runs, n);
    fprintf(f, "<tr><td>sample</td>");
    for (int i = 0; i < n; i++) {
        char why[256];
        size_t len = 0;
        snprintf(path, sizeof path, "%s/sample.txt", runs[i].path);
        fprintf(f, "<td class=\"sample\">");
        char *text = access(path, F_OK) == 0
                         ? file_read_regular(path, SAMPLE_MAX_BYTES, &len, why, sizeof why)
                         : NULL;
        if (text) {
            html_sample_cell(f, text);
        } else {
            fprintf(f, "<span class=\"note\">");
            if (access(path, F_OK) == 0) {
                xml_escape_file(f, "sample.txt unreadable: ");
                xml_escape_file(f, why);
            } else {
                fprintf(f, "no sample.txt");
            }
            fprintf(f, "</span>");
        }
        free(text);
        fprintf(f, "</td>");
    }
    fprintf(f, "</tr>\n</table>\n");
}

/* The verdict (verdict.h) as the page's first paragraph: "Verdict:" in bold, a line per run and
 * one for the pair. */
static void html_verdict(FILE *f, const Run *runs, int n) {
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return;
    verdict_compare(mem, runs, n);
    if (fclose(mem) != 0 || !text) {
        free(text);
        return;
    }
    fprintf(f, "<p class=\"verdict\" id=\"verdict\"><b>Verdict:</b> ");
    for (char *line = text, *eol; *line; line = eol + 1) {
        eol = strchr(line, '\n');
        if (!eol) eol = line + strlen(line);
        char keep = *eol;
        *eol = '\0';
        xml_escape_file(f, line);
        if (keep && eol[1]) fprintf(f, "<br/>\n");
        if (!keep) break;
    }
    fprintf(f, "</p>\n");
    free(text);
}

/* Everything before the figures: head, title, the run folders, the verdict, the contents, the
 * samples (text runs: what a reader looks at first), the toggles' place. */
static void html_top(FILE *f, const Run *runs, int n) {
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>");
    for (int i = 0; i < n; i++) {
        fputs(i ? " vs " : "scaledot: ", f);
        xml_escape_file(f, runs[i].name);
    }
    fprintf(f, "</title>\n");
    html_head(f);
    fprintf(f, "</head>\n<body>\n<h1>");
    for (int i = 0; i < n; i++) {
        if (i) fputs(" <span class=\"note\">vs</span> ", f);
        xml_escape_file(f, runs[i].name);
    }
    fprintf(f, "</h1>\n" HTML_COMPARE_MARK ": why attention "
               "divides q&#183;k by &#8730;d<sub>k</sub>, measured. Run folders: ");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s<code>", i ? ", " : "");
        xml_escape_file(f, runs[i].path);
        fprintf(f, "</code>");
    }
    /* The verdict, the samples and the figures first, the tables after them; the script adds
     * hover and the run toggles. */
    fprintf(f, ".</p>\n");
    html_verdict(f, runs, n);
    int samples = has_samples(runs, n);
    fprintf(f, "<nav>%s<a href=\"#figures\">Figures</a> &#183; <a href=\"#differ\">Settings "
               "that differ</a> &#183; <a href=\"#summary\">Summary</a> &#183; <a href=\"#all\">"
               "All settings</a> &#183; <a href=\"#provenance\">Provenance</a></nav>\n",
            samples ? "<a href=\"#samples\">Samples</a> &#183; " : "");
    html_samples(f, runs, n);
    fprintf(f, "<h2 id=\"figures\">Figures</h2>\n<p class=\"note\">Hover a curve for its step "
               "and value; untick a run to hide its curves in every figure.</p>\n"
               "<div id=\"run-toggles\" class=\"toggles\" hidden=\"hidden\"></div>\n");
}

int html_write(const char *path, const Run *runs, int n, const Table *summary,
               const FigureInfo *figs, int n_figs) {
    char dir[PATH_MAX]; /* the figures' folder: path's */
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path) snprintf(dir, sizeof dir, "/");
    AtomicFile out; /* whole or not at all (path.tmp renamed over path), never through a link */
    FILE *f = atomic_open(&out, path);
    if (!f) {
        fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    int n_keys = 0, n_diff = 0;
    const char **keys = config_keys(runs, n, &n_keys);
    html_top(f, runs, n);
    for (int i = 0; i < n_figs; i++) {
        if (figs[i].err) {
            html_figure_missing(f, figs[i].file, figs[i].title, strerror(figs[i].err));
            continue;
        }
        /* a folded figure (the attention maps of the other heads) waits behind a toggle */
        if (figs[i].folded) {
            fprintf(f, "<details class=\"more\"><summary>");
            xml_escape_file(f, figs[i].title);
            fprintf(f, " (click to show)</summary>\n");
        }
        html_figure(f, dir, figs[i].file, figs[i].title, figs[i].caption, 1);
        if (figs[i].folded) fprintf(f, "</details>\n");
    }
    fprintf(f, "<h2 id=\"differ\">Settings that differ</h2>\n");
    for (int k = 0; keys && k < n_keys; k++)
        n_diff += key_differs(runs, n, keys[k]) && !is_bookkeeping(keys[k]);
    if (!keys || n_diff == 0)
        fprintf(f, "<p>No setting differs between the runs (apart from run.name and "
                   "run.dir).</p>\n");
    else
        html_config_table(f, runs, n, keys, n_keys, 1);
    fprintf(f, "<h2 id=\"summary\">Summary</h2>\n");
    html_summary(f, summary, runs);
    fprintf(f, "<h2 id=\"all\">All settings</h2>\n<p class=\"note\">Highlighted: the value "
               "differs between runs.</p>\n");
    if (keys) html_config_table(f, runs, n, keys, n_keys, 0);
    html_provenance(f, runs, n);
    fprintf(f, "</body>\n</html>\n");
    free(keys);
    if (atomic_commit(&out, 0) != 0) {
        fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}
