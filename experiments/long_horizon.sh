#!/usr/bin/env bash
# The long horizon (docs/findings.md, "How long is 'never'?"): the shipped sort and recall pairs trained
# 20000 steps instead of 2000, with the shipped cosine schedule and with a constant learning
# rate after warm-up, seeds 1-5. Writes results/long_horizon/{sort,recall}/ (sweep.csv with the
# steps to 50/90/99 % answer accuracy, summary.txt, figures); runs in sweeps/long_*/.
# About 100 s a run on one core of the 2-vCPU EPYC; 40 runs. JOBS=N runs N at once.
# Started again, it skips the runs that finished and resumes interrupted ones.
. "$(dirname "$(readlink -f "$0")")/common.sh"
for task in sort recall; do
    cfg=configs/scaled.ini
    [ "$task" = recall ] && cfg=configs/recall_scaled.ini
    ./train --sweep "$cfg" --grid attention.scale=sqrt_dk,none --grid optim.schedule=cosine,constant \
        --seeds 5 --steps 20000 --jobs "$JOBS" --out "sweeps/long_$task"
    publish "sweeps/long_$task" "results/long_horizon/$task"
done
