#!/usr/bin/env bash
# run_tests.sh SUFFIX DIR TEST...: runs each test program DIR/TEST and prints one line per
# program (its Check summary), a failing program's whole output, and a closing count, in the
# order given. TEST_JOBS=N runs up to N programs at once (default 1; each program's output is
# kept apart and printed when its turn comes). V=1 prints every program's whole output instead,
# one program at a time. The environment (CK_FORK, sanitizer options, ...) comes from the
# caller: make test-run and make test-sanitize-run.
set -u
suffix=$1 dir=$2
shift 2
tests=("$@")
jobs=${TEST_JOBS:-1}
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
    echo "run_tests.sh: TEST_JOBS must be a whole number >= 1, not '$jobs'"
    exit 2
fi
[ "${V:-0}" != 1 ] || jobs=1
tmp=$(mktemp -d /tmp/scaledot_tests.XXXXXX) || exit 1
pids=()
trap '[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2> /dev/null; rm -rf "$tmp"' EXIT

# start K: runs program K in the background, its output in $tmp/K (V=1: in the foreground).
start() {
    if [ "${V:-0}" = 1 ]; then
        echo "== ${tests[$1]}$suffix"
        "$dir/${tests[$1]}"
        echo $? > "$tmp/$1.rc"
    else
        "$dir/${tests[$1]}" > "$tmp/$1" 2>&1 &
        pids[$1]=$!
    fi
}

pass=0 fail=0 failed=""
n=${#tests[@]}
for ((k = 0; k < jobs && k < n; k++)); do start $k; done
for ((k = 0; k < n; k++)); do
    t=${tests[$k]}
    if [ "${V:-0}" = 1 ]; then
        rc=$(cat "$tmp/$k.rc")
    else
        wait "${pids[$k]}"
        rc=$?
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
