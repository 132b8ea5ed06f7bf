# experiments/common.sh: what every experiment script shares (sourced, not run): the build, the
# number of runs side by side, and copying a finished sweep's tables and figures into results/.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
make -s train
# One thread per run, as many runs at once as there are cores (JOBS=N to choose).
JOBS=${JOBS:-$(OMP_NUM_THREADS='' OMP_THREAD_LIMIT='' nproc 2>/dev/null || echo 1)}

# publish SWEEP_DIR DOCS_DIR: the sweep's sweep.csv, summary.txt and figures into DOCS_DIR (the
# run folders stay in sweeps/, which git ignores: they hold checkpoints).
publish() {
    mkdir -p "$2"
    cp "$1/sweep.csv" "$1/summary.txt" "$1/plan.txt" "$2/"
    for f in "$1"/*.svg; do [ -e "$f" ] && cp "$f" "$2/"; done
    echo "== $2: $(($(wc -l <"$2/sweep.csv") - 1)) runs"
}
