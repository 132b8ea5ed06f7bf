/* log_check.c: drops the rows of a numeric run log that ./train cannot have written (a torn or
 * hand-edited line), naming file and line, so that no report is built on a made-up value. */
#include "report/log_check.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A field as runlog.c writes it: empty, "nan", "inf", "-inf" or a finite decimal number. */
static int number_ok(const char *s) {
    if (!*s || !strcmp(s, "nan") || !strcmp(s, "inf") || !strcmp(s, "-inf")) return 1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    return end != s && !*end && errno != ERANGE && isfinite(v) && !strpbrk(s, "xXnNiI");
}

static int index_ok(const char *s) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return end != s && !*end && errno != ERANGE && v >= 0 && v <= INT_MAX && *s != '+' && *s != ' ';
}

/* Why row is malformed, or NULL. */
static const char *row_problem(const Csv *t, int row, char *buf, size_t n) {
    int width = t->width[row + 1];
    if (width != t->n_cols) {
        snprintf(buf, n, "%d fields, the header has %d", width, t->n_cols);
        return buf;
    }
    const char *first = csv_str(t, row, 0);
    if (!index_ok(first)) {
        snprintf(buf, n, "'%s' = '%.40s' is not a whole number", t->cell[0], first);
        return buf;
    }
    for (int c = 1; c < t->n_cols; c++)
        if (!number_ok(csv_str(t, row, c))) {
            snprintf(buf, n, "'%s' = '%.40s' is not a number", t->cell[c], csv_str(t, row, c));
            return buf;
        }
    int map = csv_col(t, "query") >= 0; /* attn_map*.csv: columns k0, k1, ... are weights */
    for (int c = 1; map && c < t->n_cols; c++) {
        const char *name = t->cell[c];
        if (name[0] != 'k' || !name[1] || strspn(name + 1, "0123456789") != strlen(name + 1))
            continue;
        double w = csv_num(t, row, c);
        if (!(w >= 0 && w <= 1)) { /* NaN too: it would be drawn as a masked cell */
            snprintf(buf, n, "'%s' = '%.40s' is not an attention weight in [0, 1]", name,
                     csv_str(t, row, c));
            return buf;
        }
    }
    return NULL;
}

int log_check_rows(Csv *t, const char *path) {
    int removed = 0;
    char why[160];
    for (int row = 0; row < t->n_rows;) {
        const char *problem = row_problem(t, row, why, sizeof why);
        if (!problem) {
            row++;
            continue;
        }
        fprintf(stderr, "warning: %s:%d: %s; row skipped\n", path, t->line[row + 1], problem);
        csv_remove_row(t, row);
        removed++;
    }
    return removed;
}
