#!/usr/bin/env bash
# The long horizon's sort table (docs/findings.md, "How long is 'never'?") as published, in two parts. The
# first sort sweep of experiments/long_horizon.sh (results/long_horizon/sort/) lost the constant-
# rate seeds 4 and 5 of the unscaled run (stopped at steps 14420 and 13620 for an earlier session's
# budget), and the current program no longer resumes that folder: its plan.txt predates the keys
# the text task added (the sweep says "holds a different sweep plan"). So this trains the constant-
# rate pair of seeds 4 and 5 again in a folder of its own (results/long_horizon/sort_constant_s45/;
# 4 runs of about 150-200 s on one core) and writes results/long_horizon/sort_merged/: the first
# sweep's rows without its constant-rate seeds 4-5, then the four new ones, and the sweep report
# of that table (./train --sweep-report: summary.txt, slowdowns, index.html). Running
# experiments/long_horizon.sh from scratch trains all 20 sort runs in one sweep instead.
. "$(dirname "$(readlink -f "$0")")/common.sh"
./train --sweep configs/scaled.ini --grid attention.scale=sqrt_dk,none --grid optim.schedule=constant \
    --grid run.seed=4,5 --steps 20000 --jobs "$JOBS" --out sweeps/long_sort_constant_s45
publish sweeps/long_sort_constant_s45 results/long_horizon/sort_constant_s45
experiments/curves.sh sweeps/long_sort_constant_s45 results/long_horizon/sort_constant_s45/curves
a=results/long_horizon/sort/sweep.csv
b=results/long_horizon/sort_constant_s45/sweep.csv
m=results/long_horizon/sort_merged
if [ "$(head -1 "$a")" != "$(head -1 "$b")" ]; then
    echo "long_horizon_sort_s45: $a and $b have different columns; not merged" >&2
    exit 1
fi
mkdir -p "$m"
{
    head -1 "$a"
    tail -n +2 "$a" | grep -v '^scale-[a-z_]*_schedule-constant_s[45],'
    tail -n +2 "$b"
} > "$m/sweep.csv.tmp"
mv "$m/sweep.csv.tmp" "$m/sweep.csv"
./train --sweep-report "$m"
