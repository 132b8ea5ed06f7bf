#!/usr/bin/env bash
# The text pair for longer (docs/findings.md, "Language modelling on real text"): configs/text_scaled.ini
# against text_unscaled.ini at 3000 steps instead of 600 (the cosine schedule stretched to the
# new length), seeds 1-2, to see whether the unscaled language model catches up, lags or stalls.
# Writes results/text/long/ (sweep.csv, summary.txt, bpb.txt); runs in sweeps/text_long/.
. "$(dirname "$(readlink -f "$0")")/common.sh"
experiments/text_corpus.sh
./train --sweep configs/text_scaled.ini --grid attention.scale=sqrt_dk,none --seeds 2 \
    --steps 3000 --jobs "$JOBS" --out sweeps/text_long
publish sweeps/text_long results/text/long
