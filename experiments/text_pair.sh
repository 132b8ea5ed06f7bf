#!/usr/bin/env bash
# The text pair's measurements (issue 20): byte-level language modelling on data/kjv.txt
# (experiments/text_corpus.sh makes it first), each run as configs/text_scaled.ini ships it
# (600 steps) unless arguments say otherwise:
#   1. the pair over seeds 1-5: attention.scale sqrt_dk vs none        -> results/text/pair/
#      and the chain's numbers from its logs (experiments/chain.sh)    -> results/text/pair/chain.txt
#   2. a d_k sweep at fixed width: d_model 128, d_k 8..128 (n_heads = 128 / d_k), sqrt_dk vs
#      none, seeds 1-3                                                  -> results/text/dk_fixed_width/
#   3. the gpt2-init variant of the pair (init.scheme = gpt2, std 0.02), seeds 1-5
#                                                                       -> results/text/gpt2/
# Validation bits per byte = val_loss / ln 2 (sweep.csv has val_loss in nats per byte; each run's
# loss.csv has val_bpb): RESULTS/*/bpb.txt has it per d_k and scale, median [min-max] over seeds. Runs go in sweeps/text_*/ (git ignores them: they hold checkpoints);
# started again, it skips finished runs and resumes interrupted ones.
#
#   experiments/text_pair.sh [SWEEP OPTIONS]   e.g. --steps 2000, passed to every sweep
#   JOBS=N       runs at once (default: the number of cores)
#   SWEEPS=DIR   where the sweeps go (default sweeps); RESULTS=DIR where the tables go (default
#                results/text). A different --steps into the same folders is refused by the sweep
#                (its plan differs): give other SWEEPS and RESULTS for a trial, e.g.
#                SWEEPS=/tmp/t/sweeps RESULTS=/tmp/t/docs experiments/text_pair.sh --steps 2
. "$(dirname "$(readlink -f "$0")")/common.sh"
experiments/text_corpus.sh
SWEEPS=${SWEEPS:-sweeps}
RESULTS=${RESULTS:-results/text}
# absolute, so a run resumed from its jobs.txt line in another folder finds the text
text=(--set "task.file=$PWD/data/kjv.txt")

./train --sweep configs/text_scaled.ini --grid attention.scale=sqrt_dk,none --seeds 5 \
    "${text[@]}" --jobs "$JOBS" --out "$SWEEPS/text_pair" "$@"
publish "$SWEEPS/text_pair" "$RESULTS/pair"
bpb "$RESULTS/pair"
# "during learning" = every logged step from 20 to the end of the runs
experiments/chain.sh "$SWEEPS/text_pair" 20 100000000 >"$RESULTS/pair/chain.txt"

./train --sweep configs/text_scaled.ini --dk 8,16,32,64,128 --d-model 128 --scales sqrt_dk,none \
    --seeds 3 "${text[@]}" --jobs "$JOBS" --out "$SWEEPS/text_dk_fixed_width" "$@"
publish "$SWEEPS/text_dk_fixed_width" "$RESULTS/dk_fixed_width"
bpb "$RESULTS/dk_fixed_width"

./train --sweep configs/text_scaled.ini --grid attention.scale=sqrt_dk,none --seeds 5 \
    --set init.scheme=gpt2 "${text[@]}" --jobs "$JOBS" --out "$SWEEPS/text_gpt2" "$@"
publish "$SWEEPS/text_gpt2" "$RESULTS/gpt2"
bpb "$RESULTS/gpt2"
