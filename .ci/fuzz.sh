#!/usr/bin/env bash
# CI: fuzz the input parsers (INI file, --set, task file, checkpoint) with libFuzzer + ASan +
# UBSan.
#   .ci/fuzz.sh [SECONDS]    build (make fuzz) and run every harness fuzz/fuzz_*.c for SECONDS each
#                            (default 60), FUZZ_JOBS of them at once (default: the number of
#                            cores); exit 1 on any crash, leak, undefined behaviour, timeout or
#                            out-of-memory.
# Inputs: fuzz/corpus/NAME/ (seeds, read only) plus build/fuzz/corpus/fuzz_NAME/ (what earlier
# runs found, kept between runs). A failing input is copied to fuzz/crashes/fuzz_NAME-KIND-HASH;
# replay it with   FUZZ_VERBOSE=1 build/fuzz/fuzz_NAME fuzz/crashes/FILE   and turn it into a
# regression test in tests/test_ini.c, tests/test_set.c or tests/test_file_parse.c.
# A new harness fuzz/fuzz_NAME.c with seeds in fuzz/corpus/NAME/ is built and run here without
# changes to this script.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
case "$secs" in '' | *[!0-9]*) echo "usage: .ci/fuzz.sh [SECONDS]" >&2; exit 2 ;; esac

# libFuzzer ships with clang's runtime libraries; install them when we may, else say what to run.
fuzz_cc=${FUZZ_CC:-clang}
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! "$fuzz_cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2>/dev/null; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "fuzz.sh: installing clang and its fuzzer runtime (apt-get install clang libclang-rt-N-dev)"
        tools/apt_install.sh clang >/dev/null
        v=$("$fuzz_cc" --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
        tools/apt_install.sh "libclang-rt-$v-dev" >/dev/null 2>&1 || true
    fi
    if ! "$fuzz_cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2>/dev/null; then
        echo "fuzz.sh needs clang with libFuzzer. Install with:" \
             "sudo apt-get install clang libclang-rt-14-dev (your clang's version)" >&2
        exit 1
    fi
fi

make -s fuzz FUZZ_CC="$fuzz_cc"

mkdir -p fuzz/crashes
# fuzz_one NAME: runs one harness for $secs, prints its report (to the caller's file) and returns
# 1 when it found something.
fuzz_one() {
    local name=$1 bin=build/fuzz/$1 seeds=fuzz/corpus/${1#fuzz_} work=build/fuzz/corpus/$1
    local artifacts=build/fuzz/artifacts/$1 log=build/fuzz/$1.log
    rm -rf "$artifacts"
    mkdir -p "$work" "$artifacts"
    # Checkpoints hold the configuration text and every tensor: the smallest seeds are 2-7 KB.
    local max_len=4096
    [ "$name" = fuzz_checkpoint ] && max_len=16384
    local args=(-max_total_time="$secs" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10
                -print_final_stats=1 -artifact_prefix="$artifacts/")
    # Both config harnesses share one dictionary of sections, keys and values.
    case "$name" in fuzz_config_*) args+=(-dict=fuzz/config.dict) ;; esac
    local dirs=("$work")
    [ -d "$seeds" ] && dirs+=("$seeds")
    echo "== $name: ${secs}s"
    local start rc=0 found runs cov
    start=$(date +%s)
    "$bin" "${args[@]}" "${dirs[@]}" >"$log" 2>&1 || rc=$?
    # libFuzzer saves an input that took longer than 10 s as slow-unit-*, or stops at one that
    # ran past -timeout (timeout-*, exit code 70), by its wall clock, which runs on while the
    # machine is busy or the process is stopped: a 1 ms input was once saved at 19 s beside a
    # training run, and a harness stopped for 13 s reports a timeout. So such an input is run
    # again, alone, and timed by its CPU time (user + system, which another process's load does
    # not inflate): it stays a finding when that replay fails (a crash, a leak, a timeout again)
    # or still takes over 1 s; else it is dropped, and a harness that stopped at it passes.
    local f replay=build/fuzz/$1.replay rc_replay cpu_ms dropped_timeout=0 TIMEFORMAT='%3U %3S'
    for f in "$artifacts"/slow-unit-* "$artifacts"/timeout-*; do
        [ -f "$f" ] || continue
        rc_replay=0
        { time "$bin" -runs=1 -timeout=10 "$f" >"$replay.log" 2>&1; } 2>"$replay.time" ||
            rc_replay=$?
        cpu_ms=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$replay.time")
        if [ "$rc_replay" -ne 0 ]; then
            echo "   $(basename "$f"): its replay alone exited with code $rc_replay:"
            grep -v '^#[0-9]' "$replay.log" | tail -20 | sed 's/^/   | /'
        elif [ "${cpu_ms:-0}" -gt 1000 ]; then
            echo "   $(basename "$f"): still slow alone, ${cpu_ms} ms of CPU time"
        else
            echo "   $(basename "$f") reran alone in ${cpu_ms} ms of CPU time: counted as machine load, not a finding"
            case "$f" in */timeout-*) dropped_timeout=1 ;; esac
            rm -f "$f"
        fi
    done
    if [ "$rc" -eq 70 ] && [ "$dropped_timeout" = 1 ] &&
        ! compgen -G "$artifacts/timeout-*" >/dev/null; then
        echo "   (libFuzzer exited with code 70 at that input, before its ${secs}s: passed on the inputs it ran)"
        rc=0
    fi
    found=$(find "$artifacts" -type f | wc -l)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    echo "   $(( $(date +%s) - start ))s, ${runs:-?} inputs, ${cov:-cov: ?}, exit code $rc"
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        echo "   FAILED; the end of $log:"
        # The sanitizer report and libFuzzer's summary; the full log stays in build/fuzz/.
        grep -v '^#[0-9]' "$log" | tail -60 | sed 's/^/   | /'
        for f in "$artifacts"/*; do
            [ -f "$f" ] || continue
            cp "$f" "fuzz/crashes/$name-$(basename "$f")"
            echo "   input saved: fuzz/crashes/$name-$(basename "$f")"
        done
        return 1
    fi
    return 0
}

# FUZZ_JOBS harnesses at once (default: the number of cores; each is one process), reports
# printed in the harnesses' order. Each harness still gets its full $secs.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$jobs" in '' | *[!0-9]* | 0) echo "fuzz.sh: FUZZ_JOBS must be a whole number >= 1" >&2; exit 2 ;; esac
reports=$(mktemp -d)
trap 'rm -rf "$probe" "$reports"' EXIT
names=()
for src in fuzz/fuzz_*.c; do names+=("$(basename "$src" .c)"); done
fail=0
for ((i = 0; i < ${#names[@]}; i += jobs)); do
    pids=()
    for ((k = i; k < i + jobs && k < ${#names[@]}; k++)); do
        fuzz_one "${names[$k]}" >"$reports/$k" 2>&1 &
        pids+=($!)
    done
    for ((k = i; k < i + jobs && k < ${#names[@]}; k++)); do
        wait "${pids[$((k - i))]}" || fail=1
        cat "$reports/$k"
    done
done

if [ "$fail" -ne 0 ]; then echo "fuzz.sh: FAILED"; exit 1; fi
echo "fuzz.sh: no crash, leak or undefined behaviour in ${secs}s per harness"
