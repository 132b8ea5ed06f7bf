/* sweep_args_check.h: the checks of ./train --sweep's command line that need the whole line
 * read (cli/sweep_args.c reads it into SweepParts, then calls them), and the error helper the two
 * files share. Each check adds its mistakes to p->errs (util/error_list.h), named by argument,
 * and stops nothing: the caller prints them all at once, sorted by argument. Not for use outside
 * src/cli/sweep_args*.c: cli/sweep_args.h is the interface. */
#ifndef SCALEDOT_CLI_SWEEP_ARGS_CHECK_H
#define SCALEDOT_CLI_SWEEP_ARGS_CHECK_H

#include <stdarg.h>

#include "cli/args.h"
#include "sweep/plan.h"
#include "util/error_list.h"

/* The parts of the command line collected before the axes are put in plan order. */
typedef struct {
    Axis dk, scale, seed, grid[SWEEP_MAX_AXES];
    int n_grid, has_dk, has_scale, has_seed;
    int collect_argn; /* where --collect was given (0: not) */
    int plan_argn;    /* where --plan was given (0: not) */
    int width_refused; /* --d-model's value was refused: the d_k axis' width is not known */
    CliOnce once;     /* where each once-only option was given */
    ErrorList errs;   /* every mistake of the line, in argument order */
} SweepParts;

/* Adds an error about the value of option flag, argument argn, at its place ("--grid (argument
 * 5): ..."; error_place), sorted by argn. */
static inline void arg_error(ErrorList *errs, const char *flag, int argn, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static inline void arg_error(ErrorList *errs, const char *flag, int argn, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_verror_at(errs, flag, argn, fmt, ap);
    va_end(ap);
}

/* Each d_k of the d_k axis (p->dk, when p->has_dk and --d-model's value was read) divides the
 * width it is taken from (plan_dk_width: --d-model, its default, or d_k itself with --one-head);
 * those that do not are named in one error at their --dk (the preset's at --d-model). */
void sweep_check_dk_width(const SweepArgs *a, SweepParts *p);

/* A key set twice: a --grid or --set key that a shorthand given on the line owns (--dk:
 * model.d_model and model.n_heads, --scales, --seeds, --steps), a --set of a --grid key or of
 * run.name / run.dir (the sweep's), --d-model or --one-head without a d_k axis, and --d-model
 * with --one-head. Each named at its argument. */
void sweep_check_conflicts(const SweepArgs *a, SweepParts *p);

/* Each --scales and --grid value by the config's rules (each tried on the defaults), then the
 * config every run starts from (plan_base_config: the file, each --set, --steps; the file's
 * errors first) with its checks between keys but those an axis takes part in. Out of memory is
 * named as an error too. */
void sweep_check_values(const SweepArgs *a, SweepParts *p);

/* --collect with anything that would make a plan (a config, an axis, --set, --steps,
 * --d-model, --one-head): one error at --collect. */
void sweep_check_collect(const SweepArgs *a, SweepParts *p);

#endif
