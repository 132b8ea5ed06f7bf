#!/usr/bin/env bash
# The numbers behind the README's "chain, link by link": for every run of a sweep folder (default
# sweeps/seeds_sort, made by experiments/seeds.sh), from its own logs (attention.csv,
# grad_norms.csv):
#   step 0:   attention-logit std, saturated rows, |dL/dZ| (dlogit_norm), |dL/dP| (dprob_norm),
#             softmax_pass, blocked_rows, the layer's W_q gradient norm (q third of qkv.weight)
#   learning: the median over the logged steps FROM..TO (default 20..1000) of softmax_pass,
#             blocked_rows, dlogit_norm, dprob_norm and the W_q gradient norm
#   end:      saturated rows at the last logged step
# per layer (mean over heads), one line per run and layer. Then, per scale mode and layer, the
# median and min-max over the runs. Needs only bash, awk and sort.
#   experiments/chain.sh [SWEEP_DIR] [FROM] [TO]   > docs/seeds/chain.txt
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
