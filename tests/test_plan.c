/* test_plan.c: the sweep's plan (src/sweep/plan.c, fed by the argument reader
 * cli/sweep_args.c): grid expansion and run naming, table-driven, with the expected names,
 * widths and heads worked out by hand; plan.txt read back; a different plan refused naming the
 * line; and values refused before anything runs (exit code 2, no sweep folder), through the
 * command cli_sweep. The argument reader's own checks are test_sweep_args.c's. */
#include "sweep/plan.h"

#include <check.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep_args.h"
#include "testutil.h"

static char g_tmp[64];
static void make_tmp(void) { tu_make_tmp(g_tmp, sizeof g_tmp, "/tmp/test_plan.XXXXXX"); }
static void remove_tmp(void) { tu_remove_tree(g_tmp); }

/* The task files the task.file grids name (relative paths: the test works inside g_tmp, see
 * in_tmp), so that task.name = file can read them; returns the folder to go back to. */
static char *in_tmp(char *cwd, size_t n) {
    static const char *const files[] = {"x(1)/y", "a/b", "a-b"};
    ck_assert_ptr_nonnull(getcwd(cwd, n));
    ck_assert_int_eq(chdir(g_tmp), 0);
    ck_assert_int_eq(mkdir("x(1)", 0777), 0);
    ck_assert_int_eq(mkdir("a", 0777), 0);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        FILE *f = fopen(files[i], "w");
        ck_assert_ptr_nonnull(f);
        for (int k = 0; k < 40; k++) fprintf(f, "s%d s%d | s%d\n", k % 7, k / 7, k);
        fclose(f);
    }
    return cwd;
}

static const char TINY_INI[] = "[task]\nname = copy\nlength = 3\nsymbols = 6\nval_size = 32\n"
                               "[model]\nn_layers = 1\n";

/* Parses a NULL-terminated argument list (after --sweep) and builds the plan on the tiny
 * config. Returns plan_build's result (or -1 when the arguments are refused). */
static int build(Plan *p, SweepArgs *a, const char *first, ...) {
    char *argv[32];
    int argc = 0;
    va_list ap;
    va_start(ap, first);
    for (const char *s = first; s && argc < 31; s = va_arg(ap, const char *)) argv[argc++] = (char *)s;
    va_end(ap);
    memset(p, 0, sizeof *p);
    if (sweep_args_parse(a, argc, argv) != 0) return -1;
    Config *base = malloc(sizeof *base);
    ck_assert_ptr_nonnull(base);
    config_defaults(base);
    char ini[128];
    snprintf(ini, sizeof ini, "%s/tiny.ini", g_tmp);
    tu_write_file(ini, TINY_INI);
    ck_assert_int_eq(config_load_file(base, ini), 0);
    for (int i = 0; i < a->n_sets; i++) /* the --set lines, as the sweep applies them */
        ck_assert_int_eq(config_set(base, a->sets[i], a->set_argn[i]), 0);
    int rc = plan_build(a, base, "/x/runs", p);
    free(base);
    return rc;
}

static const char *cell(const Plan *p, int r, const char *col) {
    for (int c = 0; c < p->n_cols; c++)
        if (strcmp(p->col_names[c], col) == 0) return p->cells[r * p->n_cols + c];
    ck_abort_msg("no column %s", col);
    return NULL;
}

/* One expansion case: arguments, the runs expected (in plan order) with d_model and n_heads,
 * and the extra (--grid) columns. */
typedef struct {
    const char *args[12];
    int n_runs;
    const char *names[16];
    int d_model[16], n_heads[16];
    const char *extra_cols;  /* the columns between seed and steps, comma-joined ("" none) */
} ExpandCase;

static const ExpandCase EXPAND[] = {
    /* fixed width: n_heads = d_model / d_k, d_k ascending whatever the order given */
    {{"--dk", "16,8", "--d-model", "32", "--scales", "none"}, 2,
     {"dk8_none_s1", "dk16_none_s1"}, {32, 32}, {4, 2}, ""},
    /* the old mode: one head, d_model = d_k; seeds 1..N innermost */
    {{"--dk", "8", "--one-head", "--scales", "sqrt_dk", "--seeds", "2"}, 2,
     {"dk8_sqrt_dk_s1", "dk8_sqrt_dk_s2"}, {8, 8}, {1, 1}, ""},
    /* two grid keys, in the order given; d_model, n_heads from the config (64, 1) */
    {{"--grid", "optim.lr=1e-3,3e-3", "--grid", "init.scheme=fan_in,gpt2"}, 4,
     {"lr-1e-3_scheme-fan_in", "lr-1e-3_scheme-gpt2", "lr-3e-3_scheme-fan_in",
      "lr-3e-3_scheme-gpt2"}, {64, 64, 64, 64}, {1, 1, 1, 1}, "optim.lr,init.scheme"},
    /* a seed list, and a grid over a fixed column (model.n_heads): no column of its own */
    {{"--grid", "model.n_heads=2,4", "--seeds", "3,7"}, 4,
     {"n_heads-2_s3", "n_heads-2_s7", "n_heads-4_s3", "n_heads-4_s7"}, {64, 64, 64, 64},
     {2, 2, 4, 4}, ""},
    /* characters a folder name cannot hold become '-' */
    {{"--grid", "task.file=x(1)/y", "--grid", "task.name=file"}, 1, {"file-x-1--y_name-file"},
     {64}, {1}, "task.file,task.name"},
    /* a learned scale starting at 1 is not the fixed scale 1: both are planned */
    {{"--dk", "8", "--d-model", "16", "--scales", "none,learned"}, 2,
     {"dk8_none_s1", "dk8_learned_s1"}, {16, 16}, {2, 2}, ""},
    /* muP's C/d_k scale: its '/' becomes '-' in the name (run.name allows [A-Za-z0-9._-]) */
    {{"--dk", "16", "--one-head", "--scales", "8/d_k,sqrt_dk,2.5/d_k"}, 3,
     {"dk16_8-d_k_s1", "dk16_sqrt_dk_s1", "dk16_2.5-d_k_s1"}, {16, 16, 16}, {1, 1, 1}, ""},
    /* a C/d_k scale from the config (no --scales): its column says so, not the number */
    {{"--grid", "optim.lr=5e-4", "--set", "attention.scale=8/d_k"}, 1, {"lr-5e-4"}, {64}, {1},
     "optim.lr"},
    /* a '+' is dropped, not made '-' (1e+0 -> 1e0; before, 'lr-1e+0' was refused by run.name) */
    {{"--grid", "optim.lr=1e+0,2e-3"}, 2, {"lr-1e0", "lr-2e-3"}, {64, 64}, {1, 1}, "optim.lr"},
    /* issue 45: windows shorter than the task's T = 6 (copy of 3: 3 symbols, SEP, 3 answers, the
     * last one predicted only) are distinct runs */
    {{"--grid", "attention.window=1,5"}, 2, {"window-1", "window-5"}, {64, 64}, {1, 1},
     "attention.window"},
    /* issue 45 F3: values that resolve to different runs stay distinct (T = 6, d_model 64:
     * d_ff 0 is 4 x 64 = 256, not 128; max_seq_len 0 is 6, not 7; the copy task's separator
     * auto is true, not false) */
    {{"--grid", "model.d_ff=0,128", "--grid", "model.max_seq_len=0,7"}, 4,
     {"d_ff-0_max_seq_len-0", "d_ff-0_max_seq_len-7", "d_ff-128_max_seq_len-0",
      "d_ff-128_max_seq_len-7"}, {64, 64, 64, 64}, {1, 1, 1, 1}, "model.d_ff,model.max_seq_len"},
    {{"--grid", "task.separator=auto,false"}, 2, {"separator-auto", "separator-false"}, {64, 64},
     {1, 1}, "task.separator"},
    /* under mup the base width is read: two runs (standard refuses them: test_refused) */
    {{"--grid", "model.base_width=8,16", "--set", "model.param=mup"}, 2,
     {"base_width-8", "base_width-16"}, {64, 64}, {1, 1}, "model.base_width"},
    /* no options at all: the d_k preset at width 128, three scales, seed 1 */
    {{NULL}, 15, {"dk8_sqrt_dk_s1", "dk8_none_s1", "dk8_inv_dk_s1", "dk16_sqrt_dk_s1"},
     {128, 128, 128, 128}, {16, 16, 16, 8}, ""},
};

START_TEST(test_expand) {
    char cwd[4096];
    in_tmp(cwd, sizeof cwd);
    for (size_t k = 0; k < sizeof EXPAND / sizeof *EXPAND; k++) {
        const ExpandCase *e = &EXPAND[k];
        Plan p;
        SweepArgs a;
        const char *const *v = e->args;
        int rc = build(&p, &a, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], NULL);
        ck_assert_msg(rc == 0, "case %zu refused", k);
        ck_assert_int_eq(p.n_runs, e->n_runs);
        char extra[256] = "";
        for (int c = 5; c < p.n_cols - 1; c++)
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "%s%s", c > 5 ? "," : "",
                     p.col_names[c]);
        ck_assert_msg(strcmp(extra, e->extra_cols) == 0, "case %zu columns '%s'", k, extra);
        ck_assert_str_eq(p.col_names[0], "d_k");
        ck_assert_str_eq(p.col_names[p.n_cols - 1], "steps");
        for (int r = 0; r < 16 && e->names[r]; r++) {
            ck_assert_msg(strcmp(p.names[r], e->names[r]) == 0, "case %zu run %d: %s", k, r,
                          p.names[r]);
            ck_assert_int_eq(atoi(cell(&p, r, "d_model")), e->d_model[r]);
            ck_assert_int_eq(atoi(cell(&p, r, "n_heads")), e->n_heads[r]);
            ck_assert_int_eq(atoi(cell(&p, r, "d_k")), e->d_model[r] / e->n_heads[r]);
            /* the name is one run.name accepts (its own rule, config/keys.c) */
            Config named;
            config_defaults(&named);
            char set[300];
            snprintf(set, sizeof set, "run.name=%s", p.names[r]);
            ck_assert_msg(config_set(&named, set, 1) == 0, "case %zu: %s refused", k, p.names[r]);
            /* the scale column keeps the value as typed */
            if (strcmp(p.names[r], "dk16_8-d_k_s1") == 0 || strcmp(p.names[r], "lr-5e-4") == 0)
                ck_assert_str_eq(cell(&p, r, "scale"), "8/d_k");
        }
        plan_free(&p);
        sweep_args_free(&a);
    }
    ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

/* The grid values and the config's own values reach each run's config. */
START_TEST(test_run_config) {
    Plan p;
    SweepArgs a;
    ck_assert_int_eq(build(&p, &a, "--grid", "optim.lr=0.003", "--seeds", "2", NULL), 0);
    Config *base = malloc(sizeof *base), *c = malloc(sizeof *c);
    config_defaults(base);
    ck_assert_int_eq(config_set(base, "train.steps=7", 1), 0); /* base values reach the run */
    ck_assert_int_eq(plan_run_config(&a, base, "/x/runs", 1, c), 0);
    ck_assert_str_eq(c->run_name, "lr-0.003_s2");
    ck_assert_str_eq(c->run_dir, "/x/runs");
    ck_assert(c->lr == 0.003);
    ck_assert_int_eq((int)c->seed, 2);
    ck_assert_int_eq(c->threads, 1); /* one thread per run unless set */
    ck_assert_int_eq(c->steps, 7);
    ck_assert_str_eq(cell(&p, 1, "optim.lr"), "0.003");
    /* issue 21 item 10: a relative task.file becomes absolute (cwd joined by hand here), so a
     * jobs.txt line works from any folder */
    char cwd[4096], want[4200];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    snprintf(want, sizeof want, "%s/data/t.txt", cwd);
    ck_assert_int_eq(config_set(base, "task.file=data/t.txt", 1), 0);
    ck_assert_int_eq(plan_run_config(&a, base, "/x/runs", 1, c), 0);
    ck_assert_str_eq(c->task_file, want);
    ck_assert_int_eq(config_set(base, "task.file=/abs/t.txt", 1), 0);
    ck_assert_int_eq(plan_run_config(&a, base, "/x/runs", 1, c), 0);
    ck_assert_str_eq(c->task_file, "/abs/t.txt");
    free(base);
    free(c);
    plan_free(&p);
    sweep_args_free(&a);
}
END_TEST

/* A copy of text whose line starting with `start` has c in place of its first character after
 * start (malloc'd). */
static char *edited(const char *text, const char *start, char c) {
    char *copy = strdup(text), *at = copy ? strstr(copy, start) : NULL;
    ck_assert_msg(at, "no line '%s'", start);
    at[strlen(start)] = c;
    return copy;
}

/* plan_check_same(path, text) refuses, and its message holds want. */
static void check_refused(const char *path, const char *text, const char *want) {
    TuCapture cap;
    tu_capture_begin(&cap, 2);
    int rc = plan_check_same(path, text);
    char *err = tu_capture_end(&cap);
    ck_assert_msg(rc == -1 && strstr(err, "different sweep plan") && strstr(err, want), "%s", err);
    free(err);
}

/* plan.txt read back gives the same runs and cells; a changed line is named. */
START_TEST(test_parse_and_compare) {
    Plan p, q;
    SweepArgs a;
    ck_assert_int_eq(build(&p, &a, "--dk", "4,8", "--d-model", "8", "--scales", "none,sqrt_dk",
                           NULL), 0);
    ck_assert_int_eq(plan_parse(&q, p.text, "plan.txt"), 0);
    ck_assert_int_eq(q.n_runs, 4);
    ck_assert_int_eq(q.n_cols, p.n_cols);
    for (int r = 0; r < 4; r++) {
        ck_assert_str_eq(q.names[r], p.names[r]);
        for (int c = 0; c < p.n_cols; c++)
            ck_assert_str_eq(q.cells[r * q.n_cols + c], p.cells[r * p.n_cols + c]);
    }
    char path[128];
    snprintf(path, sizeof path, "%s/plan.txt", g_tmp);
    ck_assert_int_eq(plan_check_same(path, p.text), 0); /* no file yet */
    tu_write_file(path, p.text);
    ck_assert_int_eq(plan_check_same(path, p.text), 0);
    char *other = edited(p.text, "base optim.lr = ", '7');
    check_refused(path, other, "base optim.lr = 7");
    free(other);
    plan_free(&q);
    plan_free(&p);
    sweep_args_free(&a);
}
END_TEST

/* Removes line `line` (with its newline) from text, which must hold it once. */
static void drop_line(char *text, const char *line) {
    char *at = strstr(text, line);
    ck_assert_msg(at && at[strlen(line)] == '\n', "no line '%s'", line);
    memmove(at, at + strlen(line) + 1, strlen(at + strlen(line) + 1) + 1);
}

/* Issue 45 item 4: a plan.txt of an older program lacks the keys added since (seen in the
 * published results/fixes_d64/none/plan.txt against today's plan of the same command: these six
 * lines, at their documented defaults). The plan at those defaults is the same plan; a value
 * other than the default is a real difference, named. */
START_TEST(test_older_plan_without_new_keys) {
    static const char *const ADDED[] = {"base model.matmul = float32", "base attention.window = 0",
                                        "base init.q_mult = 1", "base init.k_mult = 1",
                                        "base optim.lr_q_mult = 1", "base optim.lr_k_mult = 1"};
    Plan p;
    SweepArgs a;
    ck_assert_int_eq(build(&p, &a, "--dk", "4,8", "--d-model", "8", NULL), 0);
    char path[128], *old = strdup(p.text);
    ck_assert_ptr_nonnull(old);
    for (size_t i = 0; i < sizeof ADDED / sizeof *ADDED; i++) drop_line(old, ADDED[i]);
    snprintf(path, sizeof path, "%s/plan.txt", g_tmp);
    tu_write_file(path, old);
    ck_assert_int_eq(plan_check_same(path, p.text), 0);
    /* the same older plan against a plan with init.q_mult = 2: refused, naming that line */
    char *other = edited(p.text, "base init.q_mult = ", '2');
    check_refused(path, other, "'base init.q_mult = 2'");
    /* a line the older plan has, missing from this one, is still a difference */
    free(other);
    other = strdup(p.text);
    drop_line(other, "base optim.beta2 = 0.999");
    check_refused(path, other, "'base optim.beta2 = 0.999'");
    free(other);
    free(old);
    plan_free(&p);
    sweep_args_free(&a);
}
END_TEST

/* ------------------------------------------------------------------ refused */

#define sweep(...) tu_run_cmd(cli_sweep, __VA_ARGS__)

typedef struct {
    const char *needle;
    const char *args[6];
} RefusedCase;

/* Refused by the plan (plan_build), the arguments being well-formed; what the argument reader
 * refuses is test_sweep_args.c's (a --grid value its key refuses, 'fast' and '0' below, is
 * refused there too, with the same two lines, every bad argument in one run). */
static const RefusedCase REFUSED[] = {
    {"does not divide", {"--dk", "3", "--d-model", "16"}},
    {"does not divide", {"--dk", "256"}}, /* larger than the default width 128 */
    {"does not divide", {"--dk", "8", "--d-model", "12"}},
    {"'optim.lr': expected a number, got 'fast'", {"--grid", "optim.lr=1e-3,fast"}},
    {"'model.n_layers': 0 is out of range", {"--grid", "model.n_layers=1,0"}},
    {"same name", {"--grid", "task.file=a/b,a-b", "--set", "task.name=file"}},
    {"min_lr", {"--set", "optim.schedule=cosine", "--set=optim.min_lr=0.5"}},
    {"task", {"--set", "task.symbols=2"}}, /* 2^3 inputs cannot hold 2 x 32 validation examples */
    /* issue 21 item 10: one value in two spellings would train one configuration twice */
    {"train the same configuration", {"--grid", "optim.lr=1e-3,0.001"}},
    {"train the same configuration", {"--grid", "optim.lr=1e-3", "--seeds", "1,01"}},
    {"train the same configuration", {"--dk", "8,08", "--d-model", "16"}},
    {"train the same configuration", {"--dk", "1", "--d-model", "1", "--scales", "none,1"}},
    /* 8/d_k is 1/sqrt(d_k) at d_k 64 */
    {"train the same configuration", {"--dk", "64", "--one-head", "--scales", "8/d_k,sqrt_dk"}},
    /* issue 45: -0 is 0; a window of T = 6 keys or more is no window, as 0 */
    {"--grid (argument 7): the values '0' and '-0' of attention.softcap train the same "
     "configuration", {"--grid", "attention.softcap=0,-0"}},
    {"the values '0' and '6' of attention.window train the same configuration (runs 'window-0' "
     "and 'window-6'; a window of the task's T = 6 keys or more", {"--grid", "attention.window=0,6"}},
    {"the values '7' and '100' of attention.window", {"--grid", "attention.window=7,100,3"}},
    /* issue 45 F3: compared as the run resolves them (T = 6, d_model 64, the copy task) */
    {"--grid (argument 7): the values '0' and '256' of model.d_ff train the same configuration "
     "(runs 'd_ff-0' and 'd_ff-256'; ", {"--grid", "model.d_ff=0,256"}},
    {"the values '0' and '6' of model.max_seq_len train the same configuration",
     {"--grid", "model.max_seq_len=0,6"}},
    {"the values 'auto' and 'true' of task.separator train the same configuration",
     {"--grid", "task.separator=auto,true"}},
    /* a base width the standard runs do not read: two runs that would train the same numbers
     * (break12), refused by the rule of a single run (config_validate), with where it came from */
    {"error: --grid (argument 7): 'model.base_width' = 8 is set, but 'model.param' is not mup "
     "(default): it is muP's base width, which the standard parametrisation does not read; set "
     "model.param = mup, or remove model.base_width\n"
     "error: run 1 of 2 of the plan cannot be built; nothing was run\n",
     {"--grid", "model.base_width=8,16"}},

    /* a run name of 3 + 5 + 242 = 250 characters (248-255 passed before, then failed after
     * plan.txt was written); the message names the file it is for, not an old temporary name */
    {"at most 247, so that the files named after it (configs/<name>.ini and others) fit", {"--grid", "optim.lr=0.001" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "0000000000" "00"}},
};

START_TEST(test_refused) {
    char ini[128], out[128];
    snprintf(ini, sizeof ini, "%s/tiny.ini", g_tmp);
    snprintf(out, sizeof out, "%s/sw", g_tmp);
    tu_write_file(ini, TINY_INI);
    char cwd[4096];
    in_tmp(cwd, sizeof cwd);
    for (size_t k = 0; k < sizeof REFUSED / sizeof *REFUSED; k++) {
        const char *const *v = REFUSED[k].args;
        /* --plan: even if a check were missed, nothing would train inside this test program */
        TuResult r = sweep(ini, "--plan", "--out", out, v[0], v[1], v[2], v[3], v[4], v[5], NULL);
        ck_assert_msg(r.rc == 2, "case %zu (%s %s): rc %d, stderr:\n%s", k, v[0], v[1] ? v[1] : "",
                      r.rc, r.err);
        ck_assert_msg(strstr(r.err, REFUSED[k].needle), "case %zu: '%s' not in:\n%s", k,
                      REFUSED[k].needle, r.err);
        /* a --grid value's error names --grid, not a --set the user never typed */
        ck_assert_msg(strcmp(v[0], "--grid") != 0 || !strstr(r.err, "--set"),
                      "case %zu blames --set:\n%s", k, r.err);
        struct stat st;
        ck_assert_msg(stat(out, &st) != 0, "case %zu created the sweep folder", k);
        tu_result_free(&r);
    }
    ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

/* Issue 21 item 10: a sweep folder whose path holds a '"' or a line break (which the run
 * configs' run.dir = "..." and jobs.txt cannot hold) is refused before anything is written. */
START_TEST(test_out_bytes_refused) {
    char ini[128], cwd[4096];
    snprintf(ini, sizeof ini, "%s/tiny.ini", g_tmp);
    tu_write_file(ini, TINY_INI);
    in_tmp(cwd, sizeof cwd);
    static const char *const OUTS[] = {"bad\"q", "bad\nq", "bad\tq"};
    for (int k = 0; k < 3; k++) {
        TuResult r = sweep(ini, "--plan", "--grid", "optim.lr=1e-3", "--out", OUTS[k], NULL);
        ck_assert_msg(r.rc == 2 && strstr(r.err, "which the run configs and jobs.txt cannot hold"),
                      "case %d: rc %d:\n%s", k, r.rc, r.err);
        struct stat st;
        ck_assert_msg(stat(OUTS[k], &st) != 0, "case %d created the folder", k);
        tu_result_free(&r);
    }
    ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

/* Issue 21 item 10: a hand-edited plan.txt (read by --collect) is refused naming the line: a run
 * listed twice, a run name leading out of runs/, an unknown key, an unknown line. */
START_TEST(test_parse_refused_edits) {
    Plan p;
    SweepArgs a;
    ck_assert_int_eq(build(&p, &a, "--grid", "optim.lr=1e-3,2e-3", NULL), 0);
    const char *first = strstr(p.text, "\nrun lr-1e-3 ");
    ck_assert_ptr_nonnull(first);
    int run_line = 2; /* line of the first run line: count the newlines before it, plus 1 */
    for (const char *q = p.text; q < first; q++) run_line += *q == '\n';
    size_t len = strcspn(first + 1, "\n");
    static const struct {
        const char *what;
        int edit; /* 0 duplicate the first run line, 1 rename it ../x, 2 /x, 3 add a base line
                     of an unknown key, 4 add an unknown line, 5 rename it .. */
        const char *needle;
    } CASES[] = {
        {"run twice", 0, "listed twice"},
        {"../ name", 1, "not a folder name"},
        {"/ name", 2, "not a folder name"},
        {".. name", 5, "not a folder name"},
        {"unknown key", 3, "unknown config key 'optim.bogus'"},
        {"unknown line", 4, "unknown line 'frobnicate 1'"},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        char *text = NULL, want[64];
        size_t tl = 0;
        FILE *f = open_memstream(&text, &tl);
        int at_line = run_line;
        fwrite(p.text, 1, (size_t)(first + 1 - p.text), f);
        switch (CASES[k].edit) {
        case 0: fprintf(f, "%.*s\n", (int)len, first + 1), at_line++; break;
        case 1: fputs("run ../x", f), fputs(first + 1 + strlen("run lr-1e-3"), f); break;
        case 2: fputs("run /tmp/x", f), fputs(first + 1 + strlen("run lr-1e-3"), f); break;
        case 3: fputs("base optim.bogus = 1\n", f); break;
        case 4: fputs("frobnicate 1\n", f); break;
        case 5: fputs("run ..", f), fputs(first + 1 + strlen("run lr-1e-3"), f); break;
        }
        if (CASES[k].edit == 0 || CASES[k].edit >= 3) fputs(first + 1, f);
        fclose(f);
        Plan q;
        TuCapture cap;
        tu_capture_begin(&cap, 2);
        int rc = plan_parse(&q, text, "plan.txt");
        char *err = tu_capture_end(&cap);
        snprintf(want, sizeof want, "plan.txt:%d: ", at_line);
        ck_assert_msg(rc == -1 && strstr(err, want) && strstr(err, CASES[k].needle),
                      "%s: rc %d, want '%s' ... '%s':\n%s", CASES[k].what, rc, want,
                      CASES[k].needle, err);
        free(err);
        free(text);
    }
    plan_free(&p);
    sweep_args_free(&a);
}
END_TEST

/* A config file with an unknown key, and a missing one: refused before any run, file named. */
START_TEST(test_bad_config_file) {
    char ini[128], out[128];
    snprintf(ini, sizeof ini, "%s/bad.ini", g_tmp);
    snprintf(out, sizeof out, "%s/sw", g_tmp);
    tu_write_file(ini, "[model]\nd_modle = 8\n");
    TuResult r = sweep(ini, "--plan", "--out", out, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "bad.ini:2"));
    tu_result_free(&r);
    snprintf(ini, sizeof ini, "%s/missing.ini", g_tmp);
    r = sweep(ini, "--plan", "--out", out, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "missing.ini"));
    struct stat st;
    ck_assert(stat(out, &st) != 0);
    tu_result_free(&r);
}
END_TEST

/* --collect takes its plan from OUT/plan.txt: a folder without a plan is refused (plan options
 * with --collect are test_sweep_args.c's). */
START_TEST(test_collect_refused) {
    char out[128];
    snprintf(out, sizeof out, "%s/none", g_tmp);
    TuResult r = sweep("--collect", "--out", out, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "plan.txt"));
    tu_result_free(&r);
}
END_TEST

/* A folder with a sweep.csv but no plan.txt (an older version's sweep) is left alone. */
START_TEST(test_old_sweep_folder) {
    char ini[128], out[128], csv[160];
    snprintf(ini, sizeof ini, "%s/tiny.ini", g_tmp);
    tu_write_file(ini, TINY_INI);
    snprintf(out, sizeof out, "%s/old", g_tmp);
    mkdir(out, 0755);
    snprintf(csv, sizeof csv, "%s/sweep.csv", out);
    tu_write_file(csv, "d_k,scale,seed\n8,none,1\n");
    TuResult r = sweep(ini, "--plan", "--dk", "8", "--out", out, NULL);
    ck_assert_int_eq(r.rc, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "no plan.txt"));
    ck_assert(tu_file_contains(csv, "8,none,1\n"));
    tu_result_free(&r);
}
END_TEST

/* A folder without plan.txt that holds a file the plan would write (a user's config named like
 * a run, e.g. --out . from a project with configs/lr-1e-3.ini; or a jobs.txt) is refused: the
 * file is kept, no plan.txt is left. Once the file is gone the plan is written, and writing it
 * again into its own folder is fine. */
START_TEST(test_user_files_not_overwritten) {
    static const char *const files[] = {"configs/lr-1e-3.ini", "jobs.txt"};
    char ini[128], out[128], path[200], dir[200];
    snprintf(ini, sizeof ini, "%s/tiny.ini", g_tmp);
    tu_write_file(ini, TINY_INI);
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        snprintf(out, sizeof out, "%s/user%zu", g_tmp, k);
        snprintf(dir, sizeof dir, "%s/configs", out);
        ck_assert_int_eq(mkdir(out, 0755), 0);
        ck_assert_int_eq(mkdir(dir, 0755), 0);
        snprintf(path, sizeof path, "%s/%s", out, files[k]);
        tu_write_file(path, "; mine\n[optim]\nlr = 1e-3\n");
        TuResult r = sweep(ini, "--plan", "--grid", "optim.lr=1e-3,2e-3", "--out", out, NULL);
        ck_assert_msg(r.rc == 2, "%s: rc %d, stderr:\n%s", files[k], r.rc, r.err);
        ck_assert_msg(strstr(r.err, files[k]) && strstr(r.err, "is not a file a sweep into this folder wrote"),
                      "%s: not named in:\n%s", files[k], r.err);
        ck_assert_msg(tu_file_contains(path, "; mine\n"), "%s was overwritten", files[k]);
        snprintf(dir, sizeof dir, "%s/plan.txt", out);
        struct stat st;
        ck_assert_msg(stat(dir, &st) != 0, "%s: a plan.txt was left", files[k]);
        tu_result_free(&r);
        ck_assert_int_eq(remove(path), 0);
        for (int again = 0; again < 2; again++) {
            r = sweep(ini, "--plan", "--grid", "optim.lr=1e-3,2e-3", "--out", out, NULL);
            ck_assert_msg(r.rc == 0, "%s, pass %d: rc %d, stderr:\n%s", files[k], again, r.rc,
                          r.err);
            tu_result_free(&r);
        }
    }
}
END_TEST

/* A jobs.txt is the sweep's when every line is exactly a --sweep-run command of this folder's
 * configs as this version writes it (a plain path bare) or as earlier ones did (every word
 * quoted): a folder without plan.txt holding either is planned again; one naming another folder's
 * configs, a line with text around the command (it was recognised by the text inside it), a
 * word quoted the other way, a line of the user's after ours, or a CRLF line, is the user's:
 * refused (exit 2), the file and its first such line named (a CR as \r), the file kept. */
START_TEST(test_jobs_txt_recognised) {
    static const struct {
        const char *line; /* %s: the sweep folder */
        int rc;
        const char *named; /* the foreign line as the message names it */
    } JOBS[] = {{"/x/train --sweep-run %s/configs/lr-1e-3.ini\n", 0, NULL},
                {"'/x/train' --sweep-run '%s/configs/lr-1e-3.ini'\n", 0, NULL},
                {"/x/train --sweep-run %s/other/configs/lr-1e-3.ini\n", 2, "line 1: '/x/train"},
                {"cd /tmp; /x/train --sweep-run %s/configs/x.ini; rm -f mine\n", 2, "line 1: 'cd"},
                {"/x/train --sweep-run %s/configs/x.ini && rm -f mine\n", 2, "&& rm -f mine'"},
                {"'/x/train' --sweep-run %s/configs/x.ini\n", 2, "line 1: ''/x/train'"},
                {"/x/train --sweep-run %s/configs/x.ini\nmy own line\n", 2, "line 2: 'my own line'"},
                /* a CRLF line: its CR quoted escaped (raw, the rest of the message overwrote
                 * the line on a terminal) */
                {"/x/train --sweep-run %s/configs/lr-1e-3.ini\r\n", 2, "lr-1e-3.ini\\r'"}};
    char ini[128], out[128], path[200], text[400];
    snprintf(ini, sizeof ini, "%s/tiny.ini", g_tmp);
    tu_write_file(ini, TINY_INI);
    for (size_t k = 0; k < sizeof JOBS / sizeof JOBS[0]; k++) {
        snprintf(out, sizeof out, "%s/jobs%zu", g_tmp, k);
        ck_assert_int_eq(mkdir(out, 0755), 0);
        snprintf(path, sizeof path, "%s/jobs.txt", out);
        snprintf(text, sizeof text, JOBS[k].line, out);
        tu_write_file(path, text);
        TuResult r = sweep(ini, "--plan", "--grid", "optim.lr=1e-3", "--out", out, NULL);
        ck_assert_msg(r.rc == JOBS[k].rc, "case %zu: rc %d, stderr:\n%s", k, r.rc, r.err);
        if (JOBS[k].named) {
            ck_assert_msg(strstr(r.err, path) && strstr(r.err, JOBS[k].named),
                          "case %zu: '%s' not named in:\n%s", k, JOBS[k].named, r.err);
            ck_assert_msg(!strchr(r.err, '\r'), "case %zu: a raw CR in:\n%s", k, r.err);
            ck_assert_msg(tu_file_contains(path, text), "case %zu: jobs.txt overwritten", k);
        }
        tu_result_free(&r);
    }
}
END_TEST

/* A folder with this plan's plan.txt whose jobs.txt holds a line of the user's after the sweep's
 * (their own command, appended for xargs) is refused on a re-plan: exit 2, the line named, the
 * file kept; with the sweep's own jobs.txt the re-plan goes on. */
START_TEST(test_user_jobs_line_kept_on_replan) {
    char ini[128], out[128], path[200];
    snprintf(ini, sizeof ini, "%s/tiny.ini", g_tmp);
    tu_write_file(ini, TINY_INI);
    snprintf(out, sizeof out, "%s/replan", g_tmp);
    snprintf(path, sizeof path, "%s/jobs.txt", out);
    TuResult r = sweep(ini, "--plan", "--grid", "optim.lr=1e-3,2e-3", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "first plan: rc %d, stderr:\n%s", r.rc, r.err);
    tu_result_free(&r);
    size_t len;
    char *ours = tu_read_file(path, &len), text[4096];
    ck_assert(ours && len + 32 < sizeof text);
    snprintf(text, sizeof text, "%smy own line\n", ours);
    tu_write_file(path, text);
    r = sweep(ini, "--plan", "--grid", "optim.lr=1e-3,2e-3", "--out", out, NULL);
    ck_assert_msg(r.rc == 2 && strstr(r.err, path) && strstr(r.err, "line 3: 'my own line'"),
                  "re-plan over a user's line: rc %d, stderr:\n%s", r.rc, r.err);
    ck_assert_msg(tu_file_contains(path, "my own line\n"), "the user's line was lost");
    tu_result_free(&r);
    tu_write_file(path, ours);
    r = sweep(ini, "--plan", "--grid", "optim.lr=1e-3,2e-3", "--out", out, NULL);
    ck_assert_msg(r.rc == 0, "re-plan over its own jobs.txt: rc %d, stderr:\n%s", r.rc, r.err);
    tu_result_free(&r);
    free(ours);
}
END_TEST

/* A folder without plan.txt holding a report file the sweep writes after its runs (summary.txt,
 * index.html, a figure) that a sweep did not write (a link there neither) is refused before
 * anything is written: exit code 2, the file named and kept, no plan.txt left. One that reads
 * like ours (a sweep whose plan.txt was deleted) is fine. (file, its text, "->" a link to that
 * path; ../ours.txt reads like our summary.txt; exit code) */
#define OUR_SVG                                                                                    \
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "     \
    "width=\"1\" height=\"1\" viewBox=\"0 0 1 1\" font-family=\"DejaVu Sans, Helvetica, Arial, "  \
    "sans-serif\" font-size=\"12\">\n</svg>\n"
static const struct {
    const char *file, *text;
    int rc;
} REPORT_FILES[] = {
    {"index.html", "my page\n", 2},
    {"summary.txt", "my notes\n", 2},
    {"sweep_loss.svg", "<svg/>\n", 2},
    {"other.svg", "<svg/>\n", 0}, /* not a name the report uses: never touched */
    {"index.html", "->victim.html", 2}, /* a link to a file */
    {"summary.txt", "->nowhere", 2},    /* a dangling link */
    {"summary.txt", "->../ours.txt", 2}, /* a link to a file that reads like ours */
    {"summary.txt", "sweep report of o/sweep.csv: 2 runs\n", 0},
    {"index.html", "<!DOCTYPE html>\n<title>scaledot sweep: o</title>\n", 0},
    {"sweep_lr.svg", OUR_SVG, 0},
    {"notes.txt", "not a report file\n", 0},
};

START_TEST(test_user_report_files_not_overwritten) {
    char ini[128], out[128], path[200], want[300];
    snprintf(ini, sizeof ini, "%s/tiny.ini", g_tmp);
    tu_write_file(ini, TINY_INI);
    snprintf(path, sizeof path, "%s/ours.txt", g_tmp);
    tu_write_file(path, "sweep report of o/sweep.csv: 2 runs\n");
    snprintf(out, sizeof out, "%s/user", g_tmp);
    ck_assert_int_eq(mkdir(out, 0755), 0);
    snprintf(path, sizeof path, "%s/%s", out, REPORT_FILES[_i].file);
    const char *text = REPORT_FILES[_i].text;
    if (strncmp(text, "->", 2) == 0) ck_assert_int_eq(symlink(text + 2, path), 0);
    else tu_write_file(path, text);
    TuResult r = sweep(ini, "--plan", "--grid", "optim.lr=1e-3", "--out", out, NULL);
    ck_assert_msg(r.rc == REPORT_FILES[_i].rc, "rc %d, stderr:\n%s", r.rc, r.err);
    snprintf(want, sizeof want, "error: '%s' is not a file a sweep into this folder wrote", path);
    ck_assert_msg(REPORT_FILES[_i].rc == 0 || strstr(r.err, want), "not named in:\n%s", r.err);
    tu_result_free(&r);
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    if (strncmp(text, "->", 2) == 0) ck_assert(S_ISLNK(st.st_mode));
    else ck_assert(tu_file_contains(path, text));
    if (REPORT_FILES[_i].rc == 0) return;
    snprintf(path, sizeof path, "%s/plan.txt", out);
    ck_assert_msg(lstat(path, &st) != 0, "a plan.txt was left");
    snprintf(path, sizeof path, "%s/configs", out);
    ck_assert_msg(lstat(path, &st) != 0, "configs/ was made");
}
END_TEST

/* A sweep folder given as a symbolic link (with or without a trailing '/') is refused, for every
 * mode that writes into it, naming it; nothing is written into the folder it points at. */
START_TEST(test_linked_sweep_folder_refused) {
    char ini[128], real[128], link[128], arg[140], want[300], cmd[400];
    snprintf(ini, sizeof ini, "%s/tiny.ini", g_tmp);
    tu_write_file(ini, TINY_INI);
    snprintf(real, sizeof real, "%s/real", g_tmp);
    snprintf(link, sizeof link, "%s/link", g_tmp);
    ck_assert_int_eq(mkdir(real, 0755), 0);
    ck_assert_int_eq(symlink(real, link), 0);
    for (int k = 0; k < 4; k++) {
        snprintf(arg, sizeof arg, "%s%s", link, k % 2 ? "/" : "");
        TuResult r = k < 2 ? sweep(ini, "--plan", "--grid", "optim.lr=1e-3", "--out", arg, NULL)
                           : sweep("--collect", "--out", arg, NULL);
        ck_assert_msg(r.rc == 2, "case %d: rc %d, stderr:\n%s", k, r.rc, r.err);
        snprintf(want, sizeof want, "error: sweep folder '%s' is a symbolic link", arg);
        ck_assert_msg(strstr(r.err, want), "case %d: not named in:\n%s", k, r.err);
        tu_result_free(&r);
    }
    snprintf(cmd, sizeof cmd, "[ -z \"$(ls -A %s)\" ]", real);
    ck_assert_msg(system(cmd) == 0, "a file was written through the link");
}
END_TEST

TU_MAIN_FIXTURE_TIMEOUT("plan", make_tmp, remove_tmp, 30, test_expand, test_run_config,
                        test_parse_and_compare, test_older_plan_without_new_keys, test_refused, test_out_bytes_refused,
                        test_parse_refused_edits, test_bad_config_file, test_collect_refused,
                        test_old_sweep_folder, test_user_files_not_overwritten, test_jobs_txt_recognised,
                        test_user_jobs_line_kept_on_replan,
                        TU_LOOP(test_user_report_files_not_overwritten, 0,
                                (int)(sizeof REPORT_FILES / sizeof REPORT_FILES[0])),
                        test_linked_sweep_folder_refused);
