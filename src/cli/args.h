/* args.h: the pieces every subcommand's argument reader shares (src/cli/, the command layer
 * above config -> task -> model -> optimizer -> training loop -> logs -> report): --help,
 * "--flag VALUE" and "--flag=VALUE", plain decimal counts, and the error line that ends a
 * command line with exit code 2 before any work starts. Each subcommand keeps its own wording;
 * these helpers only take the repetition out of printing and scanning. */
#ifndef SCALEDOT_CLI_ARGS_H
#define SCALEDOT_CLI_ARGS_H

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error_list.h"

/* Prints a usage text to f (a subcommand's own, or the program's). */
typedef void CliUsage(FILE *f);

/* 1 when a is "--help" or "-h". */
int cli_is_help(const char *a);

/* 1 when a is flag itself or flag followed by '=' ("--dk" matches "--dk" and "--dk=8,16"). */
int cli_is_flag(const char *a, const char *flag);

/* The value of the option at argv[*i] that cli_is_flag matched: the text after "flag=", else the
 * next argument (then *i moves onto it) unless that starts with "--": an option is not a value.
 * NULL when there is none or it is empty; *i then points at the argument the message should
 * number. */
const char *cli_flag_value(int argc, char **argv, int *i, const char *flag);

/* The next argument argv[*i + 1] (and *i moves onto it), or NULL at the end of the line. */
const char *cli_next(int argc, char **argv, int *i);

/* A decimal count: the len bytes at s are digits only (no sign, no blanks, at most 12) and the
 * number is in [lo, hi]. Returns 0 with *out set, or -1. */
int cli_parse_count(const char *s, size_t len, long lo, long hi, long *out);

/* A seed: decimal digits only (no sign, no blanks) of a number in [0, 2^64 - 1]. Returns 0 with
 * *out set, or -1. */
int cli_parse_u64(const char *s, uint64_t *out);

/* The options of one command line that may be given once, with a value (--out, --seed, --steps,
 * ...) or without (--where, --plan, --at-equal-loss, ...): every option of every command but
 * those that repeat (--set, --grid) and --help. Where each was given. Zero-initialise it ({0})
 * before the first option. */
#define CLI_ONCE_MAX 16
typedef struct {
    const char *flag[CLI_ONCE_MAX];
    int argn[CLI_ONCE_MAX];
    int n;
} CliOnce;

/* Records that the once-only option flag (its canonical spelling, "--out" also for "--out=x")
 * was given, argn the number of the argument holding its value (on the whole command line, as
 * every message numbers arguments: "--out=x" itself, or the word after "--out"; a flag without a
 * value: the flag itself). Returns -1 the first time; the second time prints "error: FLAG
 * (argument B): given twice (first at argument A); give it once" and returns EXIT_CONFIG (2):
 * the last one used to win silently, and which was meant cannot be guessed (a flag without a
 * value: a repeat is a slip that may hide another, "--plan --plan" for "--plan --collect"). */
int cli_once(CliOnce *o, const char *flag, int argn);

/* The argument number cli_once recorded for flag, or 0 when it was not given. */
int cli_once_argn(const CliOnce *o, const char *flag);

/* cli_once with the message added to errs at argn (NULL: printed now). Returns 0, or -1. */
int cli_once_to(CliOnce *o, const char *flag, int argn, ErrorList *errs);

/* Prints "error: <fmt ...>\n" to stderr (its control bytes escaped, util/error_list.h), then
 * usage(stderr) when usage is not NULL. Returns EXIT_CONFIG (2), the exit code of a bad command
 * line. For a mistake no argument holds (a missing run folder); one an argument holds is named
 * at it (cli_fail_at). */
int cli_fail(CliUsage *usage, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Adds to errs (NULL: prints now) the error fmt/ap at the place of argument argn, option
 * ("OPTION (argument N): ...", error_place; room for a long unknown option), sorted by argn: the
 * one way an argument's error gets its place (cli_fail_at, sweep_args_check.h's arg_error). */
void cli_verror_at(ErrorList *errs, const char *option, int argn, const char *fmt, va_list ap);

/* cli_fail with the place in front, as every error line about an argument: "error: OPTION
 * (argument N): <fmt ...>" (error_place; OPTION the argument at fault: the flag, an unknown option
 * itself, a second config file), then usage(stderr) when usage is not NULL. Returns EXIT_CONFIG
 * (2). */
int cli_fail_at(CliUsage *usage, const char *option, int argn, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* RUN_DIR/checkpoint.bin into out (PATH_MAX bytes: a path the system opens) for a command that
 * reads a run folder (--resume, --eval, --export), writes 1 when it also writes there (--resume).
 * Returns 0, or -1 after "error: PLACE: run folder path 'RUN_DIR' is too long (N bytes) ..."
 * (place: the folder argument's, error_place) when a file the command opens there would not fit
 * (the longest name a run writes, train_run_name_max, and when it writes, the temporary name of
 * a whole-file write): a longer spelling cut to fit would name another file, and a resume would
 * fail after training at the first file that does not fit. */
int cli_run_checkpoint(char out[PATH_MAX], const char *run_dir, const char *place, int writes);

/* 0 when a file path a command is to write (--export's FILE, --val's) fits PATH_MAX with the
 * temporary name it is written through (whole_write.h), else -1 after "error: PLACE: 'PATH' is
 * too long (N bytes) ...": refused before the work, not at its end. */
int cli_check_written_path(const char *path, const char *place);

/* Adds to errs (NULL: prints now) "--set (argument ARGN): 'KEY' is already set by --set
 * (argument BEFORE); give it once", the one message of a key set twice by --set (the train
 * command's and the sweep's). */
void cli_set_twice(ErrorList *errs, int argn, const char *key, int before);

#endif
