/* regime_map.h: the regime map of the √d_k failure (./train --regime-map): every run of every
 * sweep given, placed by its predicted step-0 attention-logit std (sweep.csv's
 * predicted_logit_std, model_predicted_logit_std) on a log axis, against its final validation
 * answer accuracy (panel 1) and, for the unscaled run of a none / sqrt_dk pair, its slowdown to
 * 90 % (panel 2, slowdown.h; censored values drawn hollow with an arrow). Colour: scale; marker:
 * init_scheme. Values come from the sweep.csv files alone. */
#ifndef SCALEDOT_REGIME_MAP_H
#define SCALEDOT_REGIME_MAP_H

#include <stdio.h>

/* The first line of every regime_map.csv: how regime_map_check_out knows the file is ours. */
#define REGIME_MAP_CSV_HEADER                                                                     \
    "sweep,run,scale,init_scheme,predicted_logit_std,val_answer_acc,slowdown_90,"                 \
    "slowdown_90_bound\n"

/* 0 when regime_map_write may write into out_dir: it is no symbolic link, and each of
 * regime_map.svg, regime_map.csv, regime_map_lr.svg and regime_map_lr.csv there is missing or a
 * regular file this command wrote (an SVG as svg_begin opens it, a CSV starting with
 * REGIME_MAP_CSV_HEADER or REGIME_MAP_LR_CSV_HEADER), so a map drawn again
 * replaces only its own files. Else -1 after a message naming the link or the file; nothing is
 * written then. Other files in out_dir are left alone and do not matter. */
int regime_map_check_out(const char *out_dir);

/* Reads DIR/sweep.csv of each of dirs[0..n_dirs) (the caller has checked that each exists) and
 * writes out_dir/regime_map.svg and out_dir/regime_map.csv (one row per trained run: sweep, run,
 * scale, init_scheme, predicted_logit_std, val_answer_acc, slowdown_90, slowdown_90_bound =
 * exact | lower | upper | neither | empty when the run is not the unscaled run of a pair), and,
 * when the sweeps vary optim.lr (regime_map_lr_varies), out_dir/regime_map_lr.svg and .csv (the
 * map over lr x width, regime_map_lr.h; said on out), each via a new temporary file renamed over
 * the name (a link there is replaced, not followed). An earlier map's file of those four that
 * this map does not write (no lr map drawn: said on out; or a write failed: said on stderr, and
 * the files after it are not written) is removed, so old and new files never stand side by side
 * (one made read-only is kept, and said). Text fields of the CSVs are quoted as RFC 4180 says
 * when they hold a comma, a quote or a line break.
 * out_dir and its missing parents are created after every sweep.csv was read. Prints what it wrote to out. Returns 0, or 1 after a message (a sweep.csv
 * unreadable or a value in it malformed, a write failed, out of memory). */
int regime_map_write(const char *out_dir, char *const *dirs, int n_dirs, FILE *out);

#endif
