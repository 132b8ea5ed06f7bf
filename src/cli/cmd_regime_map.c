/* cmd_regime_map.c: ./train --regime-map --out DIR SWEEP_DIR [SWEEP_DIR ...] (command layer): its
 * arguments checked, then the figure (report/map/regime_map.c). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/map/map.h"
#include "util/error_list.h"
#include "util/exit_codes.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: ./train --regime-map --out DIR SWEEP_DIR [SWEEP_DIR ...]\n"
            "Every trained run of the sweeps (their sweep.csv) placed by the step-0 attention-logit\n"
            "std predicted from its init (predicted_logit_std, log axis): its final validation\n"
            "answer accuracy, and for the unscaled run of each none / sqrt_dk pair its slowdown to\n"
            "90 %% (censored values hollow). Colour: scale; marker: init scheme. Writes\n"
            "DIR/regime_map.svg and DIR/regime_map.csv (the points). When the sweeps vary optim.lr\n"
            "it also writes DIR/regime_map_lr.svg and .csv: the map over lr x d_model, a panel per\n"
            "scale (sqrt_dk, none), a cell per (d_model, lr) coloured by the median final answer\n"
            "accuracy over seeds, framed where the median peak logit std reached %g, starred at the\n"
            "largest lr of each width at which every seed reached 99 %%. An earlier map's file\n"
            "there that this one does not write (no lr map now, or a write that failed) is removed,\n"
            "never left beside the new files. A sweep.csv of an older program lacks\n"
            "predicted_logit_std: ./train --sweep --collect --out SWEEP_DIR rebuilds it.\n"
            "Exit codes: 0 done, 1 a sweep.csv that cannot be parsed, or DIR cannot be written,\n"
            "2 bad arguments (a SWEEP_DIR without a readable sweep.csv, or one given twice; DIR a\n"
            "link, or holding a regime_map[_lr].svg or .csv that --regime-map did not write).\n",
            REGIME_MAP_LR_RUNAWAY);
}

/* The n sweep folders checked before any work (a wrong one is a wrong argument): each holds a
 * readable sweep.csv, and none is given twice under two spellings (real[i]: dirs[i]'s real
 * path, for the caller to free). Returns an exit code, or -1 when they are fine. */
static int check_sweep_dirs(char **dirs, char **real, int n) {
    /* every folder checked before any work: a wrong one is a wrong argument */
    for (int i = 0; i < n; i++) {
        char csv[4200];
        int len = snprintf(csv, sizeof csv, "%s/sweep.csv", dirs[i]);
        if (len < 0 || (size_t)len >= sizeof csv || access(csv, R_OK) != 0) {
            error_add(NULL, 0, NULL, "'%s' holds no readable sweep.csv: give the folders sweeps "
                                     "wrote (their --out)", dirs[i]);
            return EXIT_CONFIG;
        }
    }
    /* the same folder twice (sw1, ./sw1, $PWD/sw1) would draw each of its runs twice */
    for (int i = 0; i < n; i++) {
        if (!(real[i] = realpath(dirs[i], NULL))) {
            error_add(NULL, 0, NULL, "sweep folder '%s': %s", dirs[i], strerror(errno));
            return errno == ENOMEM ? EXIT_RUNTIME : EXIT_CONFIG;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(real[i], real[j]) == 0)
                return cli_fail(NULL, "sweep folder '%s' is given twice ('%s' and '%s'): give "
                                      "each sweep once", real[i], dirs[j], dirs[i]);
    }
    return -1;
}

int cli_regime_map(int argc, char **argv) {
    const char *out = NULL;
    char **dirs = calloc((size_t)(argc > 0 ? argc : 1), sizeof *dirs);
    char **real = calloc((size_t)(argc > 0 ? argc : 1), sizeof *real);
    int n = 0, rc = EXIT_CONFIG;
    CliOnce once = {0}; /* argv starts after --regime-map: argument i + 2 of the command line */
    if (!dirs || !real) {
        free(dirs);
        free(real);
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            usage(stdout);
            rc = EXIT_OK;
            goto done;
        } else if (cli_is_flag(argv[i], "--out")) {
            if (!(out = cli_flag_value(argc, argv, &i, "--out"))) {
                rc = cli_fail_at(NULL, "--out", i + 2, "needs a folder");
                goto done;
            }
            if ((rc = cli_once(&once, "--out", i + 2)) >= 0) goto done;
            rc = EXIT_CONFIG;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_fail_at(usage, argv[i], i + 2, "unknown option for --regime-map");
            goto done;
        } else if (!argv[i][0]) {
            rc = cli_fail(usage, "an empty sweep folder name");
            goto done;
        } else {
            dirs[n++] = argv[i];
        }
    }
    if (!out) {
        rc = cli_fail(usage, "--regime-map needs --out DIR");
        goto done;
    }
    if (n == 0) {
        rc = cli_fail(usage, "--regime-map needs at least one sweep folder");
        goto done;
    }
    if ((rc = check_sweep_dirs(dirs, real, n)) >= 0) goto done;
    /* a link for DIR, or a user's own regime_map.svg or .csv there, is a wrong --out */
    if (regime_map_check_out(out) != 0) {
        rc = EXIT_CONFIG;
        goto done;
    }
    /* regime_map_write creates DIR only after it has read every sweep.csv */
    rc = regime_map_write(out, dirs, n, stdout) == 0 ? EXIT_OK : EXIT_RUNTIME;
done:
    for (int i = 0; i < n; i++) free(real[i]);
    free(real);
    free(dirs);
    return rc;
}
