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

# The two runs are independent, and at the shipped size one thread per run is faster than two
# (a step is too short to share out), so with two or more cores they run side by side, each on
# half of the cores. Their logs are bitwise the same on any thread count. The unscaled run's
# terminal output is held back and shown when the scaled run is done, so the two don't mix.
# A --set run.threads=N given here still wins (it comes later on the command line).
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
if [ "$cores" -lt 2 ]; then
    ./train configs/scaled.ini "$@"
    ./train configs/unscaled.ini "$@"
else
    threads=$((cores / 2))
    held=$(mktemp "${TMPDIR:-/tmp}/scaledot-unscaled.XXXXXX")
    ./train configs/unscaled.ini --set run.threads="$threads" "$@" >"$held" 2>&1 &
    bg=$!
    # a background job of a script ignores Ctrl-C: pass it on, so it saves its checkpoint too
    trap 'kill -INT "$bg" 2>/dev/null; wait "$bg"; cat "$held"; rm -f "$held"; exit 130' INT
    trap 'kill -TERM "$bg" 2>/dev/null; wait "$bg"; rm -f "$held"; exit 143' TERM
    rc_scaled=0 rc_unscaled=0
    ./train configs/scaled.ini --set run.threads="$threads" "$@" || rc_scaled=$?
    wait "$bg" || rc_unscaled=$?
    trap - INT TERM
    echo
    cat "$held"
    rm -f "$held"
    if [ "$rc_scaled" != 0 ] || [ "$rc_unscaled" != 0 ]; then
        echo "train.sh: scaled run exited with $rc_scaled, unscaled run with $rc_unscaled" >&2
        exit $((rc_scaled != 0 ? rc_scaled : rc_unscaled))
    fi
fi
./train --compare runs/scaled runs/unscaled
