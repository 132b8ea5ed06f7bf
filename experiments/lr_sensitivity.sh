#!/usr/bin/env bash
# Learning-rate sensitivity of each scale mode (Wortsman et al. 2023, arXiv 2309.14322): the
# shipped sort and recall configs with optim.lr on a log grid 1e-4 .. 3e-1, scale modes sqrt_dk,
# none, inv_dk, seeds 1-3, 1000 steps (half the shipped budget, to keep 144 runs near 12 minutes on
# two cores; the sort schedule's warm-up and cosine decay are kept, over the 1000 steps).
# Writes results/lr_sensitivity/{sort,recall}/; runs in sweeps/lr_{sort,recall}/.
. "$(dirname "$(readlink -f "$0")")/common.sh"
for task in sort recall; do
    cfg=configs/scaled.ini
    [ "$task" = recall ] && cfg=configs/recall_scaled.ini
    ./train --sweep "$cfg" --scales sqrt_dk,none,inv_dk \
        --grid optim.lr=1e-4,3e-4,1e-3,3e-3,1e-2,3e-2,1e-1,3e-1 --seeds 3 --steps 1000 \
        --jobs "$JOBS" --out "sweeps/lr_$task"
    publish "sweeps/lr_$task" "results/lr_sensitivity/$task"
done
