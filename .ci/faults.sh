#!/usr/bin/env bash
# .ci/faults.sh: fault injection on the sweep (issue 21). A short `--jobs 2` sweep (4 tiny runs)
# is run once uninterrupted as the reference; then, trial after trial, the same sweep into a fresh
# folder is hit by kill -9 at a random moment (seeded) and started again until it ends with exit
# code 0. What is killed varies with the trial: the sweep parent alone (its children must stop
# with it: parent-death signal), one child run alone, or the whole process group. The final
# sweep.csv, minus its timing column (wall_s), must equal the reference's byte for byte: no row
# lost, mixed or marked failed. Exits 1 on the first difference (both files printed), 0 when
# every trial matched.
#
#   .ci/faults.sh                  seed 1, up to 6 trials, at most 60 s in all
#   FAULTS_SEED=N FAULTS_TRIALS=N FAULTS_SECONDS=S   other seed, trial count, time bound
#   FAULTS_KEEP=1                  keep the scratch folder (its path is printed)
# Needs ./train built (make train), bash, coreutils (timeout), setsid (util-linux), pgrep.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
train=$root/train
[ -x "$train" ] || { echo "faults: build ./train first (make train)" >&2; exit 2; }
seed=${FAULTS_SEED:-1}
trials=${FAULTS_TRIALS:-6}
budget=${FAULTS_SECONDS:-60}
RANDOM=$seed
t_start=$SECONDS

scratch=$(mktemp -d /tmp/scaledot_faults.XXXXXX)
if [ -n "${FAULTS_KEEP:-}" ]; then echo "faults: scratch folder $scratch"; else trap 'rm -rf "$scratch"' EXIT; fi
cd "$scratch"
cat > tiny.ini <<'EOF'
[task]
name = copy
length = 3
symbols = 6
val_size = 32
[model]
d_model = 16
n_heads = 2
n_layers = 1
[train]
batch_size = 8
eval_every = 10
checkpoint_every = 5
[log]
every = 5
progress = 0
EOF
args=(--sweep tiny.ini --grid optim.lr=1e-3,3e-3 --seeds 2 --steps 60 --jobs 2)

# sweep.csv of folder $1 without the wall_s column, on stdout.
strip_timing() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") w = i }
             { out = ""; for (i = 1; i <= NF; i++) if (i != w) out = out (out == "" && i == 1 ? "" : ",") $i; print out }' \
        "$1/sweep.csv"
}

now_ms() { date +%s%3N; }

# the reference, uninterrupted; its length bounds the random kill moments
t0=$(now_ms)
timeout 60 "$train" "${args[@]}" --out ref > ref.log 2>&1 || { echo "faults: the reference sweep failed:" >&2; cat ref.log >&2; exit 1; }
ref_ms=$(( $(now_ms) - t0 ))
[ "$ref_ms" -ge 50 ] || ref_ms=50
strip_timing ref > ref.csv

done_trials=0
for ((t = 1; t <= trials; t++)); do
    # leave room for a trial (a kill and up to three restarts of a sweep of ref_ms)
    if (( (SECONDS - t_start) * 1000 + 4 * ref_ms > budget * 1000 )); then
        echo "faults: time bound of $budget s reached after $done_trials trials"
        break
    fi
    out=t$t
    kind=$(( RANDOM % 3 ))           # 0 the sweep parent, 1 one child run, 2 the whole group
    delay=$(( RANDOM % ref_ms ))     # milliseconds after the start
    setsid "$train" "${args[@]}" --out "$out" > "$out.log" 2>&1 &
    pid=$!
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    what="nothing (it had ended)"
    if kill -0 "$pid" 2> /dev/null; then
        case $kind in
        0) kill -9 "$pid" 2> /dev/null && what="the sweep parent" ;;
        1) child=$(pgrep -P "$pid" | head -n 1 || true)
           if [ -n "$child" ]; then kill -9 "$child" 2> /dev/null && what="child $child"
           else kill -9 "$pid" 2> /dev/null && what="the sweep parent (no child yet)"; fi ;;
        2) kill -9 -- "-$pid" 2> /dev/null && what="the whole process group" ;;
        esac
    fi
    wait "$pid" 2> /dev/null || true
    # started again until it ends with exit code 0 (a child killed alone is recorded failed
    # by its sweep, which then exits 1: the next start tries it again)
    rc=1
    for attempt in 1 2 3; do
        if timeout 60 "$train" "${args[@]}" --out "$out" >> "$out.log" 2>&1; then rc=0; break; fi
    done
    if [ $rc -ne 0 ]; then
        echo "faults: trial $t (seed $seed, killed $what at $delay ms): the sweep never ended with 0" >&2
        tail -n 20 "$out.log" >&2
        exit 1
    fi
    if ! strip_timing "$out" | cmp -s - ref.csv; then
        echo "faults: trial $t (seed $seed, killed $what at $delay ms): sweep.csv differs from the uninterrupted reference" >&2
        echo "--- reference" >&2; cat ref.csv >&2
        echo "--- trial" >&2; strip_timing "$out" >&2
        exit 1
    fi
    echo "faults: trial $t: killed $what at $delay ms; restarted; sweep.csv matches the reference"
    done_trials=$t
done
echo "faults: $done_trials trials (seed $seed), every sweep.csv matched the uninterrupted reference"
