/* refcase.h: reader for the reference case files (tests/reference/README.md gives the format). */
#ifndef SCALEDOT_REFCASE_H
#define SCALEDOT_REFCASE_H

#include <stddef.h>

typedef struct {
    char name[96];
    int ndim, dims[8];
    size_t n;
    double *v;
} RefTensor;

typedef struct {
    char keys[32][32];
    double values[32];
    int n_config;
    RefTensor *tensors;
    int n_tensors, cap;
} RefCase;

/* Reads a case file; returns 0, or -1 with a message naming the file and line on stderr. */
int refcase_load(RefCase *rc, const char *path);
/* The value of a config key; aborts the test (returns NaN) when absent. */
double refcase_config(const RefCase *rc, const char *key);
/* The tensor with this name, or NULL. */
const RefTensor *refcase_tensor(const RefCase *rc, const char *name);
void refcase_free(RefCase *rc);

#endif
