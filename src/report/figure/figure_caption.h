/* figure_caption.h: appending to a figure's caption (HTML), shared by the figures of --compare. */
#ifndef SCALEDOT_FIGURE_CAPTION_H
#define SCALEDOT_FIGURE_CAPTION_H

#include "report/figure/figures.h"

/* Appends printf-style text to fi's caption (cut at FIGURE_CAPTION_LEN). The text is HTML as
 * given: escape a run's name with caption_escaped. */
void caption_add(FigureInfo *fi, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends text to fi's caption with &, <, >, " and ' escaped (a run's name). */
void caption_escaped(FigureInfo *fi, const char *text);

#endif
