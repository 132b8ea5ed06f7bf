/* fuzz_common.h: what every harness of fuzz/ shares (header only, static inline).
 *
 * fuzz_quiet: nearly every fuzz input is invalid, so the product prints an error message per
 * input. Called from LLVMFuzzerInitialize, it appends -close_fd_mask=2 to libFuzzer's flags
 * (they are parsed after LLVMFuzzerInitialize returns): libFuzzer then moves its own output
 * and the sanitizer reports to a copy of stderr and points fd 2, which the product writes to,
 * at /dev/null. Set FUZZ_VERBOSE=1 to see the product's messages, e.g. when replaying a crash
 * input (./build/fuzz/fuzz_config_file fuzz/crashes/FILE). An explicit -close_fd_mask wins. */
#ifndef SCALEDOT_FUZZ_COMMON_H
#define SCALEDOT_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

#define FUZZ_MAX_ARGS 256

static inline void fuzz_quiet(int *argc, char ***argv) {
    static char *args[FUZZ_MAX_ARGS + 2];
    static char flag[] = "-close_fd_mask=2";
    const char *verbose = getenv("FUZZ_VERBOSE");
    if ((verbose && *verbose && strcmp(verbose, "0") != 0) || *argc > FUZZ_MAX_ARGS) return;
    for (int i = 1; i < *argc; i++)
        if (strncmp((*argv)[i], "-close_fd_mask=", 15) == 0) return;
    for (int i = 0; i < *argc; i++) args[i] = (*argv)[i];
    args[*argc] = flag;
    args[*argc + 1] = NULL;
    *argv = args;
    (*argc)++;
}

/* Fails the run when a documented property breaks: abort() makes libFuzzer save the input as a
 * crash. The message goes to stdout, which -close_fd_mask=2 leaves open. */
#define FUZZ_CHECK(cond, what)                                                              \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            printf("fuzz property violated: %s (%s:%d)\n", what, __FILE__, __LINE__);       \
            fflush(stdout);                                                                 \
            abort();                                                                        \
        }                                                                                   \
    } while (0)

/* A default Config, computed once (config_defaults parses every key's default text). */
static inline void fuzz_defaults(Config *c) {
    static Config defaults;
    static int ready;
    if (!ready) {
        config_defaults(&defaults);
        ready = 1;
    }
    memcpy(c, &defaults, sizeof *c);
}

/* config_write's text of c, malloc'ed and NUL-terminated; *len is its length. */
static inline char *fuzz_config_text(const Config *c, size_t *len) {
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    config_write(c, f);
    FUZZ_CHECK(!ferror(f), "config_write reported a write error");
    FUZZ_CHECK(fclose(f) == 0, "fclose of the memory stream");
    return text;
}

/* config.h promises that config_write's output reads back into an identical Config: write c,
 * read the text into a fresh default Config, write that, and require the same text. */
static inline void fuzz_check_round_trip(const Config *c) {
    size_t n1, n2;
    char *t1 = fuzz_config_text(c, &n1);
    static Config back;
    fuzz_defaults(&back);
    FUZZ_CHECK(config_load_text(&back, "round-trip.ini", t1, n1) == 0,
               "config_write output does not load");
    char *t2 = fuzz_config_text(&back, &n2);
    FUZZ_CHECK(n1 == n2 && memcmp(t1, t2, n1) == 0, "config_write output does not round-trip");
    free(t1);
    free(t2);
}

#endif
