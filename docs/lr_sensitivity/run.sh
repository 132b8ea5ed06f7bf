#!/bin/sh
# run.sh OUT TASK STEPS SEEDS LRS SCALES: one ./train per (scale, lr, seed) of configs/scaled.ini,
# one thread each, two at a time (xargs -P 2); then collect.py (python3) builds OUT/sweep.csv in the
# sweep.csv schema, for ./train --sweep-report OUT. A stand-in, used before the sweep engine's
# --grid existed, that measured docs/lr_sensitivity/. Run it from the repository root:
#   docs/lr_sensitivity/run.sh /tmp/lr_sort sort 2000 3 "1e-4 1e-3 3e-3 1e-2 3e-2 1e-1 3e-1" \
#       "sqrt_dk none inv_dk" && ./train --sweep-report /tmp/lr_sort
OUT=$1 TASK=$2 STEPS=$3 SEEDS=$4 LRS=$5 SCALES=$6
TRAIN=$(pwd)/train CONF=$(pwd)/configs/scaled.ini
mkdir -p "$OUT/runs"; : > "$OUT/plan.txt"; : > "$OUT/jobs.txt"
for scale in $SCALES; do for lr in $LRS; do for seed in $(seq 1 $SEEDS); do
  name="${scale}_lr${lr}_s${seed}"
  echo "$name 64 $scale $seed $lr $STEPS" >> "$OUT/plan.txt"
  echo "$TRAIN $CONF --set task.name=$TASK --set attention.scale=$scale --set optim.lr=$lr --set run.seed=$seed --set train.steps=$STEPS --set run.dir=$OUT/runs --set run.name=$name --set log.progress=0 --set run.threads=1 > $OUT/runs/$name.log 2>&1; echo \$? > $OUT/runs/$name/exit_code" >> "$OUT/jobs.txt"
done; done; done
tr '\n' '\0' < "$OUT/jobs.txt" | xargs -0 -P 2 -n 1 sh -c
python3 docs/lr_sensitivity/collect.py "$OUT"
