#!/usr/bin/env bash
# CI: a sweep handed to the engines docs/sweeps.md names, each followed by --collect and compared
# with the in-process sweep's sweep.csv (the wall_s column aside: every other cell must match):
#   GNU parallel   parallel -j 2 < DIR/jobs.txt
#   Slurm          sbatch --wait --array=1-N experiments/slurm_array.sh DIR, on a one-node cluster
#                  (munged, slurmctld, slurmd on localhost) that this script starts and stops
# (xargs is run by tests/test_sweep.c.)
#   .ci/engines.sh            ENGINES_TIMEOUT=SECONDS bounds the checks (default 180)
# Needs the Debian packages parallel, slurm-wlm and munge: installed with apt-get when run as root,
# otherwise the install command is printed and the script fails. Everything the cluster needs (its
# slurm.conf, munge key and socket, state, spool, logs, ports 16817/16818) lives in a scratch
# folder removed at the end; /etc/slurm and /etc/munge are neither read nor written. The daemons
# are stopped at the end whatever happens; one that does not start fails the run with its log.
# Ends with "engines: N passed, M failed"; exits 0 only when nothing failed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# ---- outside the clock: the packages, then this script again under timeout ----
if [ "${ENGINES_TIMED:-}" != 1 ]; then
    missing=()
    command -v parallel >/dev/null 2>&1 || missing+=(parallel)
    for t in slurmctld slurmd sbatch sinfo scancel; do
        command -v "$t" >/dev/null 2>&1 || { missing+=(slurm-wlm); break; }
    done
    for t in munged mungekey; do
        command -v "$t" >/dev/null 2>&1 || { missing+=(munge); break; }
    done
    if [ ${#missing[@]} -gt 0 ]; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "== engines: installing ${missing[*]}"
            # waits up to 10 min for another apt-get to finish
            if ! timeout 900 tools/apt_install.sh --no-install-recommends "${missing[@]}" >/dev/null; then
                echo "engines: apt-get install ${missing[*]} failed"
                echo "engines: 0 passed, 1 failed"
                exit 1
            fi
        else
            echo "engines.sh needs ${missing[*]}. Install with:" >&2
            echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
            echo "engines: 0 passed, 1 failed"
            exit 1
        fi
    fi
    limit=${ENGINES_TIMEOUT:-180}
    rc=0
    ENGINES_TIMED=1 timeout -k 90 "$limit" "$0" "$@" || rc=$?
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        echo "engines: stopped after $limit s (ENGINES_TIMEOUT)" >&2
    fi
    exit "$rc"
fi

# ---- the checks ----
passed=0 failed=0 finished=0
pass() { passed=$((passed + 1)); echo "engines: ok    $1"; }
fail() { failed=$((failed + 1)); echo "engines: FAIL  $1"; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/scaledot-engines.XXXXXX")
unset SLURM_CONF # set to this script's own cluster once it starts
pids=() # the daemons this script started, stopped by cleanup

# stop PID NAME: SIGTERM, up to 10 s for it to end, then SIGKILL.
stop() {
    kill -0 "$1" 2>/dev/null || return 0
    kill -TERM "$1" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    echo "engines: $2 (pid $1) did not stop on SIGTERM; SIGKILL" >&2
    kill -KILL "$1" 2>/dev/null || true
}
cleanup() {
    local rc=$?
    trap - EXIT TERM INT
    if [ "$finished" != 1 ]; then fail "the script stopped early (exit code $rc)"; fi
    # this cluster's own jobs (its slurm.conf, ports and state are this script's alone): cancelled,
    # and up to 20 s for their slurmstepd to report to the daemons before those stop
    if [ -n "${SLURM_CONF:-}" ]; then
        timeout 10 scancel --user="$(id -un)" 2>/dev/null || true
        for _ in $(seq 100); do
            [ -z "$(timeout 5 squeue --noheader --format=%i 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    local i p
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop "${pids[i]%%:*}" "${pids[i]#*:}"; done
    # a slurmstepd of this cluster's still there (it holds a file of the scratch folder open)
    for p in $(pgrep -x slurmstepd || true); do
        if find "/proc/$p/fd" -lname "$scratch/*" 2>/dev/null | grep -q .; then
            echo "engines: slurmstepd $p outlived its cluster; SIGKILL" >&2
            kill -KILL "$p" 2>/dev/null || true
        fi
    done
    rm -rf "$scratch"
    echo "engines: $passed passed, $failed failed"
    [ "$failed" = 0 ] && exit 0
    exit 1
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
make -s train

# show FILE...: each file's last 40 lines (a failure's evidence), or that it is absent.
show() {
    local f
    for f in "$@"; do
        if [ -e "$f" ]; then
            echo "---- $f (last 40 lines)"
            tail -n 40 "$f"
        else
            echo "---- $f: absent"
        fi
    done >&2
}

# csv_cells FILE: sweep.csv without the wall_s column (found by name; fails when absent) and
# with one field per line, prefixed by its row and column name, so a diff names the cell.
csv_cells() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { name[i] = $i; if ($i == "wall_s") w = i }
                       if (!w) { print FILENAME ": no wall_s column" > "/dev/stderr"; exit 2 } }
             { for (i = 1; i <= NF; i++) if (i != w) print "row " NR - 1 ", " name[i] ": " $i }' \
        "$1"
}
# same_sweep REF OTHER: 0 when both sweep.csv files hold the same cells but wall_s; else 1,
# printing the cells that differ.
same_sweep() {
    local a b
    a=$(csv_cells "$1") || return 1
    b=$(csv_cells "$2") || return 1
    diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") >&2 && return 0
    echo "engines: $2 differs from $1 (< reference, > engine)" >&2
    return 1
}

sweep_args=(configs/scaled.ini --grid 'attention.scale=sqrt_dk,none' --seeds 2 --steps 60
    --set train.eval_every=20)
n_runs=4

# ---- the reference: the sweep in one process ----
ref=$scratch/inproc
if ./train --sweep "${sweep_args[@]}" --jobs 2 --out "$ref" >"$scratch/inproc.log" 2>&1 &&
    [ "$(awk -F, 'NR > 1 && $0 ~ /,ok,0,/' "$ref/sweep.csv" | wc -l)" = "$n_runs" ]; then
    pass "in-process sweep: $n_runs runs, status ok"
else
    show "$scratch/inproc.log" "$ref/sweep.csv"
    fail "in-process sweep: not $n_runs runs with status ok"
fi

# ---- the comparison compares: another value fails it, another wall time does not ----
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "val_loss") c = i }
                  NR == 3 { $c = $c "1" } { print }' "$ref/sweep.csv" >"$scratch/changed.csv"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") c = i }
                  NR == 3 { $c = $c + 7 } { print }' "$ref/sweep.csv" >"$scratch/walled.csv"
if ! same_sweep "$ref/sweep.csv" "$scratch/changed.csv" 2>/dev/null &&
    same_sweep "$ref/sweep.csv" "$scratch/walled.csv" &&
    ! cmp -s "$ref/sweep.csv" "$scratch/walled.csv"; then
    pass "the comparison: a changed val_loss differs, a changed wall_s does not"
else
    fail "the comparison: a changed val_loss must differ and a changed wall_s must not"
fi

# engine_done NAME DIR: --collect in DIR, then DIR/sweep.csv compared with the reference.
engine_done() {
    if ./train --sweep --collect --out "$2" >"$scratch/$1-collect.log" 2>&1 &&
        same_sweep "$ref/sweep.csv" "$2/sweep.csv"; then
        pass "$1: --collect gives the in-process sweep.csv (wall_s aside)"
    else
        show "$scratch/$1-collect.log"
        fail "$1: --collect does not give the in-process sweep.csv"
    fi
}

# ---- GNU parallel: docs/sweeps.md's line, 2 at a time ----
dir=$scratch/parallel
./train --sweep "${sweep_args[@]}" --plan --out "$dir" >/dev/null
mkdir "$scratch/parallel-home" # its ~/.parallel
if (cd / && PARALLEL_HOME=$scratch/parallel-home parallel --will-cite -j 2 <"$dir/jobs.txt") \
    >"$scratch/parallel.log" 2>&1; then
    pass "parallel: jobs.txt ran, exit code 0"
else
    show "$scratch/parallel.log"
    fail "parallel: jobs.txt failed"
fi
engine_done parallel "$dir"

# ---- Slurm: a one-node cluster on localhost ----
slurm_started=0
start_cluster() {
    if [ "$(id -u)" != 0 ]; then
        echo "engines: slurmd must run as root: sudo .ci/engines.sh" >&2
        return 1
    fi
    local s=$scratch/slurm
    mkdir -p "$s/munge" "$s/state" "$s/spool" "$s/out"
    chmod 755 "$scratch" "$s" "$s/munge" # munged wants its socket's folders open to all
    # munge: a key of this cluster's own and its own socket, so a munged already running is left be
    mungekey --create --keyfile="$s/munge/munge.key" >"$s/mungekey.log" 2>&1 ||
        { show "$s/mungekey.log"; return 1; }
    setsid munged --foreground --key-file="$s/munge/munge.key" \
        --socket="$s/munge/munge.socket" --pid-file="$s/munge/munged.pid" \
        --seed-file="$s/munge/munged.seed" --log-file="$s/munged.log" </dev/null \
        >"$s/munged.out" 2>&1 &
    pids+=("$!:munged")
    local up=0
    for _ in $(seq 50); do
        [ -S "$s/munge/munge.socket" ] && { up=1; break; }
        kill -0 "$!" 2>/dev/null || break
        sleep 0.1
    done
    if [ "$up" != 1 ]; then
        show "$s/munged.out" "$s/munged.log"
        echo "engines: munged did not start" >&2
        return 1
    fi

    export SLURM_CONF=$s/slurm.conf
    cat >"$SLURM_CONF" <<EOF
# written by .ci/engines.sh: a one-node cluster on localhost, removed at the end
ClusterName=scaledot-ci
SlurmctldHost=localhost
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$s/munge/munge.socket
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
NodeName=localhost CPUs=$(OMP_NUM_THREADS='' OMP_THREAD_LIMIT='' nproc) RealMemory=100 State=UNKNOWN
PartitionName=ci Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
    setsid slurmctld -D -f "$SLURM_CONF" </dev/null >"$s/slurmctld.out" 2>&1 &
    pids+=("$!:slurmctld")
    local ctld=$!
    setsid slurmd -D -N localhost -f "$SLURM_CONF" </dev/null >"$s/slurmd.out" 2>&1 &
    pids+=("$!:slurmd")
    local slurmd_pid=$!
    # the node idle within 30 s, both daemons alive meanwhile
    local state=
    for _ in $(seq 150); do
        state=$(timeout 5 sinfo --noheader --node=localhost --format=%t 2>/dev/null || true)
        [ "$state" = idle ] && return 0
        [ "$state" = inval ] && break # slurmctld refused the node's registration
        if ! kill -0 "$ctld" 2>/dev/null || ! kill -0 "$slurmd_pid" 2>/dev/null; then break; fi
        sleep 0.2
    done
    local d
    for d in munged slurmctld slurmd; do # the log, or what it said before it had one
        if [ -s "$s/$d.log" ]; then show "$s/$d.log"; else show "$s/$d.out"; fi
    done
    kill -0 "$ctld" 2>/dev/null || echo "engines: slurmctld did not start (its log above)" >&2
    kill -0 "$slurmd_pid" 2>/dev/null || echo "engines: slurmd did not start (its log above)" >&2
    echo "engines: the node is not idle after 30 s (sinfo: '${state}')" >&2
    return 1
}
if start_cluster; then
    slurm_started=1
    pass "slurm: munged, slurmctld and slurmd started, node localhost idle"
else
    fail "slurm: the one-node cluster did not start"
fi

dir=$scratch/slurm-sweep
./train --sweep "${sweep_args[@]}" --plan --out "$dir" >/dev/null
n=$(wc -l <"$dir/jobs.txt")
if [ "$slurm_started" = 1 ]; then
    # as docs/sweeps.md has it, but waiting for the array; its slurm-%A_%a.out files go to out/
    if sbatch --wait --chdir="$scratch/slurm/out" --array=1-"$n" \
        "$repo/experiments/slurm_array.sh" "$dir" >"$scratch/sbatch.log" 2>&1; then
        pass "slurm: sbatch --wait --array=1-$n experiments/slurm_array.sh, exit code 0"
    else
        show "$scratch/sbatch.log" "$scratch"/slurm/out/* "$scratch/slurm/slurmctld.log" \
            "$scratch/slurm/slurmd.log"
        fail "slurm: the array failed"
    fi
    engine_done slurm "$dir"
    # a task with no line in jobs.txt (a wrong folder, or --array past its end) fails, naming it
    k=$((n + 1))
    if sbatch --wait --chdir="$scratch/slurm/out" --array="$k" \
        "$repo/experiments/slurm_array.sh" "$dir" >"$scratch/sbatch-past.log" 2>&1; then
        show "$scratch/sbatch-past.log" "$scratch"/slurm/out/slurm-*_"$k".out
        fail "slurm: task $k of a $n-line jobs.txt exited 0"
    elif grep -qs "no line $k in $dir/jobs.txt" "$scratch"/slurm/out/slurm-*_"$k".out; then
        pass "slurm: task $k of a $n-line jobs.txt fails, naming the line"
    else
        show "$scratch/sbatch-past.log" "$scratch"/slurm/out/slurm-*_"$k".out
        fail "slurm: task $k of a $n-line jobs.txt failed without naming the line"
    fi
else
    fail "slurm: the array was not submitted (no cluster)"
fi

finished=1
