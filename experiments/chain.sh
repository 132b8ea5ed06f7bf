#!/usr/bin/env bash
# The numbers behind "The chain, link by link" (docs/findings.md): for every run of a sweep folder (default
# sweeps/seeds_sort, made by experiments/seeds.sh), from its own logs (attention.csv,
# grad_norms.csv):
#   step 0:   attention-logit std, saturated rows, |dL/dZ| (dlogit_norm), |dL/dP| (dprob_norm),
#             softmax_pass, blocked_rows, the layer's W_q gradient norm (q third of qkv.weight)
#   learning: the median over the logged steps FROM..TO (default 20..1000) of softmax_pass,
#             blocked_rows, dlogit_norm, dprob_norm and the W_q gradient norm
#   end:      saturated rows at the last logged step
# per layer (mean over heads), one line per run and layer. Then, per scale mode and layer, the
# median and min-max over the runs. Last, the same gradient readings at equal VALIDATION loss:
# for each seed with a scale-none and a sqrt_dk run, ./train --compare UNSCALED SCALED
# --at-equal-loss (the scaled run read where its val_loss first fell to each of the unscaled
# run's evaluation levels; see ./train --compare --help), its per-reading medians per seed, and
# over the seeds the median unscaled/scaled ratio at equal loss and at equal step and how many
# seeds keep the equal-step direction. Needs bash, awk, sort and the built ./train.
#   experiments/chain.sh [SWEEP_DIR] [FROM] [TO]   > results/seeds/chain.txt
set -euo pipefail
dir=${1:-sweeps/seeds_sort}
from=${2:-20}
to=${3:-1000}
[ -f "$dir/sweep.csv" ] || { echo "chain.sh: no $dir/sweep.csv (run experiments/seeds.sh first)" >&2; exit 2; }

# run -> scale, seed from sweep.csv (columns by name)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         { print $c["run"], $c["scale"], $c["seed"] }' "$dir/sweep.csv" >"$dir/.chain_runs"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4g\n", m }'; }

printf '%-24s %-8s %4s %5s | %8s %8s %9s %9s %8s %8s %8s | %8s %8s %9s %9s %8s | %8s\n' run scale seed layer \
    std0 sat0 dlogit0 dprob0 pass0 blocked0 gWq0 pass_med blk_med dlogit_med dprob_med gWq_med sat_end
rows=$(mktemp)
trap 'rm -f "$rows" "$dir/.chain_runs"' EXIT
while read -r run scale seed; do
    a="$dir/runs/$run/attention.csv" g="$dir/runs/$run/grad_norms.csv"
    [ -f "$a" ] && [ -f "$g" ] || { echo "chain.sh: $run has no logs, left out" >&2; continue; }
    layers=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "layer") c = i; next }
                      $c > m { m = $c } END { print m + 0 }' "$a")
    for l in $(seq 0 "$layers"); do
        # per step, mean over heads of this layer
        per_step=$(awk -F, -v L="$l" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["layer"] == L { s = $c["step"]; n[s]++; if (!(s in o)) ord[++k] = s; o[s] = 1
              std[s] += $c["logit_std"]; sat[s] += $c["saturated_frac"]; dz[s] += $c["dlogit_norm"]
              dp[s] += $c["dprob_norm"]; ps[s] += $c["softmax_pass"]; bl[s] += $c["blocked_rows"] }
            END { for (j = 1; j <= k; j++) { s = ord[j]; printf "%d %g %g %g %g %g %g\n", s,
              std[s]/n[s], sat[s]/n[s], dz[s]/n[s], dp[s]/n[s], ps[s]/n[s], bl[s]/n[s] } }' "$a")
        gq=$(awk -F, -v t="blocks.$l.attn.qkv.weight.q" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == t) c = i; next }
                      { print $1, $c }' "$g")
        s0=$(echo "$per_step" | awk '$1 == 0')
        gq0=$(echo "$gq" | awk '$1 == 0 { print $2 }')
        win=$(echo "$per_step" | awk -v f="$from" -v t="$to" '$1 >= f && $1 <= t')
        gwin=$(echo "$gq" | awk -v f="$from" -v t="$to" '$1 >= f && $1 <= t { print $2 }')
        read -r _ std0 sat0 dz0 dp0 ps0 bl0 <<<"$s0"
        sat_end=$(echo "$per_step" | tail -n 1 | awk '{ print $3 }')
        pmed=$(echo "$win" | awk '{ print $6 }' | median)
        bmed=$(echo "$win" | awk '{ print $7 }' | median)
        zmed=$(echo "$win" | awk '{ print $4 }' | median)
        dmed=$(echo "$win" | awk '{ print $5 }' | median)
        gmed=$(echo "$gwin" | median)
        printf '%-24s %-8s %4s %5s | %8.4g %8.4g %9.4g %9.4g %8.4g %8.4g %8.4g | %8.4g %8.4g %9.4g %9.4g %8.4g | %8.4g\n' \
            "$run" "$scale" "$seed" "$l" "$std0" "$sat0" "$dz0" "$dp0" "$ps0" "$bl0" "$gq0" \
            "$pmed" "$bmed" "$zmed" "$dmed" "$gmed" "$sat_end" | tee -a "$rows"
    done
done <"$dir/.chain_runs"

echo
echo "per scale mode and layer: median [min-max] over the runs"
names=(std0 sat0 dlogit0 dprob0 pass0 blocked0 gWq0 pass_med blk_med dlogit_med dprob_med gWq_med sat_end)
for key in $(awk '{ print $2 "/" $4 }' "$rows" | sort -u); do
    sc=${key%/*} l=${key#*/}
    line="$sc layer $l:"
    for i in "${!names[@]}"; do
        col=$((i < 7 ? i + 6 : i < 12 ? i + 7 : i + 8)) # fields 5, 13 and 19 are '|'
        vals=$(awk -v s="$sc" -v L="$l" -v c="$col" '$2 == s && $4 == L { print $c }' "$rows")
        med=$(echo "$vals" | median)
        lo=$(echo "$vals" | sort -g | head -1) hi=$(echo "$vals" | sort -g | tail -1)
        line+=" ${names[$i]} $med [$lo-$hi]"
    done
    echo "$line"
done

echo
echo "at equal validation loss: unscaled (none) = A, scaled (sqrt_dk) = B, per seed (./train --compare A B --at-equal-loss)"
train_bin="$(cd "$(dirname "$0")/.." && pwd)/train"
if [ ! -x "$train_bin" ]; then
    echo "chain.sh: no $train_bin (make train); equal-loss section left out" >&2
    exit 0
fi
eq=$(mktemp)
trap 'rm -f "$rows" "$eq" "$dir/.chain_runs"' EXIT
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         { print $c["run"], $c["scale"], $c["seed"] }' "$dir/sweep.csv" |
    awk '$2 == "none" { u[$3] = $1 } $2 == "sqrt_dk" { s[$3] = $1 }
         END { for (k in u) if (k in s) print k, u[k], s[k] }' | sort -n |
    while read -r seed un sc; do
        out=$("$train_bin" --compare "$dir/runs/$un" "$dir/runs/$sc" --at-equal-loss) || {
            echo "chain.sh: seed $seed: --at-equal-loss failed, left out" >&2; continue; }
        echo "$out" | grep '^val_loss range' | sed "s/^/seed $seed: /"
        echo "$out" | grep '^layer [0-9]* .* equal loss:' | sed "s/^/seed $seed: /" | tee -a "$eq"
    done
echo
echo "over the seeds: median A/B at equal loss and at equal step; seeds where the equal-step direction survives"
# fields of a line: seed S: layer L NAME A a | equal loss: B b, A/B r | equal step: B c, A/B r2 | verdict
awk '{ key = $4 " " $5; j = 0
       for (i = 1; i <= NF; i++) if ($i == "A/B") { v = $(i + 1); sub(/,$/, "", v)
           if (++j == 1) r1[key] = (key in r1) ? r1[key] " " v : v
           else r2[key] = (key in r2) ? r2[key] " " v : v }
       sv[key] += ($NF == "survives"); tot[key]++; if (!(key in seen)) { seen[key] = 1; ord[++k] = key } }
     function med(s,   a, m, t, i, j) { m = split(s, a, " "); for (i = 1; i <= m; i++) { a[i] = a[i] + 0 }
         for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
         return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
     END { for (x = 1; x <= k; x++) { key = ord[x]; split(key, p, " ")
         printf "layer %s %-12s equal loss A/B %8.3g | equal step A/B %8.3g | direction survives in %d of %d seeds\n",
             p[1], p[2], med(r1[key]), med(r2[key]), sv[key], tot[key] } }' "$eq"
