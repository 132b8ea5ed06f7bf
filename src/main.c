/* main.c: the command line of ./train. It only wires the parts together. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "report/report.h"
#include "report/sweep_report.h"
#include "sweep/sweep.h"
#include "train/checkpoint.h"
#include "train/task_source.h"
#include "train/train.h"
#include "util/provenance.h"
#include "util/version.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: ./train [CONFIG.ini] [--set section.key=value ...]\n"
            "       ./train --print-config [CONFIG.ini] [--set ...]   print the resolved config\n"
            "       ./train --resume RUN_DIR [--set train.steps=N]   continue from RUN_DIR/checkpoint.bin\n"
            "       ./train --eval RUN_DIR [--prompt \"3 1 2 ...\"]   validation accuracy, wrong answers\n"
            "                                     first; --prompt: the model's answer to your prompt\n"
            "       ./train --compare RUN_DIR RUN_DIR ... [--out DIR] [--log-scale|--linear]\n"
            "       ./train --softmax-table [--seed N] [--samples N] [--keys N]\n"
            "       ./train --sweep [CONFIG.ini] [--dk LIST] [--grid section.key=v1,v2 ...] [--jobs N]\n"
            "                       [--plan | --collect] ...   (see ./train --sweep --help)\n"
            "       ./train --sweep-run OUT/configs/RUN.ini   one run of a sweep (its jobs.txt lines)\n"
            "       ./train --version\n"
            "       ./train --sweep-report SWEEP_DIR   summary, LR sensitivity, figures of SWEEP_DIR/sweep.csv\n"
            "       ./train --reference-table   print every setting as the README's Markdown table\n"
            "       ./train --help\n"
            "\n"
            "Trains the tiny Transformer described by CONFIG (every key has a default; see the\n"
            "README's reference table) and writes runs/<run.name>/ (config.ini, loss.csv,\n"
            "grad_norms.csv, attention.csv, init_check.txt, attention maps, checkpoint.bin).\n"
            "--set overrides a key of the file; it may be repeated. ./train.sh trains the shipped\n"
            "sort pair (configs/scaled.ini, configs/unscaled.ini) side by side and compares them;\n"
            "./train.sh recall does the same for configs/recall_scaled.ini and recall_unscaled.ini.\n"
            "Exit codes: 0 done, 1 I/O or memory error, 2 bad command line or config, 3 diverged,\n"
            "4 a guard stopped the run (guard.action = stop), 130 / 143 stopped by SIGINT / SIGTERM\n"
            "(checkpoint written: continue with --resume).\n");
}

/* On --resume the checkpoint's configuration is the run's: only keys that cannot change the
 * numbers already logged may be overridden. */
static int resumable_override(const char *assignment) {
    static const char *const keys[] = {"train.steps", "run.threads", "log.progress"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (config_assignment_sets(assignment, keys[i])) return 1;
    return 0;
}

/* Sets run.dir and run.name from a run folder path ("runs/scaled/" -> "runs", "scaled"). */
static int split_run_dir(const char *path, Config *c) {
    char buf[CONFIG_STR * 2];
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    if (n == 0 || n >= sizeof buf) {
        fprintf(stderr, "error: run folder path '%s' is empty or too long\n", path);
        return -1;
    }
    memcpy(buf, path, n);
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    const char *name = slash ? slash + 1 : buf;
    const char *dir = slash ? (slash == buf ? "/" : (*slash = 0, buf)) : ".";
    if (strlen(name) >= CONFIG_STR || strlen(dir) >= CONFIG_STR || !*name) {
        fprintf(stderr, "error: run folder path '%s' is too long\n", path);
        return -1;
    }
    memcpy(c->run_name, name, strlen(name) + 1); /* lengths checked above */
    memcpy(c->run_dir, dir, strlen(dir) + 1);
    return 0;
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

int main(int argc, char **argv) {
    prefer_passive_openmp(argv);
    provenance_set_command(argc, argv);
    /* A closed pipe (./train ... | head) must not kill a run before its checkpoint: writes to
     * it then fail with EPIPE instead, and the run goes on (the logs are files, not the pipe). */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        /* a bare ./train used to start a 2000-step run of the defaults: say how instead */
        fprintf(stderr, "error: no arguments; to train the defaults say ./train --set run.name=NAME "
                        "(or give a config file)\n");
        usage(stderr);
        return EXIT_CONFIG;
    }
    Config c;
    config_defaults(&c);
    if (argc > 1 && strcmp(argv[1], "--compare") == 0) return report_compare(argc - 2, argv + 2);
    if (argc > 1 && strcmp(argv[1], "--sweep") == 0) return sweep_main(argc - 2, argv + 2);
    if (argc > 1 && strcmp(argv[1], "--sweep-run") == 0) return sweep_job_main(argc - 2, argv + 2);
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("scaledot %s\n", provenance_build());
        printf("built with %s, flags %s\n", provenance_compiler(), provenance_flags());
        return EXIT_OK;
    }
    if (argc > 1 && strcmp(argv[1], "--sweep-report") == 0)
        return argc == 3 ? sweep_report(argv[2], stdout)
                         : (fprintf(stderr, "usage: ./train --sweep-report SWEEP_DIR\n"), EXIT_CONFIG);
    if (argc > 1 && strcmp(argv[1], "--reference-table") == 0) {
        config_write_reference_table(stdout);
        return EXIT_OK;
    }
    if (argc > 1 && strcmp(argv[1], "--softmax-table") == 0)
        return report_softmax_table(argc - 2, argv + 2);
    const char *config_path = NULL, *resume_dir = NULL, *eval_dir = NULL, *prompt = NULL;
    int print_config = 0;
    /* The file first, so --set overrides it wherever it stands on the line. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return EXIT_OK;
        } else if (strcmp(argv[i], "--print-config") == 0) {
            print_config = 1;
        } else if (strcmp(argv[i], "--resume") == 0 || strcmp(argv[i], "--eval") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "error: %s needs a run folder\n", argv[i]);
                return EXIT_CONFIG;
            }
            if (argv[i][2] == 'r') resume_dir = argv[++i];
            else eval_dir = argv[++i];
        } else if (strcmp(argv[i], "--prompt") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "error: --prompt needs the prompt's symbols, e.g. --prompt \"3 1 2\"\n");
                return EXIT_CONFIG;
            }
            prompt = argv[++i];
        } else if (strcmp(argv[i], "--set") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "error: --set needs section.key=value\n");
                usage(stderr);
                return EXIT_CONFIG;
            }
            i++;
            /* `--set optim.lr 1e-3` would otherwise read 1e-3 as a second config file */
            if (!strchr(argv[i], '=')) {
                fprintf(stderr, "error: --set (argument %d): '%s' is not section.key=value; --set needs "
                                "one argument section.key=value, with '=' and no spaces (e.g. --set optim.lr=1e-3)\n",
                        i, argv[i]);
                return EXIT_CONFIG;
            }
        } else if (strncmp(argv[i], "--set=", 6) == 0) {
            continue;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "error: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return EXIT_CONFIG;
        } else if (config_path) {
            fprintf(stderr, "error: more than one config file ('%s' and '%s')\n", config_path, argv[i]);
            return EXIT_CONFIG;
        } else {
            config_path = argv[i];
        }
    }
    if (prompt && !eval_dir) {
        fprintf(stderr, "error: --prompt goes with --eval RUN_DIR (the model that answers it)\n");
        return EXIT_CONFIG;
    }
    const char *run_dir = resume_dir ? resume_dir : eval_dir;
    char checkpoint[1100];
    if (run_dir) {
        /* the checkpoint carries its own configuration; a config file would contradict it */
        if (config_path || (resume_dir && eval_dir)) {
            fprintf(stderr, "error: --resume and --eval take a run folder only (no config file)\n");
            return EXIT_CONFIG;
        }
        snprintf(checkpoint, sizeof checkpoint, "%s/checkpoint.bin", run_dir);
        if (checkpoint_load_config(checkpoint, &c) != 0) return EXIT_CONFIG;
        /* The run lives where the user points, not where it was first written: a copied or moved
         * run folder is resumed in place, never in its original. */
        if (split_run_dir(run_dir, &c) != 0) return EXIT_CONFIG;
    }
    if (config_path && config_load_file(&c, config_path) != 0) return EXIT_CONFIG;
    for (int i = 1; i < argc; i++) {
        const char *a = NULL;
        if (strcmp(argv[i], "--set") == 0) a = argv[++i];
        else if (strncmp(argv[i], "--set=", 6) == 0) a = argv[i] + 6;
        if (a && run_dir && !resumable_override(a)) {
            fprintf(stderr,
                    "error: --set (argument %d): '%.*s' cannot change when a run is resumed or "
                    "evaluated: it continues with the configuration stored in its checkpoint. Only "
                    "train.steps, run.threads and log.progress may be set; start a new run "
                    "(another run.name) to change anything else\n",
                    i, (int)strcspn(a, "="), a);
            return EXIT_CONFIG;
        }
        if (a && config_set(&c, a, i) != 0) return EXIT_CONFIG;
    }
    if (config_validate(&c) != 0) return EXIT_CONFIG;
    if (run_dir) {
        /* the task file the run was trained on, unchanged (train/task_source.h) */
        char *stored = NULL;
        if (checkpoint_read_config(checkpoint, &stored) != 0) return EXIT_CONFIG;
        int bad = task_source_check(stored, &c, resume_dir ? "--resume" : "--eval");
        free(stored);
        if (bad) return EXIT_CONFIG;
    } else if (c.task == TASK_FILE && access(c.task_file, R_OK) != 0) {
        /* --print-config too: a config that cannot run is not a config to print */
        fprintf(stderr, "error: task.file '%s' (%s) cannot be read: %s\n", c.task_file,
                config_origin(&c, "task.file"), strerror(errno));
        return EXIT_CONFIG;
    }
    if (print_config) {
        config_write(&c, stdout);
        return EXIT_OK;
    }
    if (eval_dir) return train_eval_checkpoint(&c, checkpoint, 8, prompt);
    return train_run_from(&c, resume_dir ? checkpoint : NULL);
}
