#!/usr/bin/env bash
# The text pair for longer (docs/findings.md, "Language modelling on real text"): configs/text_scaled.ini
# against text_unscaled.ini at 3000 steps instead of 600 (the cosine schedule stretched to the
# new length), seeds 1-2, to see whether the unscaled language model catches up, lags or stalls.
# Writes results/text/long/ (sweep.csv, summary.txt, bpb.txt, each run's curves in curves/); runs
# in sweeps/text_long/. 139-170 s a run, one at a time, on the 2-vCPU Zen 5 (AVX-512 build, beside
# two runs of another job); 4 runs.
. "$(dirname "$(readlink -f "$0")")/common.sh"
experiments/text_corpus.sh
./train --sweep configs/text_scaled.ini --grid attention.scale=sqrt_dk,none --seeds 2 \
    --steps 3000 --jobs "$JOBS" --out sweeps/text_long
publish sweeps/text_long results/text/long
experiments/curves.sh sweeps/text_long results/text/long/curves
