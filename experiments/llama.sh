#!/usr/bin/env bash
# The GPT-2 block's findings asked again of the LLaMA-style block (docs/llama_block.md, "What carries
# over"): every shipped experiment below is run as shipped with --set model.block=llama and nothing
# else changed (same widths, d_k 64, inits, schedules, steps; the llama MLP's d_ff is its default,
# 176 at d_model 64, about GPT-2's MLP parameter count). Parts (PARTS="pairs kinds text widths",
# the default, or any of them):
#   pairs   the shipped sort pair (configs/scaled.ini vs unscaled.ini) and recall pair, seeds 1-5
#                                                   -> results/llama/{sort,recall}/
#   kinds   the task-kind table's positional look-ups, reverse and copy, seeds 1-5
#                                                   -> results/llama/{reverse,copy}/
#   text    the text pair (configs/text_scaled.ini, data/kjv.txt), seeds 1-5, with bits per byte
#                                                   -> results/llama/text/ (bpb.txt)
#   widths  the regime map's control variable: init fan_in and gpt2 x d_model 64, 128 (d_k 64) x
#           scale, seeds 1-3, then the map of those points (predicted step-0 std against slowdown)
#                                                   -> results/llama/init_width/d{64,128}/,
#                                                      results/llama/regime_map/
# Cost: 82 runs. Measured on one core of a 2-vCPU AMD EPYC (Zen 3) with other work beside it
# (load 3-9): a d_model 64 run took 31-791 s, median 57 s (sweep.csv wall_s); the d_model 128
# runs (the last 12) were not run when results/llama/ was made. Runs go in sweeps/llama_*/ (git
# ignores them); started again, the script skips finished runs and resumes interrupted ones.
. "$(dirname "$(readlink -f "$0")")/common.sh"
PARTS=${PARTS:-pairs kinds text widths}
llama=(--set model.block=llama)

for part in $PARTS; do
    case $part in
    pairs)
        for task in sort recall; do
            cfg=configs/scaled.ini
            [ "$task" = recall ] && cfg=configs/recall_scaled.ini
            ./train --sweep "$cfg" --grid attention.scale=sqrt_dk,none --seeds 5 "${llama[@]}" \
                --jobs "$JOBS" --out "sweeps/llama_$task"
            publish "sweeps/llama_$task" "results/llama/$task"
        done
        ;;
    kinds)
        for task in reverse copy; do
            ./train --sweep configs/scaled.ini --grid attention.scale=sqrt_dk,none --seeds 5 \
                --set task.name="$task" "${llama[@]}" --jobs "$JOBS" --out "sweeps/llama_$task"
            publish "sweeps/llama_$task" "results/llama/$task"
        done
        ;;
    text)
        experiments/text_corpus.sh
        # absolute, so a run resumed from its jobs.txt line in another folder finds the text
        ./train --sweep configs/text_scaled.ini --grid attention.scale=sqrt_dk,none --seeds 5 \
            --set "task.file=$PWD/data/kjv.txt" "${llama[@]}" --jobs "$JOBS" \
            --out sweeps/llama_text
        publish sweeps/llama_text results/llama/text
        bpb results/llama/text
        ;;
    widths)
        for d in 64 128; do
            ./train --sweep configs/scaled.ini --dk 64 --d-model "$d" --scales sqrt_dk,none \
                --grid init.scheme=fan_in,gpt2 --seeds 3 "${llama[@]}" --jobs "$JOBS" \
                --out "sweeps/llama_init_width_d$d"
            publish "sweeps/llama_init_width_d$d" "results/llama/init_width/d$d"
        done
        ./train --regime-map --out results/llama/regime_map results/llama/init_width/d64 \
            results/llama/init_width/d128
        ;;
    *)
        echo "experiments/llama.sh: unknown part '$part' (pairs, kinds, text, widths)" >&2
        exit 2
        ;;
    esac
done
