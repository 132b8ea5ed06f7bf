#!/usr/bin/env bash
# Learning rate x width x scale (issue 29, map a): where do the attention logits run away during
# training? Sort as shipped (2000 steps, warm-up 100, cosine), GPT-2 init (std 0.02, so every
# run starts with small logits: 0.2-0.8 unscaled at d_model 64-256, /8 with the scale), d_k 64
# (n_heads = d_model / 64), optim.lr on a factor-2 grid around each width's threshold, scale
# {1/sqrt(d_k), none}, seeds 1-2. Writes results/lr_width/d<d_model>[_<part>]/; runs in
# sweeps/lr_width_*. Resumable: a re-run skips the finished runs of each sweep.
#
# Cost on one core of the 2-vCPU EPYC (one run at a time, JOBS=1): about 0.5, 1.2 and 2.8
# minutes a run at d_model 64, 128 and 256; the default parts below are 24 + 24 + 16 runs, about
# 1.5 core-hours. PARTS chooses parts (e.g. PARTS="d64 d128"). Ends by drawing the lr map of every
# part published (results/regime_map_lr/).
. "$(dirname "$(readlink -f "$0")")/common.sh"
part() { # NAME D_MODEL SCALES LRS
    ./train --sweep configs/scaled.ini --dk 64 --d-model "$2" --scales "$3" \
        --set init.scheme=gpt2 --grid optim.lr="$4" --seeds "${SEEDS:-2}" --jobs "$JOBS" \
        --out "sweeps/lr_width_$1"
    publish "sweeps/lr_width_$1" "results/lr_width/$1"
    experiments/curves.sh "sweeps/lr_width_$1" "results/lr_width/$1/curves"
}
for p in ${PARTS:-d64 d128 d256_none d256_sqrt_dk}; do
    case "$p" in
    d64) part d64 64 sqrt_dk,none 2e-3,4e-3,8e-3,1.6e-2,3.2e-2,6.4e-2 ;;
    d128) part d128 128 sqrt_dk,none 1e-3,2e-3,4e-3,8e-3,1.6e-2,3.2e-2 ;;
    d256_none) part d256_none 256 none 2.5e-4,5e-4,1e-3,2e-3 ;;
    d256_sqrt_dk) part d256_sqrt_dk 256 sqrt_dk 4e-3,8e-3,1.6e-2,3.2e-2 ;;
    *) echo "lr_width.sh: unknown part $p" >&2; exit 2 ;;
    esac
done
# The map over lr x width (./train --regime-map: results/regime_map_lr/regime_map_lr.svg and .csv,
# beside the step-0 regime map of the same runs) over every part published so far.
parts=()
for d in results/lr_width/*/; do [ -r "$d/sweep.csv" ] && parts+=("${d%/}"); done
./train --regime-map --out results/regime_map_lr "${parts[@]}"
