/* train_args.c: the command line of ./train's default command read into TrainArgs
 * (cli/cli_internal.h): the options, each once, with their values checked as they are read (the
 * sampling options of --generate, the run folder of --resume / --eval, --prompt, --set's shape),
 * then the options that must or must not go together; and the length of an --eval --prompt
 * against the run's task. Touches no file; the config and the --set values are cmd_train.c's. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_internal.h"
#include "config/config.h"
#include "tasks/task_config.h"
#include "util/error_list.h"

int cli_check_prompt_length(const Config *c, const char *prompt, int argn) {
    int want = c->task == TASK_RECALL ? 2 * c->task_pairs + 1
               : c->task == TASK_SORT || c->task == TASK_REVERSE || c->task == TASK_COPY
                   ? c->task_length
                   : -1;
    if (want < 0) return -1;
    int n = 0, last_sep = 0;
    const char *bad = NULL; /* the first word that is not a symbol (0 .. symbols - 1, as printed) */
    size_t bad_len = 0;
    int bad_at = 0;
    for (const char *p = prompt; *p;) {
        size_t len = strspn(p, " \t\r\n");
        p += len;
        if (!*p) break;
        len = strcspn(p, " \t\r\n");
        last_sep = (len == 1 && *p == '|') || (len == 5 && strncmp(p, "<sep>", 5) == 0);
        n++;
        long id = -1;
        /* a trailing separator is the last word: told apart after the loop */
        if (!bad && (cli_parse_count(p, len, 0, c->task_symbols - 1, &id) != 0 ||
                     (len > 1 && *p == '0')))
            bad = p, bad_len = len, bad_at = n;
        p += len;
    }
    n -= last_sep;
    if (bad && bad_at <= n) {
        int comma = memchr(bad, ',', bad_len) != NULL;
        return cli_fail_at(NULL, "--prompt", argn, "'%.*s' (symbol %d) is not in the task's "
                                                   "alphabet (0 .. %d) of this run (task.symbols "
                                                   "= %d)%s",
                           (int)bad_len, bad, bad_at, c->task_symbols - 1, c->task_symbols,
                           comma ? "; separate the symbols with spaces, not commas" : "");
    }
    if (n == want) return -1;
    char given[32];
    snprintf(given, sizeof given, n ? "%d symbol%s" : "no symbols", n, n == 1 ? "" : "s");
    if (c->task == TASK_RECALL)
        return cli_fail_at(NULL, "--prompt", argn, "%s given, but a recall prompt of this run has "
                                                   "%d: %d key-value pairs (task.pairs = %d), then "
                                                   "the key to look up; each one of 0 .. %d "
                                                   "(task.symbols = %d)",
                           given, want, c->task_pairs, c->task_pairs, c->task_symbols - 1,
                           c->task_symbols);
    return cli_fail_at(NULL, "--prompt", argn, "%s given, but a %s prompt of this run has %d "
                                               "(task.length = %d), each one of 0 .. %d "
                                               "(task.symbols = %d)",
                       given, task_kind_name(c->task), want, want, c->task_symbols - 1,
                       c->task_symbols);
}

/* The sampling options of --generate, each given at most once. */
static const char *const SAMPLE_FLAGS[] = {"--generate", "--temperature", "--top-k", "--seed"};
#define N_SAMPLE_FLAGS (int)(sizeof SAMPLE_FLAGS / sizeof SAMPLE_FLAGS[0])

/* How a refused value v is named after "got": quoted, or said to be empty or missing (NULL: the
 * line ended), which "got ''" left to be guessed. GOT_ARGS(v) fills "got %s%s%s". */
static const char *got_text(const char *v) {
    return !v ? "nothing (the line ends there)" : !*v ? "an empty argument" : v;
}
#define GOT_ARGS(v) (v) && *(v) ? "'" : "", got_text(v), (v) && *(v) ? "'" : ""

/* Reads the value v of SAMPLE_FLAGS[k], argument argn (the flag's own when v is NULL), into a.
 * Returns -1, or 2 after a message. */
static int parse_sample_option(TrainArgs *a, int k, const char *v, int argn) {
    const char *flag = SAMPLE_FLAGS[k];
    long n = 0;
    switch (k) {
    case 0:
        if (!v || cli_parse_count(v, strlen(v), 1, SAMPLE_MAX_NEW, &n) != 0)
            return cli_fail_at(NULL, flag, argn, "needs a number of tokens from 1 to %d, got %s%s%s",
                               SAMPLE_MAX_NEW, GOT_ARGS(v));
        a->generate = 1;
        a->gen.n_new = (int)n;
        return -1;
    case 1: {
        /* digits first: strtod would take " 1" and "-0"; decimal only, as in a config */
        char why[160];
        if (!v || !((*v >= '0' && *v <= '9') || *v == '.') ||
            config_parse_number(v, &a->gen.temperature, why, sizeof why) != 0)
            return cli_fail_at(NULL, flag, argn, "needs a finite decimal number >= 0 (0 = greedy), "
                                                 "got %s%s%s",
                               GOT_ARGS(v));
        return -1;
    }
    case 2:
        if (!v || cli_parse_count(v, strlen(v), 0, INT_MAX, &n) != 0)
            return cli_fail_at(NULL, flag, argn, "needs a whole number from 0 (every token) to the "
                                                 "vocabulary's size, got %s%s%s",
                               GOT_ARGS(v));
        a->gen.top_k = (int)n;
        a->top_k_argn = argn;
        return -1;
    default:
        if (!v || cli_parse_u64(v, &a->gen.seed) != 0)
            return cli_fail_at(NULL, flag, argn, "needs an integer in [0, 2^64-1], got %s%s%s",
                               GOT_ARGS(v));
        return -1;
    }
}

/* The --set at argv[*at] (either spelling; *at moves past its value): refused here only when
 * the line cannot be read on (a spaced --set without '=', whose value would be read as a config
 * file); a key set twice and a bad value are named later, with every other (apply_sets). Returns
 * an exit code, or -1 to go on. */
static int parse_set(int argc, char **argv, int *at, CliUsage *usage) {
    int eq_form = argv[*at][5] == '=';
    const char *v = eq_form ? argv[*at] + 6 : cli_next(argc, argv, at);
    if (!v) return cli_fail_at(usage, "--set", *at, "needs section.key=value");
    /* `--set optim.lr 1e-3` would otherwise read 1e-3 as a second config file (the
     * --set= form is config_set's to judge) */
    if (!strchr(v, '=') && !eq_form) {
        char where[32];
        error_place(where, sizeof where, "--set", *at);
        return cli_fail(NULL, "%s: '%s' is not section.key=value; --set needs one argument "
                              "section.key=value, with '=' and no spaces (e.g. --set "
                              "optim.lr=1e-3)", where, v);
    }
    return -1;
}

/* Two arguments that exclude each other, x at argument xn and y at yn (both given), named at
 * the later one, the earlier in the text, why after. Returns EXIT_CONFIG. */
static int fail_excludes(const char *x, int xn, const char *y, int yn, const char *why) {
    int x_later = xn > yn;
    return cli_fail_at(NULL, x_later ? x : y, x_later ? xn : yn, "excludes %s (argument %d); %s",
                       x_later ? y : x, x_later ? yn : xn, why);
}

/* The first of flags[0..n) given (the lowest argument number in once), or NULL. */
static const char *first_given(const CliOnce *once, const char *const *flags, int n) {
    const char *first = NULL;
    for (int k = 0; k < n; k++) {
        int at = cli_once_argn(once, flags[k]);
        if (at && (!first || at < cli_once_argn(once, first))) first = flags[k];
    }
    return first;
}

/* The options that go together, once all are read (once: where each option was given;
 * config_argn: the config file's argument, 0 for none), each mistake at the option at fault.
 * Returns an exit code, or -1 when they fit. */
static int check_combinations(const TrainArgs *a, const CliOnce *once, int config_argn) {
    static const char *const SAMPLING[] = {"--temperature", "--top-k", "--seed"};
    static const char *const WHERE_NOT[] = {"--print-config", "--resume", "--eval"};
    const char *f;
    if (a->prompt && !a->eval_dir)
        return cli_fail_at(NULL, "--prompt", cli_once_argn(once, "--prompt"),
                           "goes with --eval RUN_DIR (the model that answers it)");
    if (!a->generate && (f = first_given(once, SAMPLING, 3)))
        return cli_fail_at(NULL, f, cli_once_argn(once, f),
                           "goes with --generate N (it sets how the generated tokens are "
                           "sampled)");
    if (a->generate && !a->prompt)
        return cli_fail_at(NULL, "--generate", cli_once_argn(once, "--generate"),
                           "goes with --eval RUN_DIR --prompt \"TEXT\" (the start it continues)");
    if (a->where && (f = first_given(once, WHERE_NOT, 3)))
        return fail_excludes("--where", cli_once_argn(once, "--where"), f,
                             cli_once_argn(once, f),
                             "--where places a config file on the lr map and goes with neither "
                             "--print-config, --resume nor --eval");
    /* the checkpoint carries its own configuration; a config file would contradict it */
    const char *dir = a->resume_dir ? "--resume" : "--eval";
    const char *why = "--resume and --eval take a run folder only (no config file)";
    if (a->resume_dir && a->eval_dir)
        return fail_excludes("--resume", cli_once_argn(once, "--resume"), "--eval",
                             cli_once_argn(once, "--eval"), why);
    if ((a->resume_dir || a->eval_dir) && a->config_path)
        return fail_excludes(dir, cli_once_argn(once, dir), a->config_path, config_argn, why);
    return -1;
}

int cli_train_parse(TrainArgs *a, int argc, char **argv, CliUsage *usage) {
    *a = (TrainArgs){.gen = {.temperature = 1, .top_k = 0, .seed = 1}};
    CliOnce once = {0};
    int config_argn = 0; /* where config_path was given */
    for (int i = 1; i < argc; i++) {
        int k = 0;
        while (k < N_SAMPLE_FLAGS && strcmp(argv[i], SAMPLE_FLAGS[k]) != 0) k++;
        if (k < N_SAMPLE_FLAGS) {
            const char *v = cli_next(argc, argv, &i);
            int rc = cli_once(&once, SAMPLE_FLAGS[k], i);
            if (rc >= 0) return rc;
            rc = parse_sample_option(a, k, v, i);
            if (rc >= 0) return rc;
        } else if (cli_is_help(argv[i])) {
            usage(stdout);
            return EXIT_OK;
        } else if (strcmp(argv[i], "--print-config") == 0 || strcmp(argv[i], "--where") == 0) {
            int rc = cli_once(&once, argv[i], i);
            if (rc >= 0) return rc;
            *(argv[i][2] == 'p' ? &a->print_config : &a->where) = 1;
        } else if (strcmp(argv[i], "--resume") == 0 || strcmp(argv[i], "--eval") == 0) {
            const char *flag = argv[i], *dir = cli_next(argc, argv, &i);
            if (!dir || !*dir)
                return cli_fail_at(NULL, flag, i, "needs a run folder%s", dir ? ", got an empty "
                                                                               "argument" : "");
            /* `--eval --help` asks for help (a folder named so: ./--help) */
            if (cli_is_help(dir)) {
                usage(stdout);
                return EXIT_OK;
            }
            /* "--resume --set x=1 r" forgot the folder: the option is not one (cli_flag_value) */
            if (strncmp(dir, "--", 2) == 0)
                return cli_fail_at(NULL, flag, i - 1, "needs a run folder, got the option '%s' (a "
                                                      "folder whose name starts with '--' is "
                                                      "spelled './%s')",
                                   dir, dir);
            int rc = cli_once(&once, flag, i);
            if (rc >= 0) return rc;
            *(flag[2] == 'r' ? &a->resume_dir : &a->eval_dir) = dir;
            a->dir_argn = i;
        } else if (strcmp(argv[i], "--prompt") == 0) {
            if (!(a->prompt = cli_next(argc, argv, &i)))
                return cli_fail_at(NULL, "--prompt", i, "needs the prompt's symbols, e.g. --prompt "
                                                        "\"%s\"",
                                   CLI_PROMPT_EXAMPLE);
            int rc = cli_once(&once, "--prompt", i);
            if (rc >= 0) return rc;
            a->prompt_argn = i;
        } else if (strcmp(argv[i], "--set") == 0 || strncmp(argv[i], "--set=", 6) == 0) {
            int rc = parse_set(argc, argv, &i, usage);
            if (rc >= 0) return rc;
        } else if (argv[i][0] == '-') {
            return cli_fail_at(usage, argv[i], i, "unknown option");
        } else if (a->config_path) {
            return cli_fail_at(NULL, argv[i], i, "more than one config file (the first: '%s', "
                                                 "argument %d); give one",
                               a->config_path, config_argn);
        } else {
            a->config_path = argv[i];
            config_argn = i;
        }
    }
    return check_combinations(a, &once, config_argn);
}
