#!/usr/bin/env bash
# wait_policy.sh: how OpenMP's idle threads should wait, measured (docs/performance.md's "tried and not
# kept"). Two cases, each policy in turn, ROUNDS times:
#   - one run alone: make bench's 2-thread step at each shape (median ms), where a sleeping
#     thread's wake-up at every parallel region costs time;
#   - two runs sharing the cores: two 2-thread ./train runs of 300 sort steps at once (wall
#     seconds), where a spinning thread takes the other run's core.
# Policies: OMP_WAIT_POLICY=passive (./train's default: idle threads sleep at once) and
# GOMP_SPINCOUNT=N (libgomp spins N times, then sleeps) for each N in SPINS.
# Usage: bench/wait_policy.sh BENCH_BINARY [ROUNDS] [SPINS]   (defaults 3, "2000 10000")
set -euo pipefail
bench=${1:?usage: wait_policy.sh BENCH_BINARY [ROUNDS] [SPINS]}
rounds=${2:-3}
spins=${3:-2000 10000}
root=$(cd "$(dirname "$0")/.." && pwd)
policies=(OMP_WAIT_POLICY=passive)
for n in $spins; do policies+=("GOMP_SPINCOUNT=$n"); done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "one run alone, 2 threads, median ms per step:"
printf '%-24s %5s %6s %10s\n' policy round shape ms
for r in $(seq 1 "$rounds"); do
    for s in 0 1 2; do
        for p in "${policies[@]}"; do
            ms=$(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$p" "$bench" --quick --seconds 2 --shape "$s" --threads 2 --path float32 2>/dev/null |
                 awk '$1 ~ /^\(/ && $2 == "float32" && $3 == 2 && NF >= 11 { print $5; exit }')
            printf '%-24s %5d %6d %10s\n' "$p" "$r" "$s" "$ms"
        done
    done
done
echo
echo "two 2-thread runs at once (configs/scaled.ini, 300 steps), wall seconds:"
for r in $(seq 1 "$rounds"); do
    for p in "${policies[@]}"; do
        rm -rf "$tmp/runs"
        t0=$(date +%s.%N)
        for name in a b; do
            env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$p" "$root/train" "$root/configs/scaled.ini" \
                --set train.steps=300 --set run.threads=2 --set run.dir="$tmp/runs" \
                --set run.name=$name >/dev/null 2>&1 &
        done
        wait
        printf '%-24s %5d %10.2f\n' "$p" "$r" "$(echo "$(date +%s.%N) - $t0" | bc)"
    done
done
