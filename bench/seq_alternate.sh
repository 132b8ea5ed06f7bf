#!/usr/bin/env bash
# seq_alternate.sh: `make bench-seq`, the cost per token at T = 512 against T = 128 (bench --seq's
# shapes 3 and 1: B=16, C=256, L=4, NH=4, V=64, one thread), the two timed alternately, ROUNDS
# rounds of SECONDS each, so that a drift of the machine's speed hits both alike (bench --seq
# alone times its shapes one after the other, and on this project's 2-vCPU machine one of them
# was seen 20 % slow in a run). Prints each round's ms per step and per-token ratio, and the
# median ratio; beside it the ratio of the FLOPs per token alone (tables.c's formula), which is
# what the ratio would be if every FLOP cost the same at both lengths.
#
# Usage: bench/seq_alternate.sh BENCH_BINARY [ROUNDS] [SECONDS]   (defaults 4 and 5)
set -euo pipefail
bench=${1:?usage: seq_alternate.sh BENCH_BINARY [ROUNDS] [SECONDS]}
rounds=${2:-4}
seconds=${3:-5}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
ms() { # --seq shape index -> median ms per step on one thread
    "$bench" --seq --shape "$1" --seconds "$seconds" 2>/dev/null |
        awk '$1 ~ /^\(/ && $2 == "float32" && $3 == 1 && NF >= 11 { print $5; exit }'
}
echo "cost per token, T = 512 against T = 128 (B=16, C=256, L=4, NH=4, V=64; one thread;"
echo "median ms per step over ${seconds} s per program and round, programs alternated)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%5s %12s %12s %14s\n' round "T=128 ms" "T=512 ms" "per token x"
ratios=()
for r in $(seq 1 "$rounds"); do
    if ((r % 2)); then a=$(ms 1); b=$(ms 3); else b=$(ms 3); a=$(ms 1); fi
    [[ -n $a && -n $b ]] || { echo "seq_alternate: a run printed no time" >&2; exit 1; }
    q=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", (b / (16 * 512)) / (a / (16 * 128)) }')
    ratios+=("$q")
    printf '%5d %12.1f %12.1f %13.3fx\n' "$r" "$a" "$b" "$q"
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 }
    END { printf "median per-token ratio: %.3fx (%.3f-%.3f)\n",
          (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR] }'
# FLOPs per token (tables.c): 3 x (24 L C^2 + 2 C V + 2 L C (T + 1)), the rest cancels
awk 'BEGIN { L = 4; C = 256; V = 64; f = 24 * L * C * C + 2 * C * V
             printf "FLOPs per token, T = 512 against T = 128: %.3fx (causal attention grows with T)\n",
                    (f + 2 * L * C * 513) / (f + 2 * L * C * 129) }'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
