/* test_readme_table.c: the Markdown reference table of every key (src/config/readme_table.c)
 * and its published copy in docs/configuration.md (linked from the README), which must list every
 * key with the default the code uses. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "configcheck.h"
#include "testutil.h"

#ifndef SCALEDOT_SOURCE_DIR
#define SCALEDOT_SOURCE_DIR "."
#endif

START_TEST(test_reference_table) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    config_write_reference_table(f);
    fclose(f);
    static const char head[] = "| key | default | meaning |\n|---|---|---|\n";
    ck_assert(strncmp(buf, head, sizeof head - 1) == 0);
    int rows = 0;
    for (char *p = buf; (p = strchr(p, '\n')); p++) rows++;
    ck_assert_int_eq(rows, 2 + config_key_count());
    static const char *const pieces[] = {
        "\n| `run.name` | `run` | Folder name of this run under run.dir;",
        "| `model.d_model` | `64` | Width of the residual stream (integer in [1, 8192]) |\n",
        "| `task.file` | `\"\"` | Path of a 'prompt \\| answer' file", /* '|' escaped */
        "| `optim.lr` | `1e-3` | Peak learning rate (number in (0, 10]) |\n",
        "sort, reverse, copy, recall, file",
        "\n| `guard.action` | `warn` |",
    };
    for (int i = 0; i < CC_COUNT(pieces); i++) /* not the whole table: too long a message */
        ck_assert_msg(strstr(buf, pieces[i]), "the reference table lacks '%s'", pieces[i]);
    free(buf);
}
END_TEST

/* The published table's home: a page of its own, so that a new key is one regenerated block
 * there and the README stays short. */
#define REFERENCE_DOC "docs/configuration.md"

/* Every key has its line in the published reference table, with the default the code uses. */
START_TEST(test_readme_lists_every_key) {
    size_t n;
    char *text = tu_read_file(SCALEDOT_SOURCE_DIR "/" REFERENCE_DOC, &n);
    ck_assert_msg(text != NULL, "cannot open " REFERENCE_DOC);
    for (int i = 0; i < config_key_count(); i++) {
        ConfigKeyInfo k;
        ck_assert_int_eq(config_key_info(i, &k), 0);
        char want[256];
        snprintf(want, sizeof want, "| `%s.%s` | `%s` |", k.section, k.key,
                 *k.default_text ? k.default_text : "\"\"");
        ck_assert_msg(strstr(text, want) != NULL,
                      REFERENCE_DOC " has no reference-table line starting '%s' (regenerate "
                      "it with make reference-table)", want);
    }
    free(text);
}
END_TEST

/* A reader of the README finds the table: the README links to its page. */
START_TEST(test_readme_links_reference) {
    size_t n;
    char *text = tu_read_file(SCALEDOT_SOURCE_DIR "/README.md", &n);
    ck_assert_msg(text != NULL, "cannot open README.md");
    ck_assert_msg(strstr(text, "](" REFERENCE_DOC ")") != NULL,
                  "README.md has no link to " REFERENCE_DOC);
    free(text);
}
END_TEST

TU_MAIN("readme_table", test_reference_table, test_readme_lists_every_key,
        test_readme_links_reference);
