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
    local start start_ms rc=0 found runs cov
    start=$(date +%s)
    "$bin" "${args[@]}" "${dirs[@]}" >"$log" 2>&1 || rc=$?
    # libFuzzer saves an input that took longer than 10 s as slow-unit-*, and a unit's clock runs
    # on while the machine is busy or the process is stopped (it once saved a 1 ms input at 19 s
    # beside a training run). So a slow unit is timed again, alone: it fails only if it is still
    # slow (over 1 s). A hang fails anyway through -timeout.
    local f ms
    for f in "$artifacts"/slow-unit-*; do
        [ -f "$f" ] || continue
        start_ms=$(date +%s%3N)
        "$bin" -runs=1 -timeout=10 "$f" >/dev/null 2>&1 || true
        ms=$(( $(date +%s%3N) - start_ms ))
        if [ "$ms" -le 1000 ]; then
            echo "   slow unit $(basename "$f") reran alone in ${ms} ms: counted as machine load, not a finding"
            rm -f "$f"
        fi
    done
    found=$(find "$artifacts" -type f | wc -l)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    echo "   $(( $(date +%s) - start ))s, ${runs:-?} inputs, ${cov:-cov: ?}, exit code $rc"
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        echo "   FAILED; the end of $log:"
        # The sanitizer report and libFuzzer's summary; the full log stays in build/fuzz/.
        grep -v '^#[0-9]' "$log" | tail -60 | sed 's/^/   | /'
        local f
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
