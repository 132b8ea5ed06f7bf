/* cmd_version.c: ./train --version (command layer): the program's version, git commit, compiler and
 * flags, as every run's config.ini records them (util/provenance.h). */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

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

/* Arguments after the name are ignored, as they always were. */
int cli_version(int argc, char **argv) {
    (void)argc, (void)argv;
    const char *version = provenance_compiler();
    /* the name once: in front of a bare number, not before a string that says it */
    int named = strstr(version, "lang") || strstr(version, "gcc") || strstr(version, "GCC");
    printf("scaledot %s\n", provenance_build());
    printf("built with %s%s%s, flags %s\n", named ? "" : COMPILER_NAME, named ? "" : " ", version,
           provenance_flags());
    return EXIT_OK;
}
