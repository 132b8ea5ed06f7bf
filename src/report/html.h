/* html.h: index.html of ./train --compare, the page that ties the report together: the runs and
 * the settings that differ, the summary table, the figures with what to look for, the runs'
 * generated samples side by side (when a run folder holds sample.txt), every setting. */
#ifndef SCALEDOT_HTML_H
#define SCALEDOT_HTML_H

#include "report/figures.h"
#include "report/runs.h"
#include "report/summary.h"

/* Writes the page to path; the figures are linked by file name, so it belongs in their folder.
 * It is well-formed XML too (void elements closed, CSS free of < and >), so the tests can check
 * it with the same parser as the SVGs. Returns 0, or -1 after printing the error. */
int html_write(const char *path, const Run *runs, int n, const Table *summary,
               const FigureInfo *figs, int n_figs);

#endif
