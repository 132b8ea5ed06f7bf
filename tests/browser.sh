#!/usr/bin/env bash
# tests/browser.sh (make test-browser): the report pages in headless Chromium. Builds a --compare
# report of the three fixture runs, one of a small text pair it trains (60 steps on
# data/prose.txt, 4 heads), and the sweep pages of three shipped sweeps (results/: one varies
# optim.lr, one d_k, one the scale alone), then tests/browser_check.py opens each page with a checking script of its own
# added, reads the DOM Chromium dumps (every figure inline, the tooltip after a pointer event on a
# curve, the run toggles, no script error; on the text pair's page the step slider against the
# runs' attn_steps.csv and attention.csv) and checks a screenshot is not blank.
# Needs Debian's chromium: installed here when run as root (apt-get), else SKIPPED (exit 0).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
train=${SCALEDOT_TRAIN_BIN:-$root/train}
chromium=${CHROMIUM:-chromium}

if ! command -v "$chromium" > /dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        echo "browser test: installing chromium (apt-get)"
        "$root/tools/apt_install.sh" chromium > /dev/null
    else
        echo "SKIPPED: browser test: no chromium, and not root to install it (apt-get install chromium)"
        exit 0
    fi
fi
[ -x "$train" ] || { echo "browser.sh: $train is not built (make train)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/scaledot_browser.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fx=$root/tests/fixtures/runs
"$train" --compare "$fx/scaled" "$fx/unscaled" "$fx/diverged" --out "$tmp/compare" > "$tmp/compare.log"
pages=("$tmp/compare")
# a small text pair with 4 heads (the page in bits per byte, the other heads' maps folded)
for s in scaled unscaled; do
    "$train" "$root/configs/text_$s.ini" --set task.file="$root/data/prose.txt" \
        --set train.steps=60 --set train.eval_every=20 --set model.n_heads=4 \
        --set log.progress=0 --set run.dir="$tmp/runs" > "$tmp/text_$s.log" 2>&1
done
"$train" --compare "$tmp/runs/text_scaled" "$tmp/runs/text_unscaled" --out "$tmp/text_compare" \
    > "$tmp/text_compare.log"
pages+=("$tmp/text_compare")
# seeds/sort varies the scale alone: its figure is against the scale
for s in lr_sensitivity/sort sweep/fixed_width seeds/sort; do
    mkdir -p "$tmp/$s"
    cp "$root/results/$s/sweep.csv" "$tmp/$s/"
    "$train" --sweep-report "$tmp/$s" > "$tmp/sweep.log"
    pages+=("$tmp/$s")
done
python3 "$root/tests/browser_check.py" "$chromium" "${pages[@]}"
