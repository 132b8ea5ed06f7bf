/* readme_table.c: the configuration reference (docs/configuration.md), a Markdown table of
 * every key with its default and allowed values, printed by ./train --reference-table from the
 * same table the parser uses. Documentation of the config stage. */
#include <stdio.h>

#include "config/config_internal.h"

/* Markdown table cells break on '|'. */
static void put_cell(const char *s, FILE *f) {
    for (; *s; s++) {
        if (*s == '|') fputc('\\', f);
        fputc(*s, f);
    }
}

void config_write_reference_table(FILE *f) {
    fprintf(f, "| key | default | meaning |\n|---|---|---|\n");
    for (int i = 0; i < cfg_n_keys; i++) {
        const KeySpec *k = &cfg_keys[i];
        char allowed[256];
        cfg_describe_allowed(k, allowed, sizeof allowed);
        fprintf(f, "| `%s.%s` | ", k->section, k->key);
        if (*k->def) {
            fputc('`', f);
            put_cell(k->def, f);
            fputc('`', f);
        } else {
            fputs("`\"\"`", f);
        }
        fputs(" | ", f);
        put_cell(k->help, f);
        fputs(" (", f);
        put_cell(allowed, f);
        fputs(") |\n", f);
    }
}
