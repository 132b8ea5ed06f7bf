#!/usr/bin/env bash
# tests/same_logs.sh REV: do this tree's ./train and revision REV's write the same logs? Trains the
# shipped sort and recall pairs (2000 steps) and, when data/kjv.txt exists, a 300-step text pair,
# at one thread with each build, then compares every file of each run folder: loss.csv without
# its timing columns (elapsed_s, tokens_per_s), config.ini without its provenance lines and
# run.dir, everything else (attention.csv, grad_norms.csv, init_check.txt, attention maps,
# sample.txt) byte for byte. For a refactoring that must not change a number ("the shipped runs'
# logs stay identical"). Exit 0 when all are identical, 1 when any differs (each file named).
# Needs git and about 4 minutes of one core per build on the 2-vCPU EPYC (two builds, 6 runs each).
set -uo pipefail
rev=${1:?usage: tests/same_logs.sh REV   (a git revision to compare this tree with)}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/scaledot_same_logs.XXXXXX)
trap 'git -C "$here" worktree remove --force "$tmp/old" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
git -C "$here" worktree add -q --detach "$tmp/old" "$rev" || exit 2
make -s -C "$tmp/old" train >/dev/null || { echo "same_logs: $rev does not build" >&2; exit 2; }
make -s -C "$here" train >/dev/null || exit 2
train_all() { # TREE OUT
    local tree=$1 out=$2
    mkdir -p "$out"
    run() { # name config [--set ...]
        local n=$1 c=$2; shift 2
        (cd "$tree" && OMP_NUM_THREADS=1 ./train "$c" --set run.name="$n" --set run.dir="$out" \
            --set run.threads=1 "$@" >"$out/$n.stdout" 2>&1) || { echo "same_logs: $tree: $n failed"; cat "$out/$n.stdout"; return 1; }
    }
    run scaled configs/scaled.ini && run unscaled configs/unscaled.ini &&
        run recall_scaled configs/recall_scaled.ini && run recall_unscaled configs/recall_unscaled.ini || return 1
    if [ -f "$here/data/kjv.txt" ]; then
        run text_scaled configs/text_scaled.ini --set task.file="$here/data/kjv.txt" --set train.steps=300 &&
            run text_unscaled configs/text_unscaled.ini --set task.file="$here/data/kjv.txt" --set train.steps=300 || return 1
    fi
}
train_all "$tmp/old" "$tmp/a" || exit 2
train_all "$here" "$tmp/b" || exit 2
no_timing() { # loss.csv without the columns elapsed_s and tokens_per_s
    awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="elapsed_s"||$i=="tokens_per_s") drop[i]=1}
             {s=""; for(i=1;i<=NF;i++) if(!drop[i]) s=s $i ","; print s}' "$1"; }
bad=0 files=0
for d in "$tmp/a"/*/; do
    n=$(basename "$d")
    for f in "$d"*; do
        b=$(basename "$f") g="$tmp/b/$n/$(basename "$f")"
        case "$b" in checkpoint.bin | *.lock | train.log) continue ;; esac
        files=$((files + 1))
        if [ ! -e "$g" ]; then echo "missing in this tree: $n/$b"; bad=1; continue; fi
        case "$b" in
        loss.csv) cmp -s <(no_timing "$f") <(no_timing "$g") ;;
        config.ini) cmp -s <(grep -v '^; provenance\|^dir = ' "$f") <(grep -v '^; provenance\|^dir = ' "$g") ;;
        *) cmp -s "$f" "$g" ;;
        esac || { echo "differs: $n/$b"; bad=1; }
    done
done
[ $bad = 0 ] && echo "same_logs: $files files of $(ls -d "$tmp/a"/*/ | wc -l) runs identical to $rev's (timing columns and provenance aside)"
exit $bad
