#!/usr/bin/env bash
# The fixes where the logits run away (issue 29, map c): sort as shipped (2000 steps, warm-up 100,
# cosine), GPT-2 init, d_k 64 (n_heads = d_model / 64), at a width and lr where the unscaled runs'
# logits run away and fail while the scaled runs' grow and still learn (experiments/lr_width.sh):
#   D_MODEL=64  LR=3.2e-2 (the default): unscaled std 33000-76000 (0 %), scaled 170-270 (99.4-99.8 %)
#   D_MODEL=128 LR=1.6e-2: unscaled std 52786-95418 (0 %), scaled 371-688 (100 %)
# Each fix x scale {1/sqrt(d_k), none} x seeds 1-3: none (the baseline again, a third seed),
# qk-RMSNorm, soft-cap 30, QK-clip at 30 (per head, on the scaled logits), and a learned scale per
# head started at 1 (unscaled; scale has no meaning there, so once). Writes
# results/fixes_d<D_MODEL>/<fix>/; runs in sweeps/fixes_d<D_MODEL>_<fix>/. Resumable. FIXES
# chooses fixes (default "none qk_rmsnorm softcap qk_clip learned").
#
# Cost: 27 runs, on one quiet core of the 2-vCPU EPYC about 50 s each at d_model 64 (about 0.4
# core-hours) and 100 s at 128 (results/lr_width/d128 wall_s; about 0.75 core-hours).
. "$(dirname "$(readlink -f "$0")")/common.sh"
D_MODEL=${D_MODEL:-64}
LR=${LR:-3.2e-2}
w=d$D_MODEL
fix() { # NAME SCALES [--set KEY=VALUE]
    local name=$1 scales=$2
    shift 2
    ./train --sweep configs/scaled.ini --dk 64 --d-model "$D_MODEL" --scales "$scales" \
        --set init.scheme=gpt2 --set optim.lr="$LR" "$@" --seeds 3 --jobs "$JOBS" \
        --out "sweeps/fixes_${w}_$name"
    publish "sweeps/fixes_${w}_$name" "results/fixes_$w/$name"
    experiments/curves.sh "sweeps/fixes_${w}_$name" "results/fixes_$w/$name/curves"
}
for f in ${FIXES:-none qk_rmsnorm softcap qk_clip learned}; do
    case "$f" in
    none) fix none sqrt_dk,none ;;
    qk_rmsnorm) fix qk_rmsnorm sqrt_dk,none --set attention.qk_norm=rmsnorm ;;
    softcap) fix softcap sqrt_dk,none --set attention.softcap=30 ;;
    qk_clip) fix qk_clip sqrt_dk,none --set attention.qk_clip=30 ;;
    learned) fix learned learned ;;
    *) echo "fixes_width.sh: unknown fix $f" >&2; exit 2 ;;
    esac
done
