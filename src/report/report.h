/* report.h: commands of ./train that read runs or compute tables instead of training. */
#ifndef SCALEDOT_REPORT_H
#define SCALEDOT_REPORT_H

/* ./train --compare RUN_DIR RUN_DIR ... [--out DIR] [--log-scale]
 * argv holds only the arguments after --compare. Prints the terminal summary table and writes
 * the SVG figures and index.html into the report folder. Returns an exit code (0, 1 on I/O
 * error, 2 on bad arguments or unreadable runs). */
int report_compare(int argc, char **argv);

/* ./train --softmax-table [--seed N] [--samples N] [--keys N]
 * Prints the worked numbers behind the 1/√d_k argument. Returns an exit code. */
int report_softmax_table(int argc, char **argv);

#endif
