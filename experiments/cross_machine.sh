#!/usr/bin/env bash
# experiments/cross_machine.sh NAME: two threshold cells of the lr map (experiments/lr_width.sh)
# trained again with this machine's build, to show how far one cell's digits move from one
# instruction set to another (issue 41 item 4.6). The cells: d_model 128 unscaled, lr 4e-3, seed 1
# (published 46.7 %) and d_model 64 unscaled, lr 1.6e-2, seed 2 (published 88.7 %): the runs that
# decide those widths' unscaled thresholds. The same plan as lr_width.sh's d128 and d64 parts,
# one run at a time, one thread. Writes results/cross_machine/NAME/{d128,d64}/ (sweep.csv and
# curves; runs in sweeps/cross_machine_NAME_*).
#
#   experiments/cross_machine.sh zen5_avx512               ./train as built (-march=native)
#   ARCH=znver3 experiments/cross_machine.sh zen5_znver3   an AVX2 build (Zen 3's instruction
#                                                          set) on any AVX2 machine
# Cost: one d_model 128 run and one d_model 64 run, 1.3 and 0.5 minutes on one core of the 2-vCPU
# Zen 5 with its AVX-512 build, 2.6 and 1.0 with the znver3 build (wall_s, beside another job).
. "$(dirname "$(readlink -f "$0")")/common.sh"
[ $# -eq 1 ] || { echo "usage: [ARCH=...] experiments/cross_machine.sh NAME" >&2; exit 2; }
./train --version
cell() { # PART D_MODEL LR SEED-OPTION...
    local name=$1 d=$2 lr=$3; shift 3
    ./train --sweep configs/scaled.ini --dk 64 --d-model "$d" --scales none \
        --set init.scheme=gpt2 --grid optim.lr="$lr" "$@" --jobs 1 \
        --out "sweeps/cross_machine_${name}_d$d"
    publish "sweeps/cross_machine_${name}_d$d" "results/cross_machine/$name/d$d"
    experiments/curves.sh "sweeps/cross_machine_${name}_d$d" "results/cross_machine/$name/d$d/curves"
}
cell "$1" 128 4e-3 --seeds 1
cell "$1" 64 1.6e-2 --grid run.seed=2
