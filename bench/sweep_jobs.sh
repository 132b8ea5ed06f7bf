#!/usr/bin/env bash
# Benchmark of the sweep's --jobs (not a test): 8 runs of the shipped sort config at 300 steps
# (seeds 1-8), as one sweep with --jobs 1 and with --jobs 2, alternated PAIRS times (default 3),
# each into a fresh folder. Prints each pair's wall times and ratio, and the median ratio, and
# warns if the two sweep.csv differ in anything but wall_s and version (the last two columns).
#   bench/sweep_jobs.sh [PAIRS]        (make bench-sweep)
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
pairs=${1:-3}
make -s train
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
sweep() { # jobs out
    ./train --sweep configs/scaled.ini --grid run.seed=1,2,3,4,5,6,7,8 --steps 300 --jobs "$1" \
        --out "$2" >/dev/null 2>&1
}
ratios=()
echo "8 runs of configs/scaled.ini, 300 steps each, $(nproc) cores: --jobs 2 against --jobs 1"
for p in $(seq 1 "$pairs"); do
    t0=$(now); sweep 1 "$tmp/j1_$p"; t1=$(now); sweep 2 "$tmp/j2_$p"; t2=$(now)
    a=$(awk -v x="$t0" -v y="$t1" 'BEGIN { print y - x }')
    b=$(awk -v x="$t1" -v y="$t2" 'BEGIN { print y - x }')
    r=$(awk -v x="$a" -v y="$b" 'BEGIN { print y / x }')
    ratios+=("$r")
    printf 'pair %d: --jobs 1 %.1f s, --jobs 2 %.1f s, ratio %.3f\n' "$p" "$a" "$b" "$r"
    cmp -s <(cut -d, -f1-22 "$tmp/j1_$p/sweep.csv") <(cut -d, -f1-22 "$tmp/j2_$p/sweep.csv") ||
        echo "warning: pair $p: the two sweep.csv differ outside wall_s and version" >&2
done
printf 'median ratio (--jobs 2 / --jobs 1): %.3f\n' \
    "$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')"
