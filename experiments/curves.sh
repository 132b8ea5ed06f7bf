#!/usr/bin/env bash
# experiments/curves.sh SWEEP_DIR OUT_DIR [RUN...]: the curves behind a sweep's headline words,
# one small CSV per run (every run of the sweep, or only the RUNs named) into OUT_DIR/<run>.csv:
# step, train_loss, val_loss, val_answer_acc (loss.csv, at the logged steps), then
# logit_std_l<L> for each layer (attention.csv's logit_std, mean over heads, at the same step;
# empty where not logged). Enough to tell a stall from a creep and a
# runaway from a plateau without the run folders (which hold checkpoints and stay out of git).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: experiments/curves.sh SWEEP_DIR OUT_DIR [RUN...]" >&2; exit 2; }
sweep=$1 out=$2
shift 2
mkdir -p "$out"
for run in "$sweep"/runs/*/; do
    name=$(basename "$run")
    if [ $# -gt 0 ]; then
        named=
        for r in "$@"; do [ "$r" = "$name" ] && named=1; done
        [ -n "$named" ] || continue
    fi
    [ -f "$run/loss.csv" ] && [ -f "$run/attention.csv" ] || continue
    awk -F, '
        FNR == 1 { for (i = 1; i <= NF; i++) col[FILENAME, $i] = i; next }
        FILENAME ~ /attention.csv$/ {
            s = $col[FILENAME, "step"]; l = $col[FILENAME, "layer"]; v = $col[FILENAME, "logit_std"]
            if (v == "") next
            sum[s, l] += v; n[s, l]++; if (l + 1 > L) L = l + 1
            next
        }
        { steps[++k] = $col[FILENAME, "step"]; tl[k] = $col[FILENAME, "train_loss"]
          vl[k] = $col[FILENAME, "val_loss"]; va[k] = $col[FILENAME, "val_answer_acc"] }
        END {
            printf "step,train_loss,val_loss,val_answer_acc"
            for (l = 0; l < L; l++) printf ",logit_std_l%d", l
            printf "\n"
            for (i = 1; i <= k; i++) {
                s = steps[i]
                printf "%s,%s,%s,%s", s, tl[i], vl[i], va[i]
                for (l = 0; l < L; l++)
                    if (n[s, l]) printf ",%.6g", sum[s, l] / n[s, l]; else printf ","
                printf "\n"
            }
        }' "$run/attention.csv" "$run/loss.csv" > "$out/$name.csv"
done
echo "== $out: $(ls "$out" | wc -l) curves"
