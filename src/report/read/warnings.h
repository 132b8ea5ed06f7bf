/* warnings.h: what a command warns about its input -- a row of a log or of sweep.csv it skips
 * (log_check.h), runs of different tasks compared -- printed on stderr as "warning: TEXT" and
 * kept, in order, for the page that must show them too: the --compare page (html.h) and a sweep's
 * summary and page (sweep_report.h). docs/manual.md ("Logs read back") states which case warns
 * and which refuses. A command starts with none (warnings_clear); a warning met again (a log read
 * twice by a sweep) is neither printed nor kept again. */
#ifndef SCALEDOT_WARNINGS_H
#define SCALEDOT_WARNINGS_H

/* At most this many are kept for the page; later ones are printed and counted. */
#define WARNINGS_KEPT 200

/* Prints "warning: " and the text (printf format; no final newline) on stderr, and keeps it. */
void warn_input(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The number kept, the one kept at index i (in the order printed; "" when out of range), and
 * the number printed but not kept (past WARNINGS_KEPT, or when memory ran out). */
int warnings_count(void);
const char *warnings_at(int i);
int warnings_dropped(void);

/* Forgets every warning: a command's start. */
void warnings_clear(void);

#endif
