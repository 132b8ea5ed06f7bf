/* cmd_version.c: ./train --version (command layer): the program's version, git commit, compiler and
 * flags, as every run's config.ini records them (util/provenance.h). */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "util/exit_codes.h"
#include "util/provenance.h"

/* The compiler's name for --version: gcc's __VERSION__ is its version number alone ("12.2.0"),
 * clang's names it already ("Debian Clang 14.0.6"). */
#if defined(__clang__)
#define COMPILER_NAME "clang"
#elif defined(__GNUC__)
#define COMPILER_NAME "gcc"
#else
#define COMPILER_NAME "cc"
#endif

/* No arguments: --help (-h) prints the usage line, anything else is refused (exit code 2). */
int cli_version(int argc, char **argv) {
    if (argc > 0 && cli_is_help(argv[0])) {
        printf("usage: ./train --version\nthe version, git commit, compiler and flags of this build\n");
        return EXIT_OK;
    }
    if (argc > 0) return cli_fail(NULL, "--version takes no arguments, got '%s'", argv[0]);
    const char *version = provenance_compiler();
    /* the name once: in front of a bare number, not before a string that says it */
    int named = strstr(version, "lang") || strstr(version, "gcc") || strstr(version, "GCC");
    printf("scaledot %s\n", provenance_build());
    printf("built with %s%s%s, flags %s\n", named ? "" : COMPILER_NAME, named ? "" : " ", version,
           provenance_flags());
    return EXIT_OK;
}
