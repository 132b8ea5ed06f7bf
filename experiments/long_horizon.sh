#!/usr/bin/env bash
# The long horizon (docs/findings.md, "How long is 'never'?"): the shipped sort and recall pairs trained
# 20000 steps instead of 2000, with the shipped cosine schedule and with a constant learning
# rate after warm-up, seeds 1-5. Writes results/long_horizon/{sort,recall}/ (sweep.csv with the
# steps to 50/90/99 % answer accuracy, summary.txt, figures, each run's curves in curves/); runs in
# sweeps/long_*/. 148-823 s a run, two at once on a 2-vCPU EPYC (the published sweep.csv's
# wall_s: 15 557 s over the 40 runs, about 4.3 core-hours). JOBS=N runs N at once.
# Started again, it skips the runs that finished and resumes interrupted ones.
. "$(dirname "$(readlink -f "$0")")/common.sh"
for task in sort recall; do
    cfg=configs/scaled.ini
    [ "$task" = recall ] && cfg=configs/recall_scaled.ini
    ./train --sweep "$cfg" --grid attention.scale=sqrt_dk,none --grid optim.schedule=cosine,constant \
        --seeds 5 --steps 20000 --jobs "$JOBS" --out "sweeps/long_$task"
    publish "sweeps/long_$task" "results/long_horizon/$task"
    experiments/curves.sh "sweeps/long_$task" "results/long_horizon/$task/curves"
done
