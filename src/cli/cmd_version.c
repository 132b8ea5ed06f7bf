/* cmd_version.c: ./train --version (command layer): the program's version, git commit, compiler and
 * flags, as every run's config.ini records them (util/provenance.h). */
#include "cli/cli.h"

#include <stdio.h>

#include "util/exit_codes.h"
#include "util/provenance.h"

/* Arguments after the name are ignored, as they always were. */
int cli_version(int argc, char **argv) {
    (void)argc, (void)argv;
    printf("scaledot %s\n", provenance_build());
    printf("built with %s, flags %s\n", provenance_compiler(), provenance_flags());
    return EXIT_OK;
}
