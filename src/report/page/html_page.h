/* html_page.h: what the --compare page (html.h) and the sweep page (sweep_page.h) share: the
 * inline style and script, and figures inlined with their captions. */
#ifndef SCALEDOT_HTML_PAGE_H
#define SCALEDOT_HTML_PAGE_H

#include <stdio.h>

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
