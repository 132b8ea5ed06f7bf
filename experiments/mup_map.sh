#!/usr/bin/env bash
# μP's exponent where it differs (issue 42 item 3): does the best learning rate transfer across
# width, and does μP's 8/d_k beat 1/sqrt(d_k) once d_k itself grows? Byte-level text (data/kjv.txt,
# bits per byte), the LLaMA-style block, the users' recipe of experiments/text_map.sh (GPT-2's
# init, AdamW beta2 0.95, weight decay 0.1, clipping at 1, 100 warm-up steps, cosine to lr/10),
# 1000 steps, batch 32 x 64 bytes, learning rate in factors of 2, seeds 1 and 2, and four arms:
#   model.param {standard, mup} x attention.scale {sqrt_dk, 8/d_k}
# (mup: docs/configuration.md, base width 128, so d_model 128 is μP's base and m = d_model / 128;
# the preset leaves the scale alone, so the two are crossed here). Parts (PARTS, default all six):
#   h2_d128, h2_d256, h2_d512       2 heads fixed: d_k = d_model / 2 = 64, 128, 256 -> results/mup_map/<part>/
#   dk32_d128, dk32_d256, dk32_d512 the control: d_k 32 fixed, heads = d_model / 32 = 4, 8, 16,
#                                   where 8/d_k = 0.25 is 1/sqrt(d_k) times sqrt(2) at every width
#   f32_h2_d512, f32_dk32_d512      the float32 pair of a d_model 512 part (below)
# The d_model 512 parts train with model.matmul = bf16 (bfloat16 inputs, float32 sums): 1.7-1.9x
# faster a step than float32 on the AVX512_BF16 machine, and by construction the same bits on an
# AVX2 machine (docs/performance.md), so a part resumed there continues the same runs. Whether
# that changes a verdict is what the pair answers: f32_<part> is <part> in float32, to be trained
# at a few cells, e.g. PARTS=f32_h2_d512 SEEDS=1 LRS="<each arm's best lr and its neighbours>";
# experiments/mup_transfer.sh prints it as the series f32_h2 beside h2.
# At d_k 64 (h2_d128) 8/d_k is 1/sqrt(d_k) (= 0.125): the same runs, which the sweep refuses to
# plan twice, so h2_d128 plans scale sqrt_dk alone and stands for both scales there (its runs are
# the 8/d_k arm's d_model 128 point too; the table reads them for both).
# SEEDS (default 1,2) and LRS (default "1.5e-4 3e-4 6e-4 1.2e-3 2.4e-3 4.8e-3 9.6e-3": text_map's
# d_model 128 optimum 1.2e-3 with three factors of 2 either side, so that standard's optimum,
# expected to fall with width, and mup's, expected to stay, are bracketed by >= 5 points; widen
# with LRS if an optimum sits at an edge) choose the grid; INIT (default gpt2, the users' recipe;
# fan_in gives the hidden matrices Table 3's 1/fan_in init variance, which gpt2's fixed 0.02 does
# not) the init scheme; ONLY (a regular expression on run names) a subset.
#
# Resumable and publishable as text_map.sh (experiments/lr_map_lib.sh): each (part, lr) a sweep
# in sweeps/mup_map_<part>/lr-<L>/, a run published in results/mup_map/<part>/sweep.csv with
# status ok or diverged not trained again, COST_ONLY=1 prints the runs left and the core-hours and
# stops (leaving no plan behind), PUBLISH_ONLY=1 publishes what the local sweeps hold and trains
# nothing, and the settings that would mix or lose published data are refused before any work
# (lr_map_lib.sh's header): e.g. INIT=fan_in on a part published with gpt2 (init.scheme is in its
# plan.txt's base lines) is refused, naming both values: give such a run another part name.
#
# Cost: a run's seconds by width (run_seconds) are text_map.sh's quiet figures for the same block
# and widths (45, 160 and 610 s per 1000-step run on one core of the 2-vCPU AMD EPYC Zen 5: d_model
# 256 measured, the others scaled by FLOPs): a step's FLOPs do not depend on how d_model is split
# into heads. bf16 at d_model 512: 350 s, from 40-step runs of a text_map.sh d_model 512 config on
# that machine, quiet, alternated twice with float32 (0.30-0.35 s a step against 0.51-0.67 s;
# 15.5-15.8 against 25.8-30.3 CPU s for the whole 40-step run). One 100-step run per width of this script's own settings was also timed, but on a
# heavily loaded machine (load average about 14): 37.7, 300.3 and 650.9 s, 4 to 19 times the quiet
# figures, so no timing. Measured by
#   ./train configs/text_scaled.ini --set model.d_model=D --set model.n_heads=2 \
#     --set model.block=llama --set init.scheme=gpt2 --set train.steps=100 --set run.threads=1 \
#     --set train.eval_every=100 --set log.progress=0 --set run.name=cost_D
. "$(dirname "$(readlink -f "$0")")/common.sh"
PARTS=${PARTS:-h2_d128 h2_d256 h2_d512 dk32_d128 dk32_d256 dk32_d512}
SEEDS=${SEEDS:-1,2}
LRS=${LRS:-1.5e-4 3e-4 6e-4 1.2e-3 2.4e-3 4.8e-3 9.6e-3}
INIT=${INIT:-gpt2}
experiments/text_corpus.sh kjv
recipe=(--set init.scheme="$INIT" "${users_recipe[@]}" --set model.block=llama
    --set model.base_width=128)

part_width() { case $1 in *_d128) echo 128 ;; *_d256) echo 256 ;; *_d512) echo 512 ;;
    *) echo "mup_map.sh: unknown part $1" >&2; exit 2 ;; esac; }
# the part's d_k: 2 heads (d_model / 2) or 32
part_dk() { case ${1#f32_} in h2_*) echo $(($(part_width "$1") / 2)) ;; dk32_*) echo 32 ;;
    *) echo "mup_map.sh: unknown part $1" >&2; exit 2 ;; esac; }
# part_check PART: exit 2 with one line unless PART is a part (lr_map_lib.sh's map_check):
# h2_ or dk32_ then d128, d256 or d512, and f32_ only before a d512 part (the bf16 ones; the
# narrower parts are float32 already: an f32_ copy would train their published runs again)
part_check() {
    case $1 in h2_d128 | h2_d256 | h2_d512 | dk32_d128 | dk32_d256 | dk32_d512 | f32_h2_d512 | f32_dk32_d512) ;;
    *) echo "mup_map.sh: unknown part $1 (the parts: h2_d128 h2_d256 h2_d512 dk32_d128 dk32_d256 dk32_d512, and the float32 pairs f32_h2_d512 f32_dk32_d512)" >&2
       exit 2 ;;
    esac
}
# the part's matmul: bf16 at d_model 512 but in a float32 pair (above)
part_matmul() { case $1 in f32_*) echo float32 ;; *_d512) echo bf16 ;; *) echo float32 ;; esac; }
# the part's scales: at d_k 64 8/d_k is sqrt_dk, planned once (above)
part_scales() { if [ "$(part_dk "$1")" = 64 ]; then echo sqrt_dk; else echo sqrt_dk,8/d_k; fi; }
run_seconds() { case $(part_width "$1")/$(part_matmul "$1") in 128/*) echo 45 ;; 256/*) echo 160 ;;
    512/bf16) echo 350 ;; 512/*) echo 610 ;; esac; }

# plan PART LR: the (part, lr) sweep's plan (configs and jobs.txt); prints its folder
plan() {
    local out min_lr
    out=$(sweep_dir "$1" "$2")
    min_lr=$(awk -v l="$2" 'BEGIN { printf "%.6g", l / 10 }')
    ./train --sweep configs/text_scaled.ini --dk "$(part_dk "$1")" --d-model "$(part_width "$1")" \
        --scales "$(part_scales "$1")" --grid model.param=standard,mup --grid optim.lr="$2" \
        --seeds "$SEEDS" --set optim.min_lr="$min_lr" "${recipe[@]}" --set model.matmul="$(part_matmul "$1")" \
        --out "$out" --plan >/dev/null || return 2 # (set -e does not act in a function under ||)
    echo "$out"
}

# map_figure: after publishing, the readings (experiments/mup_transfer.sh: best lr per width, the
# transfer slope, the loss lost at the d_model 128 optimum, alpha of std(q.k)) into
# results/mup_map/transfer.txt, and the figure results/mup_map/mup_map.svg (Python 3, as the twin;
# the runs and the table need only ./train and awk)
map_figure() {
    experiments/mup_transfer.sh results/mup_map >results/mup_map/transfer.txt.tmp &&
        mv results/mup_map/transfer.txt.tmp results/mup_map/transfer.txt
    if command -v python3 >/dev/null; then python3 experiments/mup_figure.py results/mup_map >/dev/null
    else echo "mup_map.sh: python3 not found: results/mup_map/mup_map.svg not redrawn"; fi
}

MAP=mup_map
. experiments/lr_map_lib.sh
map_main
