#!/usr/bin/env bash
# The d_k sweep (docs/findings.md, "The d_k sweep"): sort, 1000 steps, seeds 1-3, scale modes sqrt_dk, none,
# inv_dk, d_k = 8..128, first at a fixed width (d_model 128, n_heads = 128 / d_k: capacity held
# constant), then the older one-head form (d_model = d_k), which confounds width with d_k.
# Writes results/sweep/{fixed_width,one_head}/; runs in sweeps/dk_{fixed_width,one_head}/.
. "$(dirname "$(readlink -f "$0")")/common.sh"
./train --sweep configs/scaled.ini --dk 8,16,32,64,128 --d-model 128 --seeds 3 --steps 1000 \
    --jobs "$JOBS" --out sweeps/dk_fixed_width
publish sweeps/dk_fixed_width results/sweep/fixed_width
./train --sweep configs/scaled.ini --dk 8,16,32,64,128 --one-head --seeds 3 --steps 1000 \
    --jobs "$JOBS" --out sweeps/dk_one_head
publish sweeps/dk_one_head results/sweep/one_head
