#!/usr/bin/env bash
# run_tests.sh SUFFIX DIR TEST...: runs each test program DIR/TEST and prints one line per
# program (its Check summary), a failing program's whole output, and a closing count, in the
# order given. TEST_JOBS=N runs up to N programs at once (default 1; each program's output is
# kept apart and printed when its turn comes). V=1 prints every program's whole output instead,
# one program at a time. A program still running when its turn comes gets a line every
# TEST_HEARTBEAT seconds (default 30) with its running time and its own last line of output:
# its output is held until it ends, and test_model's gradient checks take minutes (longer under
# the sanitizers), which used to pass without a line. The environment (CK_FORK, sanitizer
# options, ...) comes from the caller: make test-run and make test-sanitize-run.
set -u
suffix=$1 dir=$2
shift 2
tests=("$@")
jobs=${TEST_JOBS:-1}
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
    echo "run_tests.sh: TEST_JOBS must be a whole number >= 1, not '$jobs'"
    exit 2
fi
beat=${TEST_HEARTBEAT:-30}
if ! [[ "$beat" =~ ^[1-9][0-9]*$ ]]; then
    echo "run_tests.sh: TEST_HEARTBEAT must be a whole number of seconds >= 1, not '$beat'"
    exit 2
fi
[ "${V:-0}" != 1 ] || jobs=1
tmp=$(mktemp -d /tmp/scaledot_tests.XXXXXX) || exit 1
pids=()
trap '[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2> /dev/null; rm -rf "$tmp"' EXIT
mkfifo "$tmp/beat" || exit 1 # the heartbeats' clock (below)

# start K: runs program K in the background, its output in $tmp/K (V=1: in the foreground).
start() {
    if [ "${V:-0}" = 1 ]; then
        echo "== ${tests[$1]}$suffix"
        "$dir/${tests[$1]}"
        echo $? > "$tmp/$1.rc"
    else
        "$dir/${tests[$1]}" > "$tmp/$1" 2>&1 &
        pids[$1]=$!
        started[$1]=$(date +%s)
    fi
}

# heartbeat K: in the background until killed (SIGKILL: a TERM that lands before the subshell
# runs could run this script's EXIT trap there and remove $tmp), a line every $beat s while
# program K runs: its time so far and its last non-empty line of output (cut to 90 characters).
# It waits with read -t on a FIFO nobody writes to, so no sleep process outlives it.
heartbeat() {
    bash -c 'exec 3<> "$5"
             while ! read -r -t "$1" -u 3 _; do
                 printf "  ..    %-26s running for %d s: %s\n" "$2" $(($(date +%s) - $3)) \
                     "$(grep -v "^[[:space:]]*$" "$4" | tail -n 1 | cut -c1-90)"
             done' heartbeat "$beat" "${tests[$1]}$suffix" "${started[$1]}" "$tmp/$1" "$tmp/beat" &
}

pass=0 fail=0 failed=""
n=${#tests[@]}
for ((k = 0; k < jobs && k < n; k++)); do start $k; done
for ((k = 0; k < n; k++)); do
    t=${tests[$k]}
    if [ "${V:-0}" = 1 ]; then
        rc=$(cat "$tmp/$k.rc")
    else
        heartbeat $k
        hb=$!
        wait "${pids[$k]}"
        rc=$?
        kill -KILL "$hb" 2> /dev/null
        wait "$hb" 2> /dev/null
        unset "pids[$k]"
    fi
    ((k + jobs < n)) && start $((k + jobs))
    if [ "$rc" -eq 0 ]; then
        pass=$((pass + 1))
        [ "${V:-0}" = 1 ] || printf '  ok    %-26s %s\n' "$t$suffix" \
            "$(grep -E '^[0-9]+%: Checks:' "$tmp/$k" | tail -n 1)"
    else
        fail=$((fail + 1))
        failed="$failed $t"
        if [ "${V:-0}" != 1 ]; then
            printf 'FAIL  %s (exit code %d); its output:\n' "$t$suffix" "$rc"
            printf '%s\n' "$(cat "$tmp/$k")" | sed 's/^/    /'
        fi
    fi
    rm -f "$tmp/$k"
done
[ $fail -eq 0 ] || echo "failed:$failed"
echo "tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
