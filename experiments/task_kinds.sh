#!/usr/bin/env bash
# Task dependence (docs/findings.md, "Which tasks?"): the shipped pair's model and schedule on reverse and
# copy (positional look-ups) beside sort and recall (content look-ups), seeds 1-5, 2000 steps.
# Writes results/task_kinds/{reverse,copy}/; runs in sweeps/task_<task>/.
. "$(dirname "$(readlink -f "$0")")/common.sh"
for task in reverse copy; do
    ./train --sweep configs/scaled.ini --grid attention.scale=sqrt_dk,none --seeds 5 \
        --set task.name="$task" --jobs "$JOBS" --out "sweeps/task_$task"
    publish "sweeps/task_$task" "results/task_kinds/$task"
done
