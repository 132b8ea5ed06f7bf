/* html.h: index.html of ./train --compare, the page that ties the report together: the verdict
 * (verdict.h), the runs' generated samples side by side (when a run folder holds sample.txt),
 * the figures with what to look for, the settings that differ, the summary table, every
 * setting. */
#ifndef SCALEDOT_HTML_H
#define SCALEDOT_HTML_H

#include <stdio.h>

#include "report/figure/figures.h"
#include "report/page/html_page.h"
#include "report/read/runs.h"
#include "report/table/summary.h"

/* The opening of the line of every --compare index.html (and of no sweep page) that names the
 * command: written by html_write, and the mark by which a report folder of ours is recognised
 * (report/page/compare.c) before it is written again. */
#define HTML_COMPARE_MARK "<p class=\"note\">Report of <code>./train --compare</code>"

/* Writes the page to path: the verdict line and the samples first, then the figures (each SVG of
 * figs, read from path's folder, inlined so the script can reach it; a link to the file beside
 * it; a folded one inside a <details> toggle), the step slider when the runs logged
 * attn_steps.csv (slider.h), then the settings that differ, the summary table,
 * every setting and the provenance. Self-contained: CSS and script
 * inline, no external script, font or URL; without JavaScript it reads the same minus hover and
 * toggles. It is well-formed XML too (void elements closed, CSS and script free of <, > and &),
 * so the tests can check it with the same parser as the SVGs. A figure that cannot be read is
 * named in its place after a warning; one that could not be written (its err) is named as
 * missing, with why (html_figure_missing). Returns 0, or -1 after printing the error. */
int html_write(const char *path, const Run *runs, int n, const Table *summary,
               const FigureInfo *figs, int n_figs);

#endif
