#!/usr/bin/env bash
# run_tests.sh SUFFIX DIR TEST...: runs each test program DIR/TEST and prints one line per
# program (its Check summary), a failing program's whole output, and a closing count, in the
# order given. TEST_JOBS=N runs up to N programs at once (default: the number of cores): a
# program starts as soon as any slot is free, whatever runs before it in the list, and each
# program's output is kept apart and printed when its turn comes. V=1 prints every program's
# whole output instead, one program at a time. A program still running when its turn comes gets
# a line every TEST_HEARTBEAT seconds (default 30) with its running time and its own last line of
# output: its output is held until it ends, and a long program would otherwise pass without a
# line. The environment (CK_FORK, sanitizer options, ...) comes from the caller: make test-run
# and make test-sanitize-run. Needs bash 5.1 or later (wait -n -p).
set -u
suffix=$1 dir=$2
shift 2
tests=("$@")
jobs=${TEST_JOBS:-$(nproc 2> /dev/null || echo 1)}
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
    echo "run_tests.sh: TEST_JOBS must be a whole number >= 1, not '$jobs'"
    exit 2
fi
beat=${TEST_HEARTBEAT:-30}
if ! [[ "$beat" =~ ^[1-9][0-9]*$ ]]; then
    echo "run_tests.sh: TEST_HEARTBEAT must be a whole number of seconds >= 1, not '$beat'"
    exit 2
fi
pass=0 fail=0 failed=""
n=${#tests[@]}

# V=1: one program at a time, its output as it comes.
if [ "${V:-0}" = 1 ]; then
    for t in "${tests[@]}"; do
        echo "== $t$suffix"
        if "$dir/$t"; then pass=$((pass + 1)); else fail=$((fail + 1)) failed="$failed $t"; fi
    done
    [ $fail -eq 0 ] || echo "failed:$failed"
    echo "tests: $pass passed, $fail failed"
    [ $fail -eq 0 ]
    exit
fi

tmp=$(mktemp -d /tmp/scaledot_tests.XXXXXX) || exit 1
pids=()      # program K's process while it runs
declare -A k_of # a running program's process -> K
ticker=      # the heartbeats' clock: a sleep that ends every $beat s (below)
cleanup() {
    [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2> /dev/null
    # SIGKILL: a TERM that landed before the child exec'd sleep would run this trap there
    if [ -n "$ticker" ]; then
        kill -KILL "$ticker" 2> /dev/null
        wait "$ticker" 2> /dev/null # (no "Killed" line)
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# start K: runs program K in the background, its output in $tmp/K.
start() {
    "$dir/${tests[$1]}" > "$tmp/$1" 2>&1 &
    pids[$1]=$!
    k_of[$!]=$1
    started[$1]=$SECONDS
}

# new_ticker: the clock restarts, $beat s to the next heartbeat. Its output goes nowhere, so a
# sleep left behind cannot hold the caller's pipe open.
new_ticker() {
    if [ -n "$ticker" ]; then
        kill -KILL "$ticker" 2> /dev/null
        wait "$ticker" 2> /dev/null
    fi
    sleep "$beat" > /dev/null 2>&1 &
    ticker=$!
}

# report K: program K's line, or its whole output when it failed.
report() {
    local k=$1 t=${tests[$1]} rc=${rcs[$1]}
    if [ "$rc" -eq 0 ]; then
        pass=$((pass + 1))
        printf '  ok    %-26s %s\n' "$t$suffix" "$(grep -E '^[0-9]+%: Checks:' "$tmp/$k" | tail -n 1)"
    else
        fail=$((fail + 1))
        failed="$failed $t"
        printf 'FAIL  %s (exit code %d); its output:\n' "$t$suffix" "$rc"
        printf '%s\n' "$(cat "$tmp/$k")" | sed 's/^/    /'
    fi
    rm -f "$tmp/$k"
}

rcs=()
next=0 running=0 cursor=0
while ((running < jobs && next < n)); do start $next && next=$((next + 1)) running=$((running + 1)); done
new_ticker
while ((cursor < n)); do
    # the programs whose turn it is and that have ended, in the order given
    if [ -n "${rcs[$cursor]:-}" ]; then
        report $cursor
        cursor=$((cursor + 1))
        ((cursor < n)) && new_ticker
        continue
    fi
    done_pid=
    wait -n -p done_pid
    rc=$?
    if [ -z "$done_pid" ]; then # no child left: cannot happen while the ticker runs
        echo "run_tests.sh: lost track of the programs"
        exit 2
    elif [ "$done_pid" = "$ticker" ]; then
        printf '  ..    %-26s running for %d s: %s\n' "${tests[$cursor]}$suffix" \
            $((SECONDS - started[cursor])) \
            "$(grep -v '^[[:space:]]*$' "$tmp/$cursor" | tail -n 1 | cut -c1-90)"
        ticker=
        new_ticker
    elif [ -n "${k_of[$done_pid]:-}" ]; then
        k=${k_of[$done_pid]}
        rcs[k]=$rc
        unset "pids[$k]" "k_of[$done_pid]"
        running=$((running - 1))
        if ((next < n)); then start $next && next=$((next + 1)) running=$((running + 1)); fi
    fi
done
[ $fail -eq 0 ] || echo "failed:$failed"
echo "tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
