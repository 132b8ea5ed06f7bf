/* csv_read.h: the reader of the CSV logs of a run (loss.csv, grad_norms.csv, attention.csv, ...)
 * and of a sweep's sweep.csv; their writer is csv_write.h beside it.
 *
 * The whole file is read into memory and split in place. The first line is the header; every
 * later row is padded with empty fields (or cut) to the header's width, so cell access never
 * needs a bounds check by the caller. Fields may be double-quoted ("a,b", "say ""hi"""); CRLF
 * line ends, a missing final newline and blank lines are accepted. An empty field means "not
 * measured at this step", which callers must tell apart from a logged NaN. */
#ifndef SCALEDOT_CSV_READ_H
#define SCALEDOT_CSV_READ_H

#include <stddef.h>

typedef struct {
    char *text;   /* the file's bytes, split into NUL-terminated fields */
    char **cell;  /* (n_rows + 1) x n_cols field pointers; row 0 is the header */
    int n_cols;   /* fields in the header */
    int n_rows;   /* data rows, header excluded */
    int *line;    /* (n_rows + 1): the file line (1-based) each row, header first, starts on */
    int *width;   /* (n_rows + 1): the fields that line had before padding or cutting */
    char problem[160]; /* after a refusal (EILSEQ, ENOTUNIQ): what and where, e.g. "line 3: a
                          NUL byte" */
} Csv;

/* Reads and splits the file at path (util/file_check.h: a regular file of at most
 * FILE_MAX_LOG_BYTES). Returns 0, or -1 with errno set (ENOENT for a missing file, ENOMEM, EINVAL
 * for a file without a header line, ECANCELED for a FIFO, device, folder or too large a file,
 * refused before a byte is read, or a file csv_parse refuses: the error naming it already
 * printed); t is then empty (but for t->problem) and safe to csv_free. */
int csv_load(Csv *t, const char *path);

/* Splits len bytes of text (a copy is made, text is not changed). Same result as csv_load, but
 * prints nothing: a text that no log of ours can be is refused with -1 and errno EILSEQ (a NUL
 * byte: strtod would read "3.1\0 0281" as 3.1) or ENOTUNIQ (a header naming a column twice:
 * which one is meant cannot be known), t->problem saying what and on which line. */
int csv_parse(Csv *t, const char *text, size_t len);

/* Frees what csv_load / csv_parse allocated; leaves t empty. Safe on an empty or zeroed t. */
void csv_free(Csv *t);

/* Removes data row `row` (0-based; later rows move up, keeping their line and width). Does
 * nothing when row is out of range. */
void csv_remove_row(Csv *t, int row);

/* Index of the header field named name, or -1 when there is none. */
int csv_col(const Csv *t, const char *name);

/* The text of data row `row` (0-based), column col; "" when either index is out of range. */
const char *csv_str(const Csv *t, int row, int col);

/* True when the field is empty (not measured) or out of range. */
int csv_empty(const Csv *t, int row, int col);

/* The field as a number: NAN when it is empty, out of range or not a number; "nan", "inf" and
 * "-inf" are read as such, so a diverged value stays non-finite. */
double csv_num(const Csv *t, int row, int col);

/* The field as an int: fallback when it is empty, not a number, not finite or out of int range
 * (a cast of such a double would be undefined behaviour); fractions are truncated. */
int csv_int(const Csv *t, int row, int col, int fallback);

#endif
