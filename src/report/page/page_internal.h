/* page_internal.h: what report/page/ shares inside itself and with its tests: the verdict
 * (verdict.c), the default report folder (out_dir.c), the page's style and inline figures
 * (html_page.c), the step slider (slider.c), --compare's index.html (html.c) and a sweep's
 * index.html (sweep_page.c). */
#ifndef SCALEDOT_REPORT_PAGE_INTERNAL_H
#define SCALEDOT_REPORT_PAGE_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "report/page/page.h"
#include "report/read/read.h"
#include "report/table/table.h"
#include "runlog/csv_read.h"
#include "report/figure/figure.h"

/* ==== verdict.c: the result of a report page in a few lines, at the top of the page, computed from
 * the runs on it (never quoted from elsewhere): what --compare's index.html and a sweep's
 * summary.txt and index.html say first.
 *
 * A --compare page of text runs (runs_are_text, runs.c):
 * per run, the last validation bits per byte (val_bpb; val_loss / ln 2 without it) and next-byte
 * accuracy; for two runs, how far apart they end. Any other page: per run, the last validation
 * answer accuracy and the first validation pass at >= 50 / 90 / 99 % (time_to_learn.c); for two
 * runs, the slowdown (slowdown.c) of one over the other at each threshold: the unscaled over the
 * scaled run when one has attention.scale = none and the other sqrt_dk, else the second over the
 * first. A sweep: its best and worst group of the varied columns but the seed (median final
 * answer accuracy over the seeds), how many seeds reached 99 %, and the slowdown of the unscaled
 * over the scaled runs, median over every pair (slowdown_pairs); of a text sweep, the median
 * next-byte accuracy and bits per byte (sweep_acc_name) and no accuracy threshold, neither the
 * seeds at 99 % nor the slowdown to 50 / 90 / 99 % (the summary's slowdown table keeps it). */

/* The verdict of a --compare page as plain text, one line per run and, for two runs, a line for
 * the pair; every line ends with '\n'. */
void verdict_compare(FILE *f, const Run *runs, int n);

/* The verdict of a sweep: "verdict: " and the best group, then indented lines (the worst group,
 * the slowdown), each ending with '\n'; nothing when no run trained. Returns 0, or -1 when memory
 * runs out. */
int verdict_sweep(FILE *f, const SweepTable *t);

/* ==== out_dir.c: the default report folder of ./train --compare, reports/<run1>_vs_<run2>...: only
 * letters, digits and . _ - in it (no spaces, parentheses or slashes from a run's name), and a
 * short name with a hash of the run list when the full one would be unwieldy, so comparing
 * another set of runs never lands in (and replaces) the folder of an earlier comparison. */

/* Longest folder name (after "reports/") built from the run names; longer lists get
 * "<first>_vs_<n-1>_more_<hash>". */
#define OUT_DIR_MAX_NAME 80

/* Writes "reports/NAME" for the runs names[0..n) into out (n bytes). Characters other than
 * [A-Za-z0-9._-] become '_' (runs of them one '_', none at either end); the hash (FNV-1a, 32
 * bits, of the names as given, each followed by a NUL) keeps two lists that sanitize alike
 * apart. */
void out_dir_default(char *out, size_t n, const char *const *names, int n_names);

/* ==== html_page.c: what the --compare page (html.c) and the sweep page (sweep_page.c) share: the
 * inline style and script, and figures inlined with their captions. */

/* The <style> and <script> of a page's <head>: the script shows a tooltip with the run, the
 * series and the nearest point's values (plot_lines' data-x / data-y) when the pointer is near a
 * curve or scatter point, and fills an element with id "run-toggles" with one checkbox per run
 * (data-run value) that hides the run's curves in every figure; it marks <html data-scripts=
 * "ready"> when done. */
void html_head(FILE *f);

/* <figure id="STEM"> (STEM: file up to its first '.', characters other than ASCII letters, digits,
 * '_' and '-' made '_', at most 64 of them; "figure" if empty) holding dir/file's SVG inline (XML
 * declaration and xmlns dropped, its ids prefixed "STEM-"), then a caption: the title, the caption
 * (HTML as is when caption_is_html, else escaped) and a link to the file. When the file cannot be
 * read, a note takes the SVG's place after a warning on stderr, and -1 is returned; else 0. */
int html_figure(FILE *f, const char *dir, const char *file, const char *title,
                const char *caption, int caption_is_html);

/* In a figure's place, when it could not be written: <figure id="STEM"> (as html_figure) holding
 * a note that names the file and its title, says it is missing and why (the error text, escaped)
 * and that the command exited with code 1. */
void html_figure_missing(FILE *f, const char *file, const char *title, const char *why);

/* ==== slider.c: the "Step by step" section of the --compare page: a step slider over what the runs
 * logged at each evaluation (attn_steps.csv, train/attn_steps.h), and per layer and head, for each
 * run side by side, the histogram of the attention logits, the attention map of validation
 * example 0, and the saturated share, logit std and gradient reaching the logits of that step
 * (attention.csv's saturated_frac, logit_std and dlogit_norm, shown as logged). One layer and head
 * at a time, picked from a list (a page of many heads stays a screen high). The data is embedded
 * as JSON and drawn by an inline script: the page stays one self-contained file. */

/* The file the section reads in each run folder (train/attn_steps.h's ATTN_STEPS_FILE; report/
 * reads no train/ header). */
#define SLIDER_FILE "attn_steps.csv"

/* The section's data as one JSON object (no '<', '>' or '&' in it: text is \u-escaped, so the
 * page stays well-formed XML): {"edges": [...the histogram bin edges, from the first log's
 * n_LO_HI columns, as strings], "pairs": [[layer, head], ...] (every pair any run logged, in
 * order), "pick": the index in pairs shown first (the pair with the largest saturated_frac at a
 * run's last logged step), "runs": [{"name", "color" (plot_color), "side" (the map's side),
 * "tokens" (attn_map_tokens.csv's, or []), "heads": {"L.H": {"steps": [...], "hist": [[counts]
 * per step], "map": [[weights of q0k0, q1k0, q1k1, ...] per step], "sat", "std", "grad":
 * [attention.csv's text at that step, layer and head, or "" when it has none]}}}]}. logs[i] is
 * run i's attn_steps.csv, or has[i] = 0 when it has none (the run is listed with no heads). A
 * field that is not a finite number is written null. Returns 0, or -1 when out of memory. */
int slider_json(FILE *f, const Run *runs, const Csv *logs, const int *has, int n);

/* 1 when any run folder holds attn_steps.csv (the page then has the section). */
int slider_has_data(const Run *runs, int n);

/* Writes the section (heading, note, the slider, the layer/head picker, a column per run, the
 * JSON, the script) when any run folder holds attn_steps.csv; else nothing (a page of runs of
 * earlier versions is as it was). Each run's log is read and checked like the other logs
 * (log_check.c; a row it drops is named on stderr). Returns 1 when written, 0 when not, -1 on
 * error (printed). */
int slider_section(FILE *f, const Run *runs, int n);

/* ==== html.c: index.html of ./train --compare, the page that ties the report together: the verdict
 * (verdict.c), the runs' generated samples side by side (when a run folder holds sample.txt),
 * the figures with what to look for, the settings that differ, the summary table, every
 * setting. */

/* The opening of the line of every --compare index.html (and of no sweep page) that names the
 * command: written by html_write, and the mark by which a report folder of ours is recognised
 * (report/page/compare.c) before it is written again. */
#define HTML_COMPARE_MARK "<p class=\"note\">Report of <code>./train --compare</code>"

/* Writes the page to path: the verdict line and the samples first, then the figures (each SVG of
 * figs, read from path's folder, inlined so the script can reach it; a link to the file beside
 * it; a folded one inside a <details> toggle), the step slider when the runs logged
 * attn_steps.csv (slider.c), then the settings that differ, the summary table,
 * every setting and the provenance. Self-contained: CSS and script
 * inline, no external script, font or URL; without JavaScript it reads the same minus hover and
 * toggles. It is well-formed XML too (void elements closed, CSS and script free of <, > and &),
 * so the tests can check it with the same parser as the SVGs. A figure that cannot be read is
 * named in its place after a warning; one that could not be written (its err) is named as
 * missing, with why (html_figure_missing). Returns 0, or -1 after printing the error. */
int html_write(const char *path, const Run *runs, int n, const Table *summary,
               const FigureInfo *figs, int n_figs);

/* ==== sweep_page.c: index.html of a sweep folder, beside summary.txt: the figures the sweep made
 * (inline, with their captions), then the report's sections -- the groups (summary over seeds),
 * the outlying seeds, the slowdown tables, the LR sensitivity when lr varied -- as preformatted
 * text, exactly as in summary.txt. Hover and run (group) toggles as on the --compare page. */

/* Writes dir/index.html from the sweep report's text (sweep_report.c: paragraphs separated by a
 * blank line; one whose first line is not indented starts a section, its heading that line up to
 * the first ':' or " ("; the section "figures in DIR/:" lists "FILE.svg: caption" lines, each
 * inlined from dir). Whole or not at all, never through a link. Returns 0, or -1 after printing
 * the error. */
int sweep_page_write(const char *dir, const char *text);

/* The start of every sweep page's title, followed by the folder: the mark by which a sweep's own
 * index.html is recognised (sweep/plan_files.c) before a sweep into that folder writes it again. */
#define SWEEP_PAGE_MARK "<title>scaledot sweep: "

#endif
