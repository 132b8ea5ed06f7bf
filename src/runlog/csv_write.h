/* csv_write.h: the writer of a run's CSV logs (loss.csv, grad_norms.csv, attention.csv); their
 * reader is csv_read.h beside it. The format both agree on: a header row, then one row per line
 * ('\n' ended), the step in the first field; an empty field was not measured at that step; a
 * measured NaN or Inf is written nan / inf / -inf, never hidden.
 *
 * Each row goes out whole with one write(2) (util/whole_write.h), so a run that is killed keeps
 * every finished row, and a write that a full disk cuts short is cut back to the last whole row:
 * no log ever ends in a torn line. Nothing is written through a symbolic link. Which logs a run
 * has and what their columns are is train/runlog.h's business. */
#ifndef SCALEDOT_CSV_WRITE_H
#define SCALEDOT_CSV_WRITE_H

#include <stddef.h>
#include <stdio.h>

#include "util/whole_write.h"

/* Opens a new, empty log at path (a file or link already there is removed, never written
 * through; util/whole_write.h's file_open_log). The FILE only holds the descriptor: write rows
 * with csv_log_row. Returns NULL after printing "error: cannot write 'path': reason". */
FILE *csv_log_create(const char *path);

/* Opens the log at path, which must exist and be a regular file, for appending rows. Returns
 * NULL after printing "error: cannot append to 'path': reason". */
FILE *csv_log_append(const char *path);

/* Appends line (one whole row with its '\n') to the log f opened above, with one write(2).
 * Returns 0, or -1 after printing "error: cannot write 'path': strerror" (path names the log in
 * the message only); a write cut short is cut back so no torn row stays. */
int csv_log_row(FILE *f, const char *path, const char *line);

/* Appends one field to the row buf[0..len) (cap bytes): ",value" in printf format fmt (one
 * double conversion), ",nan" / ",inf" / ",-inf" for a non-finite value, or "," alone when the
 * value was not measured (present = 0). Returns the new length; once len >= cap nothing more is
 * written (the row is cut, never overrun). */
size_t csv_log_field(char *buf, size_t cap, size_t len, int present, double v, const char *fmt);

/* The first half of resuming a log: writes a temporary file (atomic_open: never through a link)
 * with the header and the rows of the log at path whose step (first field, as strtol reads it)
 * is below resume_step, dropping later rows (written after the checkpoint), blank lines (they
 * hold no row, and kept would land among the appended rows) and a last line without its '\n'
 * (a killed write); path itself is not touched. Returns 0 (out is then open:
 * commit it with csv_log_keep_commit or atomic_discard it), -1 after printing why ("error: cannot
 * resume: 'path': reason", "cannot write 'TEMPORARY'", "cannot rewrite 'path'"), or -2 when the
 * log is not a regular file or larger than FILE_MAX_LOG_BYTES (util/file_check.h), or its first
 * line is not a whole header (empty file, no '\n', not starting "step,": rows appended to it
 * could not be read back) or, with want not NULL, not want (the header, '\n' ended, of the rows
 * the caller appends: rows under another header would not be of its columns; the message names
 * the first column that differs); out is then not open (nothing to discard) and no temporary
 * file is left. */
int csv_log_keep_before(const char *path, long resume_step, const char *want, AtomicFile *out);

/* csv_log_keep_before's checks of the log at path alone (want as there), writing nothing: 0 when
 * a resume can continue it, else its message at where (error_add's place: the run folder's
 * argument) and return (-2 refused, -1 unreadable). A resume makes them before it takes its
 * folder's lock and manifest, so that its refusal changes nothing there. */
int csv_log_check_header(const char *path, const char *want, const char *where);

/* The largest step of a row of the log at path below `before`, counting the rows
 * csv_log_keep_before keeps (a whole line: the step, a comma, ...; a torn last line is not one);
 * -1 when it has none; -2, printing nothing, when path cannot be read (not there, not a regular
 * file, too large) or its first line is not a whole header (csv_log_keep_before says why). */
long csv_log_last_step_before(const char *path, long before);

/* The second half: renames the prepared temporary file over path and opens it with csv_log_append.
 * Returns NULL after printing "error: cannot rewrite 'path': strerror" (path unchanged) or
 * csv_log_append's message. */
FILE *csv_log_keep_commit(const char *path, AtomicFile *prepared);

/* One text field of a CSV table written with stdio (the regime maps' CSVs): "," first unless
 * first is nonzero, then text, in double quotes (a quote inside doubled) when it holds a comma, a
 * quote or a line break (RFC 4180, as csv_read.h reads it; a sweep folder or run name may),
 * else as it is. */
void csv_write_text(FILE *f, const char *text, int first);

/* True when the first line of the log at path, its '\n' included, is want; false when it is
 * another or the log cannot be read (a regular file of at most FILE_MAX_LOG_BYTES). */
int csv_log_header_is(const char *path, const char *want);

#endif
