/* summary.h: the summary table of ./train --compare, one table of strings (a row per measure, a
 * column per run) that is printed for the terminal here and written as HTML by html.h. */
#ifndef SCALEDOT_SUMMARY_H
#define SCALEDOT_SUMMARY_H

#include <stdio.h>

#include "report/read/runs.h"

#define CELL_LEN 48

typedef struct {
    char label[96];
    int section;                /* a heading row: label only */
    char (*cell)[CELL_LEN];     /* one per run */
} Row;

typedef struct {
    Row *row;
    int n, cap, n_runs;
    int failed;                 /* out of memory: the table is incomplete */
} Table;

/* Builds the table of runs[0..n): setup, loss, accuracy, gradient norms, attention logits, the
 * softmax pass-through (when a run's attention.csv has it). Text runs (runs_are_text) get the
 * losses in nats per byte and in bits per byte, and one accuracy, next-byte, without the
 * answer-accuracy threshold rows. A value
 * logged at a step other than the row's carries "(@step)", "-" is not logged near that step, "n/a"
 * not in the run's logs. Returns 0, or -1 when out of memory; summary_free frees t either way. */
int summary_build(Table *t, const Run *runs, int n);
void summary_free(Table *t);

/* The table with aligned columns (labels left, one right-aligned column per run, headed by the
 * run names) and a legend of the cell marks. */
void summary_print(const Table *t, const Run *runs, FILE *f);

#endif
