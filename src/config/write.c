/* write.c: a Config written back as an INI file that reads back identically (a run's config.ini
 * and the text its checkpoint stores, --print-config, the sweep's comparison of configs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

void cfg_format_double(char *buf, size_t n, double v) {
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, n, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
}

/* The shortest form, so the written file round-trips exactly and stays readable. */
static void write_double(FILE *f, double v) {
    char buf[40];
    cfg_format_double(buf, sizeof buf, v);
    fputs(buf, f);
}

static void write_value(const Config *c, const KeySpec *k, FILE *f) {
    const void *p = cfg_cfield(c, k);
    switch (k->type) {
    case T_INT: fprintf(f, "%d", *(const int *)p); break;
    case T_LONG: fprintf(f, "%ld", *(const long *)p); break;
    case T_DOUBLE: write_double(f, *(const double *)p); break;
    case T_STR: fprintf(f, "\"%s\"", (const char *)p); break;
    case T_ENUM: fprintf(f, "%s", k->names[*(const int *)p]); break;
    case T_SCALE:
        if (c->scale_mode == SCALE_VALUE || c->scale_mode == SCALE_OVER_DK)
            write_double(f, c->scale_value);
        else fprintf(f, "%s", k->names[c->scale_mode]);
        if (c->scale_mode == SCALE_OVER_DK) fputs(CONFIG_SCALE_OVER_DK, f);
        break;
    }
}

char *config_text(const Config *c) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    config_write(c, f);
    return fclose(f) == 0 ? buf : (free(buf), NULL);
}

void config_write(const Config *c, FILE *f) {
    fprintf(f, "%s\n", CONFIG_FILE_FIRST_LINE);
    for (int i = 0; i < cfg_n_keys; i++) {
        const KeySpec *k = &cfg_keys[i];
        if (i == 0 || strcmp(k->section, cfg_keys[i - 1].section))
            fprintf(f, "\n[%s]\n", k->section);
        char allowed[256];
        cfg_describe_allowed(k, allowed, sizeof allowed);
        fprintf(f, "; %s (%s)\n%s = ", k->help, allowed, k->key);
        write_value(c, k, f);
        fputc('\n', f);
    }
}
