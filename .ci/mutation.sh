#!/usr/bin/env bash
# .ci/mutation.sh: the mutation check (`make mutation`). Plants each wrong formula of
# .ci/mutants.txt, one at a time, in a scratch copy of the tree, rebuilds only what changed, runs
# the test programs the mutant names (most likely to catch it first) and stops at the first that
# fails. Prints "caught ID by PROGRAM" or "SURVIVED ID"; exits 1 when any mutant survives, or
# when a mutant is broken: its text no longer occurs exactly once in its file (the list must not
# rot silently as the code changes), or the mutated code does not compile.
#
#   .ci/mutation.sh              every mutant
#   .ci/mutation.sh ID_PREFIX    only the mutants whose id starts with ID_PREFIX
#   MUTATION_KEEP=1              keep the scratch folder (its path is printed)
#   MUTATION_TIMEOUT=S           seconds one test program may take (default 300)
#
# Line format of .ci/mutants.txt (one mutant per line; '#' lines and blank lines are ignored):
#   ID @@ FILE @@ PROGRAM [PROGRAM ...] @@ OLD @@ NEW [@@ OLD2 @@ NEW2 ...]
# OLD is literal text that must occur exactly once in FILE; it is replaced by NEW. Needs bash,
# make, the C compiler, tar and coreutils' timeout; nothing else.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
list=$root/.ci/mutants.txt
only=${1:-}
cc=${CC:-gcc}
build=build/$(basename "$cc")
tmo=${MUTATION_TIMEOUT:-300}
t_start=$SECONDS

scratch=$(mktemp -d /tmp/scaledot_mutation.XXXXXX)
if [ -n "${MUTATION_KEEP:-}" ]; then echo "mutation: scratch copy in $scratch"; else trap 'rm -rf "$scratch"' EXIT; fi
tar -C "$root" --exclude=./build --exclude=./.git --exclude=./runs --exclude=./reports \
    --exclude=./train -cf - . | tar -C "$scratch" -xf -
# The product's objects of this tree, when built, with their times: only mutated files recompile.
# (Test programs are always relinked here: they hold the scratch folder's path.)
for kind in float double; do
    if [ -d "$root/$build/$kind" ]; then
        mkdir -p "$scratch/$build"
        cp -a "$root/$build/$kind" "$scratch/$build/"
    fi
done
cd "$scratch"

# ---- read the list
ids=() files=() progs=() patches=()
n_line=0 broken=0
while IFS= read -r line || [ -n "$line" ]; do
    n_line=$((n_line + 1))
    [[ -z "${line//[[:space:]]/}" || "$line" == \#* ]] && continue
    fields=()
    rest=$line
    while [[ "$rest" == *' @@ '* ]]; do
        fields+=("${rest%% @@ *}")
        rest=${rest#* @@ }
    done
    fields+=("$rest")
    if [ ${#fields[@]} -lt 5 ] || [ $(((${#fields[@]} - 3) % 2)) -ne 0 ]; then
        echo "ERROR    .ci/mutants.txt:$n_line: expected ID @@ FILE @@ PROGRAMS @@ OLD @@ NEW"
        broken=$((broken + 1))
        continue
    fi
    [ -n "$only" ] && [[ "${fields[0]}" != "$only"* ]] && continue
    ids+=("${fields[0]}")
    files+=("${fields[1]}")
    progs+=("${fields[2]}")
    # the OLD/NEW pairs, kept as one string separated by a byte that C source never holds
    patches+=("$(printf '%s\x1f' "${fields[@]:3}")")
done < "$list"
echo "mutation: ${#ids[@]} mutants from .ci/mutants.txt"

# Every test program the list names, built once and run unmutated: a program that fails anyway
# would "catch" every mutant.
all_progs=$(printf '%s\n' "${progs[@]}" | tr ' ' '\n' | sort -u | grep -v '^$' || true)
targets=(train)
for p in $all_progs; do targets+=("$build/tests/$p"); done
if ! make -s -j2 CC="$cc" "${targets[@]}" > build.log 2>&1; then
    cat build.log
    echo "mutation: the unmutated tree does not build"
    exit 1
fi
for p in $all_progs; do
    if ! CK_FORK=yes CK_TIMEOUT_MULTIPLIER=5 timeout -k 5 "$tmo" "./$build/tests/$p" > baseline.log 2>&1; then
        tail -20 baseline.log
        echo "mutation: $p fails on the unmutated tree; fix that first"
        exit 1
    fi
done
echo "mutation: baseline built and passing ($((SECONDS - t_start)) s)"

# The objects built from FILE (float, and double for the model's kernels).
objects_of() {
    local f=${1#src/}
    f=${f%.c}.o
    for kind in float double; do [ -f "$build/$kind/$f" ] && echo "$build/$kind/$f"; done
    return 0
}

caught=0 survived=0
for k in "${!ids[@]}"; do
    id=${ids[$k]} file=${files[$k]} t0=$SECONDS
    if [ ! -f "$file" ]; then
        echo "ERROR    $id: no file $file"
        broken=$((broken + 1))
        continue
    fi
    # whole content, trailing newlines included (the x keeps $(...) from eating them)
    orig=$(cat "$file"; printf x)
    orig=${orig%x}
    text=$orig
    IFS=$'\x1f' read -r -d '' -a pairs < <(printf '%s' "${patches[$k]}") || true
    ok=1
    for ((i = 0; i + 1 < ${#pairs[@]}; i += 2)); do
        old=${pairs[$i]} new=${pairs[$((i + 1))]}
        rest=${text//"$old"/}
        count=$(((${#text} - ${#rest}) / ${#old}))
        if [ "$count" -ne 1 ]; then
            echo "ERROR    $id: '$old' occurs $count times in $file (must be once): update .ci/mutants.txt"
            ok=0
            break
        fi
        text=${text/"$old"/"$new"}
    done
    if [ $ok -eq 0 ] || [ "$text" == "$orig" ]; then
        [ $ok -eq 1 ] && echo "ERROR    $id: the mutant changes nothing"
        broken=$((broken + 1))
        continue
    fi
    # Keep the original file and objects with their times, so putting them back rebuilds nothing.
    cp -p "$file" mutation.orig
    objs=$(objects_of "$file")
    for o in $objs; do cp -p "$o" "$o.orig"; done
    printf '%s' "$text" > "$file"
    targets=(train)
    for p in ${progs[$k]}; do targets+=("$build/tests/$p"); done
    # WARN without -Werror: a mutant may leave a variable unused, which is not the point
    if ! make -s -j2 CC="$cc" WARN="-Wall -Wextra" "${targets[@]}" > build.log 2>&1; then
        echo "ERROR    $id: the mutant does not compile:"
        sed 's/^/         /' build.log | head -10
        broken=$((broken + 1))
        by=""
    else
        by=""
        for p in ${progs[$k]}; do
            if ! CK_FORK=yes CK_TIMEOUT_MULTIPLIER=5 timeout -k 5 "$tmo" "./$build/tests/$p" > run.log 2>&1; then
                by=$p
                break
            fi
        done
        if [ -n "$by" ]; then
            caught=$((caught + 1))
            printf 'caught   %-34s by %-22s (%d s)\n' "$id" "$by" $((SECONDS - t0))
        else
            survived=$((survived + 1))
            printf 'SURVIVED %-34s ran: %s\n' "$id" "${progs[$k]}"
        fi
    fi
    cp -p mutation.orig "$file"
    for o in $objs; do mv "$o.orig" "$o"; done
done

total=$((caught + survived + broken))
echo "mutation: $caught caught, $survived survived, $broken broken, of $total; $((SECONDS - t_start)) s"
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ]
