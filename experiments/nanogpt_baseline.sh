#!/usr/bin/env bash
# A familiar text baseline (docs/findings.md, "nanoGPT's CPU recipe on our corpus"):
# configs/text_nanogpt.ini (nanoGPT's shakespeare_char CPU recipe on data/kjv.txt; what differs is
# in the config's header) trained with and without the scale, seeds 1-SEEDS (default 2), by ./train
# and by the PyTorch twin (twin/train.py) from the same initial parameters: a step-0 run of the
# same config and seed, exported, is the twin's --init. Validation every 100 steps on the same 256
# windows (the last 10 % of the file); the training windows are drawn by each program's own
# generator. Writes results/text/nanogpt/: sweep.csv and the usual sweep files (./train),
# bpb.txt, twin/<scale>_s<seed>.{csv,txt} (the twin's evaluations and output), curves.txt (the
# validation bits per byte of both programs at every 100 steps, median over the seeds; nats per
# byte = bits x ln 2) and curves.svg, its figure (experiments/nanogpt_figure.py; Python 3, as the
# twin). Runs go in sweeps/nanogpt*/ (git ignores them); started again, the script
# skips what finished.
. "$(dirname "$(readlink -f "$0")")/common.sh"
experiments/text_corpus.sh
SEEDS=${SEEDS:-2}
out=results/text/nanogpt
# absolute, so a run resumed from its jobs.txt line in another folder finds the text
text=(--set "task.file=$PWD/data/kjv.txt")
./train --sweep configs/text_nanogpt.ini --grid attention.scale=sqrt_dk,none --seeds "$SEEDS" \
    "${text[@]}" --jobs "$JOBS" --out sweeps/nanogpt
publish sweeps/nanogpt "$out"
bpb "$out"

mkdir -p "$out/twin"
for scale in sqrt_dk none; do
    for s in $(seq 1 "$SEEDS"); do
        name=${scale}_s$s
        [ -f "$out/twin/$name.csv" ] && continue
        d=sweeps/nanogpt_twin/$name
        rm -rf "$d" # this script's own scratch folder: a step-0 run and its export
        cfg=(configs/text_nanogpt.ini "${text[@]}" --set attention.scale="$scale" --set run.seed="$s")
        ./train "${cfg[@]}" --set train.steps=0 --set run.dir="$d" --set run.name=init >/dev/null
        ./train --export "$d/init" "$d/init.safetensors"
        ./train "${cfg[@]}" --print-config |
            OMP_NUM_THREADS=1 /usr/bin/python3 twin/train.py - --init "$d/init.safetensors" \
                --csv "$out/twin/$name.csv" >"$out/twin/$name.txt.tmp"
        mv "$out/twin/$name.txt.tmp" "$out/twin/$name.txt"
    done
done

# curves.txt: per step, the median over the seeds of val_bpb, ./train (loss.csv) and twin (CSV)
{
    echo "validation bits per byte, median over seeds 1-$SEEDS (nats per byte = bits x ln 2)"
    echo "twin ran on: $(sed -n 's/^ran on: //p' "$out/twin/sqrt_dk_s1.txt")"
    for scale in sqrt_dk none; do
        for s in $(seq 1 "$SEEDS"); do
            awk -F, -v who="train $scale" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                $c["val_bpb"] != "" { print who, $1, $c["val_bpb"] }' \
                "sweeps/nanogpt/runs/scale-${scale}_s$s/loss.csv"
            awk -F, -v who="twin $scale" 'NR > 1 { print who, $1, $3 }' "$out/twin/${scale}_s$s.csv"
        done
    done | awk '{ k = $3; key = $1 " " $2; n[key, k]++; v[key, k, n[key, k]] = $4; steps[k] = 1 }
        function med(key, k,   i, j, t, x, c) {
            c = n[key, k]; if (!c) return "-"
            for (i = 1; i <= c; i++) x[i] = v[key, k, i]
            for (i = 2; i <= c; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
            return sprintf("%.3f", c % 2 ? x[(c + 1) / 2] : (x[c / 2] + x[c / 2 + 1]) / 2) }
        END { printf "%6s %14s %14s %14s %14s\n", "step", "train scaled", "twin scaled", "train unscaled", "twin unscaled"
              m = 0; for (k in steps) s[++m] = k + 0
              for (i = 2; i <= m; i++) for (j = i; j > 1 && s[j - 1] > s[j]; j--) { t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
              for (i = 1; i <= m; i++) printf "%6d %14s %14s %14s %14s\n", s[i], med("train sqrt_dk", s[i]),
                  med("twin sqrt_dk", s[i]), med("train none", s[i]), med("twin none", s[i]) }'
} >"$out/curves.txt"
cat "$out/curves.txt"
# the figure of that table (README, findings.md): ./train solid, the twin dashed
/usr/bin/python3 experiments/nanogpt_figure.py "$out/curves.txt" "$out/curves.svg"
