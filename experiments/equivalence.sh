#!/usr/bin/env bash
# The scale as W_q's learning rate, over a whole published run (issue 42; docs/findings.md, "The
# scale is W_q's learning rate in disguise"). Under AdamW, attention.scale = sqrt_dk (factor c =
# 1/sqrt(d_k) on the logits) at learning rate lr is the same training as attention.scale = none
# with W_q (and its bias) initialised c times larger (init.q_mult = c) and learning at c·lr
# (optim.lr_q_mult = c), exactly when clipping is off and eps is negligible (tests/test_param_mult.c
# derives why, and why the two agree bit for bit when c is a power of two).
#
# The run: the shipped sort pair's config (configs/scaled.ini: d_model 64, one head, d_k 64, so
# c = 1/8; fan_in init, AdamW lr 2e-3, warm-up 100, cosine, 2000 steps, seed 1), the loss logged
# at every step. Three pairs, each "scaled" against "unscaled with both multipliers 1/8":
#   exact   optim.eps = 1e-30, no clipping  -> expected identical, step for step
#   eps     optim.eps = 1e-8 (the default)  -> eps enters: expected to drift apart
#   clip    optim.eps = 1e-30, clipping at 1 -> the global norm sees dL/dW~_q, not dL/dW_q
# and, to split the scale's worth between W_q's init and its learning rate, the unscaled run with
# one multiplier alone (eps 1e-30, no clipping): lr_q_only (optim.lr_q_mult = 1/8) and
# init_q_only (init.q_mult = 1/8), against the plain unscaled run (none).
# Writes results/equivalence/: per run its loss.csv (runs/<name>/), table.txt (per pair: the
# largest |train loss difference| over the 2000 steps, the first step at which they differ, the
# final validation loss and answer accuracy of each run) and equivalence.svg (the figure:
# experiments/equivalence_figure.py). Runs go in sweeps/equivalence/ (git ignores it); started
# again, a finished run is kept. One core: about 9 minutes on a 2-vCPU Zen 5 (8 runs of 2000
# steps at d_model 64, ~33 ms/step, measured with nothing else running: see table.txt's times).
. "$(dirname "$(readlink -f "$0")")/common.sh"
out=results/equivalence
work=sweeps/equivalence
mkdir -p "$out/runs" "$work"
q=(--set init.q_mult=0.125 --set optim.lr_q_mult=0.125)
tiny=(--set optim.eps=1e-30)
clip=(--set optim.grad_clip=1)

# train NAME CONFIG ARGS...: one run into $work/NAME (kept when it finished), loss.csv published
train() {
    local name=$1 cfg=$2
    shift 2
    if ! grep -q '^2000,' "$work/$name/loss.csv" 2>/dev/null; then
        rm -rf "$work/$name" # this script's own scratch run, unfinished
        OMP_NUM_THREADS=1 ./train "$cfg" --set run.dir="$work" --set run.name="$name" \
            --set log.every=1 --set log.progress=0 "$@" >/dev/null
    fi
    mkdir -p "$out/runs/$name"
    cp "$work/$name/loss.csv" "$out/runs/$name/loss.csv"
}
train scaled_exact configs/scaled.ini "${tiny[@]}"
train unscaled_q_exact configs/unscaled.ini "${tiny[@]}" "${q[@]}"
train scaled_eps configs/scaled.ini
train unscaled_q_eps configs/unscaled.ini "${q[@]}"
train scaled_clip configs/scaled.ini "${tiny[@]}" "${clip[@]}"
train unscaled_q_clip configs/unscaled.ini "${tiny[@]}" "${q[@]}" "${clip[@]}"
train unscaled_exact configs/unscaled.ini "${tiny[@]}"
train unscaled_lr_q_only configs/unscaled.ini "${tiny[@]}" --set optim.lr_q_mult=0.125
train unscaled_init_q_only configs/unscaled.ini "${tiny[@]}" --set init.q_mult=0.125

# pair A B: the largest |train loss A - B| over the logged steps, and the first step they differ
pair() {
    paste -d, "$out/runs/$1/loss.csv" "$out/runs/$2/loss.csv" | awk -F, -v a="$1" -v b="$2" '
        NR == 1 { n = NF / 2; for (i = 1; i <= n; i++) c[$i] = i; next }
        { x = $c["train_loss"]; y = $(n + c["train_loss"])
          if (x == "" || y == "") next
          d = x - y; if (d < 0) d = -d; if (d > m) { m = d; ms = $1 }
          if (x != y && first == "") first = $1 }
        END { printf "%-16s %-22s %-12.3g %-10s %s\n", a, b, m, first == "" ? "never" : first,
              ms == "" ? "-" : ms }'
}
# final RUN: its last evaluation's val_loss and val_answer_acc
final() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["val_loss"] != "" { v = $c["val_loss"]; a = $c["val_answer_acc"]; s = $1 }
        END { printf "%-22s step %-5s val_loss %-9s answer acc %.1f %%\n", FILENAME, s, v, 100 * a }' \
        "$out/runs/$1/loss.csv" | sed "s|$out/runs/||; s|/loss.csv||"
}
{
    echo "# experiments/equivalence.sh: configs/scaled.ini against configs/unscaled.ini with"
    echo "# init.q_mult = optim.lr_q_mult = 1/8 (= 1/sqrt(d_k), d_k 64), train loss at every step"
    echo "# of 2000; ./train $(./train --version | head -1)"
    echo
    printf "%-16s %-22s %-12s %-10s %s\n" "run A" "run B" "max |dloss|" "first diff" "at step"
    pair scaled_exact unscaled_q_exact
    pair scaled_eps unscaled_q_eps
    pair scaled_clip unscaled_q_clip
    echo
    for r in scaled_exact unscaled_q_exact scaled_eps unscaled_q_eps scaled_clip unscaled_q_clip \
        unscaled_exact unscaled_lr_q_only unscaled_init_q_only; do final "$r"; done
} >"$out/table.txt"
cat "$out/table.txt"
/usr/bin/python3 experiments/equivalence_figure.py "$out"
