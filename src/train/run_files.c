/* run_files.c: how each file ./train writes into a run folder begins (run_files.h), read back for
 * the adoption of a folder of an earlier version: one row per name, one home for each start. */
#include "train/run_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/sample.h"
#include "util/file_check.h"

/* The first line of each file: it starts with `start` and, when `end` is set, ends with it (the
 * grad_norms.csv header's columns are the model's tensors, its last one "global"). These are the
 * starts of every version (loss.csv's columns grew at its end; attn_map_tokens.csv's "answer"
 * came later). */
static const struct {
    const char *name, *start, *end;
} STARTS[] = {
    {"loss.csv", "step,train_loss,val_loss,", NULL},
    {"grad_norms.csv", "step,", ",global"},
    {"attention.csv", "step,layer,head,logit_mean,logit_std,", NULL},
    {"attn_steps.csv", "step,layer,head,n_", NULL},
    {"attn_map.csv", "layer,head,query,k0", NULL},
    {"attn_map_step0.csv", "layer,head,query,k0", NULL},
    {"attn_map_tokens.csv", "position,token", NULL},
    {"init_check.txt", "init check (step 0, ", NULL},
    {"sample.txt", SAMPLE_FILE_START, NULL},
    {"checkpoint.bin", "SCALEDOT", NULL},          /* its magic (checkpoint.h) */
    {"sweep_result.txt", "exit_code ", NULL},       /* a sweep's marker (sweep/results.c) */
    {"sweep_wall.txt", "", NULL},                   /* seconds: a number (sweep/run_one.c) */
};

/* The bytes of a file read for its first line. */
#define FIRST_LINE_MAX ((size_t)1 << 20)

/* 1 when line (no newline) is a whole non-negative number, as sweep_wall.txt holds. */
static int is_seconds(const char *line) {
    char *end;
    return line[0] >= '0' && line[0] <= '9' && (strtod(line, &end), *end == '\0');
}

int run_file_reads_as_ours(const char *dir, const char *name) {
    size_t k = 0, n_starts = sizeof STARTS / sizeof *STARTS;
    while (k < n_starts && strcmp(STARTS[k].name, name) != 0) k++;
    if (k == n_starts) return 0;
    char path[4200], why[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    /* the first line only, read up to a bound (a checkpoint may have no newline for many MB;
     * the longest header, grad_norms.csv's, is far shorter) */
    FILE *f = file_fopen_regular(path, (size_t)-1, why, sizeof why);
    if (!f) return 0;
    char *line = malloc(FIRST_LINE_MAX + 1);
    size_t len = line ? fread(line, 1, FIRST_LINE_MAX, f) : 0;
    fclose(f);
    if (!line) return 0;
    line[len] = '\0';
    line[strcspn(line, "\n")] = '\0';
    len = strlen(line);
    size_t s = strlen(STARTS[k].start), e = STARTS[k].end ? strlen(STARTS[k].end) : 0;
    int ours = strncmp(line, STARTS[k].start, s) == 0 &&
               (!e || (len >= s + e && strcmp(line + len - e, STARTS[k].end) == 0)) &&
               (strcmp(name, "sweep_wall.txt") != 0 || is_seconds(line));
    free(line);
    return ours;
}
