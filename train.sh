#!/usr/bin/env bash
# The main job: build scaledot, train the scaled and the unscaled run, and compare them.
#   ./train.sh                     the shipped sort pair: configs/scaled.ini and configs/unscaled.ini
#                                  (runs/scaled, runs/unscaled, reports/scaled_vs_unscaled)
#   ./train.sh recall              the recall pair instead: configs/recall_scaled.ini and
#                                  configs/recall_unscaled.ini (runs/recall_scaled,
#                                  runs/recall_unscaled, reports/recall_scaled_vs_recall_unscaled)
#   ./train.sh text                the text pair: configs/text_scaled.ini and configs/text_unscaled.ini,
#                                  byte-level language modelling on data/kjv.txt, which
#                                  experiments/text_corpus.sh makes first (from Debian's bible-kjv:
#                                  installed as root, else the command is printed) (runs/text_scaled,
#                                  runs/text_unscaled, reports/text_scaled_vs_text_unscaled)
#   ./train.sh --set run.seed=2    any --set is passed to both runs (same override, one key differs);
#   ./train.sh recall --set ...    'recall', 'text' and --replace are recognised only before any --set
#   ./train.sh --replace           replace an earlier pair's runs and report instead of keeping them
# It always writes into the repository (beside this script), wherever it is started from, and
# says so first. An earlier pair's run folders and report are kept: moved aside to
# NAME.<date of its loss.csv>, e.g. runs/scaled.2026-12-01T083012 (--replace: overwritten).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")"
usage="usage: ./train.sh [recall | text] [--replace] [--set section.key=value ...]"
# -h, --help: the usage and this file's opening comment, on stdout, exit 0 (nothing is built)
show_help() {
    trap '' PIPE # ./train.sh --help | head: the reader may leave early; that is no failure
    { echo "$usage"
      awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' train.sh; } 2> /dev/null ||
        true
    exit 0
}

# Which pair: the two configs differ only in attention.scale and run.name.
pair=""
replace=0
chosen=""
while [ $# -gt 0 ]; do
    case "$1" in
    recall | text)
        [ -z "$chosen" ] || { echo "train.sh: '$chosen' and '$1' both given: one pair at a time" >&2; exit 2; }
        chosen=$1 pair="$1_" ;;
    --replace)
        [ $replace = 0 ] || { echo "train.sh: --replace given twice" >&2; exit 2; }
        replace=1 ;;
    -h | --help) show_help ;;
    *) break ;;
    esac
    shift
done
# What is left must be --set assignments, passed to both runs (or -h / --help); anything else (a
# config file, an option of ./train's) is refused before anything is moved or trained. The pair's
# run names and folder are this script's: a --set of run.name or run.dir would send both runs
# into one folder.
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    a=${args[i]}
    case "$a" in
    --set) ((i + 1 < ${#args[@]})) || { echo "train.sh: --set needs section.key=value" >&2; echo "$usage" >&2; exit 2; }
        i=$((i + 1)); v=${args[i]} ;;
    --set=*) v=${a#--set=} ;;
    -h | --help) show_help ;;
    *) echo "train.sh: unexpected argument '$a' ('recall', 'text' and --replace go first)" >&2
        echo "$usage" >&2; exit 2 ;;
    esac
    case "$(printf '%s' "$v" | tr -d ' \t')" in
    run.name=* | run.dir=*)
        echo "train.sh: --set '$v': the pair's run names and folder are fixed (runs/${pair}scaled, runs/${pair}unscaled); train the runs with ./train to choose them" >&2
        exit 2 ;;
    attention.scale=*)
        # the one key in which the pair differs: setting it for both would compare a run with itself
        echo "train.sh: --set '$v': attention.scale is what the pair compares (sqrt_dk against none); train other scales with ./train or ./train --sweep --scales" >&2
        exit 2 ;;
    *.*=*) ;;
    *)  # checked here, before the text pair's corpus is made (the full check comes below)
        echo "train.sh: --set '$v' is not section.key=value" >&2
        echo "$usage" >&2; exit 2 ;;
    esac
done
scaled_cfg=configs/${pair}scaled.ini
unscaled_cfg=configs/${pair}unscaled.ini
outputs=("runs/${pair}scaled" "runs/${pair}unscaled" "reports/${pair}scaled_vs_${pair}unscaled")

# A fresh Debian machine may lack the compiler: install it when we may, else say what to run.
if ! command -v make >/dev/null 2>&1 || ! command -v gcc >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "train.sh: installing gcc and make (apt-get install build-essential)" >&2
        tools/apt_install.sh build-essential >/dev/null || exit 1
    else
        echo "train.sh needs gcc and make. Install them with:  sudo apt-get install build-essential" >&2
        exit 1
    fi
fi

# What this will do, before the build (about a minute from a fresh clone) keeps the terminal quiet.
# Every line of its own, the build's and the corpus's goes to stderr with the runs' lines: stdout
# is the comparison alone (`./train.sh > comparison.txt`).
[ -x train ] || echo "train.sh: building ./train first, then training ${outputs[*]} in $PWD" >&2
make -s train >&2
# The text pair's corpus, made (and checked) before anything is trained.
if [ "$pair" = text_ ]; then
    experiments/text_corpus.sh >&2
fi
# OpenMP threads that spin while they wait make a busy machine (another job, a second run) up to
# ten times slower; sleeping costs little here. An explicit setting is kept.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

# A bad --set is reported once, before anything runs (both runs would print the same error).
./train --print-config "$scaled_cfg" "$@" >/dev/null

# Two train.sh at once would write into the same runs/ folders.
mkdir -p runs
exec 9>runs/.train.sh.lock
if ! flock -n 9; then
    echo "train.sh: another ./train.sh is writing runs/ (wait for it to finish)" >&2
    exit 1
fi

# Where this writes, before anything is written; an earlier pair is moved aside, not lost.
echo "train.sh: writing ${outputs[*]} in $PWD" >&2
for out in "${outputs[@]}"; do
    [ -e "$out" ] || continue
    if [ "$replace" = 1 ]; then
        echo "train.sh: replacing the earlier $out (--replace)" >&2
        continue
    fi
    stamp_of=$out/loss.csv
    [ -e "$stamp_of" ] || stamp_of=$out
    aside=$out.$(date -r "$stamp_of" +%Y-%m-%dT%H%M%S)
    k=2
    while [ -e "$aside" ]; do
        aside=$out.$(date -r "$stamp_of" +%Y-%m-%dT%H%M%S)-$k
        k=$((k + 1))
    done
    mv -- "$out" "$aside"
    echo "train.sh: kept the earlier $out as $aside" >&2
done

# The two runs are independent, and at the shipped size one thread per run is faster than two
# (a step is too short to share out), so with two or more cores they run side by side, each on
# half of the cores. Their logs are bitwise the same on any thread count. The unscaled run's
# terminal output is held back and shown after the scaled run's, so the two don't mix.
# A --set run.threads=N given here wins. (nproc counts the cores this process may use, but it
# also obeys OMP_NUM_THREADS, which is not meant for it.)
cores=$(OMP_NUM_THREADS='' OMP_THREAD_LIMIT='' nproc 2>/dev/null || echo 1)
if [ "$cores" -lt 2 ]; then
    ./train "$scaled_cfg" "$@"
    ./train "$unscaled_cfg" "$@"
else
    threads=()
    case " $* " in
    *run.threads=*) ;;
    *) threads=(--set run.threads=$((cores / 2))) ;;
    esac
    held=$(mktemp "${TMPDIR:-/tmp}/scaledot-unscaled.XXXXXX" 2>/dev/null ||
        mktemp /tmp/scaledot-unscaled.XXXXXX)
    trap 'rm -f "$held"' EXIT
    # the unscaled run's lines, shown on stderr, where the scaled run wrote its own (./train
    # writes a run's lines there): both runs on one stream, so that `./train.sh 2>log` keeps both
    # and stdout the comparison
    show_held() { echo >&2; cat "$held" >&2; }
    ./train "$unscaled_cfg" "$@" "${threads[@]}" >"$held" 2>&1 &
    unscaled=$!
    ./train "$scaled_cfg" "$@" "${threads[@]}" &
    scaled=$!
    # Both run in the background and are waited for, so that a signal to this script runs its
    # trap at once; the trap passes the signal on (each run then saves its checkpoint) and
    # shows what the unscaled run printed.
    stop() {
        trap - INT TERM
        kill -"$1" "$scaled" "$unscaled" 2>/dev/null || true
        wait "$scaled" 2>/dev/null || true
        wait "$unscaled" 2>/dev/null || true
        show_held
        exit "$2"
    }
    trap 'stop INT 130' INT
    trap 'stop TERM 143' TERM
    rc_scaled=0 rc_unscaled=0
    wait "$scaled" || rc_scaled=$?
    wait "$unscaled" || rc_unscaled=$?
    trap - INT TERM
    show_held
    if [ "$rc_scaled" != 0 ] || [ "$rc_unscaled" != 0 ]; then
        echo "train.sh: scaled run exited with $rc_scaled, unscaled run with $rc_unscaled" >&2
        exit $((rc_scaled != 0 ? rc_scaled : rc_unscaled))
    fi
fi
./train --compare "runs/${pair}scaled" "runs/${pair}unscaled"
