/* cli.h: the subcommands of ./train (src/cli/, the command layer above config -> task -> model
 * -> optimizer -> training loop -> logs -> report). Each reads its own arguments and calls the
 * library; main.c's table dispatches to them. Every handler returns the program's exit code
 * (0 done, 1 I/O or memory error, 2 bad command line or config; more in ./train --help). */
#ifndef SCALEDOT_CLI_H
#define SCALEDOT_CLI_H

#include "cli/args.h"

/* The default command: ./train [CONFIG.ini] [--set ...], with --print-config, --resume RUN_DIR,
 * --eval RUN_DIR [--prompt P] and --help anywhere on the line. argv is the whole command line
 * (argv[0] the program); usage prints the program's usage text (for --help and mistakes). */
int cli_train(int argc, char **argv, CliUsage *usage);

/* The other subcommands; argv holds only the arguments after the subcommand's name. */
int cli_compare(int argc, char **argv);         /* --compare RUN_DIR ... (report_compare) */
int cli_softmax_table(int argc, char **argv);   /* --softmax-table [--seed N] ... */
int cli_sweep(int argc, char **argv);           /* --sweep ... (sweep_execute) */
int cli_sweep_run(int argc, char **argv);       /* --sweep-run OUT/configs/RUN.ini */
int cli_sweep_report(int argc, char **argv);    /* --sweep-report SWEEP_DIR */
int cli_regime_map(int argc, char **argv);      /* --regime-map --out DIR SWEEP_DIR ... */
int cli_reference_table(int argc, char **argv); /* --reference-table */
int cli_version(int argc, char **argv);         /* --version */
int cli_export(int argc, char **argv);          /* --export RUN_DIR FILE.safetensors */

#endif
