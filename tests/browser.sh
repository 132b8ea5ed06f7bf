#!/usr/bin/env bash
# tests/browser.sh (make test-browser): the report pages in headless Chromium. Builds a --compare
# report of the three fixture runs and the sweep pages of two shipped sweeps (results/: one varies
# optim.lr, one d_k), then tests/browser_check.py opens each page with a checking script of its own
# added, reads the DOM Chromium dumps (every figure inline, the tooltip after a pointer event on a
# curve, the run toggles, no script error) and checks a screenshot is not blank.
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
for s in lr_sensitivity/sort sweep/fixed_width; do
    mkdir -p "$tmp/$s"
    cp "$root/results/$s/sweep.csv" "$tmp/$s/"
    "$train" --sweep-report "$tmp/$s" > "$tmp/sweep.log"
    pages+=("$tmp/$s")
done
python3 "$root/tests/browser_check.py" "$chromium" "${pages[@]}"
