#!/usr/bin/env bash
# Does the scale stay effective in sparse attention (issue 29, map e)? The text pair (byte-level
# language modelling on data/kjv.txt, configs/text_scaled.ini as shipped: d_model 64, one head,
# d_k 64, fan_in init, T = 64 bytes, 600 steps) with sliding-window attention,
# attention.window = w (each query sees its last w keys, itself included), w in {8, 16, 64}
# (64 = T: every query sees all its past, the full pair), x scale {1/sqrt(d_k), none}, seeds 1-3.
# The argument: a query that sees w keys spreads the same logits over fewer entries, so the
# missing scale saturates its softmax less often at small w: the gap should shrink with w but stay
# positive. Writes results/text/window/ (sweep.csv, summary.txt, figures, bpb.txt per window and
# scale: validation bits per byte and next-byte accuracy, median [min-max] over the seeds); runs
# in sweeps/text_window/ (resumable: a re-run skips finished runs).
#
# Cost: 18 runs of about 15-40 s on one core of the 2-vCPU AMD EPYC, under 10 core-minutes.
. "$(dirname "$(readlink -f "$0")")/common.sh"
experiments/text_corpus.sh
# absolute, so a run resumed from its jobs.txt line in another folder finds the text
./train --sweep configs/text_scaled.ini --scales sqrt_dk,none --grid attention.window=8,16,64 \
    --seeds 3 --set "task.file=$PWD/data/kjv.txt" --jobs "$JOBS" --out sweeps/text_window
publish sweeps/text_window results/text/window
experiments/curves.sh sweeps/text_window results/text/window/curves
bpb results/text/window attention.window
