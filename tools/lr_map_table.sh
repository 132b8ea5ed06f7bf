#!/usr/bin/env bash
# tools/lr_map_table.sh REGIMES: src/train/lr_map_table.c on stdout, the measured regimes that
# ./train --where and init_check.txt place a config in (train/lr_map.h). `make lr-map` runs it on
# experiments/regimes.txt (the regimes' one home; its header gives the directives). Run from the
# checkout: the regimes' sweep globs are relative to it.
#
# Per regime, from each sweep.csv its globs match (sorted) and the plan.txt beside it:
#   - every finished run (status ok or diverged; running, stopped, missing ... runs measured
#     nothing) whose settings are the regime's (each `match` key, from its plan's base line or,
#     when the plan varies it, from the run's own column), with its sweep folder, name, d_model,
#     d_k, arm (the regime's arm keys as "key=value ..."), optim.lr, seed, learnt (status ok and
#     the `learns` criterion), the criterion's column and logit_std_peak;
#   - per (arm, d_model): the largest lr at which every run learnt and the smallest at which one
#     did not (0 when none), the lrs' ends, how many lrs and seeds;
#   - the regime's settings as an INI text: its `match` keys, then the base lines of the plans
#     whose runs fall in it but its axes and match keys (two such plans that disagree stop it).
# Exit 1 with a message naming the file for a malformed regimes file, a sweep without plan.txt, a
# missing column, or plans that disagree. Reads the files only.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tools/lr_map_table.sh REGIMES" >&2; exit 2; }
[ -r "$1" ] || { echo "lr_map_table.sh: cannot read '$1'" >&2; exit 1; }
# the regimes file with each sweeps line's globs expanded (sorted; a glob matching nothing: none)
expanded=$(while IFS= read -r line; do
    if [[ $line =~ ^sweeps[[:space:]] ]]; then
        out="sweeps"
        for g in ${line#sweeps}; do
            for f in $(compgen -G "$g" | LC_ALL=C sort); do
                [ -r "$(dirname "$f")/plan.txt" ] || {
                    echo "lr_map_table.sh: '$(dirname "$f")/plan.txt' is missing" >&2; exit 1; }
                out="$out $f"
            done
        done
        echo "$out"
    else
        echo "$line"
    fi
done <"$1")
printf '%s\n' "$expanded" | awk -v table="$1" -v defaults="$(dirname "$0")/../docs/configuration.md" -f "$(dirname "$0")/lr_map_table.awk"
