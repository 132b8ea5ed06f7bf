/* cmd_reference_table.c: ./train --reference-table (command layer): every config key as the
 * README's Markdown table, from the key table itself (config_write_reference_table). */
#include "cli/cli.h"

#include <stdio.h>

#include "config/config.h"
#include "util/exit_codes.h"

/* Arguments after the name are ignored, as they always were. */
int cli_reference_table(int argc, char **argv) {
    (void)argc, (void)argv;
    config_write_reference_table(stdout);
    return EXIT_OK;
}
