#!/usr/bin/env bash
# block_speed.sh: `make bench-block`, the training step of model.block = llama against gpt2 at
# the bench's three shapes (B, T, d_model, n_layers, n_heads as bench's table), one thread, timed
# by ./train itself on the text task (data/prose.txt, vocabulary 256 at every shape; bench's
# shapes 1 and 2 use 16 and 64 symbols). ROUNDS rounds, the two blocks alternated within each
# (their order swapped every round), so that a drift of the machine's speed hits both alike. A
# round's ms per step is the mean over the steps between the first and the last (step 0 and the
# evaluations left out), from loss.csv's elapsed_s. Prints each round and the median llama/gpt2
# ratio per shape. The llama MLP has three [d_ff, C] matrices with d_ff = 8C/3 rounded up to a
# multiple of 8, GPT-2's two [4C, C]: about the same FLOPs (the last column).
#
# Usage: bench/block_speed.sh TRAIN_BINARY [ROUNDS]   (default 3)
set -euo pipefail
train=${1:?usage: block_speed.sh TRAIN_BINARY [ROUNDS]}
rounds=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/scaledot_block_speed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# B T C L NH steps
shapes=("64 32 128 2 2 40" "16 128 256 4 4 16" "8 256 512 6 8 6")
ms() { # BLOCK B T C L NH STEPS -> ms per step
    local d="$tmp/$1_$RANDOM"
    "$train" "$root/configs/text_scaled.ini" --set "task.file=$root/data/prose.txt" \
        --set task.val_size=1 --set "model.block=$1" --set "train.batch_size=$2" \
        --set "task.seq_len=$3" --set "model.d_model=$4" --set "model.n_layers=$5" \
        --set "model.n_heads=$6" --set "train.steps=$7" --set train.eval_every=1000000 \
        --set optim.warmup_steps=0 --set log.every=1 --set run.threads=1 --set log.progress=0 \
        --set "run.dir=$d" > /dev/null 2>&1 || { echo "block_speed: ./train failed" >&2; exit 1; }
    awk -F, -v last="$7" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $1 == 1 { a = $c["elapsed_s"] } $1 == last - 1 { b = $c["elapsed_s"] }
        END { printf "%.1f", 1000 * (b - a) / (last - 2) }' "$d"/*/loss.csv
    rm -rf "$d"
}
echo "training step, model.block = llama against gpt2 (text task, vocabulary 256, one thread;"
echo "$rounds rounds, the blocks alternated)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %5s %10s %10s %8s %12s\n' "shape (B,T,C,L,NH)" round "gpt2 ms" "llama ms" ratio "FLOPs ratio"
for sh in "${shapes[@]}"; do
    read -r B T C L NH S <<< "$sh"
    # FLOPs of a step, 3 x forward: matmuls 2BT(4C^2 + MLP)L, head 2BTCV, attention 2LBCT(T+1)
    fr=$(awk -v B="$B" -v T="$T" -v C="$C" -v L="$L" 'BEGIN { V = 256
        F = int(8 * C / 3); F = int((F + 7) / 8) * 8
        g = 2 * B * T * (4 * C * C + 8 * C * C) * L + 2 * B * T * C * V + 2 * L * B * C * T * (T + 1)
        l = 2 * B * T * (4 * C * C + 3 * C * F) * L + 2 * B * T * C * V + 2 * L * B * C * T * (T + 1)
        printf "%.3f", l / g }')
    ratios=()
    for r in $(seq 1 "$rounds"); do
        if ((r % 2)); then g=$(ms gpt2 $sh); l=$(ms llama $sh); else l=$(ms llama $sh); g=$(ms gpt2 $sh); fi
        q=$(awk -v a="$g" -v b="$l" 'BEGIN { printf "%.3f", b / a }')
        ratios+=("$q")
        printf '%-22s %5d %10s %10s %7sx %11sx\n' "($B,$T,$C,$L,$NH)" "$r" "$g" "$l" "$q" "$fr"
    done
    printf '%s\n' "${ratios[@]}" | sort -g | awk -v s="($B,$T,$C,$L,$NH)" '{ v[NR] = $1 }
        END { printf "%-22s median llama/gpt2 ratio %.3fx (%.3f-%.3f)\n", s,
              (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR] }'
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
