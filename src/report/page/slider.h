/* slider.h: the "Step by step" section of the --compare page: a step slider over what the runs
 * logged at each evaluation (attn_steps.csv, train/attn_steps.h), and per layer and head, for each
 * run side by side, the histogram of the attention logits, the attention map of validation
 * example 0, and the saturated share, logit std and gradient reaching the logits of that step
 * (attention.csv's saturated_frac, logit_std and dlogit_norm, shown as logged). One layer and head
 * at a time, picked from a list (a page of many heads stays a screen high). The data is embedded
 * as JSON and drawn by an inline script: the page stays one self-contained file. */
#ifndef SCALEDOT_SLIDER_H
#define SCALEDOT_SLIDER_H

#include <stdio.h>

#include "report/read/runs.h"
#include "runlog/csv_read.h"

/* The file the section reads in each run folder (train/attn_steps.h's ATTN_STEPS_FILE; report/
 * reads no train/ header). */
#define SLIDER_FILE "attn_steps.csv"

/* The section's data as one JSON object (no '<', '>' or '&' in it: text is \u-escaped, so the
 * page stays well-formed XML): {"edges": [...the histogram bin edges, from the first log's
 * n_LO_HI columns, as strings], "pairs": [[layer, head], ...] (every pair any run logged, in
 * order), "pick": the index in pairs shown first (the pair with the largest saturated_frac at a
 * run's last logged step), "runs": [{"name", "color" (plot_color), "side" (the map's side),
 * "tokens" (attn_map_tokens.csv's, or []), "heads": {"L.H": {"steps": [...], "hist": [[counts]
 * per step], "map": [[weights of q0k0, q1k0, q1k1, ...] per step], "sat", "std", "grad":
 * [attention.csv's text at that step, layer and head, or "" when it has none]}}}]}. logs[i] is
 * run i's attn_steps.csv, or has[i] = 0 when it has none (the run is listed with no heads). A
 * field that is not a finite number is written null. Returns 0, or -1 when out of memory. */
int slider_json(FILE *f, const Run *runs, const Csv *logs, const int *has, int n);

/* 1 when any run folder holds attn_steps.csv (the page then has the section). */
int slider_has_data(const Run *runs, int n);

/* Writes the section (heading, note, the slider, the layer/head picker, a column per run, the
 * JSON, the script) when any run folder holds attn_steps.csv; else nothing (a page of runs of
 * earlier versions is as it was). Each run's log is read and checked like the other logs
 * (log_check.h; a row it drops is named on stderr). Returns 1 when written, 0 when not, -1 on
 * error (printed). */
int slider_section(FILE *f, const Run *runs, int n);

#endif
