/* sweep_report.h: the summary of a sweep, from its sweep.csv alone. */
#ifndef SCALEDOT_SWEEP_REPORT_H
#define SCALEDOT_SWEEP_REPORT_H

#include <stdio.h>

/* Reads OUT/sweep.csv (schema: sweep_schema.md); prints the summary table to `out`, writes
   OUT/summary.txt and the SVG figures into OUT. Returns 0, or 1 after an I/O message. */
int sweep_report(const char *out_dir, FILE *out);

#endif
