/* sweep_args.c: the command line of ./train --sweep read into axes (sweep/plan.h), each argument
 * checked as it is read (list syntax, duplicates, counts, an option given twice, --grid's key,
 * --out); then, without --grid, the preset's axes, the checks that need the whole line
 * (sweep_args_check.c: the d_k values against the width, a key set twice by a shorthand and by
 * --grid or --set, each value by the config's rules, the checks between keys of the config every
 * run starts from) and the axes in plan order. Every mistake is named in one run, in argument
 * order (util/error_list.h), after the config file's own errors when there are any. Command
 * layer: the engine (src/sweep/) gets the SweepArgs this fills. */
#include "cli/sweep_args.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/sweep_args_check.h"
#include "report/read/read.h"
#include "sweep/sweep.h"
#include "util/error_list.h"

/* argv starts after --sweep; config_set numbers arguments on the whole command line. */
#define ARGN(i) ((i) + 2)

void sweep_usage(FILE *f) {
    char names[64], list[64]; /* the scale names of the key table */
    config_scale_names(names, sizeof names, ", ");
    config_fixed_scale_names(list, sizeof list, ",");
    fprintf(f,
        "usage: ./train --sweep [CONFIG.ini] [--dk LIST] [--d-model N | --one-head]\n"
        "                       [--scales LIST] [--seeds N|LIST] [--grid section.key=v1,v2,...]\n"
        "                       [--steps N] [--set section.key=value ...] [--out DIR]\n"
        "                       [--jobs N] [--plan | --collect]\n"
        "Trains one run per combination of the listed values, each from CONFIG, the --set\n"
        "overrides and --steps (the step budget), and writes DIR/runs/<run>/ (each run's logs\n"
        "and train.log), DIR/sweep.csv (one row per planned run), DIR/plan.txt and the summary\n"
        "(default DIR: sweeps/<CONFIG name>, or sweeps/default).\n"
        "Axes:\n"
        "  --dk LIST       d_k values; model.d_model stays fixed (--d-model, default 128) and\n"
        "                  model.n_heads = d_model / d_k; --one-head: n_heads = 1, d_model = d_k\n"
        "  --scales LIST   attention.scale values (%s,\n"
        "                  C/d_k or a positive number)\n"
        "  --seeds N|LIST  run.seed 1..N, or the listed seeds (3,7,11)\n"
        "  --grid section.key=v1,v2,...   any config key (repeatable); values without blanks\n"
        "                  or commas, each checked by the config reader before any run\n"
        "Without --grid, the d_k preset: --dk 8,16,32,64,128, --scales %s,\n"
        "--seeds 1 unless given. With any --grid, only the axes named on the command line vary;\n"
        "the rest comes from the config (no d_k or scale variation unless --dk / --scales).\n"
        "Runs are named after every varied key, values as typed (dk8_none_s1, lr-1e-3_s2, ...).\n"
        "Running:\n"
        "  --jobs N        N runs at once, each a child process with run.threads = 1 unless set\n"
        "  --plan          write DIR/plan.txt, DIR/configs/RUN.ini and DIR/jobs.txt (one shell\n"
        "                  command per run: trains, resumes or does nothing) and stop\n"
        "  --collect       rebuild DIR/sweep.csv and the summary from the run folders of the\n"
        "                  plan in DIR/plan.txt; lists the runs still missing (give only --out)\n"
        "Started again into the same DIR with the same plan, a sweep skips the finished runs and\n"
        "resumes interrupted ones from their checkpoint; a different plan is refused.\n"
        "A run that diverges (3), trips a guard (4) or fails is recorded and the others go on.\n"
        "Exit codes: 0 every run ended (ok, diverged or guard), 1 I/O error, a run failed, or\n"
        "no run has trained yet (--collect: the report is written all the same), 2 bad\n"
        "arguments or config (nothing was run), or a run refused before it trained (status\n"
        "refused: its config or folder; the other runs trained), 130 / 143 stopped by SIGINT /\n"
        "SIGTERM (every running run saved its checkpoint; start the same command again to go on).\n",
        names, list);
}

/* Splits a comma-separated list into ax->values: entries non-empty, without blanks, distinct
 * (a duplicate would reuse a run folder). Returns 0, or -1 with an error naming flag and argn
 * added to errs. */
static int split_values(Axis *ax, const char *list, const char *flag, int argn, ErrorList *errs) {
    for (int i = 0; i < ax->n; i++) free(ax->values[i]);
    free(ax->values);
    ax->values = NULL;
    ax->n = 0;
    size_t cap = 1;
    for (const char *p = list; *p; p++) cap += *p == ',';
    if (cap > SWEEP_MAX_VALUES) {
        arg_error(errs, flag, argn, "more than %d values", SWEEP_MAX_VALUES);
        return -1;
    }
    ax->values = calloc(cap, sizeof *ax->values);
    if (!ax->values) {
        error_add(errs, argn, NULL, "out of memory");
        return -1;
    }
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        int blank = 0;
        for (size_t k = 0; k < len; k++) blank |= isspace((unsigned char)p[k]) != 0;
        if (len >= PLAN_CELL) { /* the reason first: the value itself may fill the screen */
            arg_error(errs, flag, argn, "a value of '%s' is too long (%zu characters, at most "
                                        "%d): '%.*s'",
                      ax->key, len, PLAN_CELL - 1, (int)len, p);
            return -1;
        }
        if (len == 0 || blank) {
            arg_error(errs, flag, argn, "bad entry '%.*s' in '%s' (entries are non-empty, "
                                        "without blanks, separated by single commas)",
                      (int)len, p, list);
            return -1;
        }
        for (int k = 0; k < ax->n; k++)
            if (strlen(ax->values[k]) == len && strncmp(ax->values[k], p, len) == 0) {
                arg_error(errs, flag, argn, "'%.*s' is listed twice in '%s'", (int)len, p, list);
                return -1;
            }
        if (!(ax->values[ax->n] = strndup(p, len))) {
            error_add(errs, argn, NULL, "out of memory");
            return -1;
        }
        ax->n++;
        p += len;
        if (!*p) return 0;
    }
}

/* d_k values: positive integers, sorted ascending (the figures' x axis). */
static int check_dk(Axis *ax, int argn, ErrorList *errs) {
    for (int i = 0; i < ax->n; i++) {
        long v;
        if (cli_parse_count(ax->values[i], strlen(ax->values[i]), 1, 1000000, &v) != 0) {
            arg_error(errs, "--dk", argn, "'%s' is not a positive integer (at most 1000000)",
                      ax->values[i]);
            return -1;
        }
    }
    for (int i = 1; i < ax->n; i++)
        for (int j = i; j > 0 && atol(ax->values[j - 1]) > atol(ax->values[j]); j--) {
            char *t = ax->values[j];
            ax->values[j] = ax->values[j - 1];
            ax->values[j - 1] = t;
        }
    return 0;
}

/* --seeds N (1..N) or a list of seeds. */
static int set_seeds(Axis *ax, const char *v, int argn, ErrorList *errs) {
    long n;
    if (!strchr(v, ',')) {
        if (cli_parse_count(v, strlen(v), 1, SWEEP_MAX_VALUES, &n) != 0) {
            arg_error(errs, "--seeds", argn, "'%s' is not a count from 1 to %d (or a list of "
                                             "seeds: 3,7)", v, SWEEP_MAX_VALUES);
            return -1;
        }
        char *list = malloc((size_t)n * 8 + 1), *p = list;
        if (!list) return -1;
        for (long s = 1; s <= n; s++) p += sprintf(p, s > 1 ? ",%ld" : "%ld", s);
        int rc = split_values(ax, list, "--seeds", argn, errs);
        free(list);
        return rc;
    }
    if (split_values(ax, v, "--seeds", argn, errs) != 0) return -1;
    for (int i = 0; i < ax->n; i++)
        if (cli_parse_count(ax->values[i], strlen(ax->values[i]), 0, 1000000000000L, &n) != 0) {
            arg_error(errs, "--seeds", argn, "'%s' is not a seed (0 or more)", ax->values[i]);
            return -1;
        }
    return 0;
}

/* The options that take one value and may be given once (--grid and --set repeat). */
static const char *const VALUED[] = {"--dk", "--scales", "--seeds", "--grid", "--steps",
                                     "--out", "--set", "--jobs", "--d-model"};
#define N_VALUED (sizeof VALUED / sizeof *VALUED)

/* A once-only option given twice, or --set of one key twice: the last one silently won. Named
 * with both arguments; the value is still read (its own mistakes are named too). */
static void check_repeat(const SweepArgs *a, SweepParts *p, size_t k, const char *v, int argn) {
    if (strcmp(VALUED[k], "--set") == 0) {
        char key[128];
        for (int s = 0; s < a->n_sets; s++)
            if (config_same_key(a->sets[s], v)) {
                if (config_assignment_key(v, key, sizeof key) != 0) /* too long: its start */
                    snprintf(key, sizeof key, "%.*s", (int)strcspn(v, "="), v);
                cli_set_twice(&p->errs, argn, key, a->set_argn[s]);
                return;
            }
        return;
    }
    if (strcmp(VALUED[k], "--grid") == 0) return; /* parse_grid refuses a key varied twice */
    cli_once_to(&p->once, VALUED[k], argn, &p->errs);
}

static void axis_init(Axis *ax, AxisKind kind, const char *key, const char *label,
                      const char *flag, int argn) {
    ax->kind = kind;
    snprintf(ax->key, sizeof ax->key, "%s", key);
    snprintf(ax->label, sizeof ax->label, "%s", label);
    ax->flag = flag;
    ax->argn = argn;
}

/* --grid section.key=v1,v2,... */
static void parse_grid(SweepParts *p, const char *v, int argn) {
    size_t klen = strcspn(v, "=");
    char key[64];
    ErrorList *errs = &p->errs;
    if (v[klen] && klen >= sizeof key) {
        arg_error(errs, "--grid", argn, "the key '%.*s' is too long (%zu characters, at most %d; "
                                        "see ./train --reference-table)",
                  (int)klen, v, klen, (int)sizeof key - 1);
        return;
    }
    if (!v[klen] || klen == 0) {
        arg_error(errs, "--grid", argn, "'%s' is not section.key=v1,v2,...", v);
        return;
    }
    memcpy(key, v, klen);
    key[klen] = '\0';
    if (config_key_index(key) < 0) {
        arg_error(errs, "--grid", argn, "'%s' is not a config key (see ./train "
                                        "--reference-table)", key);
        return;
    }
    if (strcmp(key, "run.name") == 0 || strcmp(key, "run.dir") == 0) {
        arg_error(errs, "--grid", argn, "'%s' is set by the sweep (each run's folder is "
                                        "OUT/runs/<name>)", key);
        return;
    }
    for (int i = 0; i < p->n_grid; i++)
        if (strcmp(p->grid[i].key, key) == 0) {
            arg_error(errs, "--grid", argn, "'%s' is already varied by --grid (argument %d); "
                                            "give all its values in one list",
                      key, p->grid[i].argn);
            return;
        }
    if (p->n_grid == SWEEP_MAX_AXES - 3) {
        arg_error(errs, "--grid", argn, "at most %d --grid options", SWEEP_MAX_AXES - 3);
        return;
    }
    Axis *ax = &p->grid[p->n_grid++];
    axis_init(ax, AXIS_KEY, key, "", "--grid", argn);
    split_values(ax, v + klen + 1, "--grid", argn, errs);
}

/* The options whose value is a count (--steps, --jobs, --d-model), argument argn: in range, or an
 * error. */
static void parse_count(SweepArgs *a, SweepParts *p, const char *flag, const char *v, int argn) {
    long n;
    static const struct { const char *flag; long lo, hi; const char *what; } INTS[] = {
        {"--steps", 0, 100000000, "a number of steps (0 or more)"},
        {"--jobs", 1, 256, "a number of parallel runs from 1 to 256"},
        {"--d-model", 1, 1000000, "a model width (a positive integer)"},
    };
    for (size_t k = 0; k < sizeof INTS / sizeof *INTS; k++) {
        if (strcmp(flag, INTS[k].flag) != 0) continue;
        if (cli_parse_count(v, strlen(v), INTS[k].lo, INTS[k].hi, &n) != 0) {
            arg_error(&p->errs, flag, argn, "'%s' is not %s", v, INTS[k].what);
            p->width_refused |= k == 2;
            return;
        }
        if (k == 0) a->steps = (int)n, a->steps_argn = argn;
        else if (k == 1) a->jobs = (int)n, a->jobs_argn = argn;
        else a->d_model = (int)n, a->d_model_argn = argn;
    }
}

/* One option at argv[*i] (*i moves past its value). Its mistakes go to p->errs; returns -1 only
 * when the line cannot be read on (an unknown option: whether it takes a value is unknown). */
static int parse_option(SweepArgs *a, SweepParts *p, int argc, char **argv, int *i) {
    const char *arg = argv[*i], *v;
    if (strcmp(arg, "--one-head") == 0 || strcmp(arg, "--plan") == 0 ||
        strcmp(arg, "--collect") == 0)
        cli_once_to(&p->once, arg, ARGN(*i), &p->errs); /* the flags alone, each once too */
    if (strcmp(arg, "--one-head") == 0) {
        a->one_head = 1, a->one_head_argn = ARGN(*i);
        return 0;
    }
    if (strcmp(arg, "--plan") == 0 || strcmp(arg, "--collect") == 0) {
        SweepMode m = arg[2] == 'p' ? MODE_PLAN : MODE_COLLECT;
        if (a->mode != MODE_RUN && a->mode != m) /* at the later one, naming the earlier */
            arg_error(&p->errs, arg, ARGN(*i), "excludes %s (argument %d); give one",
                      m == MODE_PLAN ? "--collect" : "--plan",
                      m == MODE_PLAN ? p->collect_argn : p->plan_argn);
        a->mode = m;
        *(m == MODE_COLLECT ? &p->collect_argn : &p->plan_argn) = ARGN(*i);
        return 0;
    }
    const char *flag = NULL;
    size_t fk = 0;
    for (size_t k = 0; k < N_VALUED && !flag; k++)
        if (cli_is_flag(arg, VALUED[k])) flag = VALUED[k], fk = k;
    if (!flag) {
        arg_error(&p->errs, arg, ARGN(*i), "unknown option for --sweep (see ./train --sweep "
                                           "--help)");
        return -1;
    }
    if (!(v = cli_flag_value(argc, argv, i, flag))) {
        arg_error(&p->errs, flag, ARGN(*i), "needs a value");
        return 0;
    }
    int argn = ARGN(*i);
    check_repeat(a, p, fk, v, argn);
    if (strcmp(flag, "--dk") == 0) {
        axis_init(&p->dk, AXIS_DK, "d_k", "dk", "--dk", argn);
        p->has_dk = 1;
        if (split_values(&p->dk, v, flag, argn, &p->errs) == 0) check_dk(&p->dk, argn, &p->errs);
    } else if (strcmp(flag, "--scales") == 0) {
        axis_init(&p->scale, AXIS_KEY, "attention.scale", "", "--scales", argn);
        p->has_scale = 1;
        split_values(&p->scale, v, flag, argn, &p->errs);
    } else if (strcmp(flag, "--seeds") == 0) {
        axis_init(&p->seed, AXIS_KEY, "run.seed", "s", "--seeds", argn);
        p->has_seed = 1;
        set_seeds(&p->seed, v, argn, &p->errs);
    } else if (strcmp(flag, "--grid") == 0) {
        a->any_grid = 1;
        parse_grid(p, v, argn);
    } else if (strcmp(flag, "--out") == 0) {
        a->out = v, a->out_argn = argn;
        char where[64];
        error_place(where, sizeof where, "--out", argn);
        sweep_out_check(v, where, argn, &p->errs);
    } else if (strcmp(flag, "--set") == 0) {
        a->sets[a->n_sets] = v;
        a->set_argn[a->n_sets++] = argn;
    } else {
        parse_count(a, p, flag, v, argn);
    }
    return 0;
}

/* Without --grid, the preset's axes the command line did not give (--dk 8,...,128, the fixed
 * scales, --seeds 1). Returns 0, or -1 after a message (out of memory). */
static int preset_axes(SweepArgs *a, SweepParts *p) {
    if (a->any_grid) return 0;
    if (!p->has_dk) {
        axis_init(&p->dk, AXIS_DK, "d_k", "dk", "--dk", 0);
        if (split_values(&p->dk, "8,16,32,64,128", "--dk", 0, NULL) != 0) return -1;
        p->has_dk = 1;
    }
    if (!p->has_scale) {
        axis_init(&p->scale, AXIS_KEY, "attention.scale", "", "--scales", 0);
        char list[64];
        config_fixed_scale_names(list, sizeof list, ",");
        if (split_values(&p->scale, list, "--scales", 0, NULL) != 0) return -1;
        p->has_scale = 1;
    }
    if (!p->has_seed) {
        axis_init(&p->seed, AXIS_KEY, "run.seed", "s", "--seeds", 0);
        if (split_values(&p->seed, "1", "--seeds", 0, NULL) != 0) return -1;
        p->has_seed = 1;
    }
    return 0;
}

/* Orders the checked axes: d_k, scale, --grid in order, seed. */
static void assemble(SweepArgs *a, SweepParts *p) {
    if (p->has_dk) a->axes[a->n_axes++] = p->dk, p->dk.values = NULL;
    if (p->has_scale) a->axes[a->n_axes++] = p->scale, p->scale.values = NULL;
    for (int g = 0; g < p->n_grid; g++) {
        Axis *ax = &a->axes[a->n_axes++];
        *ax = p->grid[g];
        p->grid[g].values = NULL;
        ax->column = 1; /* unless a fixed plan column records its key */
        for (int k = 0; k < PC_N; k++)
            if (SWEEP_PLAN_COLUMNS[k].key && strcmp(ax->key, SWEEP_PLAN_COLUMNS[k].key) == 0)
                ax->column = 0;
        /* the run-name prefix: the key without its section, unless two --grid keys share it */
        const char *base = strchr(ax->key, '.') + 1;
        int shared = 0;
        for (int h = 0; h < p->n_grid; h++)
            shared |= h != g && strcmp(strchr(p->grid[h].key, '.') + 1, base) == 0;
        snprintf(ax->label, sizeof ax->label, "%s-", shared ? ax->key : base);
    }
    if (p->has_seed) a->axes[a->n_axes++] = p->seed, p->seed.values = NULL;
}

static void axis_free(Axis *ax) {
    for (int i = 0; ax->values && i < ax->n; i++) free(ax->values[i]);
    free(ax->values);
    ax->values = NULL;
    ax->n = 0;
}

int sweep_args_parse(SweepArgs *a, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    a->steps = -1;
    a->d_model = 128;
    a->jobs = 1;
    a->sets = malloc(sizeof *a->sets * (size_t)(argc + 1));
    a->set_argn = malloc(sizeof *a->set_argn * (size_t)(argc + 1));
    SweepParts *p = calloc(1, sizeof *p);
    if (!a->sets || !a->set_argn || !p) {
        fprintf(stderr, "error: out of memory\n");
        free(p);
        return -1;
    }
    int rc = 0, stop = 0; /* stop: a word the line cannot be read past */
    int config_argn = 0;  /* where config_path was given */
    for (int i = 0; i < argc && !rc && !stop; i++) {
        if (cli_is_help(argv[i])) {
            sweep_usage(stdout);
            rc = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            stop = parse_option(a, p, argc, argv, &i) != 0;
        } else if (a->config_path) {
            arg_error(&p->errs, argv[i], ARGN(i), "--sweep takes one config file (the first: "
                                                  "'%s', argument %d); give one",
                      a->config_path, config_argn);
        } else {
            a->config_path = argv[i];
            config_argn = ARGN(i);
        }
    }
    if (!rc && !stop && a->mode == MODE_COLLECT) sweep_check_collect(a, p);
    else if (!rc && !stop) {
        if (preset_axes(a, p) != 0) rc = -1;
        sweep_check_dk_width(a, p);
        sweep_check_conflicts(a, p);
        sweep_check_values(a, p);
    }
    if (rc == 1) error_drop(&p->errs); /* --help asked: the usage, not the mistakes */
    else if (error_flush(&p->errs) != 0) rc = -1;
    if (!rc) assemble(a, p);
    axis_free(&p->dk);
    axis_free(&p->scale);
    axis_free(&p->seed);
    for (int g = 0; g < p->n_grid; g++) axis_free(&p->grid[g]);
    free(p);
    return rc;
}

void sweep_args_free(SweepArgs *a) {
    for (int i = 0; i < a->n_axes; i++) axis_free(&a->axes[i]);
    a->n_axes = 0;
    free(a->sets);
    free(a->set_argn);
    a->sets = NULL;
    a->set_argn = NULL;
}
