/* html.h: index.html of ./train --compare, the page that ties the report together: the verdict
 * (verdict.h), the runs' generated samples side by side (when a run folder holds sample.txt),
 * the figures with what to look for, the settings that differ, the summary table, every
 * setting. */
#ifndef SCALEDOT_HTML_H
#define SCALEDOT_HTML_H

#include <stdio.h>

#include "report/figures.h"
#include "report/runs.h"
#include "report/summary.h"

/* The opening of the line of every --compare index.html (and of no sweep page) that names the
 * command: written by html_write, and the mark by which a report folder of ours is recognised
 * (report/compare.c) before it is written again. */
#define HTML_COMPARE_MARK "<p class=\"note\">Report of <code>./train --compare</code>"

/* Writes the page to path: the verdict line and the samples first, then the figures (each SVG of
 * figs, read from path's folder, inlined so the script can reach it; a link to the file beside
 * it; a folded one inside a <details> toggle), then the settings that differ, the summary table,
 * every setting and the provenance. Self-contained: CSS and script
 * inline, no external script, font or URL; without JavaScript it reads the same minus hover and
 * toggles. It is well-formed XML too (void elements closed, CSS and script free of <, > and &),
 * so the tests can check it with the same parser as the SVGs. A figure that cannot be read is
 * named in its place after a warning; one that could not be written (its err) is named as
 * missing, with why (html_figure_missing). Returns 0, or -1 after printing the error. */
int html_write(const char *path, const Run *runs, int n, const Table *summary,
               const FigureInfo *figs, int n_figs);

/* Shared with the sweep page (sweep_page.h). */

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

#endif
