/* sweep_args.h: the command line of ./train --sweep (command layer) read into the SweepArgs
 * that the sweep engine (sweep/plan.h, sweep/sweep.h) plans and runs. */
#ifndef SCALEDOT_CLI_SWEEP_ARGS_H
#define SCALEDOT_CLI_SWEEP_ARGS_H

#include <stdio.h>

#include "sweep/plan.h"

/* Reads the arguments after --sweep (argv[0] is the first of them; argn of argv[i] is i + 2).
 * Returns 0, 1 when --help was asked for (usage printed to stdout), -1 after the messages: every
 * mistake of the line, each naming its argument, in argument order, after the config file's own
 * errors, with the checks between keys of the config every run starts from (but those an axis
 * takes part in: plan_build's); an unknown option ends the reading. a must be freed with
 * sweep_args_free in every case. */
int sweep_args_parse(SweepArgs *a, int argc, char **argv);
void sweep_args_free(SweepArgs *a);

/* The usage text of ./train --sweep (--help), to f. */
void sweep_usage(FILE *f);

#endif
