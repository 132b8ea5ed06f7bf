/* report.h: commands of ./train that read runs or compute tables instead of training. */
#ifndef SCALEDOT_REPORT_H
#define SCALEDOT_REPORT_H

#include <stdint.h>

/* What ./train --compare asks for (read by cli/cmd_compare.c). */
typedef struct {
    const char *out;   /* --out DIR, or NULL: reports/<run1>_vs_<run2>... (out_dir.h) */
    int log_scale;     /* the loss axis: 1 log, 0 linear, FIGURES_LOG_AUTO (figures.h) chooses */
    char **dirs;       /* the run folders, in command-line order */
    int n_dirs;        /* at least 1 */
    int at_equal_loss; /* --at-equal-loss: exactly 2 dirs; report_equal_loss instead of the report */
} CompareArgs;

/* ./train --compare RUN_DIR RUN_DIR ... [--out DIR] [--log-scale | --linear]
 * Prints the terminal summary table, writes the SVG figures and index.html into the report
 * folder, and prints last the page's verdict (verdict.h), the same lines, and the page's path
 * ("report: DIR/index.html", when it was written). Returns an exit code (0, 1 on I/O error,
 * 2 on unreadable runs, each named). */
int report_compare(const CompareArgs *a);

/* What ./train --softmax-table asks for (read by cli/cmd_softmax_table.c). */
typedef struct {
    uint64_t seed;     /* the generator's seed */
    int samples;       /* rows (one query, `keys` keys) per d_k, >= 1 */
    int keys;          /* keys per row, the softmax's width, >= 2 */
} SoftmaxTableArgs;

/* ./train --softmax-table [--seed N] [--samples N] [--keys N]
 * Prints the worked numbers behind the 1/√d_k argument. Returns an exit code (0, or 1 when out
 * of memory). */
int report_softmax_table(const SoftmaxTableArgs *a);

#endif
