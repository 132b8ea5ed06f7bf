#!/usr/bin/env bash
# The map where our users stand (issue 41): byte-level language modelling on the King James Bible
# (data/kjv.txt, bits per byte), the LLaMA-style block (model.block = llama), GPT-2's init, the
# recipe GPT-2-style users train with (AdamW beta2 0.95, weight decay 0.1, gradient clipping at 1,
# 100 warm-up steps, cosine decay to lr/10), 1000 steps, batch 32 x 64 bytes, d_k 64 (so n_heads =
# d_model / 64), learning rate in factors of 2 around nanoGPT's 6e-4, and four arms:
#   scale {1/sqrt(d_k), none} x attention.qk_norm {none, rmsnorm}
# (unscaled + qk-RMSNorm is Gemma 4's choice). Parts (PARTS, default "d128 d256 d512 gpt2_d256"):
#   d128, d256, d512   the LLaMA block at that width                -> results/text_map/d<W>/
#   d768               the LLaMA block at GPT-2 small's width (LRS=... to choose the lrs)
#   bf16_d768          d768 with model.matmul = bf16 (bfloat16 inputs, float32 sums: 1.7-1.9x
#                      faster a step on an AVX512_BF16 machine, the same bits on an AVX2 one,
#                      docs/performance.md); its float32 pair is d768 at a few of its cells. Its
#                      folder is not d<W>, so ./train --where's text_users regime (whose runs are
#                      float32, experiments/regimes.txt) does not read it: it is in the figure
#   gpt2_d256          the GPT-2 block at d_model 256, the cross-check against the sort maps
# SEEDS (default 1,2) and LRS (default "3e-4 6e-4 1.2e-3 2.4e-3 4.8e-3 9.6e-3 1.92e-2") choose
# the grid; ONLY (an extended regular expression on run names) trains a subset. Another seed set,
# e.g. SEEDS=3 (seeds 1-3) at the lrs that decide a threshold, is planned in lr-<L>_seeds-<S>/
# beside lr-<L>/ (a different --seeds is a different plan); its runs already published (seeds 1
# and 2) are skipped, the rest trained and published with the others.
#
# Resumable, also on another machine (the driver is experiments/lr_map_lib.sh, shared with
# mup_map.sh): each (part, lr) is a sweep in sweeps/text_map_<part>/lr-<L>/
# (git ignores sweeps/), trained seed by seed so that a stop leaves whole sets of arms; started
# again, a run already finished in the local sweep is skipped and an interrupted one resumes from
# its checkpoint, and a run whose row is already published in results/text_map/<part>/sweep.csv
# with status ok or diverged is not trained again (the checkout is all another machine needs).
# Publishing merges: a run's freshly collected row when it ended (ok, diverged, guard), else the
# row already published, else the fresh row (missing); then ./train --sweep-report redraws the
# summary, experiments/curves.sh adds the curve of each local run that ended (a run without an
# ended row has no published curve), the part's plans are written as one
# plan.txt (make lr-map reads it: the text_users regime of ./train --where), and
# experiments/text_map_figure.py draws results/text_map/text_map.svg (bits per byte against lr, a
# panel per part, peak logit std below) and lr_sensitivity.txt over every published part.
# PUBLISH_ONLY=1 publishes what
# the local sweeps hold (e.g. after stopping the script) and trains nothing; publishing again, with
# any LRS, writes the same bytes when no run changed. Refused before any work (exit 2, one line):
# JOBS not from 1 to 256, an unknown part, an ONLY that is no regular expression, an lr given
# twice or spelled otherwise than the part's published plan spells it (0.0006 for 6e-4), a base
# other than the published part's. SEEDS=2 is the default set (seeds 1,2).
#
# Cost: the script prints the runs left and the core-hours before it trains (a run's seconds on
# one core by width, measured below; COST_ONLY=1 prints the cost and stops). Measured on one core
# of a 2-vCPU AMD EPYC Zen 5 (AVX-512), float32, quiet: d_model 256, 100 steps, 1.5 s per 10 steps
# (148-152 ms/step), so about 160 s for 1000 steps with its 11 evaluations. The other widths are
# scaled from it by the step's FLOPs (d_model 128: x0.27; 512: x3.8; 768: x8.4) until measured.
. "$(dirname "$(readlink -f "$0")")/common.sh"
PARTS=${PARTS:-d128 d256 d512 gpt2_d256}
SEEDS=${SEEDS:-1,2}
LRS=${LRS:-3e-4 6e-4 1.2e-3 2.4e-3 4.8e-3 9.6e-3 1.92e-2}
experiments/text_corpus.sh kjv
recipe=(--set init.scheme=gpt2 "${users_recipe[@]}")

part_width() { case $1 in d128) echo 128 ;; d256 | gpt2_d256) echo 256 ;; d512) echo 512 ;;
    d768 | bf16_d768) echo 768 ;; *) echo "text_map.sh: unknown part $1" >&2; exit 2 ;; esac; }
part_block() { case $1 in gpt2_*) echo gpt2 ;; *) echo llama ;; esac; }
part_matmul() { case $1 in bf16_*) echo bf16 ;; *) echo float32 ;; esac; }
# bf16 at d_model 768: float32's 1340 s times the bf16 / float32 ratio measured at d_model 512
# (350 / 610 s, experiments/mup_map.sh), until measured
run_seconds() { case $(part_width "$1")/$(part_matmul "$1") in 128/*) echo 45 ;; 256/*) echo 160 ;;
    512/*) echo 610 ;; 768/bf16) echo 770 ;; 768/*) echo 1340 ;; esac; }

# plan PART LR: the (part, lr) sweep's plan (configs and jobs.txt); prints its folder
plan() {
    local w out min_lr
    w=$(part_width "$1")
    out=$(sweep_dir "$1" "$2")
    min_lr=$(awk -v l="$2" 'BEGIN { printf "%.6g", l / 10 }')
    ./train --sweep configs/text_scaled.ini --dk 64 --d-model "$w" --scales sqrt_dk,none \
        --grid attention.qk_norm=none,rmsnorm --grid optim.lr="$2" --seeds "$SEEDS" \
        --set model.block="$(part_block "$1")" --set optim.min_lr="$min_lr" "${recipe[@]}" \
        --set model.matmul="$(part_matmul "$1")" --out "$out" --plan >/dev/null || return 2 # (set -e does not act in a function under ||)
    echo "$out"
}

# map_figure: the figure over every published part and lr_sensitivity.txt (Python 3, as the twin;
# the runs and tables need only ./train)
map_figure() {
    if command -v python3 >/dev/null; then python3 experiments/text_map_figure.py results/text_map >/dev/null
    else echo "text_map.sh: python3 not found: results/text_map/text_map.svg not redrawn"; fi
}

MAP=text_map
. experiments/lr_map_lib.sh
map_main
