/* cmd_sweep.c: the sweep's commands (command layer): ./train --sweep (arguments read by
 * sweep_args.c, then the engine, sweep/sweep.c), ./train --sweep-run RUN.ini (one run of it,
 * sweep/run_one.c) and ./train --sweep-report SWEEP_DIR (report/page/sweep_report.c). */
#include "cli/cli.h"

#include <stdio.h>
#include <unistd.h>

#include "cli/args.h"

#include "cli/sweep_args.h"
#include "report/page/page.h"
#include "report/read/read.h"
#include "sweep/sweep.h"
#include "util/dirs.h"
#include "util/error_list.h"
#include "util/exit_codes.h"

int cli_sweep(int argc, char **argv) {
    SweepArgs a;
    warnings_clear(); /* a command starts with none (report/read/warnings.c) */
    int rc = sweep_args_parse(&a, argc, argv);
    rc = rc > 0 ? EXIT_OK : rc < 0 ? EXIT_CONFIG : sweep_execute(&a);
    sweep_args_free(&a);
    return rc;
}

static const char SWEEP_RUN_USAGE[] = "usage: ./train --sweep-run OUT/configs/RUN.ini (one run "
                                     "of a sweep; see ./train --sweep --help)\n";
static const char SWEEP_REPORT_USAGE[] = "usage: ./train --sweep-report SWEEP_DIR (the folder a "
                                        "sweep wrote, with its sweep.csv)\n";

/* The one argument of --sweep-run or --sweep-report (command), a `one` (what it is) that is a
 * `kind` ("file", "folder"): -1 when argv holds it, else the exit code after --help (usage on
 * stdout), or after a line saying what is wrong (none given, an empty name, more than one: say
 * so, not only how the command reads) and the usage. */
static int one_argument(int argc, char **argv, const char *command, const char *one,
                        const char *kind, const char *usage) {
    if (argc == 1 && cli_is_help(argv[0])) return fputs(usage, stdout), EXIT_OK;
    if (argc == 1 && *argv[0]) return -1;
    if (argc == 0)
        error_add(NULL, 0, NULL, "%s needs a %s", command, one);
    else if (argc == 1)
        error_add(NULL, 0, NULL, "%s: the %s name is empty", command, kind);
    else
        error_add(NULL, 0, NULL, "%s takes one %s, not %d ('%s', '%s'%s): give them one at a "
                                 "time", command, one, argc, argv[0], argv[1],
                  argc > 2 ? ", ..." : "");
    return fputs(usage, stderr), EXIT_CONFIG;
}

int cli_sweep_run(int argc, char **argv) {
    int rc = one_argument(argc, argv, "--sweep-run", "run config of a sweep (OUT/configs/RUN.ini)",
                          "file", SWEEP_RUN_USAGE);
    return rc >= 0 ? rc : sweep_run_one(argv[0]);
}

int cli_sweep_report(int argc, char **argv) {
    warnings_clear();
    int rc = one_argument(argc, argv, "--sweep-report", "sweep folder", "folder",
                          SWEEP_REPORT_USAGE);
    if (rc >= 0) return rc;
    /* its length first: a cut path must not reach the checks below */
    if (sweep_report_check_name(argv[0]) != 0) return EXIT_CONFIG;
    if (dirs_refuse_link(argv[0], "sweep folder", NULL) != 0) return EXIT_CONFIG;
    /* a folder without sweep.csv is a wrong argument (exit 2), not a failed read (exit 1) */
    char csv[4096];
    int n = snprintf(csv, sizeof csv, "%s/sweep.csv", argv[0]);
    if (n < 0 || (size_t)n >= sizeof csv || access(csv, F_OK) != 0) {
        error_add(NULL, 0, NULL, "'%s' holds no sweep.csv: give the folder a sweep wrote (its "
                                 "--out; ./train --sweep --collect --out DIR rebuilds a lost "
                                 "sweep.csv)", argv[0]);
        return EXIT_CONFIG;
    }
    /* the user's summary.txt, index.html or figure there: a wrong folder (exit 2) */
    if (sweep_report_check_folder(argv[0]) != 0) return EXIT_CONFIG;
    return sweep_report(argv[0], stdout);
}
