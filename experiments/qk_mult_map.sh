#!/usr/bin/env bash
# How much of the scale's worth is W_q's learning rate, how much its init (issue 42; docs/findings.md,
# "The scale is W_q's learning rate under Adam"). Under AdamW, scale 1/sqrt(d_k) is scale 1 with
# W_q's init and learning rate both multiplied by 1/sqrt(d_k) (experiments/equivalence.sh); here the
# unscaled run gets one of the two alone, at the lr map's d_model 64 thresholds (results/lr_width/d64:
# sort, GPT-2 init, AdamW beta2 0.999, 2000 steps, d_k 64; unscaled runs learn up to lr 8e-3, split
# at 1.6e-2, fail at 3.2e-2; scaled runs learn up to 3.2e-2 and fail at 6.4e-2):
#   lr_q   attention.scale = none, optim.lr_q_mult = 1/8 (W_q learns at lr/8; init as the map's)
#   init_q attention.scale = none, init.q_mult = 1/8 (W_q starts 8 times smaller; lr as the map's)
# at lr 1.6e-2, 3.2e-2 and 6.4e-2, seeds 1-2 (12 runs of ~70 s on one core of the 2-vCPU Zen 5).
# Compare with the map's own runs of both scales at those lrs (results/lr_width/d64*).
# Writes results/qk_mult/<arm>/ (sweep.csv, summary.txt, figures, curves); runs in sweeps/qk_mult_*.
. "$(dirname "$(readlink -f "$0")")/common.sh"
part() { # NAME KEY
    ./train --sweep configs/scaled.ini --dk 64 --d-model 64 --scales none \
        --set init.scheme=gpt2 --grid optim.lr=1.6e-2,3.2e-2,6.4e-2 --grid "$2=0.125" \
        --seeds "${SEEDS:-2}" --jobs "$JOBS" --out "sweeps/qk_mult_$1"
    publish "sweeps/qk_mult_$1" "results/qk_mult/$1"
    experiments/curves.sh "sweeps/qk_mult_$1" "results/qk_mult/$1/curves"
}
for p in ${PARTS:-lr_q init_q}; do
    case "$p" in
    lr_q) part lr_q optim.lr_q_mult ;;
    init_q) part init_q init.q_mult ;;
    *) echo "qk_mult_map.sh: unknown part $p" >&2; exit 2 ;;
    esac
done
