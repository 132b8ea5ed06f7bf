/* sweep.c: ./train --sweep [CONFIG.ini] [--dk LIST] [--scales LIST] [--seeds N] [--steps N]
 *                          [--out DIR] [--set section.key=value ...]
 *
 * The measurement behind the 1/√d_k argument: one single-head model (d_model = d_k) per
 * (d_k, attention scale, seed), all with the same step budget, then the final validation
 * accuracy and loss and the step-0 attention-logit spread against d_k. Unscaled, the logit std at
 * initialisation grows like √d_k and the softmax saturates, so a fixed budget buys less as d_k
 * grows; scaled by 1/√d_k it stays near 1.
 *
 * Writes OUT/runs/<run>/ (each run's own logs), OUT/sweep.csv (one row per run, flushed as soon as
 * the run ends, so an interrupted sweep keeps its rows) and three SVG figures; prints one progress
 * line per run on stderr and a summary table on stdout. sweep.csv columns: d_k, scale (as given),
 * seed, steps (the budget), status (ok | diverged | guard), then from the run's logs the last
 * validation pass (val_loss, val_answer_acc, val_token_acc), the step-0 attention-logit std of
 * layer 0 (mean over heads) and the last logged gradient norms of layer 0's W_q and W_k. An empty
 * field was not measured (a run stopped at step 0); a measured NaN or Inf reads nan / inf.
 *
 * Reading order: arguments, the runs' configs (all checked before the first run), a finished
 * run's logs, sweep.csv, the runs, the summary table, the figures, report_sweep. */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "report/csv.h"
#include "report/logs.h"
#include "report/plot.h"
#include "report/svg.h"
#include "tasks/tasks.h"
#include "train/runlog.h"
#include "train/train.h"

enum { RC_OK = 0, RC_IO = 1, RC_USAGE = 2 };

#define MAX_LIST 32      /* d_k values, scale modes */
#define MAX_SEEDS 1000
#define SCALE_LEN 32
#define PATH_LEN 1024    /* as RunLog.dir */

/* argv starts after --sweep; config_set numbers arguments on the whole command line. */
#define ARGN(i) ((i) + 2)

/* ------------------------------------------------------------------ arguments */

typedef struct {
    const char *config_path;        /* NULL: defaults only */
    int dk[MAX_LIST], n_dk, dk_argn; /* ascending, distinct */
    char scale[MAX_LIST][SCALE_LEN];
    int n_scale, scale_argn;
    int seeds, seeds_argn;
    int steps, steps_argn;          /* steps < 0: the config's train.steps */
    const char *out;                /* NULL: sweeps/<config name> */
    int out_argn;
    const char **sets;              /* --set assignments, in command-line order */
    int *set_argn, n_sets;
} SweepArgs;

static void usage(FILE *f) {
    fprintf(f,
            "usage: ./train --sweep [CONFIG.ini] [--dk 8,16,32,64,128,256]\n"
            "                       [--scales sqrt_dk,none,inv_dk] [--seeds N] [--steps N]\n"
            "                       [--out DIR] [--set section.key=value ...]\n"
            "Trains one single-head model (model.d_model = d_k, model.n_heads = 1) per d_k,\n"
            "attention scale and seed 1..N (default 1), each for the same number of steps\n"
            "(--steps, default the config's train.steps), starting from CONFIG and the --set\n"
            "overrides (not of the keys the sweep sets: d_model, n_heads, attention.scale,\n"
            "run.seed, run.dir, run.name). Writes DIR/runs/, DIR/sweep.csv and the figures\n"
            "DIR/sweep_{accuracy,loss,logit_std}.svg (default DIR: sweeps/<CONFIG name>, or\n"
            "sweeps/default) and prints a summary table.\n"
            "A run that diverges or trips a guard is recorded and the sweep goes on.\n"
            "Exit codes: 0 done, 1 I/O or memory error, 2 bad arguments or config (nothing\n"
            "was run), 130 / 143 stopped by SIGINT / SIGTERM (sweep.csv keeps finished runs).\n");
}

/* True when a is flag, alone or as flag=value. */
static int is_flag(const char *a, const char *flag) {
    size_t n = strlen(flag);
    return strncmp(a, flag, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

/* The value of the flag at argv[*i] ("--dk 8,16" or "--dk=8,16"); NULL after a message. */
static const char *flag_value(int argc, char **argv, int *i, const char *flag) {
    const char *a = argv[*i], *v = NULL;
    size_t n = strlen(flag);
    if (a[n] == '=') v = a + n + 1;
    else if (*i + 1 < argc) v = argv[++*i];
    if (!v || !*v) fprintf(stderr, "error: %s needs a value\n", flag);
    return v && *v ? v : NULL;
}

/* A decimal integer in [lo, hi], digits only (no sign, no blanks): a list entry or a count. */
static int parse_int(const char *s, size_t len, long lo, long hi, int *out) {
    if (len == 0 || len > 12) return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = 10 * v + (s[i] - '0');
    }
    if (v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

static void sort_ints(int *v, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* Splits a comma-separated list; calls item for each entry. Returns -1 at the first bad entry,
 * after a message with the flag and what its entries must be. */
static int each_item(const char *list, const char *flag, const char *rule,
                     int (*item)(SweepArgs *, const char *, size_t), SweepArgs *a) {
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        if (item(a, p, len) != 0) {
            fprintf(stderr, "error: %s: bad entry '%.*s' in '%s' (%s, at most %d)\n", flag,
                    (int)len, p, list, rule, MAX_LIST);
            return -1;
        }
        p += len;
        if (!*p) return 0;
    }
}

/* A d_k: a positive integer not yet in the list (a duplicate would reuse a run folder). */
static int dk_item(SweepArgs *a, const char *s, size_t len) {
    int v;
    if (a->n_dk == MAX_LIST || parse_int(s, len, 1, 1000000, &v) != 0) return -1;
    for (int i = 0; i < a->n_dk; i++)
        if (a->dk[i] == v) return -1;
    a->dk[a->n_dk++] = v;
    return 0;
}

/* A scale mode's text; whether attention.scale accepts it is config_set's to say (check_plan). */
static int scale_item(SweepArgs *a, const char *s, size_t len) {
    if (a->n_scale == MAX_LIST || len == 0 || len >= SCALE_LEN) return -1;
    for (int i = 0; i < a->n_scale; i++)
        if (strlen(a->scale[i]) == len && strncmp(a->scale[i], s, len) == 0) return -1;
    memcpy(a->scale[a->n_scale], s, len);
    a->scale[a->n_scale++][len] = '\0';
    return 0;
}

#define DK_RULE "d_k values are distinct positive integers"
#define SCALE_RULE "scale modes are distinct: sqrt_dk, none, inv_dk or a positive number"

static void args_free(SweepArgs *a) {
    free(a->sets);
    free(a->set_argn);
}

static void args_defaults(SweepArgs *a) {
    memset(a, 0, sizeof *a);
    each_item("8,16,32,64,128,256", "--dk", DK_RULE, dk_item, a);
    each_item("sqrt_dk,none,inv_dk", "--scales", SCALE_RULE, scale_item, a);
    a->seeds = 1;
    a->steps = -1;
}

/* One option at argv[*i]. Returns 0, or -1 after a message naming the flag. */
static int parse_option(SweepArgs *a, int argc, char **argv, int *i) {
    const char *arg = argv[*i], *v;
    if (is_flag(arg, "--dk")) {
        if (!(v = flag_value(argc, argv, i, "--dk"))) return -1;
        a->n_dk = 0, a->dk_argn = ARGN(*i);
        if (each_item(v, "--dk", DK_RULE, dk_item, a) != 0) return -1;
        sort_ints(a->dk, a->n_dk);
    } else if (is_flag(arg, "--scales")) {
        if (!(v = flag_value(argc, argv, i, "--scales"))) return -1;
        a->n_scale = 0, a->scale_argn = ARGN(*i);
        if (each_item(v, "--scales", SCALE_RULE, scale_item, a) != 0) return -1;
    } else if (is_flag(arg, "--seeds") || is_flag(arg, "--steps")) {
        int seeds = is_flag(arg, "--seeds");
        const char *flag = seeds ? "--seeds" : "--steps";
        if (!(v = flag_value(argc, argv, i, flag))) return -1;
        int *dst = seeds ? &a->seeds : &a->steps;
        if (parse_int(v, strlen(v), seeds ? 1 : 0, seeds ? MAX_SEEDS : 100000000, dst) != 0) {
            fprintf(stderr, "error: %s: '%s' is not %s\n", flag, v,
                    seeds ? "a count from 1 to 1000" : "a number of steps (0 or more)");
            return -1;
        }
        *(seeds ? &a->seeds_argn : &a->steps_argn) = ARGN(*i);
    } else if (is_flag(arg, "--out")) {
        if (!(a->out = flag_value(argc, argv, i, "--out"))) return -1;
        a->out_argn = ARGN(*i);
    } else if (is_flag(arg, "--set")) {
        if (!(v = flag_value(argc, argv, i, "--set"))) return -1;
        a->sets[a->n_sets] = v;
        a->set_argn[a->n_sets++] = ARGN(*i);
    } else {
        fprintf(stderr, "error: unknown option '%s' for --sweep\n", arg);
        return -1;
    }
    return 0;
}

/* Returns 0, 1 when --help was asked for (usage printed), -1 after an error message. */
static int parse_args(SweepArgs *a, int argc, char **argv) {
    args_defaults(a);
    a->sets = malloc(sizeof *a->sets * (size_t)(argc + 1));
    a->set_argn = malloc(sizeof *a->set_argn * (size_t)(argc + 1));
    if (!a->sets || !a->set_argn) {
        fprintf(stderr, "error: out of memory\n");
        return -1;
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 1;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            if (parse_option(a, argc, argv, &i) != 0) return -1;
        } else if (a->config_path) {
            fprintf(stderr, "error: --sweep takes one config file ('%s' and '%s' given)\n",
                    a->config_path, argv[i]);
            return -1;
        } else {
            a->config_path = argv[i];
        }
    }
    return 0;
}

/* ------------------------------------------------------------ the runs' configs */

/* The sweep folder: --out, else sweeps/<config file name without .ini>, else sweeps/default. */
static void out_dir(const SweepArgs *a, char *out, size_t n) {
    if (a->out) {
        snprintf(out, n, "%s", a->out);
        return;
    }
    const char *p = a->config_path, *base = p ? strrchr(p, '/') : NULL;
    base = base ? base + 1 : p;
    size_t len = base ? strlen(base) : 0;
    if (len > 4 && strcmp(base + len - 4, ".ini") == 0) len -= 4;
    if (len == 0) snprintf(out, n, "sweeps/default");
    else snprintf(out, n, "sweeps/%.*s", (int)len, base);
}

/* config_set on a formatted assignment; on error also names the sweep flag behind the value. */
static int sweep_set(Config *c, int argn, const char *flag, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int sweep_set(Config *c, int argn, const char *flag, const char *fmt, ...) {
    char buf[CONFIG_STR + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    int fits = n >= 0 && (size_t)n < sizeof buf;
    if (fits && config_set(c, buf, argn) == 0) return 0;
    fprintf(stderr, "error: %s: cannot set '%s'\n", flag, fits ? buf : fmt);
    return -1;
}

/* The keys the sweep sets for every run, with the option that does it instead: a --set of one
 * of them would be overwritten without a word, so it is refused. */
static const char *const sweep_keys[][2] = {
    {"model.d_model", "--dk"},     {"model.n_heads", "--dk (one head per run)"},
    {"attention.scale", "--scales"}, {"run.seed", "--seeds"},
    {"run.dir", "--out"},          {"run.name", "--out (runs are named dk<d_k>_<scale>_s<seed>)"},
};

/* The sweep option that owns the key `set` ("section.key=value") names, or NULL; *key gets the
 * key's name. */
static const char *owned_by_sweep(const SweepArgs *a, const char *set, const char **key) {
    for (size_t i = 0; i < sizeof sweep_keys / sizeof sweep_keys[0]; i++)
        if (config_assignment_sets(set, *key = sweep_keys[i][0])) return sweep_keys[i][1];
    if (a->steps >= 0 && config_assignment_sets(set, *key = "train.steps")) return "--steps";
    return NULL;
}

/* Defaults, then CONFIG, then the --set overrides, as ./train itself reads them. */
static int base_config(const SweepArgs *a, Config *c) {
    config_defaults(c);
    if (a->config_path && config_load_file(c, a->config_path) != 0) return -1;
    for (int i = 0; i < a->n_sets; i++) {
        const char *key, *owner = owned_by_sweep(a, a->sets[i], &key);
        if (owner) {
            fprintf(stderr, "--set (argument %d): '%s' is set by the sweep for each run; use %s\n",
                    a->set_argn[i], key, owner);
            return -1;
        }
        if (config_set(c, a->sets[i], a->set_argn[i]) != 0) return -1;
    }
    return 0;
}

/* The config of run (d, s, seed): one head as wide as d_k, so the attention scale is the only
 * thing that differs between the scale modes of one d_k. Goes through config_set so the values
 * meet the same checks (and error messages) as a --set. */
static int run_config(const Config *base, const SweepArgs *a, const char *runs_dir, int d, int s,
                      int seed, Config *c) {
    *c = *base;
    return sweep_set(c, a->dk_argn, "--dk", "model.d_model=%d", a->dk[d]) ||
           sweep_set(c, a->dk_argn, "--dk", "model.n_heads=1") ||
           sweep_set(c, a->scale_argn, "--scales", "attention.scale=%s", a->scale[s]) ||
           sweep_set(c, a->seeds_argn, "--seeds", "run.seed=%d", seed) ||
           (a->steps >= 0 && sweep_set(c, a->steps_argn, "--steps", "train.steps=%d", a->steps)) ||
           sweep_set(c, a->out_argn, "--out", "run.dir=%s", runs_dir) ||
           sweep_set(c, a->scale_argn, "--scales", "run.name=dk%d_%s_s%d", a->dk[d], a->scale[s],
                     seed) ||
           sweep_set(c, 0, "--sweep", "log.progress=0")
               ? -1
               : 0;
}

/* Builds and checks every run's config, and the task once, before anything is trained or
 * written: a typo must cost a second, not the first hours of a sweep. The task depends only on
 * task.*, run.seed and model.max_seq_len, and its checks do not depend on the seed. */
static int check_plan(const Config *base, const SweepArgs *a, const char *runs_dir) {
    Config *c = malloc(sizeof *c);
    if (!c) return -1;
    int rc = 0;
    for (int d = 0; d < a->n_dk && !rc; d++)
        for (int s = 0; s < a->n_scale && !rc; s++)
            for (int k = 1; k <= a->seeds && !rc; k++)
                rc = run_config(base, a, runs_dir, d, s, k, c) || config_validate(c) ? -1 : 0;
    if (!rc) {
        Task t;
        run_config(base, a, runs_dir, 0, 0, 1, c);
        rc = task_init(&t, c);
        if (!rc) {
            ModelConfig mc = train_model_config(c, &t);
            if (mc.max_seq_len < t.seq_len) {
                fprintf(stderr, "error: model.max_seq_len = %d (%s) is shorter than the task's "
                                "sequences (T = %d)\n",
                        mc.max_seq_len, config_origin(c, "model.max_seq_len"), t.seq_len);
                rc = -1;
            }
        }
        task_free(&t);
    }
    free(c);
    return rc;
}

/* ------------------------------------------------------------ a finished run's logs */

typedef struct {
    int status;            /* train_run's exit code: EXIT_OK, EXIT_DIVERGED or EXIT_GUARD */
    int steps;             /* the step budget (train.steps); status says if it was used up */
    int has_val, has_std, has_grad;  /* which groups below were found in the logs */
    double val_loss, answer_acc, token_acc;  /* last validation pass */
    double logit_std0;     /* attention-logit std at step 0, layer 0, mean over heads */
    double grad_q, grad_k; /* last logged gradient norms of layer 0's W_q and W_k */
    double seconds;
} RunResult;

static int load_log(Csv *t, const char *run_dir, const char *file) {
    char path[PATH_LEN + 32];
    return log_load(t, run_dir, file, path, sizeof path);
}

/* The last row with validation numbers: a diverged run's are from before it stopped. */
static void read_loss(const char *dir, RunResult *r) {
    Csv t = {0};
    if (load_log(&t, dir, "loss.csv") == 0) {
        int acc = csv_col(&t, "val_answer_acc"), row = log_last_row(&t, acc);
        if (row >= 0) {
            r->has_val = 1;
            r->answer_acc = csv_num(&t, row, acc);
            r->val_loss = csv_num(&t, row, csv_col(&t, "val_loss"));
            r->token_acc = csv_num(&t, row, csv_col(&t, "val_token_acc"));
        }
    }
    csv_free(&t);
}

static void read_attention(const char *dir, RunResult *r) {
    Csv t = {0};
    if (load_log(&t, dir, "attention.csv") == 0) {
        int n;
        r->logit_std0 = log_head_mean(&t, 0, 0, "logit_std", &n);
        r->has_std = n > 0;
    }
    csv_free(&t);
}

static void read_grads(const char *dir, RunResult *r) {
    Csv t = {0};
    if (load_log(&t, dir, "grad_norms.csv") == 0 && t.n_rows > 0) {
        int q = csv_col(&t, "blocks.0.attn.qkv.weight.q");
        int k = csv_col(&t, "blocks.0.attn.qkv.weight.k");
        r->has_grad = q >= 0 && k >= 0;
        r->grad_q = csv_num(&t, t.n_rows - 1, q);
        r->grad_k = csv_num(&t, t.n_rows - 1, k);
    }
    csv_free(&t);
}

/* ------------------------------------------------------------------ sweep.csv */

static const char *status_name(int status) {
    return status == EXIT_OK ? "ok" : status == EXIT_DIVERGED ? "diverged" : "guard";
}

/* ",value"; "," when not measured; a measured NaN or Inf stays visible as nan / inf. */
static void put_num(FILE *f, int present, double v) {
    char text[32] = "";
    if (present) log_format_value(text, sizeof text, v, "%.6g", 1);
    fprintf(f, ",%s", text);
}

static FILE *csv_open(const char *path) {
    FILE *f = fopen(path, "w");
    if (f && (fputs("d_k,scale,seed,steps,status,val_loss,val_answer_acc,val_token_acc,"
                    "logit_std_step0,grad_q_final,grad_k_final\n", f) == EOF || fflush(f) != 0)) {
        fclose(f);
        f = NULL;
    }
    if (!f) fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
    return f;
}

/* Appends and flushes one row, so an interrupted sweep keeps every finished run. */
static int csv_row(FILE *f, const char *path, int dk, const char *scale, int seed,
                   const RunResult *r) {
    fprintf(f, "%d,%s,%d,%d,%s", dk, scale, seed, r->steps, status_name(r->status));
    put_num(f, r->has_val, r->val_loss);
    put_num(f, r->has_val, r->answer_acc);
    put_num(f, r->has_val, r->token_acc);
    put_num(f, r->has_std, r->logit_std0);
    put_num(f, r->has_grad, r->grad_q);
    put_num(f, r->has_grad, r->grad_k);
    fputc('\n', f);
    if (fflush(f) == 0 && !ferror(f)) return 0;
    fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
    return -1;
}

/* ------------------------------------------------------------------ the runs */

typedef struct {
    SweepArgs a;
    Config base;
    char dir[PATH_LEN], runs_dir[PATH_LEN], csv_path[PATH_LEN];
    int steps;          /* the common step budget */
    RunResult *res;     /* [n_dk][n_scale][seeds] */
} Sweep;

static RunResult *result_at(const Sweep *sw, int d, int s, int k) {
    size_t cell = (size_t)d * (size_t)sw->a.n_scale + (size_t)s;
    return &sw->res[cell * (size_t)sw->a.seeds + (size_t)k];
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Trains run i of n and reads back its logs. Returns 0 when the sweep may go on (the run
 * finished, diverged or tripped a guard); 130 / 143 when SIGINT / SIGTERM stopped the run (it
 * saved a checkpoint; the sweep stops with the same exit code as ./train); else 1 or 2. */
static int run_one(const Config *c, int i, int n, RunResult *r) {
    double t0 = now_s();
    int rc = train_run(c);
    r->seconds = now_s() - t0;
    if (rc == 128 + SIGINT || rc == 128 + SIGTERM) {
        fprintf(stderr, "sweep: stopped during run %d/%d (%s); sweep.csv holds the runs finished "
                        "before it (%d)\n", i, n, c->run_name, i - 1);
        return rc;
    }
    if (rc != EXIT_OK && rc != EXIT_DIVERGED && rc != EXIT_GUARD) {
        fprintf(stderr, "sweep: run %d/%d %s failed (exit code %d); stopping the sweep\n", i, n,
                c->run_name, rc);
        return rc == EXIT_CONFIG ? RC_USAGE : RC_IO;
    }
    r->status = rc;
    r->steps = c->steps;
    char dir[PATH_LEN];
    snprintf(dir, sizeof dir, "%s/%s", c->run_dir, c->run_name);
    read_loss(dir, r);
    read_attention(dir, r);
    read_grads(dir, r);
    char acc[32] = "not measured";
    if (r->has_val) snprintf(acc, sizeof acc, "%.1f%%", 100 * r->answer_acc);
    fprintf(stderr, "sweep: run %d/%d %s: %s, final val answer acc %s, %.1f s\n", i, n,
            c->run_name, status_name(rc), acc, r->seconds);
    return 0;
}

/* Every run in order (d_k, then scale, then seed), one sweep.csv row each. */
static int run_all(Sweep *sw) {
    const SweepArgs *a = &sw->a;
    Config *c = malloc(sizeof *c);
    FILE *f = c ? csv_open(sw->csv_path) : NULL;
    int rc = f ? RC_OK : RC_IO, i = 0, n = a->n_dk * a->n_scale * a->seeds;
    for (int d = 0; d < a->n_dk && !rc; d++)
        for (int s = 0; s < a->n_scale && !rc; s++)
            for (int k = 0; k < a->seeds && !rc; k++) {
                RunResult *r = result_at(sw, d, s, k);
                if (run_config(&sw->base, a, sw->runs_dir, d, s, k + 1, c) != 0) rc = RC_USAGE;
                else if ((rc = run_one(c, ++i, n, r)) == 0 &&
                         csv_row(f, sw->csv_path, a->dk[d], a->scale[s], k + 1, r) != 0)
                    rc = RC_IO;
            }
    if (f && fclose(f) != 0 && !rc) {
        fprintf(stderr, "error: cannot write '%s': %s\n", sw->csv_path, strerror(errno));
        rc = RC_IO;
    }
    free(c);
    return rc;
}

/* ------------------------------------------------------------------ summary */

typedef enum { M_ACC, M_LOSS, M_STD } Metric;

/* The metric of one run, NaN when it was not measured; accuracy in percent. */
static double metric(const RunResult *r, Metric m) {
    if (m == M_STD) return r->has_std ? r->logit_std0 : NAN;
    if (!r->has_val) return NAN;
    return m == M_ACC ? 100 * r->answer_acc : r->val_loss;
}

typedef struct {
    double mean, lo, hi;  /* over the seeds with a finite value; NaN when none has one */
    int not_ok;           /* seeds that diverged or tripped a guard */
} Agg;

static Agg aggregate(const Sweep *sw, int d, int s, Metric m) {
    Agg g = {NAN, NAN, NAN, 0};
    double sum = 0;
    int n = 0;
    for (int k = 0; k < sw->a.seeds; k++) {
        const RunResult *r = result_at(sw, d, s, k);
        double v = metric(r, m);
        g.not_ok += r->status != EXIT_OK;
        if (!isfinite(v)) continue;
        if (n == 0 || v < g.lo) g.lo = v;
        if (n == 0 || v > g.hi) g.hi = v;
        sum += v;
        n++;
    }
    if (n > 0) g.mean = sum / n;
    return g;
}

#define CELL_W 30

/* "mean (min-max)*  std0" for one d_k and scale; '*' marks a cell with a stopped run. */
static void summary_cell(const Sweep *sw, int d, int s, char *out, size_t n) {
    Agg acc = aggregate(sw, d, s, M_ACC), std = aggregate(sw, d, s, M_STD);
    char a[40] = "-", b[16] = "-";
    if (!isnan(acc.mean) && sw->a.seeds > 1)
        snprintf(a, sizeof a, "%5.1f (%5.1f-%5.1f)", acc.mean, acc.lo, acc.hi);
    else if (!isnan(acc.mean))
        snprintf(a, sizeof a, "%5.1f", acc.mean);
    if (acc.not_ok) strcat(a, "*");
    if (!isnan(std.mean)) snprintf(b, sizeof b, "%#.3g", std.mean);
    snprintf(out, n, "%-20s %7s", a, b);
}

static int any_stopped(const Sweep *sw) {
    size_t n = (size_t)sw->a.n_dk * (size_t)sw->a.n_scale * (size_t)sw->a.seeds;
    for (size_t i = 0; i < n; i++)
        if (sw->res[i].status != EXIT_OK) return 1;
    return 0;
}

static void summary_print(const Sweep *sw, FILE *f) {
    const SweepArgs *a = &sw->a;
    fprintf(f, "\nsweep: one head, d_model = d_k; %d steps; %d seed%s per cell\n", sw->steps,
            a->seeds, a->seeds > 1 ? "s" : "");
    fprintf(f, "acc = final validation answer accuracy (%%), mean over seeds%s; "
               "std0 = attention-logit std at step 0 (layer 0), mean over seeds\n\n",
            a->seeds > 1 ? " (min-max)" : "");
    fprintf(f, "  %5s", "d_k");
    for (int s = 0; s < a->n_scale; s++)
        fprintf(f, " | %-*s", s + 1 < a->n_scale ? CELL_W - 2 : 0, a->scale[s]);
    fprintf(f, "\n  %5s", "");
    for (int s = 0; s < a->n_scale; s++) fprintf(f, " | %-20s %7s", "acc", "std0");
    fputc('\n', f);
    for (int d = 0; d < a->n_dk; d++) {
        fprintf(f, "  %5d", a->dk[d]);
        for (int s = 0; s < a->n_scale; s++) {
            char cell[64];
            summary_cell(sw, d, s, cell, sizeof cell);
            fprintf(f, " | %s", cell);
        }
        fputc('\n', f);
    }
    if (any_stopped(sw))
        fprintf(f, "* includes runs that diverged or tripped a guard (status in sweep.csv); their "
                   "accuracy is from the last validation pass before they stopped\n");
}

/* ------------------------------------------------------------------ figures */

typedef struct {
    const char *file, *title, *y_label;
    Metric m;
    int log_y;
} Chart;

#define FIG_W 760.0
#define CHART_H 420.0
#define MARGIN 16.0

/* Scale s: the means over seeds against log2(d_k), then each seed's value as a point of its own
 * (NaN on both sides: plot_lines draws a point without drawn neighbours as a dot). Returns the
 * number of points written to x, y (n_dk * (1 + 2 * seeds) at most). */
static int chart_points(const Sweep *sw, const Chart *ch, int s, double *x, double *y) {
    int n = 0;
    for (int d = 0; d < sw->a.n_dk; d++) {
        x[n] = log2(sw->a.dk[d]);
        y[n++] = aggregate(sw, d, s, ch->m).mean;
    }
    for (int d = 0; d < sw->a.n_dk; d++)
        for (int k = 0; k < sw->a.seeds; k++) {
            x[n] = y[n] = NAN;
            n++;
            x[n] = log2(sw->a.dk[d]);
            y[n++] = metric(result_at(sw, d, s, k), ch->m);
        }
    return n;
}

/* Reads the next "x y" pair of absolute M/L path data; -1 on anything else. */
static int next_pair(const char **d, double *px, double *py) {
    const char *p = *d;
    while (*p == ' ' || *p == ',' || *p == 'M' || *p == 'L') p++;
    char *e;
    *px = strtod(p, &e);
    if (e == p) return -1;
    p = e;
    while (*p == ' ' || *p == ',') p++;
    *py = strtod(p, &e);
    if (e == p) return -1;
    *d = e;
    return 0;
}

/* Fits px = a + b * x from a series' drawn path data d (the k-th pair is its k-th drawn point). */
static int fit_x(const char *d, const PlotSeries *ps, int log_y, double *a, double *b) {
    double x0 = NAN, px0 = NAN, px, py;
    for (int i = 0; i < ps->n; i++) {
        if (!plot_drawn(ps->x[i], ps->y[i], log_y)) continue;
        if (next_pair(&d, &px, &py) != 0) return -1;
        if (isnan(x0)) {
            x0 = ps->x[i], px0 = px;
        } else if (ps->x[i] != x0) {
            *b = (px - px0) / (ps->x[i] - x0);
            *a = px0 - *b * x0;
            return *b > 0 && isfinite(*a) ? 0 : -1;
        }
    }
    return -1;
}

/* Where plot_lines put x, found from the series paths it wrote after offset from: plot.h has
 * a linear x axis with its own tick labels only, and this is how the real d_k values get under
 * the log2(d_k) ticks. Returns -1 (and the figure keeps only the log2 axis) when no path fits. */
static int chart_x_map(const Svg *s, size_t from, const PlotSeries *series, int n, int log_y,
                       double *a, double *b) {
    const char *p = s->buf && !s->failed ? s->buf + from : NULL;
    for (int k = 0; p && k < n; k++) {
        p = strstr(p, "<path class=\"series\"");
        if (!p) return -1;
        const char *d = strstr(p, " d=\""), *end = strchr(p, '>');
        p++;
        if (d && end && d < end && fit_x(d + 4, &series[k], log_y, a, b) == 0) return 0;
    }
    return -1;
}

/* A second row of x tick labels with the d_k values, and its axis label, below the chart. */
static void dk_labels(Svg *s, const Sweep *sw, double a, double b, double y) {
    for (int d = 0; d < sw->a.n_dk; d++) {
        char label[16];
        snprintf(label, sizeof label, "%d", sw->a.dk[d]);
        svg_text(s, a + b * log2(sw->a.dk[d]), y,
                 "class=\"dk-tick\" text-anchor=\"middle\" font-size=\"11\" fill=\"#333333\"",
                 label);
    }
    double mid = a + b * 0.5 * (log2(sw->a.dk[0]) + log2(sw->a.dk[sw->a.n_dk - 1]));
    svg_text(s, mid, y + 18, "text-anchor=\"middle\" font-size=\"12\"", "d_k (log2 scale)");
}

/* The legend text of a scale mode: what multiplies q·k. */
static void scale_label(const char *scale, char *out, size_t n) {
    if (strcmp(scale, "sqrt_dk") == 0) snprintf(out, n, "sqrt_dk: q\xC2\xB7k / \xE2\x88\x9A" "d_k");
    else if (strcmp(scale, "none") == 0) snprintf(out, n, "none: q\xC2\xB7k");
    else if (strcmp(scale, "inv_dk") == 0) snprintf(out, n, "inv_dk: q\xC2\xB7k / d_k");
    else snprintf(out, n, "%s: q\xC2\xB7k \xC3\x97 %s", scale, scale);
}

/* Lays out legend, note, chart and the d_k row; series[] are ready. */
static void chart_draw(Svg *s, const Sweep *sw, const Chart *ch, const PlotSeries *series) {
    int ns = sw->a.n_scale;
    PlotLegendItem items[MAX_LIST];
    char labels[MAX_LIST][2 * SCALE_LEN + 16];
    for (int i = 0; i < ns; i++) {
        scale_label(sw->a.scale[i], labels[i], sizeof labels[i]);
        items[i] = (PlotLegendItem){labels[i], i};
    }
    double legend_h = plot_legend(NULL, MARGIN, 0, FIG_W - 2 * MARGIN, items, ns);
    double top = MARGIN + legend_h + 22;
    svg_begin(s, FIG_W, top + CHART_H + 44, ch->title);
    plot_legend(s, MARGIN, MARGIN, FIG_W - 2 * MARGIN, items, ns);
    char note[160], seeds[64] = "one seed per point";
    if (sw->a.seeds > 1)
        snprintf(seeds, sizeof seeds, "lines: mean over %d seeds, dots: each seed", sw->a.seeds);
    snprintf(note, sizeof note, "one line per attention scale; %s; one head, d_model = d_k; "
                                "%d steps", seeds, sw->steps);
    svg_text(s, MARGIN, MARGIN + legend_h + 10, "font-size=\"11\" fill=\"#555555\"", note);
    double lo = log2(sw->a.dk[0]) - 0.5, hi = log2(sw->a.dk[sw->a.n_dk - 1]) + 0.5;
    PlotAxes ax = {.title = ch->title, .x_label = "log2(d_k)", .y_label = ch->y_label,
                   .log_y = ch->log_y, .x_lo = lo, .x_hi = hi, .y_lo = NAN, .y_hi = NAN,
                   .y_from_zero = !ch->log_y};
    if (ch->m == M_ACC) ax.y_lo = 0, ax.y_hi = 100;
    size_t from = s->len;
    plot_lines(s, 0, top, FIG_W, CHART_H, &ax, series, ns);
    double a, b;
    if (chart_x_map(s, from, series, ns, ch->log_y, &a, &b) == 0)
        dk_labels(s, sw, a, b, top + CHART_H + 14);
}

/* Writes one figure into the sweep folder; its path goes to path. Returns 0 or -1. */
static int chart_write(const Sweep *sw, const Chart *ch, char *path, size_t path_n) {
    int ns = sw->a.n_scale, per = sw->a.n_dk * (1 + 2 * sw->a.seeds);
    double *x = malloc(sizeof *x * (size_t)(ns * per)), *y = malloc(sizeof *y * (size_t)(ns * per));
    PlotSeries series[MAX_LIST];
    snprintf(path, path_n, "%s/%s", sw->dir, ch->file);
    if (!x || !y) {
        free(x);
        free(y);
        fprintf(stderr, "error: out of memory drawing %s\n", path);
        return -1;
    }
    for (int s = 0; s < ns; s++) {
        int n = chart_points(sw, ch, s, x + s * per, y + s * per);
        series[s] = (PlotSeries){sw->a.scale[s], "mean over seeds, dots per seed", x + s * per,
                                 y + s * per, n, s};
    }
    Svg svg;
    chart_draw(&svg, sw, ch, series);
    int rc = svg_end(&svg) == 0 && svg_save(&svg, path) == 0 ? 0 : -1;
    if (rc) fprintf(stderr, "error: cannot write '%s': %s\n", path, strerror(errno));
    svg_free(&svg);
    free(x);
    free(y);
    return rc;
}

static const Chart CHARTS[] = {
    {"sweep_accuracy.svg", "Final validation answer accuracy against d_k", "answer accuracy (%)",
     M_ACC, 0},
    {"sweep_loss.svg", "Final validation loss against d_k", "validation loss (nats/answer token)",
     M_LOSS, 0},
    {"sweep_logit_std.svg", "Attention-logit std at step 0 against d_k",
     "logit std at step 0, layer 0 (log scale)", M_STD, 1},
};
#define N_CHARTS ((int)(sizeof CHARTS / sizeof *CHARTS))

/* ------------------------------------------------------------------ command */

/* Arguments, base config, sweep folder; every check that can fail on bad input. */
static int sweep_prepare(Sweep *sw, int argc, char **argv) {
    int rc = parse_args(&sw->a, argc, argv);
    if (rc != 0) return rc > 0 ? 1 : -1;
    out_dir(&sw->a, sw->dir, sizeof sw->dir);
    /* Room for runs/<run name>/<log file> below it; run.dir holds at most CONFIG_STR - 1. */
    if (strlen(sw->dir) + 6 >= CONFIG_STR) {
        fprintf(stderr, "error: --out: folder name '%s' is too long\n", sw->dir);
        return -1;
    }
    snprintf(sw->runs_dir, sizeof sw->runs_dir, "%.*s/runs", CONFIG_STR, sw->dir);
    snprintf(sw->csv_path, sizeof sw->csv_path, "%.*s/sweep.csv", CONFIG_STR, sw->dir);
    if (base_config(&sw->a, &sw->base) != 0 || check_plan(&sw->base, &sw->a, sw->runs_dir) != 0)
        return -1;
    sw->steps = sw->a.steps >= 0 ? sw->a.steps : sw->base.steps;
    return 0;
}

int report_sweep(int argc, char **argv) {
    Sweep *sw = calloc(1, sizeof *sw);
    if (!sw) return RC_IO;
    int rc = sweep_prepare(sw, argc, argv);
    if (rc != 0) {
        rc = rc > 0 ? RC_OK : RC_USAGE;
        goto done;
    }
    size_t n = (size_t)sw->a.n_dk * (size_t)sw->a.n_scale * (size_t)sw->a.seeds;
    sw->res = calloc(n, sizeof *sw->res);
    if (!sw->res || make_dirs(sw->dir) != 0) {
        fprintf(stderr, "error: cannot create sweep folder '%s': %s\n", sw->dir,
                sw->res ? strerror(errno) : "out of memory");
        rc = RC_IO;
        goto done;
    }
    fprintf(stderr, "sweep: %zu runs into %s/\n", n, sw->dir);
    if ((rc = run_all(sw)) != RC_OK) goto done;
    summary_print(sw, stdout);
    char paths[N_CHARTS][PATH_LEN + 32];
    for (int i = 0; i < N_CHARTS; i++)
        if (chart_write(sw, &CHARTS[i], paths[i], sizeof paths[i]) != 0) rc = RC_IO;
    printf("\nwrote %s\n", sw->csv_path);
    for (int i = 0; i < N_CHARTS && rc == RC_OK; i++) printf("      %s\n", paths[i]);
done:
    fflush(stdout);
    args_free(&sw->a);
    free(sw->res);
    free(sw);
    return rc;
}
