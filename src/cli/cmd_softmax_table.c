/* cmd_softmax_table.c: ./train --softmax-table [--seed N] [--samples N] [--keys N] (command layer):
 * the options read and range-checked into SoftmaxTableArgs, then the table (report/
 * softmax_table.c), which trains nothing. */
#include "cli/cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/table/table.h"
#include "util/exit_codes.h"

#define DEFAULT_SEED 1
#define DEFAULT_SAMPLES 2000
#define DEFAULT_KEYS 16
#define MAX_SAMPLES 1000000
#define MAX_KEYS 4096

static void usage(FILE *f) {
    fprintf(f,
            "usage: ./train --softmax-table [--seed N] [--samples N] [--keys N]\n"
            "  --seed N     generator seed, 0 .. 2^64-1 (default %d)\n"
            "  --samples N  rows (one query, N keys) per d_k, 1 .. %d (default %d)\n"
            "  --keys N     keys per row, i.e. softmax width, 2 .. %d (default %d)\n",
            DEFAULT_SEED, MAX_SAMPLES, DEFAULT_SAMPLES, MAX_KEYS, DEFAULT_KEYS);
}

/* Parses a decimal integer in [lo, hi] with nothing around it (a sign is allowed: "+5" is 5).
 * Returns 0 or −1. */
static int parse_int(const char *s, long lo, long hi, long *out) {
    if (!s || !*s || !(*s == '-' || *s == '+' || (*s >= '0' && *s <= '9'))) return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* Returns −1 on success, else the exit code (0 after --help). */
static int parse_args(int argc, char **argv, SoftmaxTableArgs *a) {
    *a = (SoftmaxTableArgs){.seed = DEFAULT_SEED, .samples = DEFAULT_SAMPLES, .keys = DEFAULT_KEYS};
    const struct { const char *flag; long lo, hi; int *dst; } INTS[] = {
        {"--samples", 1, MAX_SAMPLES, &a->samples},
        {"--keys", 2, MAX_KEYS, &a->keys},
    };
    CliOnce once = {0}; /* argv starts after --softmax-table: argument i + 2 of the line */
    for (int i = 0; i < argc; i++) {
        const char *flag = argv[i];
        if (cli_is_help(flag)) {
            usage(stdout);
            return EXIT_OK;
        }
        int is_seed = strcmp(flag, "--seed") == 0, k = -1;
        for (int j = 0; j < 2; j++)
            if (strcmp(flag, INTS[j].flag) == 0) k = j;
        if (!is_seed && k < 0)
            return cli_fail_at(usage, flag, i + 2, "unknown option for --softmax-table");
        const char *val = cli_next(argc, argv, &i);
        if (!val) return cli_fail_at(usage, flag, i + 2, "needs a value");
        int rc = cli_once(&once, is_seed ? "--seed" : INTS[k].flag, i + 2);
        if (rc >= 0) return rc;
        long v = 0;
        if (is_seed && cli_parse_u64(val, &a->seed) != 0)
            return cli_fail_at(NULL, "--seed", i + 2, "needs an integer in [0, 2^64-1], got '%s'",
                               val);
        if (k >= 0) {
            if (parse_int(val, INTS[k].lo, INTS[k].hi, &v) != 0)
                return cli_fail_at(NULL, flag, i + 2, "needs an integer in [%ld, %ld], got '%s'",
                                   INTS[k].lo, INTS[k].hi, val);
            *INTS[k].dst = (int)v;
        }
    }
    return -1;
}

int cli_softmax_table(int argc, char **argv) {
    SoftmaxTableArgs a;
    int rc = parse_args(argc, argv, &a);
    return rc >= 0 ? rc : report_softmax_table(&a);
}
