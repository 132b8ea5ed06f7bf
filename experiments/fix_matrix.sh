#!/usr/bin/env bash
# The fix matrix (docs/findings.md, "What else keeps attention trainable"): on the shipped sort and recall
# configs, seeds 1-3, as shipped (2000 steps):
#   scale {sqrt_dk, none, inv_dk} x attention.qk_norm {none, layernorm} x init {fan_in, gpt2};
#   and with scale none, a ten times lower learning rate; and SGD with momentum 0.9 (lr 0.1, 0.3,
#   at scale sqrt_dk as well, for a baseline: SGD's own speed is not the question).
# Writes results/fix_matrix/{sort,recall}/{main,low_lr,sgd}/; runs in sweeps/fix_*.
. "$(dirname "$(readlink -f "$0")")/common.sh"
for task in sort recall; do
    cfg=configs/scaled.ini low_lr=2e-4
    [ "$task" = recall ] && cfg=configs/recall_scaled.ini low_lr=1e-4
    ./train --sweep "$cfg" --scales sqrt_dk,none,inv_dk --grid attention.qk_norm=none,layernorm \
        --grid init.scheme=fan_in,gpt2 --seeds 3 --jobs "$JOBS" --out "sweeps/fix_${task}_main"
    publish "sweeps/fix_${task}_main" "results/fix_matrix/$task/main"
    ./train --sweep "$cfg" --scales none --grid optim.lr="$low_lr" --seeds 3 --jobs "$JOBS" \
        --out "sweeps/fix_${task}_low_lr"
    publish "sweeps/fix_${task}_low_lr" "results/fix_matrix/$task/low_lr"
    ./train --sweep "$cfg" --scales sqrt_dk,none --grid optim.name=sgd --grid optim.lr=0.1,0.3 --seeds 3 \
        --jobs "$JOBS" --out "sweeps/fix_${task}_sgd"
    publish "sweeps/fix_${task}_sgd" "results/fix_matrix/$task/sgd"
done
