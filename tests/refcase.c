#include "refcase.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *path, int line, const char *msg) {
    fprintf(stderr, "%s:%d: %s\n", path, line, msg);
    return -1;
}

int refcase_load(RefCase *rc, const char *path) {
    memset(rc, 0, sizeof *rc);
    FILE *f = fopen(path, "r");
    if (!f) return fail(path, 0, "cannot open");
    size_t cap = 1 << 16;
    char *line = malloc(cap);
    int lineno = 0, rc_ = 0;
    while (rc_ == 0 && fgets(line, (int)cap, f)) {
        lineno++;
        size_t len = strlen(line);
        while (len == cap - 1 && line[len - 1] != '\n') { /* grow for long value lines */
            cap *= 2;
            line = realloc(line, cap);
            if (!fgets(line + len, (int)(cap - len), f)) break;
            len = strlen(line);
        }
        if (line[0] == '#' || line[0] == '\n') continue;
        if (strncmp(line, "config ", 7) == 0) {
            if (rc->n_config >= 32 ||
                sscanf(line, "config %31s %lf", rc->keys[rc->n_config], &rc->values[rc->n_config]) != 2)
                rc_ = fail(path, lineno, "bad config line");
            else
                rc->n_config++;
        } else if (strncmp(line, "tensor ", 7) == 0) {
            if (rc->n_tensors == rc->cap) {
                rc->cap = rc->cap ? 2 * rc->cap : 64;
                rc->tensors = realloc(rc->tensors, (size_t)rc->cap * sizeof *rc->tensors);
            }
            RefTensor *t = &rc->tensors[rc->n_tensors];
            memset(t, 0, sizeof *t);
            char type[16];
            int off = 0;
            if (sscanf(line, "tensor %95s %15s %d%n", t->name, type, &t->ndim, &off) != 3 || t->ndim > 8) {
                rc_ = fail(path, lineno, "bad tensor header");
                break;
            }
            char *p = line + off;
            t->n = 1;
            for (int d = 0; d < t->ndim; d++) {
                t->dims[d] = (int)strtol(p, &p, 10);
                t->n *= (size_t)t->dims[d];
            }
            /* the values follow on the next line */
            size_t got = 0;
            t->v = malloc(t->n * sizeof(double));
            int c;
            char num[64];
            int k = 0;
            lineno++;
            while ((c = fgetc(f)) != EOF) {
                if (c == ' ' || c == '\n') {
                    if (k) {
                        num[k] = 0;
                        if (got < t->n) t->v[got] = strtod(num, NULL);
                        got++;
                        k = 0;
                    }
                    if (c == '\n') break;
                } else if (k < 63) {
                    num[k++] = (char)c;
                }
            }
            if (got != t->n) rc_ = fail(path, lineno, "wrong number of values");
            rc->n_tensors++;
        } else {
            rc_ = fail(path, lineno, "unrecognised line");
        }
    }
    free(line);
    fclose(f);
    return rc_;
}

double refcase_config(const RefCase *rc, const char *key) {
    for (int i = 0; i < rc->n_config; i++)
        if (strcmp(rc->keys[i], key) == 0) return rc->values[i];
    return NAN;
}

const RefTensor *refcase_tensor(const RefCase *rc, const char *name) {
    for (int i = 0; i < rc->n_tensors; i++)
        if (strcmp(rc->tensors[i].name, name) == 0) return &rc->tensors[i];
    return NULL;
}

void refcase_free(RefCase *rc) {
    for (int i = 0; i < rc->n_tensors; i++) free(rc->tensors[i].v);
    free(rc->tensors);
    memset(rc, 0, sizeof *rc);
}
