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
#
# Parts not run by default:
#   d64_s3, d128_s3, d256_s3_none, d256_s3_sqrt_dk: a third seed at the lrs on either side of each
#       threshold (the largest lr at which both seeds learnt and the next one up), into
#       results/lr_width/ like the rest, so the map counts them: 8 + 8 + 2 + 2 runs, about
#       0.1 + 0.2 + 0.4 core-hours.
#   dk16_d64: the scaled/unscaled ratio at a second d_k: d_model 64 with d_k 16 (4 heads, so
#       sqrt(d_k) = 4 where d_k 64 has 8), the d64 lr grid and one more step up, seeds 1-2, into
#       results/lr_width_dk16/d64 (apart: the map and --where are of d_k 64): 28 runs, about
#       0.3 core-hours.
. "$(dirname "$(readlink -f "$0")")/common.sh"
part() { # NAME D_MODEL SCALES LRS [D_K [RESULTS [SEED OPTIONS...]]]
    local name=$1 d=$2 scales=$3 lrs=$4 dk=${5:-64} res=${6:-results/lr_width}
    shift $(($# < 6 ? $# : 6))
    [ $# -gt 0 ] || set -- --seeds "${SEEDS:-2}"
    ./train --sweep configs/scaled.ini --dk "$dk" --d-model "$d" --scales "$scales" \
        --set init.scheme=gpt2 --grid optim.lr="$lrs" "$@" --jobs "$JOBS" \
        --out "sweeps/lr_width_$name"
    publish "sweeps/lr_width_$name" "$res/${name#dk16_}"
    experiments/curves.sh "sweeps/lr_width_$name" "$res/${name#dk16_}/curves"
}
seed3=(--grid run.seed=3)
for p in ${PARTS:-d64 d128 d256_none d256_sqrt_dk}; do
    case "$p" in
    d64) part d64 64 sqrt_dk,none 2e-3,4e-3,8e-3,1.6e-2,3.2e-2,6.4e-2 ;;
    d128) part d128 128 sqrt_dk,none 1e-3,2e-3,4e-3,8e-3,1.6e-2,3.2e-2 ;;
    d256_none) part d256_none 256 none 2.5e-4,5e-4,1e-3,2e-3 ;;
    d256_sqrt_dk) part d256_sqrt_dk 256 sqrt_dk 4e-3,8e-3,1.6e-2,3.2e-2 ;;
    d64_s3) part d64_s3 64 sqrt_dk,none 8e-3,1.6e-2,3.2e-2,6.4e-2 64 results/lr_width "${seed3[@]}" ;;
    d128_s3) part d128_s3 128 sqrt_dk,none 2e-3,4e-3,1.6e-2,3.2e-2 64 results/lr_width "${seed3[@]}" ;;
    d256_s3_none) part d256_s3_none 256 none 1e-3,2e-3 64 results/lr_width "${seed3[@]}" ;;
    d256_s3_sqrt_dk) part d256_s3_sqrt_dk 256 sqrt_dk 4e-3,8e-3 64 results/lr_width "${seed3[@]}" ;;
    dk16_d64) part dk16_d64 64 sqrt_dk,none 2e-3,4e-3,8e-3,1.6e-2,3.2e-2,6.4e-2,1.28e-1 16 \
        results/lr_width_dk16 ;;
    *) echo "lr_width.sh: unknown part $p" >&2; exit 2 ;;
    esac
done
# The map over lr x width (./train --regime-map: results/regime_map_lr/regime_map_lr.svg and .csv,
# beside the step-0 regime map of the same runs) over every part published so far.
parts=()
for d in results/lr_width/*/; do [ -r "$d/sweep.csv" ] && parts+=("${d%/}"); done
./train --regime-map --out results/regime_map_lr "${parts[@]}"
