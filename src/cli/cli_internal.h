/* cli_internal.h: the parts of the train command (cli/cmd_train.c, cli/train_args.c) that its
 * test checks on their own: the command line read into TrainArgs, the run-folder split, the --set
 * keys a resumed run may change and the length of an --eval --prompt. Not for use outside
 * src/cli/ (main.c's usage shows CLI_PROMPT_EXAMPLE) and its tests. */
#ifndef SCALEDOT_CLI_INTERNAL_H
#define SCALEDOT_CLI_INTERNAL_H

#include "cli/args.h"
#include "config/config.h"
#include "train/sample.h"

/* ./train [CONFIG.ini] [--print-config | --where] [--resume RUN_DIR | --eval RUN_DIR [--prompt P
 * [--generate N [--temperature X] [--top-k K] [--seed S]]]] [--set section.key=value ...], read
 * without touching a file. */
typedef struct {
    const char *config_path, *resume_dir, *eval_dir, *prompt;
    int dir_argn;      /* the argument number of resume_dir or eval_dir */
    int prompt_argn;   /* of prompt's value, and of --top-k's (0: not given), for their errors */
    int top_k_argn;
    int print_config;
    int where;         /* --where: place the config on the lr map (train/lr_map.h) */
    int generate;      /* 1: --generate given; then gen holds it and the sampling options */
    SampleOptions gen; /* defaults: temperature 1, top-k 0 (every token), seed 1 */
} TrainArgs;

/* Reads argv[1..argc-1] (argv[0] is the program; --set is numbered on the whole line) into a.
 * --set assignments are only checked for their shape here; they are applied later, after the
 * config file, so that they override it wherever they stand. Returns -1 when the command is to
 * go on, else its exit code: 0 after --help (usage on stdout), 2 after a message (with usage on
 * stderr where the mistake is the command's shape). */
int cli_train_parse(TrainArgs *a, int argc, char **argv, CliUsage *usage);

/* Sets c->run_dir and c->run_name from a run folder path (given at where: error_add's place),
 * split as its plain spelling
 * (dirs_normalise: "./runs//scaled/" -> "runs", "scaled"; "scaled" -> ".", "scaled"; "/scaled"
 * -> "/", "scaled"); a path that is "." or ends in ".." is the folder it leads to, split from
 * its real path ("runs/tiny/deeper/.." -> "/abs/runs", "tiny"). The name is not checked as a
 * run.name (--eval reads any folder). Returns 0; 1 when the path is spelled from inside the
 * tree ("." or a ".." part: "..", "../tiny"), so the parent it names is no run.dir of the run's;
 * -1 after a message at where when the path is empty, cannot be resolved or its name does not
 * fit CONFIG_STR. A folder part that does not fit CONFIG_STR leaves c->run_dir as it was; it is
 * refused (-1, saying run.dir's limit) only when need_dir is set and the path is not spelled from
 * inside: --resume, which writes that run.dir (--eval and --export write none). */
int cli_split_run_dir(const char *path, Config *c, const char *where, int need_dir);

/* 1 when the --set assignment sets a key a resumed or evaluated run may change (train.steps,
 * run.threads, log.progress: none changes the numbers already logged), else 0. */
int cli_resumable_override(const char *assignment);

/* A prompt that --help shows and that a run of configs/scaled.ini (sort, task.length 8,
 * task.symbols 16) answers. */
#define CLI_PROMPT_EXAMPLE "3 1 2 9 8 7 15 0"

/* Checks the number of symbols of an --eval --prompt to answer (one that --generate continues
 * may have any length) against the run's task before anything is loaded: sort, reverse and copy
 * prompts have task.length symbols, recall prompts 2 * task.pairs + 1 (the pairs, then the key to
 * look up); a trailing "|" or "<sep>" is not counted; a word that is not a symbol (0 ..
 * task.symbols - 1 in decimal, as the evaluation prints them: "3,1,2" or "01") is named first.
 * Other tasks (file, text) are left to the evaluation. Returns -1 when fine, else 2 after a
 * message at --prompt's place (argn, the argument holding the prompt) naming the expected count
 * and the key it comes from. */
int cli_check_prompt_length(const Config *c, const char *prompt, int argn);

#endif
