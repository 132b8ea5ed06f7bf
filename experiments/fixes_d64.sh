#!/usr/bin/env bash
# The fixes where the logits run away (issue 29, map c), at the cheapest width that shows it:
# sort as shipped (2000 steps, warm-up 100, cosine), GPT-2 init, d_model 64 (one head, d_k 64),
# optim.lr = 3.2e-2: there experiments/lr_width.sh measured the unscaled runs' logits growing to
# std 33000-76000 (0 % accuracy) and the scaled runs' to 170-270 (99.4-99.8 %). Each fix x scale
# {1/sqrt(d_k), none} x seeds 1-3: none (the baseline again, a third seed), qk-RMSNorm, soft-cap
# 30, QK-clip at 30 (per head, on the scaled logits), and a learned scale per head started at 1
# (unscaled; scale has no meaning there, so once). Writes results/fixes_d64/<fix>/; runs in
# sweeps/fixes_d64_<fix>/. Resumable.
#
# Cost: 27 runs of about 50 s each on one quiet core of the 2-vCPU EPYC, about 0.4 core-hours.
. "$(dirname "$(readlink -f "$0")")/common.sh"
fix() { # NAME SCALES [--set KEY=VALUE]
    local name=$1 scales=$2
    shift 2
    ./train --sweep configs/scaled.ini --dk 64 --d-model 64 --scales "$scales" \
        --set init.scheme=gpt2 --set optim.lr=3.2e-2 "$@" --seeds 3 --jobs "$JOBS" \
        --out "sweeps/fixes_d64_$name"
    publish "sweeps/fixes_d64_$name" "results/fixes_d64/$name"
    experiments/curves.sh "sweeps/fixes_d64_$name" "results/fixes_d64/$name/curves"
}
for f in ${FIXES:-none qk_rmsnorm softcap qk_clip learned}; do
    case "$f" in
    none) fix none sqrt_dk,none ;;
    qk_rmsnorm) fix qk_rmsnorm sqrt_dk,none --set attention.qk_norm=rmsnorm ;;
    softcap) fix softcap sqrt_dk,none --set attention.softcap=30 ;;
    qk_clip) fix qk_clip sqrt_dk,none --set attention.qk_clip=30 ;;
    learned) fix learned learned ;;
    *) echo "fixes_d64.sh: unknown fix $f" >&2; exit 2 ;;
    esac
done
