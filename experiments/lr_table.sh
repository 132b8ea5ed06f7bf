#!/usr/bin/env bash
# experiments/lr_table.sh SWEEP_CSV: docs/attention_fixes.md's learning-rate tables from one
# sweep.csv of experiments/lr_width.sh, a markdown row per optim.lr: per scale, the final
# validation answer accuracy (median [min-max] over the seeds, %) and the range of the peak
# head-mean logit std (logit_std_peak, the layer that peaked highest). Reads the file only.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: experiments/lr_table.sh SWEEP_CSV" >&2; exit 2; }
awk -F, '
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
          if (!("optim.lr" in c) || !("logit_std_peak" in c)) {
              print "lr_table.sh: " FILENAME " lacks optim.lr or logit_std_peak" > "/dev/stderr"; exit 2 }
          next }
$c["status"] == "ok" {
    lr = $c["optim.lr"]; s = $c["scale"]; k = lr SUBSEP s; n[k]++
    acc[k, n[k]] = 100 * $c["val_answer_acc"]; p = $c["logit_std_peak"] + 0
    if (n[k] == 1 || p < lo[k]) lo[k] = p
    if (n[k] == 1 || p > hi[k]) hi[k] = p
    if (!(lr in seen)) { seen[lr] = 1; order[++m] = lr }
    sc[s] = 1 }
function num(x) { return x < 100 ? sprintf("%.1f", x) : sprintf("%.0f", x) }
function cell(k,   i, j, t, x, cnt, med) {
    cnt = n[k]; if (!cnt) return "- | -"
    for (i = 1; i <= cnt; i++) x[i] = acc[k, i]
    for (i = 2; i <= cnt; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
    med = cnt % 2 ? x[(cnt + 1) / 2] : (x[cnt / 2] + x[cnt / 2 + 1]) / 2
    return sprintf("%.1f %% [%.1f-%.1f] | %s-%s", med, x[1], x[cnt], num(lo[k]), num(hi[k])) }
END {
    if (!m) exit 1
    print "| lr | scaled: final acc | scaled: peak std | unscaled: final acc | unscaled: peak std |"
    print "|---|---|---|---|---|"
    for (q = 1; q <= m; q++)
        printf "| %s | %s | %s |\n", order[q], cell(order[q] SUBSEP "sqrt_dk"), cell(order[q] SUBSEP "none") }' "$1"
