#!/usr/bin/env bash
# The main job: build scaledot, train the scaled and the unscaled run, and compare them.
#   ./train.sh                     the shipped configs/scaled.ini and configs/unscaled.ini
#   ./train.sh --set run.seed=2    any --set is passed to both runs (same override, one key differs)
set -euo pipefail
cd "$(dirname "$0")"

# A fresh Debian machine may lack the compiler: install it when we may, else say what to run.
if ! command -v make >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "train.sh: installing gcc and make (apt-get install build-essential)"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential >/dev/null
    else
        echo "train.sh needs gcc and make. Install them with:  sudo apt-get install build-essential" >&2
        exit 1
    fi
fi

make -s train
# OpenMP threads that spin while they wait make a busy machine (another job, a second run) up to
# ten times slower; sleeping costs little here. An explicit setting is kept.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
./train configs/scaled.ini "$@"
./train configs/unscaled.ini "$@"
./train --compare runs/scaled runs/unscaled
