#!/usr/bin/env bash
# The norm gains' view of the scale (issue 42 item 4). With qk-RMSNorm, q and k are normalised
# per head to RMS 1 and multiplied by learned gains g_q, g_k (start 1), so for independent entries
# the logit std is about sqrt(d_k) * rms(g_q ⊙ g_k) * scale. With scale none (Gemma 4's choice) the
# gains are the only place the 1/sqrt(d_k) of Vaswani et al. can come from: do they learn
# rms(g_q ⊙ g_k) ≈ 1/sqrt(d_k) by themselves, how fast, and at which lr not?
# The users' regime of experiments/text_map.sh (byte-level KJV text, LLaMA block, GPT-2 init,
# AdamW beta2 0.95, weight decay 0.1, clip 1, 100 warm-up steps, cosine to lr/10, 1000 steps,
# batch 32 x 64 bytes) at d_model 128 with d_k in {16, 32, 64} (8, 4, 2 heads),
# attention.qk_norm = rmsnorm, scale {none, 1/sqrt(d_k)} (the scaled arm is the control: its
# gains have nothing to undo), lr {6e-4, 2.4e-3, 9.6e-3, 3.84e-2}, seed 1.
# Writes results/qk_gains/: lr-L/ per lr (sweep.csv, summary.txt, plan.txt, figures, curves), gains.csv (every
# logged step: run, d_k, scale, lr, step, layer, qk_gain_rms, the layer's mean logit std over its
# heads) and gains.txt (per run and layer: rms(g_q ⊙ g_k) at steps 0, 100, 200, 500, 1000; the
# logit factor scale * sqrt(d_k) * rms(g_q ⊙ g_k) at the end, the logit std that unit-RMS,
# independent q and k would give (1 = what 1/sqrt(d_k) gives at the start; with scale none, 1
# means the gains learnt exactly 1/sqrt(d_k)); the measured logit std at the end, the final
# validation bits per byte). The gains are vectors (one dimension): weight decay does not touch
# them (optim.c decays tensors of two or more dimensions), so nothing but the loss pulls them. Runs in sweeps/qk_gains/lr-L/ (resumable).
#
# Cost: 24 runs of about 45 s on one core (the text map's d_model 128 runs, measured on one core
# of a 2-vCPU AMD EPYC Zen 5): about 0.3 core-hours.
. "$(dirname "$(readlink -f "$0")")/common.sh"
experiments/text_corpus.sh kjv
res=results/qk_gains
lrs="6e-4 2.4e-3 9.6e-3 3.84e-2"
# one sweep per lr (each with its cosine floor lr/10, as in experiments/text_map.sh)
for lr in $lrs; do
    out=sweeps/qk_gains/lr-$lr
    min_lr=$(awk -v l="$lr" 'BEGIN { printf "%.6g", l / 10 }')
    ./train --sweep configs/text_scaled.ini --d-model 128 --dk 16,32,64 --scales none,sqrt_dk \
        --grid optim.lr="$lr" --seeds 1 --set "task.file=$PWD/data/kjv.txt" \
        --set attention.qk_norm=rmsnorm --set model.block=llama --set init.scheme=gpt2 \
        "${users_recipe[@]}" --set optim.min_lr="$min_lr" --jobs "$JOBS" --out "$out" ||
        echo "qk_gains.sh: some runs at lr $lr did not finish (see $out/sweep.csv)"
    publish "$out" "$res/lr-$lr"
    experiments/curves.sh "$out" "$res/lr-$lr/curves"
done

# gains.csv: one row per logged step and layer of every finished run (qk_gain_rms is the same in
# each head's row; the logit std is the mean over the layer's heads)
{
    echo "run,d_k,scale,lr,step,layer,qk_gain_rms,logit_std"
    for lr in $lrs; do
        out=sweeps/qk_gains/lr-$lr
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["status"] == "ok" || $c["status"] == "diverged" {
            print $c["run"], $c["d_k"], $c["scale"], $c["optim.lr"] }' "$out/sweep.csv" |
        while read -r run dk scale lr; do
            awk -F, -v run="$run" -v dk="$dk" -v scale="$scale" -v lr="$lr" '
                NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                { k = $c["step"] "," $c["layer"]
                  if (!(k in g)) { order[++n] = k; g[k] = $c["qk_gain_rms"] }
                  s[k] += $c["logit_std"]; h[k]++ }
                END { for (i = 1; i <= n; i++) { k = order[i]
                      printf "%s,%s,%s,%s,%s,%s,%.4g\n", run, dk, scale, lr, k, g[k], s[k] / h[k] } }' \
                "$out/runs/$run/attention.csv"
        done
    done
} > "$res/gains.csv.tmp"
mv "$res/gains.csv.tmp" "$res/gains.csv"

# gains.txt: the table read off gains.csv and sweep.csv
awk -F, 'FNR == 1 { f++ }
    f == 1 && FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    f == 1 { bpb[$c["run"]] = $c["val_loss"] == "" ? "-" : sprintf("%.3f", $c["val_loss"] / log(2))
             st[$c["run"]] = $c["status"]; next }
    FNR == 1 { next }
    { k = $1 SUBSEP $6
      if (!(k in seen)) { seen[k] = 1; key[++n] = k; dk[k] = $2; sc[k] = $3; lr[k] = $4 }
      g[k, $5] = $7; last[k] = $5; lg[k] = $7; ls[k] = $8 }
    function at(k, s) { return (k SUBSEP s) in g ? sprintf("%.3f", g[k, s]) : "-" }
    END {
        printf "%-4s %-7s %-7s %-5s %6s %6s %6s %6s %6s %10s %8s %6s %s\n", "d_k", "scale", "lr",
            "layer", "g@0", "g@100", "g@200", "g@500", "g@end", "factor", "std@end", "bpb", "status"
        for (i = 1; i <= n; i++) { k = key[i]; split(k, p, SUBSEP)
            printf "%-4s %-7s %-7s %-5s %6s %6s %6s %6s %6.3f %10.2f %8.2f %6s %s\n", dk[k], sc[k],
                lr[k], p[2], at(k, 0), at(k, 100), at(k, 200), at(k, 500), lg[k],
                lg[k] * (sc[k] == "none" ? sqrt(dk[k]) : 1), ls[k], bpb[p[1]], st[p[1]] } }' \
    <(awk 'FNR > 1 || NR == 1' "$res"/lr-*/sweep.csv) "$res/gains.csv" > "$res/gains.txt.tmp"
mv "$res/gains.txt.tmp" "$res/gains.txt"
cat "$res/gains.txt"
