#!/usr/bin/env bash
# The recipe GPT-2-style users train with, at the widths they train (issue 29, maps b and d):
# nanoGPT's and llm.c's AdamW settings (lr 6e-4, beta2 0.95, weight decay 0.1, gradient clipping
# at 1.0, linear warm-up, cosine decay to lr/10 = 6e-5) on sort as shipped otherwise (2000 steps,
# warm-up 100, batch 64, d_k 64 so n_heads = d_model / 64), scale {1/sqrt(d_k), none}.
#   d256, d512  init {fan_in, gpt2} x seeds 1-3       -> results/user_recipe/d256, d512
#   d768        init gpt2 x seeds 1-3 (12 heads)          -> results/user_recipe/d768
# Runs in sweeps/user_recipe_*/ (git ignores them); started again, the script skips finished runs
# and resumes interrupted ones. PARTS chooses parts (default "d256 d512 d768"); ONLY, an extended
# regular expression, trains only the runs whose names match it (e.g. ONLY=gpt2 first, then the
# rest) and publishes nothing: a run without ONLY then publishes each whole part.
#
# Cost, measured (results/user_recipe/*/sweep.csv wall_s; two runs at once throughout). On a
# 2-vCPU EPYC Zen 3: at d_model 256, 441-758 s a run; at 512, 1165-1166 s for one pair of runs
# (make bench's step time says 18.7 min on one core) and 1956-1965 s for another pair while other
# work shared the cores; at 768, 3997-3999 s for seed 1's pair, partly beside a CI run. On a
# 2-vCPU EPYC Zen 5 (AVX-512): at 512, 583-595 s a run (fan_in seeds 2-3); at 768, 1404-1437 s
# (seeds 2-3). So on the Zen 3 the parts take about 1 h (12 runs), 2 h (12 runs) and, quiet,
# 2 h (6 runs: bench's 39.9 min a run on one core); on the Zen 5 about half that or less.
. "$(dirname "$(readlink -f "$0")")/common.sh"
recipe=(--set optim.lr=6e-4 --set optim.beta2=0.95 --set optim.weight_decay=0.1
    --set optim.grad_clip=1.0 --set optim.min_lr=6e-5)
part() { # NAME D_MODEL INITS SEEDS
    local out=sweeps/user_recipe_$1
    ./train --sweep configs/scaled.ini --dk 64 --d-model "$2" --scales sqrt_dk,none \
        --grid init.scheme="$3" --seeds "$4" "${recipe[@]}" --out "$out" --plan >/dev/null
    # jobs.txt lists every scaled run before the unscaled ones; run it seed by seed instead, so
    # that a sweep stopped early holds whole pairs. Each line trains, resumes or does nothing.
    # With ONLY, only the lines whose run name (configs/NAME.ini) matches it.
    local lines
    lines=$(sed -E 's/.*\/configs\/([^/]*)\.ini.*/\1\t&/' "$out/jobs.txt" |
        ONLY_RE="${ONLY:-.}" awk -F '\t' '$1 ~ ENVIRON["ONLY_RE"] { print $2 }')
    if [ -z "$lines" ]; then
        echo "user_recipe.sh: ONLY='${ONLY:-}' matches no run of part $1; skipped" >&2
        return 0
    fi
    sed -E 's/.*_s([0-9]+)\.ini.*/\1\t&/' <<<"$lines" | sort -s -n -k1,1 | cut -f2- |
        tr '\n' '\0' | xargs -0 -r -P "$JOBS" -n 1 sh -c
    ./train --sweep --collect --out "$out"
    if [ -n "${ONLY:-}" ]; then # part of the runs: results/ gets the whole part, later
        echo "user_recipe.sh: ONLY set: $out collected, not published (run again without ONLY)"
        return 0
    fi
    publish "$out" "results/user_recipe/$1"
    experiments/curves.sh "$out" "results/user_recipe/$1/curves"
}
for p in ${PARTS:-d256 d512 d768}; do
    case "$p" in
    d256) part d256 256 fan_in,gpt2 3 ;;
    d512) part d512 512 fan_in,gpt2 3 ;;
    d768) part d768 768 gpt2 3 ;;
    *) echo "user_recipe.sh: unknown part $p" >&2; exit 2 ;;
    esac
done
