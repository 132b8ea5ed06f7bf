#!/usr/bin/env bash
# The map where our users stand (issue 41): byte-level language modelling on the King James Bible
# (data/kjv.txt, bits per byte), the LLaMA-style block (model.block = llama), GPT-2's init, the
# recipe GPT-2-style users train with (AdamW beta2 0.95, weight decay 0.1, gradient clipping at 1,
# 100 warm-up steps, cosine decay to lr/10), 1000 steps, batch 32 x 64 bytes, d_k 64 (so n_heads =
# d_model / 64), learning rate in factors of 2 around nanoGPT's 6e-4, and four arms:
#   scale {1/sqrt(d_k), none} x attention.qk_norm {none, rmsnorm}
# (unscaled + qk-RMSNorm is Gemma 4's choice). Parts (PARTS, default "d128 d256 d512 gpt2_d256"):
#   d128, d256, d512   the LLaMA block at that width                -> results/text_map/d<W>/
#   d768               the LLaMA block at GPT-2 small's width (LRS=... to choose the lrs)
#   gpt2_d256          the GPT-2 block at d_model 256, the cross-check against the sort maps
# SEEDS (default 1,2) and LRS (default "3e-4 6e-4 1.2e-3 2.4e-3 4.8e-3 9.6e-3 1.92e-2") choose
# the grid; ONLY (an extended regular expression on run names) trains a subset.
#
# Resumable, also on another machine: each (part, lr) is a sweep in sweeps/text_map_<part>/lr-<L>/
# (git ignores sweeps/), trained seed by seed so that a stop leaves whole sets of arms; started
# again, a run already finished in the local sweep is skipped and an interrupted one resumes from
# its checkpoint, and a run whose row is already published in results/text_map/<part>/sweep.csv
# with status ok or diverged is not trained again (the checkout is all another machine needs).
# Publishing merges: a run's freshly collected row when it ended (ok, diverged, guard), else the
# row already published, else the fresh row (missing); then ./train --sweep-report redraws the
# summary, experiments/curves.sh adds each local run's curve, the part's plans are written as one
# plan.txt (make lr-map reads it: the text_users regime of ./train --where), and
# experiments/text_map_figure.py draws results/text_map/text_map.svg (bits per byte against lr, a
# panel per part, peak logit std below) and lr_sensitivity.txt over every published part. PUBLISH_ONLY=1 publishes what
# the local sweeps hold (e.g. after stopping the script) and trains nothing.
#
# Cost: the script prints the runs left and the core-hours before it trains (a run's seconds on
# one core by width, measured below; COST_ONLY=1 prints the cost and stops). Measured on one core
# of a 2-vCPU AMD EPYC Zen 5 (AVX-512), float32, quiet: d_model 256, 100 steps, 1.5 s per 10 steps
# (148-152 ms/step), so about 160 s for 1000 steps with its 11 evaluations. The other widths are
# scaled from it by the step's FLOPs (d_model 128: x0.27; 512: x3.8; 768: x8.4) until measured.
. "$(dirname "$(readlink -f "$0")")/common.sh"
PARTS=${PARTS:-d128 d256 d512 gpt2_d256}
SEEDS=${SEEDS:-1,2}
LRS=${LRS:-3e-4 6e-4 1.2e-3 2.4e-3 4.8e-3 9.6e-3 1.92e-2}
experiments/text_corpus.sh kjv
recipe=(--set init.scheme=gpt2 --set optim.beta2=0.95 --set optim.weight_decay=0.1
    --set optim.grad_clip=1.0 --set optim.warmup_steps=100 --set optim.schedule=cosine
    --steps 1000)

part_width() { case $1 in d128) echo 128 ;; d256 | gpt2_d256) echo 256 ;; d512) echo 512 ;;
    d768) echo 768 ;; *) echo "text_map.sh: unknown part $1" >&2; exit 2 ;; esac; }
part_block() { case $1 in gpt2_*) echo gpt2 ;; *) echo llama ;; esac; }
run_seconds() { case $1 in 128) echo 45 ;; 256) echo 160 ;; 512) echo 610 ;; 768) echo 1340 ;; esac; }

# plan PART LR: the (part, lr) sweep's plan (configs and jobs.txt); prints its folder
plan() {
    local w out min_lr
    w=$(part_width "$1")
    out=sweeps/text_map_$1/lr-$2
    min_lr=$(awk -v l="$2" 'BEGIN { printf "%.6g", l / 10 }')
    ./train --sweep configs/text_scaled.ini --dk 64 --d-model "$w" --scales sqrt_dk,none \
        --grid attention.qk_norm=none,rmsnorm --grid optim.lr="$2" --seeds "$SEEDS" \
        --set model.block="$(part_block "$1")" --set optim.min_lr="$min_lr" "${recipe[@]}" \
        --out "$out" --plan >/dev/null || return 2 # (set -e does not act in a function under ||)
    echo "$out"
}

# published_done PART: the names of the runs results/text_map/PART/sweep.csv holds as ended
published_done() {
    local f=results/text_map/$1/sweep.csv
    [ -f "$f" ] || return 0
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["status"] == "ok" || $c["status"] == "diverged" { print $c["run"] }' "$f"
}

# jobs PART: the part's jobs.txt lines still to train, "SEED<TAB>LR-INDEX<TAB>LINE", unsorted
jobs() {
    local i=0 lr out done_list
    done_list=$(published_done "$1")
    for lr in $LRS; do
        i=$((i + 1))
        out=$(plan "$1" "$lr")
        sed -E 's/.*\/configs\/([^/]*)\.ini.*/\1\t&/' "$out/jobs.txt" |
            DONE="$done_list" ONLY_RE="${ONLY:-.}" awk -F '\t' -v i="$i" '
                BEGIN { n = split(ENVIRON["DONE"], d, "\n"); for (k = 1; k <= n; k++) skip[d[k]] = 1 }
                !($1 in skip) && $1 ~ ENVIRON["ONLY_RE"] {
                    s = $1; sub(/.*_s/, "", s); print s "\t" i "\t" $2 }'
    done
}

# combined_plan PART: on stdout, the part's plans (one sweep per lr) as one plan.txt for
# results/text_map/PART/ (make lr-map reads a plan beside each sweep.csv): the lrs one axis, the
# base lines all plans share (optim.lr and optim.min_lr, lr / 10, are the run's), the corpus by
# its path in the checkout, every plan's runs. Exit 1 when two plans differ elsewhere.
combined_plan() {
    local plans=() lrs=() lr f
    for lr in $LRS; do
        f=sweeps/text_map_$1/lr-$lr/plan.txt
        [ -f "$f" ] && plans+=("$f") && lrs+=("$lr")
    done
    [ ${#plans[@]} -gt 0 ] || return 0
    LRLIST=$(IFS=,; echo "${lrs[*]}") awk -v part="$1" '
        function fail(m) { print "text_map.sh: " m > "/dev/stderr"; bad = 1; exit 1 }
        FNR == 1 { k = 0 }
        /^base optim\.(lr|min_lr) = / || /^#/ { next }
        /^base task\.file = / { $0 = "base task.file = \"data/kjv.txt\"" }
        /^task-file / { $0 = $1 " " $2 " " $3 " data/kjv.txt" }
        /^axis optim\.lr / { $0 = "axis optim.lr " ENVIRON["LRLIST"] }
        /^(run|columns) / { if (/^run / || FNR == NR) runs[++nr] = $0; next }
        FNR == NR { first[++nf] = $0; next }
        { if (++k > nf || first[k] != $0) fail(FILENAME ": \"" $0 "\" is not in the first lr'"'"'s plan") }
        END {
            if (bad) exit 1
            print "# results/text_map/" part ": experiments/text_map.sh plans one sweep per lr"
            print "# (sweeps/text_map_" part "/lr-<L>/plan.txt); this is their plan as one: the lrs"
            print "# one axis, optim.min_lr = optim.lr / 10 in every run"
            for (i = 1; i <= nf; i++) print first[i]
            for (i = 1; i <= nr; i++) print runs[i]
        }' "${plans[@]}"
}

# publish_part PART: collect every lr's sweep, merge with the published rows, report, curves
publish_part() {
    local dest=results/text_map/$1 tmp lr out
    tmp=$(mktemp -d /tmp/text_map.XXXXXX)
    for lr in $LRS; do
        out=sweeps/text_map_$1/lr-$lr
        [ -f "$out/plan.txt" ] || continue
        ./train --sweep --collect --out "$out" >/dev/null || true
        [ -f "$out/sweep.csv" ] && cat "$out/sweep.csv" >>"$tmp/fresh.csv"
        experiments/curves.sh "$out" "$dest/curves" >/dev/null
    done
    # the report is drawn in a folder of the published path's name, so that its summary names the
    # sweep by that path, not by the temporary folder
    local rep=$tmp/$dest
    mkdir -p "$dest" "$rep"
    [ -f "$dest/sweep.csv" ] && cp "$dest/sweep.csv" "$tmp/old.csv" || : >"$tmp/old.csv"
    # one header; per run the fresh row if it ended, else the published one, else the fresh one
    awk -F, 'FNR == 1 { if (!hdr) { hdr = $0; print } for (i = 1; i <= NF; i++) c[$i] = i; next }
        $0 == hdr { next }
        FILENAME ~ /old.csv$/ { old[$c["run"]] = $0; next }
        { r = $c["run"]; if (!(r in seen)) order[++n] = r; seen[r] = 1
          st = $c["status"]; fresh[r] = $0; ended[r] = (st == "ok" || st == "diverged" || st == "guard") }
        END { for (r in old) if (!(r in seen)) { order[++n] = r; seen[r] = 1 }
              for (k = 1; k <= n; k++) { r = order[k]
                  if (r in fresh && ended[r]) print fresh[r]
                  else if (r in old) print old[r]
                  else print fresh[r] } }' "$tmp/old.csv" "$tmp/fresh.csv" >"$rep/sweep.csv"
    local train=$PWD/train
    (cd "$tmp" && "$train" --sweep-report "$dest" >/dev/null)
    cp "$rep/sweep.csv" "$dest/sweep.csv.tmp" && mv "$dest/sweep.csv.tmp" "$dest/sweep.csv"
    cp "$rep/summary.txt" "$dest/summary.txt"
    combined_plan "$1" >"$dest/plan.txt.tmp" && mv "$dest/plan.txt.tmp" "$dest/plan.txt"
    for f in "$rep"/*.svg; do [ -e "$f" ] && cp "$f" "$dest/"; done
    rm -rf "$tmp"
    echo "== $dest: $(awk -F, 'NR > 1 && /,(ok|diverged),/' "$dest/sweep.csv" | wc -l) of" \
        "$(($(wc -l <"$dest/sweep.csv") - 1)) runs ended"
}

# the figure over every published part and lr_sensitivity.txt (Python 3, as the twin; the runs
# and tables above need only ./train)
figure() {
    if command -v python3 >/dev/null; then python3 experiments/text_map_figure.py results/text_map >/dev/null
    else echo "text_map.sh: python3 not found: results/text_map/text_map.svg not redrawn"; fi
}

if [ -n "${PUBLISH_ONLY:-}" ]; then
    for p in $PARTS; do [ -d "sweeps/text_map_$p" ] && publish_part "$p"; done
    figure
    exit 0
fi

# Every (part, lr) planned first, outside any pipeline: a plan ./train refuses (e.g. a sweep folder
# planned by an older ./train, whose plan.txt lacks keys added since) stops the script here, before
# any run trains from that folder's old configs.
for p in $PARTS; do
    for lr in $LRS; do
        plan "$p" "$lr" >/dev/null || { echo "text_map.sh: part $p, lr $lr: the plan was refused (above)" >&2; exit 2; }
    done
done

# The cost first: every part's runs left, and their core-hours.
total=0
for p in $PARTS; do
    n=$(jobs "$p" | wc -l)
    s=$((n * $(run_seconds "$(part_width "$p")")))
    total=$((total + s))
    echo "text_map.sh: part $p: $n runs to train, about $(awk -v s="$s" 'BEGIN { printf "%.1f", s / 3600 }') core-hours"
done
echo "text_map.sh: in all about $(awk -v s="$total" 'BEGIN { printf "%.1f", s / 3600 }') core-hours," \
    "$(awk -v s="$total" -v j="$JOBS" 'BEGIN { printf "%.1f", s / 3600 / j }') h with $JOBS runs at once"
[ -n "${COST_ONLY:-}" ] && exit 0

for p in $PARTS; do
    # seed by seed, lr by lr within a seed: a stop leaves whole sets of the four arms
    jobs "$p" | sort -s -n -k1,1 -k2,2 | cut -f3- | tr '\n' '\0' |
        xargs -0 -r -P "$JOBS" -n 1 sh -c || echo "text_map.sh: part $p: some runs failed (see sweep.csv)"
    publish_part "$p"
done
figure
