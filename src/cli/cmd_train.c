/* cmd_train.c: the default command of ./train (command layer, above the whole pipeline): the
 * command line read (train_args.c), then CONFIG.ini and the --set overrides, or a run folder's
 * checkpoint for --resume / --eval, check it all before any work starts, then --print-config,
 * --where (train/lr_map.h), evaluate or train (train/train.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    /* a run folder's configuration is as an earlier version stored it (config_validate_stored) */
    (run_dir ? config_validate_stored_to : config_validate_to)(&c, &errs);
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
