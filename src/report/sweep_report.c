/* sweep_report.c: a minimal stand-in, replaced by the sweep-report branch: it prints the number
 * of rows of OUT/sweep.csv and the count of each status, writes the same to OUT/summary.txt and
 * draws no figures. */
#include "report/sweep_report.h"

#include <errno.h>
#include <string.h>

#include "report/csv.h"

int sweep_report(const char *out_dir, FILE *out) {
    char path[4200];
    snprintf(path, sizeof path, "%s/sweep.csv", out_dir);
    Csv t = {0};
    if (csv_load(&t, path) != 0) {
        fprintf(stderr, "error: cannot read '%s': %s\n", path, strerror(errno));
        return 1;
    }
    static const char *const STATUS[] = {"ok", "diverged", "guard", "failed", "missing", "running"};
    int count[6] = {0}, col = csv_col(&t, "status");
    for (int r = 0; r < t.n_rows; r++)
        for (int s = 0; s < 6; s++) count[s] += strcmp(csv_str(&t, r, col), STATUS[s]) == 0;
    char text[256];
    int n = snprintf(text, sizeof text, "sweep: %d runs:", t.n_rows);
    for (int s = 0; s < 6; s++)
        n += snprintf(text + n, sizeof text - (size_t)n, " %d %s", count[s], STATUS[s]);
    snprintf(text + n, sizeof text - (size_t)n, "\n");
    csv_free(&t);
    fputs(text, out);
    snprintf(path, sizeof path, "%s/summary.txt", out_dir);
    FILE *f = fopen(path, "w");
    int bad = !f || fputs(text, f) == EOF;
    if (f && fclose(f) != 0) bad = 1;
    if (bad) fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
    return bad ? 1 : 0;
}
