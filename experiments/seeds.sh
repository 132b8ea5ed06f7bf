#!/usr/bin/env bash
# The README's headline results over seeds 1-5: the shipped sort pair (configs/scaled.ini vs
# unscaled.ini) and recall pair (configs/recall_scaled.ini vs recall_unscaled.ini), each run as
# shipped (2000 steps); then the recall pair with the separator token put back
# (task.separator = true), the format that stalls both. Writes results/seeds/{sort,recall,
# recall_separator}/ and results/seeds/chain.txt (experiments/chain.sh on the sort runs); runs in
# sweeps/seeds_*/.
# Started again, it skips the runs that finished and resumes interrupted ones.
. "$(dirname "$(readlink -f "$0")")/common.sh"
for task in sort recall; do
    cfg=configs/scaled.ini
    [ "$task" = recall ] && cfg=configs/recall_scaled.ini
    ./train --sweep "$cfg" --grid attention.scale=sqrt_dk,none --seeds 5 --jobs "$JOBS" \
        --out "sweeps/seeds_$task"
    publish "sweeps/seeds_$task" "results/seeds/$task"
done
./train --sweep configs/recall_scaled.ini --grid attention.scale=sqrt_dk,none --seeds 5 \
    --set task.separator=true --jobs "$JOBS" --out sweeps/seeds_recall_separator
publish sweeps/seeds_recall_separator results/seeds/recall_separator
experiments/chain.sh sweeps/seeds_sort >results/seeds/chain.txt
