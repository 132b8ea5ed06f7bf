/* test_cmd_train.c: the default command's command line (src/cli/cmd_train.c), table-driven: which
 * lines are refused before any file is read (exit code 2, the message, and whether the usage
 * follows), what a good line fills in, the run-folder split of --resume / --eval, the --set
 * keys a resumed run may change, the length of an --eval --prompt against the run's task, and
 * a run folder's path with control bytes quoted escaped ("." and ".." resolved to the folder's
 * own name). The command end to end is test_main.c's and test_input_errors.c's. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/cli_internal.h"
#include "cli/cli.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static void fake_usage(FILE *f) { fputs("usage: fake\n", f); }

/* cli_train_parse as a command (for tu_call); what it read is left in g_args. */
static TrainArgs g_args;
static int parse_cmd(int argc, char **argv) {
    return cli_train_parse(&g_args, argc, argv, fake_usage);
}

/* the whole command (cli/cli.h), for lines refused before any work */
static int train_cmd(int argc, char **argv) { return cli_train(argc, argv, fake_usage); }

typedef struct {
    const char *args[8];  /* argv: the program, then the arguments, NULL-terminated */
    int rc;
    const char *err;      /* the whole of stderr */
} BadLine;

static const BadLine BAD[] = {
    {{"./train", "--resume"}, 2, "error: --resume (argument 1): needs a run folder\n"},
    {{"./train", "a.ini", "--eval"}, 2, "error: --eval (argument 2): needs a run folder\n"},
    {{"./train", "--eval", "r", "--prompt"}, 2,
     "error: --prompt (argument 3): needs the prompt's symbols, e.g. --prompt \"3 1 2 9 8 7 15 0\"\n"},
    {{"./train", "--set"}, 2, "error: --set (argument 1): needs section.key=value\nusage: fake\n"},
    {{"./train", "a.ini", "--set", "optim.lr", "1e-3"}, 2,
     "error: --set (argument 3): 'optim.lr' is not section.key=value; --set needs one argument "
     "section.key=value, with '=' and no spaces (e.g. --set optim.lr=1e-3)\n"},
    /* the place in front: the argument at fault (util/error_list.h) */
    {{"./train", "--bogus"}, 2, "error: --bogus (argument 1): unknown option\nusage: fake\n"},
    {{"./train", "-"}, 2, "error: - (argument 1): unknown option\nusage: fake\n"},
    {{"./train", "--set", "a.b=1", "--bogus"}, 2,
     "error: --bogus (argument 3): unknown option\nusage: fake\n"},
    {{"./train", "a.ini", "b.ini"}, 2,
     "error: b.ini (argument 2): more than one config file (the first: 'a.ini', argument 1); "
     "give one\n"},
    {{"./train", "a.ini", "--where", "b.ini"}, 2,
     "error: b.ini (argument 3): more than one config file (the first: 'a.ini', argument 1); "
     "give one\n"},
    {{"./train", "--prompt", "1 2"}, 2,
     "error: --prompt (argument 2): goes with --eval RUN_DIR (the model that answers it)\n"},
    {{"./train", "--resume", "r", "--prompt", "1 2"}, 2,
     "error: --prompt (argument 4): goes with --eval RUN_DIR (the model that answers it)\n"},
    {{"./train", "--resume", "r", "a.ini"}, 2,
     "error: a.ini (argument 3): excludes --resume (argument 2); --resume and --eval take a run "
     "folder only (no config file)\n"},
    {{"./train", "--resume", "r", "--eval", "s"}, 2,
     "error: --eval (argument 4): excludes --resume (argument 2); --resume and --eval take a run "
     "folder only (no config file)\n"},
    {{"./train", "--resume", "a", "--resume", "b"}, 2,
     "error: --resume (argument 4): given twice (first at argument 2); give it once\n"},
    {{"./train", "--eval", "a", "--eval", "a"}, 2,
     "error: --eval (argument 4): given twice (first at argument 2); give it once\n"},
    {{"./train", "--eval", "r", "--prompt", "1", "--prompt", "2"}, 2,
     "error: --prompt (argument 6): given twice (first at argument 4); give it once\n"},
    {{"./train", "--resume", ""}, 2,
     "error: --resume (argument 2): needs a run folder, got an empty argument\n"},
    /* an option where the folder belongs: the folder forgotten, not a folder named so */
    {{"./train", "--resume", "--set", "run.threads=1", "runs/tiny"}, 2,
     "error: --resume (argument 1): needs a run folder, got the option '--set' (a folder whose "
     "name starts with '--' is spelled './--set')\n"},
    {{"./train", "--eval", "--prompt", "1 2 3 4", "runs/tiny"}, 2,
     "error: --eval (argument 1): needs a run folder, got the option '--prompt' (a folder whose "
     "name starts with '--' is spelled './--prompt')\n"},
    {{"./train", "a.ini", "--resume", "--bogus"}, 2,
     "error: --resume (argument 2): needs a run folder, got the option '--bogus' (a folder whose "
     "name starts with '--' is spelled './--bogus')\n"},
    /* a flag without a value given twice, as one with (--where was the only one refused) */
    {{"./train", "--print-config", "a.ini", "--print-config"}, 2,
     "error: --print-config (argument 3): given twice (first at argument 1); give it once\n"},
    {{"./train", "--where", "--where"}, 2,
     "error: --where (argument 2): given twice (first at argument 1); give it once\n"},
    /* the user's text quoted escaped (util/error_list.h) */
    {{"./train", "a\x1b[2J.ini", "b\r.ini"}, 2,
     "error: b\\r.ini (argument 2): more than one config file (the first: 'a\\x1b[2J.ini', "
     "argument 1); give one\n"},
    {{"./train", "--bogus\xc2\x9b"}, 2,
     "error: --bogus\\xc2\\x9b (argument 1): unknown option\nusage: fake\n"},
    /* --generate and its sampling options: each value checked, each option once */
    {{"./train", "--generate", "0"}, 2,
     "error: --generate (argument 2): needs a number of tokens from 1 to 100000, got '0'\n"},
    {{"./train", "--generate", "100001"}, 2,
     "error: --generate (argument 2): needs a number of tokens from 1 to 100000, got '100001'\n"},
    {{"./train", "--generate", "-5"}, 2,
     "error: --generate (argument 2): needs a number of tokens from 1 to 100000, got '-5'\n"},
    {{"./train", "--generate"}, 2,
     "error: --generate (argument 1): needs a number of tokens from 1 to 100000, got nothing (the "
     "line ends there)\n"},
    {{"./train", "--generate", ""}, 2,
     "error: --generate (argument 2): needs a number of tokens from 1 to 100000, got an empty "
     "argument\n"},
    {{"./train", "--top-k", ""}, 2,
     "error: --top-k (argument 2): needs a whole number from 0 (every token) to the vocabulary's size, got an empty "
     "argument\n"},
    {{"./train", "--temperature", ""}, 2,
     "error: --temperature (argument 2): needs a finite decimal number >= 0 (0 = greedy), got an "
     "empty argument\n"},
    {{"./train", "--seed"}, 2,
     "error: --seed (argument 1): needs an integer in [0, 2^64-1], got nothing (the line ends "
     "there)\n"},
    {{"./train", "--temperature", "-1"}, 2,
     "error: --temperature (argument 2): needs a finite decimal number >= 0 (0 = greedy), got '-1'\n"},
    {{"./train", "--temperature", "nan"}, 2,
     "error: --temperature (argument 2): needs a finite decimal number >= 0 (0 = greedy), got 'nan'\n"},
    {{"./train", "--temperature", "1e999"}, 2,
     "error: --temperature (argument 2): needs a finite decimal number >= 0 (0 = greedy), got '1e999'\n"},
    {{"./train", "--temperature", "0.8x"}, 2,
     "error: --temperature (argument 2): needs a finite decimal number >= 0 (0 = greedy), got '0.8x'\n"},
    {{"./train", "--temperature", " 1"}, 2,
     "error: --temperature (argument 2): needs a finite decimal number >= 0 (0 = greedy), got ' 1'\n"},
    /* strtod reads hexadecimal: 0x10 was taken as 16 (issue 33) */
    {{"./train", "--temperature", "0x10"}, 2,
     "error: --temperature (argument 2): needs a finite decimal number >= 0 (0 = greedy), got '0x10'\n"},
    {{"./train", "--temperature", "0X1p-1"}, 2,
     "error: --temperature (argument 2): needs a finite decimal number >= 0 (0 = greedy), got '0X1p-1'\n"},
    {{"./train", "--top-k", "-1"}, 2,
     "error: --top-k (argument 2): needs a whole number from 0 (every token) to the vocabulary's size, got '-1'\n"},
    /* past INT_MAX: the message names the bound the model checks later (issue 41's break10) */
    {{"./train", "--top-k", "99999999999"}, 2,
     "error: --top-k (argument 2): needs a whole number from 0 (every token) to the vocabulary's size, "
     "got '99999999999'\n"},
    {{"./train", "--top-k", "2.5"}, 2,
     "error: --top-k (argument 2): needs a whole number from 0 (every token) to the vocabulary's size, got '2.5'\n"},
    {{"./train", "--seed", "-1"}, 2,
     "error: --seed (argument 2): needs an integer in [0, 2^64-1], got '-1'\n"},
    {{"./train", "--seed", "18446744073709551616"}, 2,
     "error: --seed (argument 2): needs an integer in [0, 2^64-1], got '18446744073709551616'\n"},
    {{"./train", "--seed", "1", "--seed", "1"}, 2,
     "error: --seed (argument 4): given twice (first at argument 2); give it once\n"},
    {{"./train", "--generate", "3", "--generate", "4"}, 2,
     "error: --generate (argument 4): given twice (first at argument 2); give it once\n"},
    {{"./train", "--temperature", "1", "--temperature", "0"}, 2,
     "error: --temperature (argument 4): given twice (first at argument 2); give it once\n"},
    {{"./train", "--top-k", "1", "--top-k", "2"}, 2,
     "error: --top-k (argument 4): given twice (first at argument 2); give it once\n"},
    {{"./train", "--eval", "r", "--prompt", "a", "--seed", "3"}, 2,
     "error: --seed (argument 6): goes with --generate N (it sets how the generated tokens are "
     "sampled)\n"},
    {{"./train", "--eval", "r", "--generate", "3"}, 2,
     "error: --generate (argument 4): goes with --eval RUN_DIR --prompt \"TEXT\" (the start it "
     "continues)\n"},
    {{"./train", "--prompt", "a", "--generate", "3"}, 2,
     "error: --prompt (argument 2): goes with --eval RUN_DIR (the model that answers it)\n"},
    /* options that do not go together: at the option at fault, or the later of two that exclude
     * each other (the earlier named); the first sampling option given */
    {{"./train", "--eval", "r", "--top-k", "2", "--seed", "3"}, 2,
     "error: --top-k (argument 4): goes with --generate N (it sets how the generated tokens are "
     "sampled)\n"},
    {{"./train", "a.ini", "--eval", "r"}, 2,
     "error: --eval (argument 3): excludes a.ini (argument 1); --resume and --eval take a run "
     "folder only (no config file)\n"},
    {{"./train", "--eval", "s", "--resume", "r"}, 2,
     "error: --resume (argument 4): excludes --eval (argument 2); --resume and --eval take a run "
     "folder only (no config file)\n"},
    {{"./train", "--print-config", "--where"}, 2,
     "error: --where (argument 2): excludes --print-config (argument 1); --where places a config "
     "file on the lr map and goes with neither --print-config, --resume nor --eval\n"},
    {{"./train", "--where", "--resume", "r"}, 2,
     "error: --resume (argument 3): excludes --where (argument 1); --where places a config file "
     "on the lr map and goes with neither --print-config, --resume nor --eval\n"},
    {{"./train", "--bogus", "--help"}, 2,
     "error: --bogus (argument 1): unknown option\nusage: fake\n"}, /* in order */
    {{"./train", "a.ini", "--help", "--bogus"}, 0, ""}, /* --help first: usage on stdout */
    {{"./train", "-h"}, 0, ""},
    /* help in place of the run folder: the usage, not "cannot open '--help/checkpoint.bin'" */
    {{"./train", "--resume", "--help"}, 0, ""},
    {{"./train", "--eval", "-h"}, 0, ""},
    {{"./train", "--eval", "--help", "--prompt", "1 2"}, 0, ""},
};

START_TEST(test_bad_lines) {
    for (size_t k = 0; k < sizeof BAD / sizeof *BAD; k++) {
        TuResult r = tu_call(parse_cmd, BAD[k].args);
        ck_assert_msg(r.rc == BAD[k].rc, "case %zu (%s): rc %d, want %d", k, BAD[k].args[1], r.rc,
                      BAD[k].rc);
        ck_assert_msg(strcmp(r.err, BAD[k].err) == 0, "case %zu: stderr '%s', want '%s'", k, r.err,
                      BAD[k].err);
        ck_assert_msg(strcmp(r.out, r.rc == 0 ? "usage: fake\n" : "") == 0, "case %zu: stdout '%s'",
                      k, r.out);
        tu_result_free(&r);
    }
}
END_TEST

/* A line the whole command refuses once the config is read: exit code 2, the whole of stderr. */
typedef struct {
    const char *args[10]; /* argv, NULL-terminated */
    const char *err;
} RefusedLine;

static void check_refused(const RefusedLine *cases, size_t n) {
    for (size_t k = 0; k < n; k++) {
        TuResult r = tu_call(train_cmd, cases[k].args);
        ck_assert_msg(r.rc == 2, "case %zu: rc %d", k, r.rc);
        ck_assert_msg(strcmp(r.err, cases[k].err) == 0, "case %zu: stderr\n%swant\n%s", k, r.err,
                      cases[k].err);
        tu_result_free(&r);
    }
}

/* A good line: -1 (go on), nothing printed, each part where it belongs; --set values are left
 * for later (they are not config files). */
/* issue 33: one key set twice, the last silently won; both spellings, blanks around the key. Named
 * with every other bad --set of the line, in argument order, each once (it was named alone, and
 * hid them): the repeated --set's own bad value too, a mistake of its own. cli_train itself: the
 * --set are judged after the config file, not by cli_train_parse. */
START_TEST(test_set_twice_named_with_the_rest) {
    static const RefusedLine CASES[] = {
        {{"./train", "--set", "train.steps=3", "--set", "optim.lr=abc", "--set", "train.steps=5",
          "--set=model.d_modle=3"},
         "error: --set (argument 4): 'optim.lr': expected a number, got 'abc'\n"
         "error: --set (argument 6): 'train.steps' is already set by --set (argument 2); give it "
         "once\n"
         "error: --set (argument 7): unknown key 'model.d_modle'; did you mean 'model.d_model'?\n"},
        {{"./train", "--set=optim.lr=1e-3", "--set", " optim.lr =x"},
         "error: --set (argument 3): 'optim.lr' is already set by --set (argument 1); give it "
         "once\n"
         "error: --set (argument 3): 'optim.lr': expected a number, got 'x'\n"},
        /* blanks around the dot: the same key (config_set reads it so); it had gone unseen. The
         * key named as config_set reads it, as --sweep names it (it was quoted as written) */
        {{"./train", "--set", "optim.lr=1", "--set", "optim .lr=2", "--set", "optim. lr=3", "--set",
          "train.steps=x"},
         "error: --set (argument 4): 'optim.lr' is already set by --set (argument 2); give it "
         "once\n"
         "error: --set (argument 6): 'optim.lr' is already set by --set (argument 2); give it "
         "once\n"
         "error: --set (argument 8): 'train.steps': expected an integer, got 'x'\n"},
    };
    check_refused(CASES, sizeof CASES / sizeof *CASES);
}
END_TEST

/* The checks between keys are named with the bad values of the line, each at the argument of the
 * key it starts with (they came only once every value was good, one bad value hid them); a check
 * that involves a key whose value was refused is left out (it would judge the default, a value
 * the user did not give); both attention problems are named (the first hid the second). The
 * whole of stderr; the defaults (d_model 64, lr 0.001, constant schedule) from
 * docs/configuration.md. */
START_TEST(test_checks_between_keys_named_with_the_rest) {
    static const RefusedLine CASES[] = {
        {{"./train", "--set", "train.steps=x", "--set", "model.n_heads=3", "--set", "optim.lr=abc"},
         "error: --set (argument 2): 'train.steps': expected an integer, got 'x'\n"
         "error: --set (argument 4): 'model.n_heads' = 3 does not divide 'model.d_model' = 64 "
         "(default)\n"
         "error: --set (argument 6): 'optim.lr': expected a number, got 'abc'\n"},
        /* d_model refused: 64 is not the user's; no "does not divide" */
        {{"./train", "--set", "model.d_model=abc", "--set", "model.n_heads=3"},
         "error: --set (argument 2): 'model.d_model': expected an integer, got 'abc'\n"},
        /* lr refused: min_lr = 1 is not judged against the default 0.001 */
        {{"./train", "--set", "optim.schedule=cosine", "--set", "optim.min_lr=1", "--set",
          "optim.lr=abc"},
         "error: --set (argument 6): 'optim.lr': expected a number, got 'abc'\n"},
        {{"./train", "--set", "attention.qk_norm=rmsnorm", "--set", "attention.scale_init=2",
          "--set", "attention.qk_clip=5"},
         "error: --set (argument 4): 'attention.scale_init' = 2 is set, but 'attention.scale' is "
         "not learned (default): it is the learned factor's start; set attention.scale = "
         "learned, or remove attention.scale_init\n"
         "error: --set (argument 6): 'attention.qk_clip' = 5 cannot bound the logits with "
         "'attention.qk_norm' on (set at --set (argument 2)): qk-norm undoes the shrinking of "
         "the q and k weights; use one of the two\n"},
    };
    check_refused(CASES, sizeof CASES / sizeof *CASES);
}
END_TEST

START_TEST(test_good_lines) {
    static const struct {
        const char *args[9]; /* as in BAD */
        const char *config, *resume, *eval, *prompt;
        int print;
    } GOOD[] = {
        {{"./train", "a.ini", "--set", "x.y=1", "--set=p.q=2", "--print-config"}, "a.ini", NULL, NULL,
         NULL, 1},
        {{"./train", "--set", "x.y=1", "a.ini"}, "a.ini", NULL, NULL, NULL, 0},
        {{"./train", "--eval", "runs/s", "--prompt", "3 1 2"}, NULL, NULL, "runs/s", "3 1 2", 0},
        {{"./train", "--resume", "runs/s", "--set", "train.steps=9"}, NULL, "runs/s", NULL, NULL, 0},
        {{"./train", "--set=a"}, NULL, NULL, NULL, NULL, 0}, /* '=' form: config_set judges it later */
    };
    for (size_t k = 0; k < sizeof GOOD / sizeof *GOOD; k++) {
        TuResult r = tu_call(parse_cmd, GOOD[k].args);
        const TrainArgs a = g_args;
        ck_assert_msg(r.rc == -1, "case %zu: rc %d, stderr %s", k, r.rc, r.err);
        ck_assert_msg(!*r.out && !*r.err, "case %zu printed '%s%s'", k, r.out, r.err);
#define SAME(field, want) ((want) ? (field) && strcmp((field), (want)) == 0 : (field) == NULL)
        ck_assert_msg(SAME(a.config_path, GOOD[k].config), "case %zu: config", k);
        ck_assert_msg(SAME(a.resume_dir, GOOD[k].resume), "case %zu: resume", k);
        ck_assert_msg(SAME(a.eval_dir, GOOD[k].eval), "case %zu: eval", k);
        ck_assert_msg(SAME(a.prompt, GOOD[k].prompt), "case %zu: prompt", k);
#undef SAME
        ck_assert_msg(a.print_config == GOOD[k].print, "case %zu: print_config", k);
        tu_result_free(&r);
    }
}
END_TEST

/* --generate with its options, in either order; unset options keep their defaults. */
START_TEST(test_generate_lines) {
    static const struct {
        const char *args[12]; /* as in BAD */
        int n_new, top_k;
        double temperature;
        unsigned long long seed;
    } GOOD[] = {
        {{"./train", "--eval", "r", "--prompt", "ab", "--generate", "5"}, 5, 0, 1.0, 1},
        {{"./train", "--eval", "r", "--prompt", "ab", "--generate", "100000", "--temperature", "0",
          "--top-k", "3"}, 100000, 3, 0.0, 1},
        {{"./train", "--seed", "18446744073709551615", "--temperature", "0.25", "--generate", "1",
          "--eval", "r", "--prompt", "x"}, 1, 0, 0.25, 18446744073709551615ull},
        {{"./train", "--eval", "r", "--prompt", "x", "--generate", "7", "--temperature", "1e-3",
          "--seed", "0"}, 7, 0, 1e-3, 0},
    };
    for (size_t k = 0; k < sizeof GOOD / sizeof *GOOD; k++) {
        TuResult r = tu_call(parse_cmd, GOOD[k].args);
        const TrainArgs a = g_args;
        ck_assert_msg(r.rc == -1, "case %zu: rc %d, stderr %s", k, r.rc, r.err);
        ck_assert_msg(a.generate == 1 && a.gen.n_new == GOOD[k].n_new, "case %zu: n_new %d", k,
                      a.gen.n_new);
        ck_assert_msg(a.gen.top_k == GOOD[k].top_k, "case %zu: top_k %d", k, a.gen.top_k);
        ck_assert_msg(a.gen.temperature == GOOD[k].temperature, "case %zu: temperature %g", k,
                      a.gen.temperature);
        ck_assert_msg(a.gen.seed == GOOD[k].seed, "case %zu: seed", k);
        tu_result_free(&r);
    }
    /* without --generate: nothing to generate */
    const char *const plain[] = {"./train", "--eval", "r", "--prompt", "1 2", NULL};
    TuResult r = tu_call(parse_cmd, plain);
    ck_assert_int_eq(r.rc, -1);
    ck_assert_int_eq(g_args.generate, 0);
    tu_result_free(&r);
}
END_TEST

/* The length of an --eval --prompt against the run's task, by hand: sort/reverse/copy prompts
 * have task.length symbols, recall 2 * task.pairs + 1; a trailing separator is not one; a word
 * that is not one of the symbols 0 .. task.symbols - 1 is named before the count. */
START_TEST(test_prompt_length) {
    static const struct {
        TaskKind task;
        int length, pairs, symbols;
        const char *prompt;
        const char *err; /* NULL: accepted */
    } cases[] = {
        {TASK_SORT, 8, 0, 16, CLI_PROMPT_EXAMPLE, NULL}, /* --help's example, shipped sort */
        {TASK_SORT, 8, 0, 16, " 3 1 2 9\t8 7 15 0 | ", NULL},
        {TASK_SORT, 8, 0, 16, "3 1 2 9 8 7 15 0 <sep>", NULL},
        {TASK_SORT, 8, 0, 16, "3 1 2 9",
         "error: --prompt (argument 4): 4 symbols given, but a sort prompt of this run has 8 "
         "(task.length = 8), each one of 0 .. 15 (task.symbols = 16)\n"},
        {TASK_REVERSE, 3, 0, 6, "1",
         "error: --prompt (argument 4): 1 symbol given, but a reverse prompt of this run has 3 "
         "(task.length = 3), each one of 0 .. 5 (task.symbols = 6)\n"},
        {TASK_COPY, 3, 0, 6, "1 2 3 4 |",
         "error: --prompt (argument 4): 4 symbols given, but a copy prompt of this run has 3 "
         "(task.length = 3), each one of 0 .. 5 (task.symbols = 6)\n"},
        {TASK_RECALL, 0, 8, 16, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 3", NULL},
        {TASK_RECALL, 0, 8, 16, "1 2 |",
         "error: --prompt (argument 4): 2 symbols given, but a recall prompt of this run has 17: "
         "8 key-value pairs (task.pairs = 8), then the key to look up; each one of 0 .. 15 "
         "(task.symbols = 16)\n"},
        {TASK_SORT, 8, 0, 16, " | ",
         "error: --prompt (argument 4): no symbols given, but a sort prompt of this run has 8 "
         "(task.length = 8), each one of 0 .. 15 (task.symbols = 16)\n"},
        {TASK_FILE, 0, 0, 0, "a b", NULL}, /* lengths vary: left to the evaluation */
        /* a word that is not a symbol is named, not counted */
        {TASK_SORT, 8, 0, 16, "3,1,2,9,8,7,15,0",
         "error: --prompt (argument 4): '3,1,2,9,8,7,15,0' (symbol 1) is not in the task's "
         "alphabet (0 .. 15) of this run (task.symbols = 16); separate the symbols with spaces, "
         "not commas\n"},
        {TASK_SORT, 8, 0, 16, "3 1 2 9 8 7 16 0",
         "error: --prompt (argument 4): '16' (symbol 7) is not in the task's alphabet (0 .. 15) "
         "of this run (task.symbols = 16)\n"},
        {TASK_COPY, 3, 0, 6, "1 01 2",
         "error: --prompt (argument 4): '01' (symbol 2) is not in the task's alphabet (0 .. 5) "
         "of this run (task.symbols = 6)\n"},
        {TASK_COPY, 3, 0, 6, "1 | 2",
         "error: --prompt (argument 4): '|' (symbol 2) is not in the task's alphabet (0 .. 5) of "
         "this run (task.symbols = 6)\n"},
        {TASK_RECALL, 0, 1, 6, "1 x 3 <sep>",
         "error: --prompt (argument 4): 'x' (symbol 2) is not in the task's alphabet (0 .. 5) of "
         "this run (task.symbols = 6)\n"},
        {TASK_COPY, 3, 0, 6, "0 5 3 <sep>", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Config c;
        config_defaults(&c);
        c.task = cases[i].task;
        c.task_length = cases[i].length;
        c.task_pairs = cases[i].pairs;
        c.task_symbols = cases[i].symbols;
        TuCapture cap;
        tu_capture_begin(&cap, 2);
        int rc = cli_check_prompt_length(&c, cases[i].prompt, 4); /* ./train --eval r --prompt P */
        char *err = tu_capture_end(&cap);
        ck_assert_msg(rc == (cases[i].err ? 2 : -1), "case %zu: rc %d", i, rc);
        ck_assert_msg(strcmp(err, cases[i].err ? cases[i].err : "") == 0, "case %zu: %s", i, err);
        free(err);
    }
}
END_TEST

/* A run folder whose path holds an escape sequence, a CR, a C1 CSI and a lone 0x9b: every
 * message of --resume and --eval quotes it escaped (util/error_list.h), whether the folder is
 * missing, holds no checkpoint, or is a file; nothing raw reaches the terminal. Each line starts
 * with the folder's place, "--resume (argument 2): ", as every error line does. The folder's
 * config.ini is named with one slash after "dir/"; "/", which has none, names none. */
#define BAD_PATH "r\x1b[2J\rx\xc2\x9b\x9b"
#define BAD_SHOWN "r\\x1b[2J\\rx\\xc2\\x9b\\x9b"
START_TEST(test_run_folder_path_escaped) {
    char tmp[64], dir[128], file[128], line[600];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_cmd_train.XXXXXX");
    snprintf(dir, sizeof dir, "%s/" BAD_PATH, tmp);
    snprintf(file, sizeof file, "%s/f" BAD_PATH, tmp);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(line, sizeof line, "%s/config.ini", dir); /* named: the folder holds one */
    tu_write_file(line, "[run]\n");
    tu_write_file(file, "not a folder\n");
    static const char *const FLAGS[] = {"--resume", "--eval"};
    for (int f = 0; f < 2; f++) {
        const char *missing[] = {"./train", FLAGS[f], BAD_PATH, NULL};
        TuResult r = tu_call(train_cmd, missing);
        snprintf(line, sizeof line, "error: %s (argument 2): no such run folder '" BAD_SHOWN "'\n",
                 FLAGS[f]);
        ck_assert_int_eq(r.rc, 2);
        ck_assert_str_eq(r.err, line);
        tu_result_free(&r);
        const char *empty[] = {"./train", FLAGS[f], dir, NULL};
        r = tu_call(train_cmd, empty);
        snprintf(line, sizeof line, "error: %s (argument 2): the folder '%s/" BAD_SHOWN "' holds "
                 "no checkpoint", FLAGS[f], tmp);
        ck_assert_int_eq(r.rc, 2);
        ck_assert_msg(strstr(r.err, line) == r.err, "%s", r.err);
        snprintf(line, sizeof line, "(its settings are in %s/" BAD_SHOWN "/config.ini)", tmp);
        ck_assert_msg(strstr(r.err, line), "%s", r.err);
        tu_result_free(&r);
        /* the settings' path joined with one slash: "/" and "dir/" give no "//config.ini" */
        char slashed[160];
        snprintf(slashed, sizeof slashed, "%s/", dir);
        const char *root[] = {"./train", FLAGS[f], "/", NULL}, *trail[] = {"./train", FLAGS[f],
                                                                           slashed, NULL};
        r = tu_call(train_cmd, root);
        /* "/" holds no config.ini: none named */
        ck_assert_msg(r.rc == 2 && strstr(r.err, "holds no checkpoint") &&
                          !strstr(r.err, "config.ini"), "%s", r.err);
        tu_result_free(&r);
        r = tu_call(train_cmd, trail);
        ck_assert_msg(r.rc == 2 && strstr(r.err, line), "%s", r.err);
        tu_result_free(&r);
        const char *not_dir[] = {"./train", FLAGS[f], file, NULL};
        r = tu_call(train_cmd, not_dir);
        snprintf(line, sizeof line, "error: %s (argument 2): '%s/f" BAD_SHOWN "' is not a folder (a "
                 "run folder holds checkpoint.bin)\n", FLAGS[f], tmp);
        ck_assert_int_eq(r.rc, 2);
        ck_assert_str_eq(r.err, line);
        tu_assert_no_raw_control(r.err, FLAGS[f]);
        tu_result_free(&r);
    }
    tu_remove_tree(tmp);
}
END_TEST

/* Each spelling of a run folder and the run.dir and run.name it gives, written out by hand; inside
 * 1 for a path spelled from inside the tree (a ".." part), whose parent --resume does not record.
 * A leading "./" (tab completion's) or a doubled slash is the plain path's folder. */
START_TEST(test_split_run_dir) {
    static const struct { const char *path, *dir, *name; int inside; } CASES[] = {
        {"runs/scaled", "runs", "scaled", 0},    {"runs/scaled/", "runs", "scaled", 0},
        {"runs/scaled///", "runs", "scaled", 0}, {"scaled", ".", "scaled", 0},
        {"scaled/", ".", "scaled", 0},           {"/scaled", "/", "scaled", 0},
        {"/a/b/c", "/a/b", "c", 0},              {"./x", ".", "x", 0},
        {"./copies/orig", "copies", "orig", 0},  {"copies//orig/", "copies", "orig", 0},
        {"copies/./orig/.", "copies", "orig", 0}, {"runs//s1", "runs", "s1", 0},
        {".//runs//s1//", "runs", "s1", 0},      {"//a//b", "/a", "b", 0},
        {"../tiny", "..", "tiny", 1},            {"./../tiny/", "..", "tiny", 1},
        {"a/../b", "a/..", "b", 1},
        {"", NULL, NULL, 0},                     {"/", NULL, NULL, 0}, /* no name */
        {"//", NULL, NULL, 0},                   {"/.", NULL, NULL, 0},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        Config c;
        config_defaults(&c);
        TuCapture ce;
        tu_capture_begin(&ce, 2);
        int rc = cli_split_run_dir(CASES[k].path, &c, "--resume (argument 2)", 1);
        char *err = tu_capture_end(&ce);
        if (CASES[k].dir) {
            ck_assert_msg(rc == CASES[k].inside, "case %zu ('%s'): %d: %s", k, CASES[k].path, rc,
                          err);
            ck_assert_msg(strcmp(c.run_dir, CASES[k].dir) == 0, "case %zu: dir '%s'", k, c.run_dir);
            ck_assert_msg(strcmp(c.run_name, CASES[k].name) == 0, "case %zu: name '%s'", k,
                          c.run_name);
        } else {
            ck_assert_msg(rc == -1, "case %zu ('%s'): accepted", k, CASES[k].path);
            /* at the place given: the argument that named the folder */
            ck_assert_msg(strncmp(err, "error: --resume (argument 2): run folder path ", 46) == 0,
                          "case %zu: '%s'", k, err);
        }
        free(err);
    }
    /* a name that does not fit run.name */
    char long_path[CONFIG_STR + 8];
    memset(long_path, 'n', sizeof long_path - 1);
    long_path[sizeof long_path - 1] = 0;
    Config c;
    config_defaults(&c);
    TuCapture ce;
    tu_capture_begin(&ce, 2);
    ck_assert_int_eq(cli_split_run_dir(long_path, &c, NULL, 0), -1);
    free(tu_capture_end(&ce));
    /* a folder part of 256 bytes: refused only where run.dir is written (need_dir, not spelled
     * from inside), saying run.dir's limit; else the name is taken, run.dir left as it was */
    char long_dir[CONFIG_STR + 16];
    memset(long_dir, 'd', CONFIG_STR);
    snprintf(long_dir + CONFIG_STR, sizeof long_dir - CONFIG_STR, "/tiny");
    char up[sizeof long_dir + 8];
    snprintf(up, sizeof up, "%s/../x", long_dir);
    static const struct { int need, up, rc; } DIRS[] = {
        {1, 0, -1}, {0, 0, 0}, {1, 1, 1}, {0, 1, 1}};
    for (size_t k = 0; k < sizeof DIRS / sizeof *DIRS; k++) {
        config_defaults(&c);
        snprintf(c.run_dir, sizeof c.run_dir, "stored");
        tu_capture_begin(&ce, 2);
        int rc = cli_split_run_dir(DIRS[k].up ? up : long_dir, &c, "--resume (argument 2)",
                                   DIRS[k].need);
        char *err = tu_capture_end(&ce);
        ck_assert_msg(rc == DIRS[k].rc, "case %zu: %d: %s", k, rc, err);
        ck_assert_str_eq(c.run_dir, "stored");
        if (rc < 0)
            ck_assert_msg(strstr(err, "' (256 bytes) is too long for run.dir (at most 255 bytes)"),
                          "%s", err);
        else
            ck_assert_str_eq(c.run_name, DIRS[k].up ? "x" : "tiny");
        free(err);
    }
}
END_TEST

/* "." and a path ending in ".." name the folder they lead to: its run is that folder's own name,
 * never '.' or '..' (which --resume would write as run.name), its run.dir the real path's parent,
 * made by hand: the temp folder's real path (mkdtemp under /tmp, which may itself be a link). A
 * path's "." parts are dropped by its text alone: tmp/tiny/. is run tiny of run.dir tmp as
 * spelled. */
START_TEST(test_split_run_dir_dots) {
    char tmp[256], sub[300], real[4096];
    tu_make_tmp(tmp, sizeof tmp, "/tmp/test_cmd_train.XXXXXX");
    snprintf(sub, sizeof sub, "%s/tiny", tmp);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    snprintf(sub, sizeof sub, "%s/tiny/deeper", tmp);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    ck_assert_ptr_nonnull(realpath(tmp, real));
    static const struct { const char *tail; int real; } TAILS[] = {
        {"/tiny/.", 0}, {"/tiny/./", 0}, {"/tiny/./.", 0}, {"/tiny/deeper/..", 1},
        {"/tiny/deeper/../", 1}};
    for (size_t k = 0; k < sizeof TAILS / sizeof *TAILS; k++) {
        char path[400];
        snprintf(path, sizeof path, "%s%s", tmp, TAILS[k].tail);
        Config c;
        config_defaults(&c);
        ck_assert_msg(cli_split_run_dir(path, &c, NULL, 1) == TAILS[k].real, "'%s': not %d", path,
                      TAILS[k].real);
        ck_assert_msg(strcmp(c.run_name, "tiny") == 0, "'%s': name '%s'", path, c.run_name);
        const char *want = TAILS[k].real ? real : tmp;
        ck_assert_msg(strcmp(c.run_dir, want) == 0, "'%s': dir '%s', want '%s'", path, c.run_dir,
                      want);
    }
    /* "." from inside the run folder: the folder's own name, its real parent */
    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    snprintf(sub, sizeof sub, "%s/tiny", tmp);
    ck_assert_int_eq(chdir(sub), 0);
    Config c;
    config_defaults(&c);
    int rc = cli_split_run_dir("./", &c, NULL, 1);
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_int_eq(rc, 1);
    ck_assert_str_eq(c.run_name, "tiny");
    ck_assert_str_eq(c.run_dir, real);
    tu_remove_tree(tmp);
}
END_TEST

START_TEST(test_resumable_override) {
    static const struct { const char *assignment; int ok; } CASES[] = {
        {"train.steps=100", 1}, {"run.threads=1", 1}, {"log.progress=0", 1},
        {" train . steps = 5", 1}, {"train.lr=1", 0}, {"optim.lr=1e-3", 0},
        {"run.name=x", 0}, {"train.steps_x=1", 0}, {"model.d_model=8", 0},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++)
        ck_assert_msg(cli_resumable_override(CASES[k].assignment) == CASES[k].ok, "case %zu (%s)",
                      k, CASES[k].assignment);
}
END_TEST

TU_MAIN("cli_train", test_bad_lines, test_set_twice_named_with_the_rest,
        test_checks_between_keys_named_with_the_rest, test_good_lines,
        test_generate_lines, test_prompt_length, test_run_folder_path_escaped, test_split_run_dir,
        test_split_run_dir_dots,
        test_resumable_override);
