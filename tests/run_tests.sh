#!/usr/bin/env bash
# run_tests.sh SUFFIX DIR TEST...: runs each test program DIR/TEST and prints one line per
# program (its Check summary), a failing program's whole output, and a closing count. V=1 prints
# every program's whole output instead. The environment (CK_FORK, sanitizer options, ...) comes
# from the caller: make test-run and make test-sanitize-run.
set -u
suffix=$1 dir=$2
shift 2
pass=0 fail=0 failed=""
for t in "$@"; do
    if [ "${V:-0}" = 1 ]; then
        echo "== $t$suffix"
        "$dir/$t"
        rc=$?
    else
        out=$("$dir/$t" 2>&1)
        rc=$?
    fi
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1))
        [ "${V:-0}" = 1 ] || printf '  ok    %-26s %s\n' "$t$suffix" \
            "$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks:' | tail -n 1)"
    else
        fail=$((fail + 1))
        failed="$failed $t"
        if [ "${V:-0}" != 1 ]; then
            printf 'FAIL  %s (exit code %d); its output:\n' "$t$suffix" "$rc"
            printf '%s\n' "$out" | sed 's/^/    /'
        fi
    fi
done
[ $fail -eq 0 ] || echo "failed:$failed"
echo "tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
