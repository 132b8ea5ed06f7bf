#!/usr/bin/env bash
# The PyTorch twin's training numbers over seeds (docs/manual.md, "Export and PyTorch"): the shipped
# sort pair trained STEPS steps (default 1000) by twin/train.py (PyTorch, its own data generator)
# and by ./train, seeds 1-SEEDS (default 3), one thread each. A training run's digits are not
# reproducible across PyTorch versions or BLAS libraries (another summation order), so the table
# gives each seed's final validation answer accuracy and the median [min-max], and says what the
# twin ran on (twin/train.py's "ran on:" line: PyTorch version, threads, the BLAS library loaded).
# Writes results/twin/summary.txt, results/twin/train/ (./train's sweep) and results/twin/py/*.txt
# (the twin's output per run). Needs python3-torch (/usr/bin/python3).
. "$(dirname "$(readlink -f "$0")")/common.sh"
SEEDS=${SEEDS:-3}
STEPS=${STEPS:-1000}
out=results/twin
mkdir -p "$out/py"
./train --sweep configs/scaled.ini --grid attention.scale=sqrt_dk,none --seeds "$SEEDS" \
    --steps "$STEPS" --jobs "$JOBS" --out sweeps/twin_train
publish sweeps/twin_train "$out/train"
for scale in sqrt_dk none; do
    for s in $(seq 1 "$SEEDS"); do
        f="$out/py/${scale}_s$s.txt"
        # a finished run (its "final:" line) is not trained again
        grep -q '^final:' "$f" 2>/dev/null && continue
        ./train configs/scaled.ini --set attention.scale="$scale" --print-config |
            OMP_NUM_THREADS=1 /usr/bin/python3 twin/train.py - --steps "$STEPS" --seed "$s" \
                >"$f.tmp"
        mv "$f.tmp" "$f"
    done
done
{
    echo "sort pair, $STEPS steps, seeds 1-$SEEDS: final validation answer accuracy %"
    echo "twin ran on: $(sed -n 's/^ran on: //p' "$out/py/sqrt_dk_s1.txt")"
    for scale in sqrt_dk none; do
        twin=$(for s in $(seq 1 "$SEEDS"); do
            sed -n 's/^final: .*answer accuracy \([0-9.]*\)%.*/\1/p' "$out/py/${scale}_s$s.txt"
        done | tr '\n' ' ')
        ours=$(awk -F, -v sc="$scale" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["scale"] == sc { printf "%.1f ", 100 * $c["val_answer_acc"] }' "$out/train/sweep.csv")
        for who in twin ours; do
            v=${!who}
            echo "$scale $who: $v" | awk '{ n = 0; for (i = 3; i <= NF; i++) x[++n] = $i
                for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
                med = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
                printf "%-8s %-5s per seed: %s  median %.1f [%.1f-%.1f]\n", $1, $2, substr($0, index($0, ":") + 2), med, x[1], x[n] }'
        done
    done
} >"$out/summary.txt"
cat "$out/summary.txt"
