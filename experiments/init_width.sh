#!/usr/bin/env bash
# The control variable (docs/findings.md, "Does it happen in my model?"): init scheme (fan_in, gpt2 with
# std 0.02) x width (d_model 64, 128, 256; d_k fixed at 64, n_heads = d_model / 64) x scale
# (sqrt_dk, none), seeds 1-3, the shipped sort task and its 2000 steps. Writes
# results/init_width/d<d_model>/; runs in sweeps/init_width_d<d_model>/. d_model 512 is not in the
# default widths (about 10-11 minutes a run, 4x a d_model 256 run; seeds 2-3 ran two at once on
# a 2-vCPU Zen 5 EPYC, 588-642 s each, sweep.csv's wall_s): docs/findings.md's d_model 512 rows
# were trained as SEEDS=1 WIDTHS=512 and SEEDS=2,3 WIDTHS=512 (results/init_width/d512 and
# d512_s23). Each published part gets its runs' curves (experiments/curves.sh) where the run
# folders hold them. Then an init.std sweep at d_model 64 (below), and the regime map of
# everything published under results/init_width/.
. "$(dirname "$(readlink -f "$0")")/common.sh"
# WIDTHS and SEEDS choose a part. SEEDS=N trains seeds 1..N; SEEDS=A,B trains those seeds into
# a folder of their own (suffix _sAB). docs/findings.md's d_model 256 rows were trained in two parts,
# SEEDS=1 WIDTHS=256 and then SEEDS=2,3 WIDTHS=256 (results/init_width/d256 and d256_s23).
seeds=${SEEDS:-3}
if [[ "$seeds" == *,* ]]; then
    seed_args=(--grid "run.seed=$seeds")
    sfx=_s${seeds//,/}
else
    seed_args=(--seeds "$seeds")
    sfx=
fi
for d in ${WIDTHS:-64 128 256}; do
    ./train --sweep configs/scaled.ini --dk 64 --d-model "$d" --scales sqrt_dk,none \
        --grid init.scheme=fan_in,gpt2 "${seed_args[@]}" --jobs "$JOBS" --out "sweeps/init_width_d$d$sfx"
    publish "sweeps/init_width_d$d$sfx" "results/init_width/d$d$sfx"
    experiments/curves.sh "sweeps/init_width_d$d$sfx" "results/init_width/d$d$sfx/curves"
done
regime_map() { # the README's top figure: every run published under results/init_width/
    local r=results/init_width
    ./train --regime-map --out results/regime_map $r/d64 $r/d128 $r/d256 $r/d256_s23 $r/d512 \
        $r/d512_s23 $r/std_d64
}
[ -n "${WIDTHS:-}" ] && { regime_map; exit 0; }
# The spread between: gpt2 init at d_model 64 (d_k 64, one head) with init.std 0.035 ... 0.14, so
# the predicted unscaled step-0 logit std (8 * 64 * std^2) runs 0.78 ... 10: where the failure
# begins at fixed width. Writes results/init_width/std_d64/; runs in sweeps/init_std_d64/.
./train --sweep configs/scaled.ini --scales sqrt_dk,none --set init.scheme=gpt2 \
    --grid init.std=0.035,0.05,0.07,0.1,0.14 --seeds 3 --jobs "$JOBS" --out sweeps/init_std_d64
publish sweeps/init_std_d64 results/init_width/std_d64
regime_map
