/* cmd_reference_table.c: ./train --reference-table (command layer): every config key as the
 * Markdown table of docs/configuration.md (make reference-table puts it there), from the key
 * table itself (config_write_reference_table). */
#include "cli/cli.h"

#include <stdio.h>

#include "cli/args.h"
#include "config/config.h"
#include "util/exit_codes.h"

/* No arguments: --help (-h) prints the usage line, anything else is refused (exit code 2). */
int cli_reference_table(int argc, char **argv) {
    if (argc > 0 && cli_is_help(argv[0])) {
        printf("usage: ./train --reference-table\nevery setting as docs/configuration.md's Markdown table\n");
        return EXIT_OK;
    }
    if (argc > 0) return cli_fail(NULL, "--reference-table takes no arguments, got '%s'", argv[0]);
    config_write_reference_table(stdout);
    return EXIT_OK;
}
