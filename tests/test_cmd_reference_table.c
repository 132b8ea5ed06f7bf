/* test_cmd_reference_table.c: ./train --reference-table (src/cli/cmd_reference_table.c): the
 * table with no argument; an argument refused with exit code 2 naming it, the table not printed;
 * --help and -h print the usage line. */
#include "cli/cli.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_reference_table_arguments) {
    static const char USAGE[] = "usage: ./train --reference-table\nevery setting as "
                                "docs/configuration.md's Markdown table\n";
    static const struct {
        const char *args[3];
        int rc;
        const char *out, *err; /* out NULL: the table */
    } cases[] = {
        {{NULL}, 0, NULL, ""},
        {{"garbage"}, 2, "", "error: --reference-table takes no arguments, got 'garbage'\n"},
        {{"--out", "x.md"}, 2, "", "error: --reference-table takes no arguments, got '--out'\n"},
        {{"--help"}, 0, USAGE, ""},
        {{"-h"}, 0, USAGE, ""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        TuResult r = tu_call(cli_reference_table, cases[k].args);
        ck_assert_msg(r.rc == cases[k].rc, "case %zu: rc %d", k, r.rc);
        if (cases[k].out)
            ck_assert_msg(strcmp(r.out, cases[k].out) == 0, "case %zu: stdout '%s'", k, r.out);
        else
            ck_assert_msg(strncmp(r.out, "| key | default | meaning |\n", 27) == 0 &&
                              strstr(r.out, "| `run.name` |"),
                          "case %zu: stdout '%.200s'", k, r.out);
        ck_assert_msg(strcmp(r.err, cases[k].err) == 0, "case %zu: stderr '%s'", k, r.err);
        tu_result_free(&r);
    }
}
END_TEST

TU_MAIN("cmd_reference_table", test_reference_table_arguments);
