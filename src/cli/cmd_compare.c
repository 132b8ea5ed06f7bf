/* cmd_compare.c: ./train --compare RUN_DIR ... [--out DIR] [--log-scale | --linear] (command layer):
 * its arguments read into CompareArgs, then the report (report/page/compare.c); with --at-equal-loss
 * and two runs, their gradient readings at equal validation loss (report/table/equal_loss.c). */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/table/table.h"
#include "report/read/read.h"
#include "report/figure/figure.h"
#include "report/page/page.h"
#include "util/exit_codes.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: ./train --compare RUN_DIR [RUN_DIR ...] [--out DIR] [--log-scale | --linear]\n"
            "Prints a summary table of the runs and writes SVG figures and index.html into DIR\n"
            "(default reports/<run1>_vs_<run2>...); ends with the page's verdict, a line per run\n"
            "and one for a pair, and the page's path.\n"
            "The loss axis is logarithmic when the losses span more than 30x, else linear;\n"
            "--log-scale or --linear chooses it.\n"
            "       ./train --compare RUN_A RUN_B --at-equal-loss\n"
            "prints instead, for each of RUN_A's evaluations in the loss range both runs cover,\n"
            "both runs' gradient readings where each first reached that validation loss; writes\n"
            "nothing.\n"
            "Exit codes: 0 done, 1 cannot write the report, 2 bad arguments or unreadable run\n"
            "(--at-equal-loss: also a run without a validation evaluation).\n");
}

/* Fills a (a->dirs is allocated; the caller frees it). Returns -1 when the report is to be made,
 * else the exit code: 0 after --help, 2 after an error message, 1 out of memory. */
static int parse_args(CompareArgs *a, int argc, char **argv) {
    *a = (CompareArgs){.log_scale = FIGURES_LOG_AUTO};
    a->dirs = calloc((size_t)(argc > 0 ? argc : 1), sizeof *a->dirs);
    if (!a->dirs) return EXIT_RUNTIME;
    CliOnce once = {0}; /* argv starts after --compare: argument i + 2 of the command line */
    int axis_argn = 0;  /* where --log-scale or --linear was given */
    for (int i = 0; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return EXIT_OK;
        } else if (strcmp(argv[i], "--log-scale") == 0 || strcmp(argv[i], "--linear") == 0) {
            /* the two choose one axis: together, the last one used to win */
            int log = argv[i][2] == 'l' && argv[i][3] == 'o';
            if (axis_argn && a->log_scale != log)
                return cli_fail(NULL, "%s (argument %d): excludes %s (argument %d); give one",
                                argv[i], i + 2, log ? "--linear" : "--log-scale", axis_argn);
            int rc = cli_once(&once, argv[i], i + 2);
            if (rc >= 0) return rc;
            axis_argn = i + 2;
            a->log_scale = log;
        } else if (strcmp(argv[i], "--at-equal-loss") == 0) {
            int rc = cli_once(&once, "--at-equal-loss", i + 2);
            if (rc >= 0) return rc;
            a->at_equal_loss = 1;
        } else if (cli_is_flag(argv[i], "--out")) {
            if (!(a->out = cli_flag_value(argc, argv, &i, "--out")))
                return cli_fail_at(NULL, "--out", i + 2, "needs a folder");
            int rc = cli_once(&once, "--out", i + 2);
            if (rc >= 0) return rc;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_fail_at(usage, argv[i], i + 2, "unknown option for --compare");
        } else {
            a->dirs[a->n_dirs++] = argv[i];
        }
    }
    if (a->n_dirs == 0) return cli_fail(usage, "--compare needs at least one run folder");
    if (a->at_equal_loss && a->n_dirs != 2)
        return cli_fail_at(usage, "--at-equal-loss", cli_once_argn(&once, "--at-equal-loss"),
                           "needs exactly two run folders, got %d", a->n_dirs);
    return -1;
}

int cli_compare(int argc, char **argv) {
    CompareArgs a;
    warnings_clear(); /* a command starts with none (report/read/warnings.c) */
    int rc = parse_args(&a, argc, argv);
    if (rc < 0) rc = a.at_equal_loss ? report_equal_loss(stdout, a.dirs[0], a.dirs[1])
                                     : report_compare(&a);
    free(a.dirs);
    return rc;
}
