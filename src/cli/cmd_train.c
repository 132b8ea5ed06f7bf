/* cmd_train.c: the default command of ./train (command layer, above the whole pipeline): read
 * CONFIG.ini and the --set overrides, or a run folder's checkpoint for --resume / --eval, check
 * it all before any work starts, then --print-config, --where (train/lr_map.h), evaluate or train
 * (train/train.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_internal.h"
#include "config/config.h"
#include "sweep/sweep.h"
#include "tasks/tasks.h"
#include "train/checkpoint.h"
#include "train/checkpoint_config.h"
#include "train/lr_map.h"
#include "train/resume_checks.h"
#include "train/task_source.h"
#include "train/train.h"
#include "util/dirs.h"
#include "util/error_list.h"

/* On --resume the checkpoint's configuration is the run's: only keys that cannot change the
 * numbers already logged may be overridden. */
int cli_resumable_override(const char *assignment) {
    for (const char *const *k = config_resumable_keys; *k; k++)
        if (config_assignment_sets(assignment, *k)) return 1;
    return 0;
}

/* 1 when the plain path (dirs_normalise) has a part ".." ("../tiny", "runs/.."), else 0. */
static int has_dotdot_part(const char *plain) {
    for (const char *p = plain; *p; p += strspn(p, "/")) {
        size_t len = strcspn(p, "/");
        if (len == 2 && p[0] == '.' && p[1] == '.') return 1;
        p += len;
    }
    return 0;
}

int cli_split_run_dir(const char *path, Config *c, const char *where, int need_dir) {
    char buf[PATH_MAX];
    /* by its plain spelling: "./copies/orig" (what tab completion gives), "copies//orig/" and
     * copies/orig are one folder, run copies/orig of run.dir "copies" */
    if (!*path || dirs_normalise(path, buf, sizeof buf) != 0) {
        error_add(NULL, 0, where, "run folder path '%s' is empty or too long", path);
        return -1;
    }
    int inside = strcmp(buf, ".") == 0 || has_dotdot_part(buf);
    char *slash = strrchr(buf, '/');
    const char *last = slash ? slash + 1 : buf;
    /* "." and ".." (".", "runs/tiny/..") name the folder the path leads to, not a folder of that
     * name: the run's name is that folder's own (its real path's last part) */
    if (strcmp(last, ".") == 0 || strcmp(last, "..") == 0) {
        char real[PATH_MAX];
        if (!realpath(buf, real)) {
            error_add(NULL, 0, where, "run folder '%s' cannot be resolved: %s", path,
                      strerror(errno));
            return -1;
        }
        memcpy(buf, real, strlen(real) + 1);
        slash = strrchr(buf, '/');
    }
    const char *name = slash ? slash + 1 : buf;
    const char *dir = slash ? (slash == buf ? "/" : (*slash = 0, buf)) : ".";
    if (strlen(name) >= CONFIG_STR || !*name) {
        error_add(NULL, 0, where, "run folder path '%s' is too long or names no folder", path);
        return -1;
    }
    /* only a run.dir that is written needs to fit one: --resume's from a path not spelled
     * from inside (which keeps the stored one) */
    if (strlen(dir) >= CONFIG_STR && need_dir && !inside) {
        error_add(NULL, 0, where, "run folder path '%s': its folder part '%s' (%zu bytes) is too "
                                  "long for run.dir (at most %d bytes), which a resume takes from "
                                  "the path and writes into the run's config.ini. Spell the folder "
                                  "shorter (a relative path), or resume it from inside (cd there, "
                                  "--resume .), which keeps the run.dir it has",
                  path, dir, strlen(dir), CONFIG_STR - 1);
        return -1;
    }
    memcpy(c->run_name, name, strlen(name) + 1); /* lengths checked above */
    if (strlen(dir) < CONFIG_STR) memcpy(c->run_dir, dir, strlen(dir) + 1);
    return inside;
}

/* --resume writes the folder's name into the checkpoint and config.ini as run.name: a folder
 * whose name is no legal run.name (a copy named "tiny copy") would leave a run no later command
 * can read. Refused before anything is written; --eval writes nothing and may read it. */
static int check_resume_name(const Config *c, const char *run_dir, const char *place) {
    const char *why = config_run_name_problem(c->run_name);
    if (!why) return 0;
    error_add(NULL, 0, place,
              "the run folder '%s' is named '%s', which is no legal run.name: it %s; a resume "
              "writes that name into the run's checkpoint and config.ini. Rename the folder "
              "(letters, digits, '.', '_' and '-' only) and resume it there",
              run_dir, c->run_name, why);
    return -1;
}

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

/* The argument number of an earlier --set (before argument `at`) of the key v sets, or 0. */
static int set_given_before(int argc, char **argv, int at, const char *v) {
    for (int i = 1; i < at && i < argc; i++) {
        const char *p = strcmp(argv[i], "--set") == 0 && i + 1 < argc ? argv[i + 1]
                        : strncmp(argv[i], "--set=", 6) == 0       ? argv[i] + 6
                                                                    : NULL;
        int spaced = p && argv[i][5] != '='; /* "--set" then its value */
        if (p && p != v && config_same_key(p, v)) return spaced ? i + 1 : i;
        if (spaced) i++; /* the value is not an option */
    }
    return 0;
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

/* The --set overrides in command-line order, after the config file or checkpoint; on a run
 * folder only the resumable keys. Every bad one goes to errs at its argument: a key an earlier
 * --set set (the last one silently won), a key a resumed run cannot change, a bad value (a
 * repeated --set's value is checked too: it is a mistake of its own). */
static void apply_sets(Config *c, int argc, char **argv, int in_run_dir, ErrorList *errs) {
    for (int i = 1; i < argc; i++) {
        const char *a = NULL;
        if (strcmp(argv[i], "--set") == 0) a = argv[++i];
        else if (strncmp(argv[i], "--set=", 6) == 0) a = argv[i] + 6;
        if (!a) continue;
        char where[32], key[128];
        error_place(where, sizeof where, "--set", i);
        /* the key as config_set reads it ("optim .lr" is optim.lr), as the sweep names it */
        int known = config_assignment_key(a, key, sizeof key) == 0 && config_key_index(key) >= 0;
        if (!known) snprintf(key, sizeof key, "%.*s", (int)strcspn(a, "="), a);
        int before = set_given_before(argc, argv, i, a);
        if (before) cli_set_twice(errs, i, key, before);
        /* an unknown key or a malformed --set is named so by config_set, as anywhere else */
        if (in_run_dir && known && !cli_resumable_override(a))
            error_add(errs, i, where,
                      "'%s' cannot change when a run is resumed or evaluated: it continues with "
                      "the configuration stored in its checkpoint. Only train.steps, run.threads "
                      "and log.progress may be set; start a new run (another run.name) to change "
                      "anything else",
                      key);
        else
            config_set_as(c, a, "--set", i, errs);
    }
}

/* A run folder's checkpoint and its task file, for --resume and --eval: a relative task.file the
 * stored absolute path names when it names nothing here, the file unchanged, the checkpoint the
 * folder's own. Returns 0, or EXIT_CONFIG after a message. */
static int check_run_folder(Config *c, const TrainArgs *a, const char *run_dir,
                            const char *checkpoint, const char *place) {
    /* a relative task.file was relative to the folder the run was started from: where it
     * names nothing (another folder), the stored absolute path names the file (its hash is
     * checked next). A run folder moved together with its file still reads the copy */
    if ((c->task == TASK_FILE || c->task == TASK_TEXT) && c->task_file[0] != '/' &&
        access(c->task_file, R_OK) != 0) {
        char *stored = NULL, abs[CONFIG_STR];
        if (checkpoint_read_config(checkpoint, &stored) != 0) return EXIT_CONFIG;
        if (task_source_stored_path(stored, abs, sizeof abs) == 0 && access(abs, R_OK) == 0)
            memcpy(c->task_file, abs, strlen(abs) + 1);
        free(stored);
    }
    /* the task file the run was trained on, unchanged (train/task_source.h), and a
     * checkpoint of the folder's own run (its config.ini): --eval of a foreign checkpoint
     * would report another run's numbers under this folder's name. A text run's generation
     * reads no data (its vocabulary is the 256 bytes): its file may have moved away */
    int no_data = a->generate && c->task == TASK_TEXT;
    if (no_data ? checkpoint_check_folder(checkpoint, run_dir, place) != 0
                : checkpoint_check_resume(checkpoint, run_dir, c, place) != 0)
        return EXIT_CONFIG;
    return 0;
}

enum { CHECKPOINT_PATH = PATH_MAX, PLACE = 48 }; /* load_run_folder's buffers: a checkpoint's
                                                    path is one the system opens */

/* The configuration of the run folder run_dir of --resume or --eval into c: its checkpoint's
 * (checkpoint gets the checkpoint's path, place the folder's place in messages, print the
 * folder's print before anything in it is read, run_print.h). Returns 0, or -1 after a
 * message. */
static int load_run_folder(Config *c, const TrainArgs *a, const char *run_dir,
                           char checkpoint[CHECKPOINT_PATH], char place[PLACE], RunPrint *print) {
    error_place(place, PLACE, a->resume_dir ? "--resume" : "--eval", a->dir_argn);
    if (cli_run_checkpoint(checkpoint, run_dir, place, a->resume_dir != NULL) != 0) return -1;
    if (checkpoint_check_present(run_dir, place) != 0) return -1;
    run_print_take(run_dir, place, print);
    if (checkpoint_load_config(checkpoint, c, place) != 0) return -1;
    /* The run lives where the user points, not where it was first written: a copied or moved
     * run folder is resumed in place, never in its original (train/run_setup.c: the
     * checkpoint's folder). A path spelled from inside ("." or "../tiny", cli_split_run_dir's
     * 1) names no parent of the run's: run.dir stays as the checkpoint stores it. */
    int inside = cli_split_run_dir(run_dir, c, place, a->resume_dir != NULL);
    if (inside < 0 || (a->resume_dir && check_resume_name(c, run_dir, place) != 0))
        return -1;
    if (a->resume_dir && inside) /* none stored: the parent, as for any path */
        checkpoint_stored_run_dir(checkpoint, c->run_dir, sizeof c->run_dir);
    return 0;
}

int cli_train(int argc, char **argv, CliUsage *usage) {
    Config c;
    config_defaults(&c);
    TrainArgs a;
    int rc = cli_train_parse(&a, argc, argv, usage);
    if (rc >= 0) return rc;
    const char *run_dir = a.resume_dir ? a.resume_dir : a.eval_dir;
    char checkpoint[CHECKPOINT_PATH], place[PLACE]; /* place: the folder's, in messages */
    RunPrint print; /* what the checks below read, verified once the resume holds the lock */
    if (run_dir && load_run_folder(&c, &a, run_dir, checkpoint, place, &print) != 0)
        return EXIT_CONFIG;
    /* the file's errors, the --set errors and the checks between keys named together, in
     * argument order, the file's first: a bad file leaves in c what it gave that was good, on
     * which each --set is still checked (a value's rules do not depend on the other keys); a
     * check that involves a key whose value was refused is left out (config_validate) */
    ErrorList errs = {0};
    if (a.config_path) config_load_file_to(&c, a.config_path, &errs);
    apply_sets(&c, argc, argv, run_dir != NULL, &errs);
    config_validate_to(&c, &errs);
    if (error_flush(&errs) != 0) return EXIT_CONFIG;
    /* a sweep's run config trained by hand after its sweep folder moved: the run goes to the
     * runs/ beside it, as the sweep's own run command does, never into the old folder; a run.dir
     * given by --set is the user's word */
    if (!run_dir && a.config_path && strncmp(config_origin(&c, "run.dir"), "--set", 5) != 0 &&
        sweep_follow_moved(&c, a.config_path) != 0)
        return EXIT_CONFIG;
    if (run_dir) {
        if (check_run_folder(&c, &a, run_dir, checkpoint, place) != 0) return EXIT_CONFIG;
    } else if ((c.task == TASK_FILE || (c.task == TASK_TEXT && !a.where)) &&
               access(c.task_file, R_OK) != 0) {
        /* --print-config too: a config that cannot run is not a config to print. --where reads
         * no text corpus (its T is task.seq_len), so a text config is placed before its corpus
         * is made (issue 45); a file task's T comes from its file */
        task_say_unreadable(&c, errno);
        return EXIT_CONFIG;
    }
    if (a.print_config) {
        config_write(&c, stdout);
        return EXIT_OK;
    }
    /* the config checked as a run would be, then placed on the map: nothing trained or written */
    if (a.where) {
        /* the task's T: what max_seq_len 0 and a window of T keys or more resolve to (a text
         * task's T is task.seq_len; its corpus is not read) */
        Task t;
        if (task_init_model_only(&t, &c) != 0) return EXIT_CONFIG;
        int T = t.seq_len;
        task_free(&t);
        return lr_map_report(stdout, &c, T, NULL) == 0 ? EXIT_OK : EXIT_RUNTIME;
    }
    if (a.eval_dir && a.prompt && !a.generate && c.task == TASK_TEXT)
        return cli_fail_at(NULL, "--prompt", a.prompt_argn,
                           "on a text run goes with --generate N (the prompt is taken byte for "
                           "byte and continued; e.g. --prompt \"In the\" --generate 100)");
    /* a prompt to answer has the task's length (one to continue, --generate, any) */
    if (a.eval_dir && a.prompt && !a.generate && cli_check_prompt_length(&c, a.prompt,
                                                                          a.prompt_argn) >= 0)
        return EXIT_CONFIG;
    if (a.eval_dir) {
        char prompt_place[PLACE], top_k_place[PLACE];
        error_place(prompt_place, PLACE, "--prompt", a.prompt_argn);
        error_place(top_k_place, PLACE, "--top-k", a.top_k_argn);
        EvalPlaces at = {place, prompt_place, top_k_place};
        return train_eval_checkpoint(&c, checkpoint, 8, a.prompt, a.generate ? &a.gen : NULL, &at);
    }
    return a.resume_dir ? train_run_from(&c, checkpoint, &print) : train_run(&c);
}
