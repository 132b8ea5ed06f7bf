#!/usr/bin/env bash
# CI: short runs of the training program under valgrind's memcheck (invalid reads and writes,
# uninitialised values, leaks); exit 1 on any error or leak.
#   .ci/valgrind.sh
# Builds build/valgrind/train with -O1 -g -march=x86-64-v3 (AVX2, FMA): valgrind 3.19 cannot
# decode AVX-512 instructions, so this build must never use -march=native.
# Leaks: only "definitely lost" and "indirectly lost" blocks fail the run
# (--errors-for-leak-kinds=definite,indirect). OpenMP's runtime (libgomp) keeps its thread pool
# and per-thread data until the process ends, which memcheck reports as "possibly lost" or
# "still reachable"; those are the runtime's, not ours, and are neither shown nor counted.
set -euo pipefail
cd "$(dirname "$0")/.."
# ./train restarts itself once to set OMP_WAIT_POLICY when it is unset (src/main.c); the
# restarted process would run outside valgrind, so set it here.
export OMP_WAIT_POLICY=passive

if ! command -v valgrind >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "valgrind.sh: installing valgrind (apt-get install valgrind)"
        tools/apt_install.sh valgrind >/dev/null || exit 1
    else
        echo "valgrind.sh needs valgrind. Install it with:  sudo apt-get install valgrind" >&2
        exit 1
    fi
fi

# CFLAGS is unset so that the build's CFLAGS come from OPT.
(unset CFLAGS; make -s CC=gcc BUILD=build/valgrind OPT='-O1 -g -march=x86-64-v3' build/valgrind/train)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# memcheck LABEL EXPECTED_EXIT_CODE ARGS...: runs build/valgrind/train ARGS under memcheck; fails
# on any valgrind report or another exit code (valgrind's own is 1). The log goes to
# $work/LABEL.log and is shown when the run fails.
memcheck() {
    local label=$1 want=$2
    shift 2
    local start rc=0
    start=$(date +%s)
    valgrind --quiet --error-exitcode=1 --exit-on-first-error=no --track-origins=yes \
        --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --show-leak-kinds=definite,indirect --log-file="$work/$label.log" \
        build/valgrind/train "$@" >"$work/$label.out" 2>&1 || rc=$?
    echo "== $label: exit code $rc (expected $want), $(( $(date +%s) - start ))s"
    if [ "$rc" -ne "$want" ] || [ -s "$work/$label.log" ]; then
        fail=1
        echo "   FAILED; valgrind says:"
        sed 's/^/   | /' "$work/$label.log" | tail -80
        echo "   the program printed:"
        tail -20 "$work/$label.out" | sed 's/^/   | /'
    fi
}

# Small enough for memcheck's ~50x slowdown, and every periodic step (log, validation) happens.
common=(--set run.dir="$work/runs" --set run.threads=1 --set train.steps=20
        --set train.batch_size=16 --set model.d_model=16 --set task.val_size=64
        --set train.eval_every=10 --set log.every=5 --set log.progress=0)
# A generated task with the default attention scale, then the file task with no scaling.
memcheck recall 0 "${common[@]}" --set run.name=a
memcheck file 0 "${common[@]}" --set run.name=b --set task.name=file --set task.file=data/words.txt \
    --set attention.scale=none
# The checkpoint reader: resume run a for 5 more steps, evaluate run b.
memcheck resume 0 --resume "$work/runs/a" --set train.steps=25
memcheck eval 0 --eval "$work/runs/b"
# The report over both runs, and a configuration error (exit code 2 is expected there).
memcheck compare 0 --compare "$work/runs/a" "$work/runs/b" --out "$work/compare"
memcheck bad_config 2 --set model.n_heads=3

if [ "$fail" -ne 0 ]; then echo "valgrind.sh: FAILED"; exit 1; fi
echo "valgrind.sh: no memory errors or leaks"
