# experiments/common.sh: what every experiment script shares (sourced, not run): the build, the
# number of runs side by side, and copying a finished sweep's tables and figures into results/.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
# One thread per run, as many runs at once as there are cores (JOBS=N to choose). Anything but a
# number from 1 to 256 is refused before any work: xargs -P 0 would start every run at once, and
# JOBS=x would fail every run.
# The default is the cores, at most 256 (a larger machine runs 256 at once unless told).
JOBS=${JOBS:-$(n=$(OMP_NUM_THREADS='' OMP_THREAD_LIMIT='' nproc 2>/dev/null || echo 1); echo $((n > 256 ? 256 : n)))}
[[ "$JOBS" =~ ^[1-9][0-9]{0,2}$ && "$JOBS" -le 256 ]] || { echo "$(basename "$0"): JOBS must be a number of runs at once from 1 to 256 (as ./train --sweep --jobs), not '$JOBS'" >&2; exit 2; }
make -s train

# The recipe GPT-2-style users train with (issue 41): AdamW beta2 0.95, weight decay 0.1, gradient
# clipping at 1, 100 warm-up steps, cosine decay, 1000 steps. The scripts of the users' regime
# (text_map.sh, mup_map.sh, qk_gains.sh) add their init, block and floor (optim.min_lr) to it.
users_recipe=(--set optim.beta2=0.95 --set optim.weight_decay=0.1 --set optim.grad_clip=1.0
    --set optim.warmup_steps=100 --set optim.schedule=cosine --steps 1000)

# publish SWEEP_DIR DOCS_DIR: the sweep's sweep.csv, summary.txt and figures into DOCS_DIR (the
# run folders stay in sweeps/, which git ignores: they hold checkpoints).
publish() {
    mkdir -p "$2"
    cp "$1/sweep.csv" "$1/plan.txt" "$2/"
    # The report names the sweep (and its figures) by the path it was collected with: the
    # repository's own, not this checkout's folder. "$PWD/" is dropped as text (awk's index, not a
    # sed pattern: a folder name may hold | . [ or &), into a temporary file renamed over the
    # published one only when that worked.
    PREFIX="$PWD/" awk '{
            out = ""; s = $0; p = ENVIRON["PREFIX"]
            while ((i = index(s, p)) > 0) { out = out substr(s, 1, i - 1); s = substr(s, i + length(p)) }
            print out s
        }' "$1/summary.txt" >"$2/summary.txt.tmp"
    mv "$2/summary.txt.tmp" "$2/summary.txt"
    for f in "$1"/*.svg; do [ -e "$f" ] && cp "$f" "$2/"; done
    echo "== $2: $(($(wc -l <"$2/sweep.csv") - 1)) runs"
}

# bpb DOCS_DIR [COLUMN]: DOCS_DIR/bpb.txt, the final validation bits per byte (val_loss / ln 2)
# and next-byte accuracy per COLUMN (a sweep.csv column, default d_k) and scale, median [min-max]
# over the seeds, from its sweep.csv.
bpb() {
    awk -F, -v by="${2:-d_k}" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
              if (!(by in c)) { print "bpb: no column " by " in " FILENAME > "/dev/stderr"; exit 2 }
              next }
        $c["status"] == "ok" && $c["val_loss"] != "" {
            k = $c[by] " " $c["scale"]; n[k]++
            b[k, n[k]] = $c["val_loss"] / log(2); a[k, n[k]] = 100 * $c["val_token_acc"]
            if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
        function stat(v, k, cnt,   i, j, t, x, med) {
            for (i = 1; i <= cnt; i++) x[i] = v[k, i]
            for (i = 2; i <= cnt; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
            med = cnt % 2 ? x[(cnt + 1) / 2] : (x[cnt / 2] + x[cnt / 2 + 1]) / 2
            return sprintf("%.4f [%.4f-%.4f]", med, x[1], x[cnt]) }
        END { hdr = by; sub(/.*\./, "", hdr)
              printf "%-5s %-8s %3s  %-26s %s\n", hdr, "scale", "n", "val bits/byte", "next-byte acc %"
              for (q = 1; q <= m; q++) { k = order[q]; split(k, p, " ")
                  printf "%-5s %-8s %3d  %-26s %s\n", p[1], p[2], n[k], stat(b, k, n[k]), stat(a, k, n[k]) } }' \
        "$1/sweep.csv" >"$1/bpb.txt"
    cat "$1/bpb.txt"
}
