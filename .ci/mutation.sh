#!/usr/bin/env bash
# .ci/mutation.sh: the mutation check (`make mutation`). Plants each wrong formula of
# .ci/mutants.txt, one at a time, in a scratch copy of the tree, rebuilds only what changed, runs
# the test programs the mutant names (most likely to catch it first) and stops at the first that
# fails. Prints "caught ID by PROGRAM" or "SURVIVED ID" in the list's order; exits 1 when any
# mutant survives, or when a mutant is broken: its text no longer occurs exactly once in its file
# (the list must not rot silently as the code changes), or the mutated code does not compile.
# MUTATION_JOBS workers each take the next mutant not yet taken and plant it in a scratch copy of
# their own (one mutant at a time per copy; copies made from the built, passing baseline).
#
#   .ci/mutation.sh              every mutant
#   .ci/mutation.sh ID_PREFIX    only the mutants whose id starts with ID_PREFIX
#   MUTATION_JOBS=N              mutants tried at once (default: the number of cores)
#   MUTATION_KEEP=1              keep the scratch folder (its path is printed)
#   MUTATION_TMPDIR=DIR          the scratch folder's place (default /dev/shm when programs can
#                                run from there, else /tmp)
#   MUTATION_TIMEOUT=S           seconds one test program may take (default 300)
#   MUTATION_BASELINE_PASSED=1   the caller has just built and run every test program on this
#                                same tree and all passed (CI, after make test): the unmutated
#                                run is skipped, and of the unmutated build only ./train is made
#                                (a test program is linked when a mutant first needs it)
#
# Line format of .ci/mutants.txt (one mutant per line; '#' lines and blank lines are ignored):
#   ID @@ FILE @@ PROGRAM[:TEST] [PROGRAM[:TEST] ...] @@ OLD @@ NEW [@@ OLD2 @@ NEW2 ...]
# OLD is literal text that must occur exactly once in FILE; it is replaced by NEW. PROGRAM:TEST
# runs the test TEST of PROGRAM first, then its other tests (SCALEDOT_TEST_FIRST,
# tests/testutil.h): for a mutant that one test catches late in a slow program. TEST must be a
# START_TEST of tests/PROGRAM.c. A caught mutant's line names the test that failed. Needs bash,
# make, the C compiler, tar, coreutils (timeout, nproc); nothing else.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
list=$root/.ci/mutants.txt
only=${1:-}
cc=${CC:-gcc}
build=build/$(basename "$cc")
tmo=${MUTATION_TIMEOUT:-300}
cores=$(nproc 2>/dev/null || echo 1)
jobs=${MUTATION_JOBS:-$cores}
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
    echo "mutation: MUTATION_JOBS must be a whole number >= 1, not '$jobs'"
    exit 2
fi
# OpenMP's idle threads sleep, as in make test and ./train (the Makefile's TEST_ENV says why)
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# make's own -j in each copy: the cores shared among the workers (at least 1)
make_j=$(((cores + jobs - 1) / jobs))
t_start=$SECONDS

# The scratch copies in memory (/dev/shm) when programs can run from there, else in /tmp
# (MUTATION_TMPDIR=DIR: there). Each mutant writes and removes objects and programs in its copy;
# on this machine's disk (ext4 mounted with discard) removing the copies after 30 mutants took
# 13-16 s of wall time for 0.4 s of CPU.
tmp_dir=${MUTATION_TMPDIR:-}
if [ -z "$tmp_dir" ]; then
    tmp_dir=/tmp
    if probe=$(mktemp /dev/shm/scaledot_exec.XXXXXX 2> /dev/null); then
        printf '#!/bin/sh\n' > "$probe" && chmod +x "$probe" && "$probe" 2> /dev/null && tmp_dir=/dev/shm
        rm -f "$probe"
    fi
fi
scratch=$(mktemp -d "$tmp_dir/scaledot_mutation.XXXXXX")
pids=() # the workers, stopped if this script stops early
cleanup() {
    [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2> /dev/null || true
    [ -n "${MUTATION_KEEP:-}" ] || rm -rf "$scratch"
}
trap cleanup EXIT
[ -z "${MUTATION_KEEP:-}" ] || echo "mutation: scratch copies in $scratch"
# copy 1 is the baseline; copies 2..N are made from it once it is built and passing
mkdir "$scratch/1" "$scratch/results" "$scratch/taken"
tar -C "$root" --exclude=./build --exclude=./.git --exclude=./runs --exclude=./reports \
    --exclude=./train -cf - . | tar -C "$scratch/1" -xf -
# The product's objects of this tree, when built, with their times: only mutated files recompile.
# The test objects too, but for those that hold the tree's path (SCALEDOT_SOURCE_DIR: where a
# test finds the tree's files), compiled again with the copy's (33 of 136: the other 103 had been
# compiled again for nothing, most of the baseline's 62 s in CI). Test programs are always
# relinked here: they hold their copy's path. Each object's .d file (the headers it includes: the
# Makefile's DEPFLAGS; its paths relative to the tree) travels with it, and is removed with it.
for kind in float double test-obj; do
    if [ -d "$root/$build/$kind" ]; then
        mkdir -p "$scratch/1/$build"
        cp -a "$root/$build/$kind" "$scratch/1/$build/"
    fi
done
# remove_objects: removes the objects named on stdin, a line each, and their .d files
remove_objects() { sed 'p; s/\.o$/.d/' | xargs -r rm -f; }
if [ -d "$scratch/1/$build/test-obj" ]; then
    # (grep exits 1 when no object holds the path: nothing to remove, not a failure)
    { grep -l -a -F "$root" "$scratch/1/$build"/test-obj/*/*.o || [ $? = 1 ]; } | remove_objects
fi
cd "$scratch/1"

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
# a mistyped prefix checks nothing: that is not a pass
if [ ${#ids[@]} -eq 0 ] && [ "$broken" -eq 0 ]; then
    echo "mutation: no mutant in .ci/mutants.txt${only:+ whose id starts with '$only'}"
    exit 2
fi
echo "mutation: ${#ids[@]} mutants from .ci/mutants.txt, $jobs at a time"

# What make works out at its start and that no mutant changes, asked once and passed to every
# make below: its OpenMP probe compiles and links a program each time, pkg-config runs at each
# test compile and link, git finds no checkout in a copy (the Makefile says so of each). About a
# fifth of a second of CPU per make, once per mutant.
# (the grep: a note the Makefile prints, e.g. that CC has no OpenMP, is not one of them)
mapfile -t make_vars < <(make -s --no-print-directory CC="$cc" --eval '.mutation-vars: ;
	@printf "%s\n" "OMP_OK=$(OMP_OK)" "CHECK_CFLAGS=$(CHECK_CFLAGS)" "CHECK_LIBS=$(CHECK_LIBS)" "GIT_DESC=$(GIT_DESC)"' \
    .mutation-vars | grep -E '^(OMP_OK|CHECK_CFLAGS|CHECK_LIBS|GIT_DESC)=')
if [ ${#make_vars[@]} -ne 4 ]; then
    echo "mutation: could not ask make for its settings: ${make_vars[*]}"
    exit 1
fi
# Every test program the list names, built once and run unmutated: a program that fails anyway
# would "catch" every mutant. When the caller has just done that (MUTATION_BASELINE_PASSED=1),
# only ./train: a mutant relinks each program it runs anyway (its object is newer), so a program
# linked here would never run (linking all of them had been most of CI's 47 s of baseline).
all_progs=$(printf '%s\n' "${progs[@]}" | tr ' ' '\n' | sed 's/:.*//' | sort -u | grep -v '^$' || true)
targets=(train)
if [ "${MUTATION_BASELINE_PASSED:-}" != 1 ]; then
    for p in $all_progs; do targets+=("$build/tests/$p"); done
fi
if ! make -s -j"$cores" "${make_vars[@]}" CC="$cc" "${targets[@]}" > build.log 2>&1; then
    cat build.log
    echo "mutation: the unmutated tree does not build"
    exit 1
fi
# MUTATION_JOBS programs at once (each its own log; the failures are listed after all ran),
# unless they have just passed (MUTATION_BASELINE_PASSED=1)
export build tmo
passing="passing (in the caller's run, not run again)"
if [ "${MUTATION_BASELINE_PASSED:-}" != 1 ]; then
    passing=passing
    mkdir -p "$PWD.tmp" # TMPDIR as each mutant's run has it (run_program)
    printf '%s\n' $all_progs | xargs -r -P "$jobs" -I{} bash -c \
        'TMPDIR=$PWD.tmp CK_FORK=yes CK_TIMEOUT_MULTIPLIER=5 timeout -k 5 "$tmo" \
         "./$build/tests/$1" > "baseline-$1.log" 2>&1 ||
         touch "baseline-$1.failed"' _ {} || true
    bad=0
    for p in $all_progs; do
        if [ -e "baseline-$p.failed" ] || [ ! -e "baseline-$p.log" ]; then
            tail -20 "baseline-$p.log" 2> /dev/null
            echo "mutation: $p fails on the unmutated tree; fix that first"
            bad=1
        fi
    done
    [ "$bad" = 0 ] || exit 1
    rm -f baseline-*.log
fi
# The programs that run ./train: their object calls tu_train_bin or tu_run_train
# (tests/testutil.h). Only a mutant naming one of them relinks ./train (for a header, recompiles
# every object that includes it); the others leave the unmutated ./train of the baseline (train.base) in
# place, so a program that ran ./train another way would run it unmutated: the mutant could
# survive, never be caught by it. The object is this copy's, or the tree's when this copy's was
# removed above (it held the tree's path) and not built again (MUTATION_BASELINE_PASSED=1).
needs_train=" "
for p in $all_progs; do
    objs_p=$(compgen -G "$build/test-obj/*/$p.o" || compgen -G "$root/$build/test-obj/*/$p.o" || true)
    syms=$(nm -u $objs_p 2>&1) || syms=tu_train_bin # unknown (no object): it may
    if grep -qwE 'tu_train_bin|tu_run_train' <<< "$syms"; then
        needs_train+="$p "
    fi
done
cp -p train train.base
# The baseline's programs are never run again (a mutant links what it runs): removed, so that the
# copies below leave them out.
rm -f "$build"/tests/*
echo "mutation: baseline built and $passing ($((SECONDS - t_start)) s); $(($(wc -w <<< "$needs_train"))) of the programs run ./train"

# The objects built from FILE: src/X.c gives X.o of the float and the double build, tests/X.c its
# test objects (float and double), whether built yet or not; a header the objects built so far
# whose .d file names it (the Makefile's DEPFLAGS); anything else none.
objects_of() {
    local f=$1
    case $f in
        src/*.c) f=${f#src/} && echo "$build/float/${f%.c}.o $build/double/${f%.c}.o" ;;
        tests/*.c) f=${f#tests/} && echo "$build/test-obj/float/${f%.c}.o $build/test-obj/double/${f%.c}.o" ;;
        *.h) { grep -rlwF --include='*.d' -- "$f" "$build" || [ $? = 1 ]; } | sed 's/\.d$/.o/' ;;
    esac
}

# run_program P [TEST]: runs test program P of this copy (TEST first, when given); returns 0 when
# it passes, non-zero when it fails. It fails at its first failing test: tu_run (tests/testutil.c)
# writes Check's log, a line per test as it ends, to SCALEDOT_TEST_LOG, and at the first failure
# (F) or error (E) there the program is stopped with the tests it forked and what they started
# (all in a session of its own); failed_test is that test's name. Its exit code would not have
# been 0: tu_run returns EXIT_FAILURE when any test failed.
# A failure (F) or error (E) line of Check's log: FILE:LINE:F:TCASE:TEST:ITERATION: message
ck_failure='^[^:]*:[0-9]+:[EF]:[^:]*:([^:]*):'
run_program() {
    local p=$1 pid ck part line='' failed='' rc=0
    failed_test=''
    : > ck.log
    # TMPDIR: the program's scratch folder (tu_scratch) beside this copy, removed with the
    # scratch folder: a program stopped at its first failure cannot remove its own. Beside, not
    # inside: a test copies ./train into it to run one outside any checkout (test_lr_map's
    # test_where_outside_checkout), and inside the copy it would find the copy's.
    mkdir -p "$PWD.tmp"
    TMPDIR=$PWD.tmp SCALEDOT_TEST_FIRST=${2:-} SCALEDOT_TEST_LOG=$PWD/ck.log CK_FORK=yes \
        CK_TIMEOUT_MULTIPLIER=5 setsid timeout -k 5 "$tmo" "./$build/tests/$p" > run.log 2>&1 &
    pid=$!
    # Watched without starting a process: ck.log read as it grows by the read builtin (a line
    # not yet finished is kept until its end comes), the 0.1 s pause a read -t on a FIFO nobody
    # writes to. A grep and a sleep every 0.1 s had cost about 18 ms of CPU each time.
    exec {ck}< ck.log
    while kill -0 "$pid" 2> /dev/null; do
        while IFS= read -r -u "$ck" part; do
            line+=$part
            if [[ "$line" =~ $ck_failure ]]; then
                failed=1 failed_test=${BASH_REMATCH[1]}
                break
            fi
            line=''
        done
        line+=$part
        if [ -n "$failed" ]; then
            exec {ck}<&-
            pkill -KILL -s "$pid" || true
            wait "$pid" 2> /dev/null || true
            # and until no process of the session is alive (a killed process takes a moment to
            # go). Zombies do not count: they have closed their files, and the orphans among
            # them wait for PID 1 to reap them, which on this machine took about 2 s each time
            # (2 s of nothing per caught mutant, about 500 s of CI's wall time in all).
            for _ in {1..100}; do
                ps -o stat= -s "$pid" | grep -q '^[^Z]' || break
                sleep 0.1
            done
            echo "mutation: stopped at its first failing test (ck.log)" >> run.log
            return 1
        fi
        read -r -t 0.1 -u "$tick" _ || true
    done
    wait "$pid" || rc=$?
    # ended before its failure was read: the failing test's name from the lines left
    while [ "$rc" -ne 0 ] && IFS= read -r -u "$ck" part; do
        line+=$part
        if [[ "$line" =~ $ck_failure ]]; then
            failed_test=${BASH_REMATCH[1]}
            break
        fi
        line=''
    done
    exec {ck}<&-
    return $rc
}

# try_mutant K: plants mutant K in the current copy, builds, runs its programs, puts the copy back.
# Prints the mutant's lines and returns 0 (caught), 1 (survived) or 2 (broken).
try_mutant() {
    local k=$1 id=${ids[$1]} file=${files[$1]} t0=$SECONDS
    if [ ! -f "$file" ]; then
        echo "ERROR    $id: no file $file"
        return 2
    fi
    # whole content, trailing newlines included (read up to a NUL byte, which no source holds)
    local orig='' text rest count old new i
    IFS= read -r -d '' orig < "$file" || true
    text=$orig
    local pairs=()
    IFS=$'\x1f' read -r -d '' -a pairs < <(printf '%s' "${patches[$k]}") || true
    for ((i = 0; i + 1 < ${#pairs[@]}; i += 2)); do
        old=${pairs[$i]} new=${pairs[$((i + 1))]}
        rest=${text//"$old"/}
        count=$(((${#text} - ${#rest}) / ${#old}))
        if [ "$count" -ne 1 ]; then
            echo "ERROR    $id: '$old' occurs $count times in $file (must be once): update .ci/mutants.txt"
            return 2
        fi
        text=${text/"$old"/"$new"}
    done
    if [ "$text" == "$orig" ]; then
        echo "ERROR    $id: the mutant changes nothing"
        return 2
    fi
    # Keep the original file and objects (and their .d files) with their times, so putting them
    # back rebuilds nothing; an object not built before the mutant is removed after it. A header:
    # make recompiles from the mutated text the objects that include it, and would keep them (they
    # are newer than the header put back), the ones built before as well as the ones it builds for
    # the first time (test objects); so after it, an object compiled while it was planted (newer
    # than mutation.start) and not put back is removed when its .d file, written by the same
    # compile, names the header, or when it has none.
    cp -p "$file" mutation.orig
    local objs o d p by="" rc
    objs=$(objects_of "$file")
    for o in $objs; do
        d=${o%.o}.d
        if [ -f "$o" ]; then cp -p "$o" "$o.orig"; fi
        if [ -f "$d" ]; then cp -p "$d" "$d.orig"; fi
    done
    : > mutation.start
    printf '%s' "$text" > "$file"
    # Each program is built just before it runs (./train too, before the first program that runs
    # it): a mutant caught by its first program links no other (57 of the 60 mutants that name
    # two programs had linked the second for nothing).
    local targets=() built=() ran='' spec first
    rc=0
    for spec in ${progs[$k]}; do
        p=${spec%%:*} first=''
        [[ "$spec" != *:* ]] || first=${spec#*:}
        # a mistyped TEST would only be slow, never wrong: refused all the same
        if [ -n "$first" ] && ! grep -qF "START_TEST($first)" "tests/$p.c" 2> /dev/null; then
            echo "ERROR    $id: no START_TEST($first) in tests/$p.c: update .ci/mutants.txt"
            rc=2
            break
        fi
        targets=("$build/tests/$p")
        if [[ "$needs_train" == *" $p "* && " ${built[*]} " != *" train "* ]]; then
            targets=(train "${targets[@]}")
        fi
        built+=("${targets[@]}")
        # WARN without -Werror: a mutant may leave a variable unused, which is not the point
        if ! make -s -j"$make_j" "${make_vars[@]}" CC="$cc" WARN="-Wall -Wextra" "${targets[@]}" \
            > build.log 2>&1; then
            echo "ERROR    $id: the mutant does not compile:"
            sed 's/^/         /' build.log | head -10
            rc=2
            break
        fi
        ran+=" $p"
        if ! run_program "$p" "$first" 2> /dev/null; then # (not the shell's "Killed" line)
            by=$p
            break
        fi
    done
    if [ "$rc" != 2 ]; then
        if [ -n "$by" ]; then
            printf 'caught   %-34s by %-22s (%d s)%s\n' "$id" "$by" $((SECONDS - t0)) \
                "${failed_test:+ $failed_test}"
            rc=0
        else
            printf 'SURVIVED %-34s ran:%s\n' "$id" "$ran"
            rc=1
        fi
    fi
    cp -p mutation.orig "$file"
    for o in $objs; do
        d=${o%.o}.d
        if [ -f "$o.orig" ]; then mv "$o.orig" "$o"; else rm -f "$o"; fi
        if [ -f "$d.orig" ]; then mv "$d.orig" "$d"; else rm -f "$d"; fi
    done
    if [[ "$file" == *.h ]]; then
        find "$build" -name '*.o' -newer mutation.start | while IFS= read -r o; do
            d=${o%.o}.d
            if [ ! -f "$d" ] || grep -qwF -- "$file" "$d"; then echo "$o"; fi
        done | remove_objects
    fi
    # ./train and the programs just built hold the mutant and are newer than the restored
    # objects: the programs are removed and the baseline's ./train put back (older than them), so
    # a next mutant outside the objects (a script) cannot run the mutant.
    for p in "${built[@]}"; do [ "$p" = train ] || rm -f "$p"; done
    # a copy renamed over it: a ./train still executing cannot be written in place
    if [[ " ${built[*]} " == *" train "* ]] && ! { cp -p train.base train.new && mv -f train.new train; }; then
        echo "ERROR    $id: the baseline's ./train could not be put back"
        rc=2
    fi
    return $rc
}

# worker W: in copy W, takes each mutant no other worker has taken (mkdir is atomic) and leaves
# its lines in results/K.txt and its outcome in results/K.rc (written last).
worker() {
    cd "$scratch/$1"
    local k rc
    # run_program's clock: a FIFO nobody writes to (opened read-write, so the open does not block)
    mkfifo tick.fifo
    exec {tick}<> tick.fifo
    for k in "${!ids[@]}"; do
        mkdir "$scratch/taken/$k" 2> /dev/null || continue
        rc=0
        try_mutant "$k" > "$scratch/results/$k.txt" 2>&1 || rc=$?
        echo "$rc" > "$scratch/results/$k.rc.tmp"
        mv "$scratch/results/$k.rc.tmp" "$scratch/results/$k.rc"
    done
}

cd "$scratch"
if ((jobs > ${#ids[@]})); then jobs=${#ids[@]}; fi
for ((w = 2; w <= jobs; w++)); do
    cp -a "$scratch/1" "$scratch/$w"
    # the test objects that hold copy 1's path (SCALEDOT_SOURCE_DIR): made again in this copy
    # when a mutant first needs them; the other objects are the same here
    { grep -l -a -F "$scratch/1" "$scratch/$w/$build"/test-obj/*/*.o || [ $? = 1 ]; } |
        remove_objects
done
for ((w = 1; w <= jobs; w++)); do
    worker $w &
    pids+=($!)
done

# The results in the list's order, each as soon as it and those before it are in.
caught=0 survived=0
not_caught=() # the ids that survived or broke, named again in the last line (CI shows the tail)
for k in "${!ids[@]}"; do
    while [ ! -f "$scratch/results/$k.rc" ]; do
        alive=0
        for p in "${pids[@]}"; do if kill -0 "$p" 2> /dev/null; then alive=1; fi; done
        [ $alive -eq 1 ] || [ -f "$scratch/results/$k.rc" ] || break
        sleep 1
    done
    if [ ! -f "$scratch/results/$k.rc" ]; then
        echo "ERROR    ${ids[$k]}: no worker finished it"
        broken=$((broken + 1))
        not_caught+=("${ids[$k]}")
        continue
    fi
    cat "$scratch/results/$k.txt"
    case $(cat "$scratch/results/$k.rc") in
        0) caught=$((caught + 1)) ;;
        1) survived=$((survived + 1)) not_caught+=("${ids[$k]}") ;;
        *) broken=$((broken + 1)) not_caught+=("${ids[$k]}") ;;
    esac
done
wait
pids=()

total=$((caught + survived + broken))
echo "mutation: $caught caught, $survived survived, $broken broken, of $total; $((SECONDS - t_start)) s${not_caught[*]:+; not caught: ${not_caught[*]}}"
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ]
