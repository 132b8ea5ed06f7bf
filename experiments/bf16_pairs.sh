#!/usr/bin/env bash
# bf16 matmuls against float32 (issue 31, item 5): does the missing scale do the same when the
# linear layers' products take bf16 inputs (model.matmul = bf16: float32 accumulation, as
# PyTorch's bf16 autocast; attention, LayerNorm, softmax, the loss and AdamW stay float32)?
# Two parts, each a sweep of scale {1/sqrt(d_k), none} x seeds 1-3:
#   sort   the shipped sort pair (configs/scaled.ini as shipped: d_model 64, one head, fan_in
#          init), model.matmul {float32, bf16}: both paths trained by this binary on this machine
#   d256   the d_model 256 GPT-2-init pair of the regime map (d_k 64, 4 heads, init.scheme=gpt2),
#          the width where the unscaled runs' logits grew to std 380-510 and the task failed on
#          3/3 seeds; bf16 only (MATMULS=float32,bf16 trains both), its float32 rows are the
#          published results/init_width/d256 and d256_s23 (gpt2 rows; trained on the earlier
#          AVX-512 machine, so their digits are not this machine's)
# Writes results/bf16/<part>/ (sweep.csv, summary.txt, figures, and table.md: per path and scale
# the final answer accuracy, the peak logit std ("-" where a sweep.csv predates the column) and
# the saturated share, median [min-max] over the seeds, and each seed's step of 90 %); runs in sweeps/bf16_<part>/. Resumable: a re-run
# skips finished runs.
#
# Cost on one core of the 2-vCPU AMD EPYC (Zen 3, AVX2 only: the bf16 path runs its AVX2 kernel,
# whose results are bitwise those of the AVX512_BF16 kernel, and about 1.3x slower than float32
# here): sort 12 runs of about 1 minute, d256 6 runs of about 5-8 minutes; about 1 core-hour.
# PARTS chooses parts (e.g. PARTS=sort).
. "$(dirname "$(readlink -f "$0")")/common.sh"

# table SWEEP_CSV...: the markdown table of table.md from one or more sweep.csv files (reads them
# only); a file without a model.matmul column counts as float32, and with INIT=SCHEME only the
# rows of that init.scheme are counted.
table() {
    awk -F, -v init="${INIT:-}" '
    FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
    function col(name) { return (name in c) ? $c[name] : "" }
    col("status") == "ok" && (init == "" || col("init_scheme") == "" || col("init_scheme") == init) {
        path = col("model.matmul") == "" ? "float32" : col("model.matmul")
        k = path SUBSEP col("scale"); n[k]++
        acc[k, n[k]] = 100 * col("val_answer_acc"); pk[k, n[k]] = col("logit_std_peak")
        sat[k, n[k]] = 100 * col("saturated_final"); s90[k, n[k]] = col("first_step_90") }
    function stat(v, k, fmt,   i, j, t, x, cnt, med) {
        cnt = n[k]
        for (i = 1; i <= cnt; i++) { if (v[k, i] == "") return "-"; x[i] = v[k, i] + 0 }
        for (i = 2; i <= cnt; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
        med = cnt % 2 ? x[(cnt + 1) / 2] : (x[cnt / 2] + x[cnt / 2 + 1]) / 2
        return sprintf(fmt " [" fmt "-" fmt "]", med, x[1], x[cnt]) }
    function steps(k,   i, out) {
        out = ""
        for (i = 1; i <= n[k]; i++) out = out (i > 1 ? ", " : "") (s90[k, i] == "" ? "never" : s90[k, i])
        return out }
    END {
        print "| matmul | scale | seeds | final answer acc % | peak logit std | saturated rows at the end % | step of 90 % |"
        print "|---|---|---|---|---|---|---|"
        split("float32 bf16", mm, " "); split("sqrt_dk none", sc, " ")
        for (a = 1; a <= 2; a++) for (b = 1; b <= 2; b++) {
            k = mm[a] SUBSEP sc[b]
            if (!n[k]) continue
            printf "| %s | %s | %d | %s | %s | %s | %s |\n", mm[a], sc[b], n[k],
                stat(acc, k, "%.1f"), stat(pk, k, "%.1f"), stat(sat, k, "%.1f"), steps(k) } }' "$@"
}

part() { # NAME MATMULS SWEEP_ARGS...
    local name=$1 mm=$2
    shift 2
    ./train --sweep configs/scaled.ini "$@" --scales sqrt_dk,none --grid "model.matmul=$mm" \
        --seeds "${SEEDS:-3}" --jobs "$JOBS" --out "sweeps/bf16_$name"
    publish "sweeps/bf16_$name" "results/bf16/$name"
    experiments/curves.sh "sweeps/bf16_$name" "results/bf16/$name/curves"
}
for p in ${PARTS:-sort d256}; do
    case "$p" in
    sort)
        part sort float32,bf16
        table results/bf16/sort/sweep.csv > results/bf16/sort/table.md ;;
    d256)
        part d256 "${MATMULS:-bf16}" --dk 64 --d-model 256 --set init.scheme=gpt2
        INIT=gpt2 table results/bf16/d256/sweep.csv results/init_width/d256/sweep.csv \
            results/init_width/d256_s23/sweep.csv > results/bf16/d256/table.md ;;
    *) echo "bf16_pairs.sh: unknown part $p" >&2; exit 2 ;;
    esac
    cat "results/bf16/$p/table.md"
done
