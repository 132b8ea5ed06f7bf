/* sweep_page.h: index.html of a sweep folder, beside summary.txt: the figures the sweep made
 * (inline, with their captions), then the report's sections -- the groups (summary over seeds),
 * the outlying seeds, the slowdown tables, the LR sensitivity when lr varied -- as preformatted
 * text, exactly as in summary.txt. Hover and run (group) toggles as on the --compare page. */
#ifndef SCALEDOT_SWEEP_PAGE_H
#define SCALEDOT_SWEEP_PAGE_H

/* Writes dir/index.html from the sweep report's text (sweep_report.h: paragraphs separated by a
 * blank line; one whose first line is not indented starts a section, its heading that line up to
 * the first ':' or " ("; the section "figures in DIR/:" lists "FILE.svg: caption" lines, each
 * inlined from dir). Whole or not at all, never through a link. Returns 0, or -1 after printing
 * the error. */
int sweep_page_write(const char *dir, const char *text);

/* The start of every sweep page's title, followed by the folder: the mark by which a sweep's own
 * index.html is recognised (sweep/plan_files.c) before a sweep into that folder writes it again. */
#define SWEEP_PAGE_MARK "<title>scaledot sweep: "

#endif
