/* main.c: the command line of ./train: a table of subcommands (src/cli/, one file each) and
 * the dispatch to them. It only wires the parts together. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_internal.h"
#include "util/error_list.h"
#include "util/exit_codes.h"
#include "util/provenance.h"

/* One subcommand: its name (argv[1]), its handler (given the arguments after the name), what
 * follows the name, and one line of help. The rows without a handler are read by the train
 * command (cli/cmd_train.c) anywhere on its line; a first argument that is no subcommand's name is
 * the train command's too (./train CONFIG.ini [--set ...]). */
typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis;
    const char *help;
} Command;

static const Command COMMANDS[] = {
    {"", NULL, "[CONFIG.ini] [--set section.key=value ...]",
     "train the model CONFIG describes into runs/<run.name>/ (below)"},
    {"--print-config", NULL, "[CONFIG.ini] [--set ...]", "print the resolved config"},
    {"--where", NULL, "[CONFIG.ini] [--set ...]",
     "place the config on the measured learning-rate map (the lr thresholds at its width and\n"
     "           scale, the nearest measured runs, a verdict); trains nothing, writes nothing"},
    {"--resume", NULL, "RUN_DIR [--set train.steps=N]", "continue from RUN_DIR/checkpoint.bin"},
    {"--eval", NULL,
     "RUN_DIR [--prompt \"" CLI_PROMPT_EXAMPLE "\" [--generate N [--temperature X]\n"
     "                       [--top-k K] [--seed S]]]",
     "validation accuracy, wrong answers first; --prompt: the model's answer to your prompt\n"
     "           (a sort run of configs/scaled.ini reads 8 symbols from 0 to 15, as above);\n"
     "           --generate: N tokens sampled after it (temperature 0 = greedy, default 1; top-k\n"
     "           0 = every token, the default; seed default 1)"},
    {"--export", cli_export, "RUN_DIR FILE.safetensors [--val VAL.safetensors]",
     "the run's parameters in the safetensors format (see ./train --export --help)"},
    {"--compare", cli_compare, "RUN_DIR RUN_DIR ... [--out DIR] [--log-scale|--linear]",
     "summary table, SVG figures and index.html of the runs (see ./train --compare --help)"},
    {"--softmax-table", cli_softmax_table, "[--seed N] [--samples N] [--keys N]",
     "the worked numbers behind the 1/sqrt(d_k) scale; trains nothing"},
    {"--sweep", cli_sweep,
     "[CONFIG.ini] [--dk LIST] [--grid section.key=v1,v2 ...] [--jobs N]\n"
     "                       [--plan | --collect] ...",
     "one run per combination of the values listed (see ./train --sweep --help)"},
    {"--sweep-run", cli_sweep_run, "OUT/configs/RUN.ini", "one run of a sweep (its jobs.txt lines)"},
    {"--sweep-report", cli_sweep_report, "SWEEP_DIR",
     "summary, LR sensitivity, figures of SWEEP_DIR/sweep.csv"},
    {"--regime-map", cli_regime_map, "--out DIR SWEEP_DIR [SWEEP_DIR ...]",
     "accuracy and slowdown of every run against the predicted step-0 logit std"},
    {"--reference-table", cli_reference_table, "",
     "print every setting as docs/configuration.md's Markdown table"},
    {"--version", cli_version, "", "the version, git commit, compiler and flags of this build"},
    {"--help", NULL, "", "this text (also -h)"},
};
#define N_COMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

/* The table, then what a run writes and the exit codes. */
static void usage(FILE *f) {
    for (size_t i = 0; i < N_COMMANDS; i++) {
        const Command *c = &COMMANDS[i];
        fprintf(f, "%s./train%s%s%s%s\n           %s\n", i == 0 ? "usage: " : "       ",
                *c->name ? " " : "", c->name, *c->synopsis ? " " : "", c->synopsis, c->help);
    }
    fprintf(f,
            "\n"
            "Trains the tiny Transformer described by CONFIG (every key has a default; see\n"
            "docs/configuration.md) and writes runs/<run.name>/ (config.ini, loss.csv,\n"
            "grad_norms.csv, attention.csv, init_check.txt, attention maps, checkpoint.bin).\n"
            "--set overrides a key of the file; it may be repeated. ./train.sh trains the shipped\n"
            "sort pair (configs/scaled.ini, configs/unscaled.ini) side by side and compares them;\n"
            "./train.sh recall does the same for configs/recall_scaled.ini and recall_unscaled.ini,\n"
            "./train.sh text for configs/text_scaled.ini and text_unscaled.ini (a text corpus).\n"
            "Exit codes: 0 done, 1 I/O or memory error, 2 bad command line or config, 3 diverged,\n"
            "4 a guard stopped the run (guard.action = stop), 130 / 143 stopped by SIGINT / SIGTERM\n"
            "(checkpoint written: continue with --resume; a second signal stops at once).\n");
}

/* libgomp reads OMP_WAIT_POLICY once, before main. Its default lets waiting threads spin,
 * which made two-thread runs 4-10x slower whenever another process shared the cores (measured
 * on this project's 2-core machines). So, unless the user chose a policy, restart once with it
 * set to passive; OMP_WAIT_POLICY=active brings the spinning back. */
static void prefer_passive_openmp(char **argv) {
#ifdef _OPENMP
    if (getenv("OMP_WAIT_POLICY")) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    execv("/proc/self/exe", argv); /* returns only on failure: then carry on as we are */
#else
    (void)argv;
#endif
}

/* A command's output that did not arrive (a full disk, a closed pipe: SIGPIPE is ignored) is an
 * I/O error: exit code 1 unless the command already failed with its own code. */
static int check_stdout(int rc) {
    int err = fflush(stdout) != 0 ? errno : 0;
    if (err || ferror(stdout)) {
        error_add(NULL, 0, NULL, "cannot write to standard output: %s",
                  err ? strerror(err)
                      : "a write failed (a full disk, or a pipe its reader closed)");
        if (rc == EXIT_OK) rc = EXIT_RUNTIME;
    }
    return rc;
}

int main(int argc, char **argv) {
    prefer_passive_openmp(argv);
    provenance_set_command(argc, argv);
    /* A closed pipe (./train ... | head) must not kill a run before its checkpoint: writes to
     * it then fail with EPIPE instead, and the run goes on (the logs are files, not the pipe). */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        /* a bare ./train used to start a 2000-step run of the defaults: say how instead (any
         * argument will do: run.name has a default, "run") */
        fprintf(stderr, "error: no arguments, so nothing was trained. Give a config file (e.g. "
                        "./train configs/scaled.ini), or train every default with any --set, e.g. "
                        "./train --set run.seed=1 (into runs/run/; --set run.name=NAME names the "
                        "folder)\n");
        usage(stderr);
        return EXIT_CONFIG;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (COMMANDS[i].run && strcmp(argv[1], COMMANDS[i].name) == 0)
            return check_stdout(COMMANDS[i].run(argc - 2, argv + 2));
    return check_stdout(cli_train(argc, argv, usage));
}
