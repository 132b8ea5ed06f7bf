/* sweep.c: the sweep's commands (command layer): ./train --sweep (arguments read by
 * sweep_args.c, then the engine, sweep/sweep.c), ./train --sweep-run RUN.ini (one run of it,
 * sweep/job.c) and ./train --sweep-report SWEEP_DIR (report/sweep_report.c). */
#include "cli/cli.h"

#include <stdio.h>

#include "cli/sweep_args.h"
#include "report/sweep_report.h"
#include "sweep/sweep.h"
#include "train/train.h"

int cli_sweep(int argc, char **argv) {
    SweepArgs a;
    int rc = sweep_args_parse(&a, argc, argv);
    rc = rc > 0 ? EXIT_OK : rc < 0 ? EXIT_CONFIG : sweep_execute(&a);
    sweep_args_free(&a);
    return rc;
}

int cli_sweep_run(int argc, char **argv) {
    if (argc != 1) {
        fprintf(stderr, "usage: ./train --sweep-run OUT/configs/RUN.ini (one run of a sweep; "
                        "see ./train --sweep --help)\n");
        return EXIT_CONFIG;
    }
    return sweep_job_run(argv[0]);
}

int cli_sweep_report(int argc, char **argv) {
    if (argc != 1) {
        fprintf(stderr, "usage: ./train --sweep-report SWEEP_DIR\n");
        return EXIT_CONFIG;
    }
    return sweep_report(argv[0], stdout);
}
