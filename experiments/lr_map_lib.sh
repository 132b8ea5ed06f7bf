# shellcheck shell=bash
# experiments/lr_map_lib.sh: the driver text_map.sh and mup_map.sh share (sourced after
# common.sh, not run): each (part, lr) a sweep in sweeps/${MAP}_<part>/lr-<L>/, planned first,
# the cost printed, runs already published in results/$MAP/<part>/sweep.csv (ok or diverged)
# skipped, seed by seed, then published. The sourcing script sets MAP (the results folder's name),
# PARTS, SEEDS, LRS and defines plan PART LR (plans one sweep, prints its folder, returns 2 when
# ./train refuses it), part_width PART and run_seconds WIDTH; then calls map_main.
# COST_ONLY=1 prints the cost and stops; PUBLISH_ONLY=1 publishes what the local sweeps hold and
# trains nothing; ONLY (an extended regular expression on run names) trains a subset.

# published_done PART: the names of the runs results/$MAP/PART/sweep.csv holds as ended
published_done() {
    local f=results/$MAP/$1/sweep.csv
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

# publish_part PART: collect every lr's sweep, merge with the published rows, report, curves
publish_part() {
    local dest=results/$MAP/$1 tmp lr out
    tmp=$(mktemp -d "/tmp/$MAP.XXXXXX")
    for lr in $LRS; do
        out=sweeps/${MAP}_$1/lr-$lr
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
    for f in "$rep"/*.svg; do [ -e "$f" ] && cp "$f" "$dest/"; done
    rm -rf "$tmp"
    echo "== $dest: $(awk -F, 'NR > 1 && /,(ok|diverged),/' "$dest/sweep.csv" | wc -l) of" \
        "$(($(wc -l <"$dest/sweep.csv") - 1)) runs ended"
}

map_main() {
    if [ -n "${PUBLISH_ONLY:-}" ]; then
        for p in $PARTS; do [ -d "sweeps/${MAP}_$p" ] && publish_part "$p"; done
        return 0
    fi

    # Every (part, lr) planned first, outside any pipeline: a plan ./train refuses (e.g. a sweep folder
    # planned by an older ./train, whose plan.txt lacks keys added since) stops the script here, before
    # any run trains from that folder's old configs.
    for p in $PARTS; do
        for lr in $LRS; do
            plan "$p" "$lr" >/dev/null || { echo "${MAP}.sh: part $p, lr $lr: the plan was refused (above)" >&2; return 2; }
        done
    done

    # The cost first: every part's runs left, and their core-hours.
    total=0
    for p in $PARTS; do
        n=$(jobs "$p" | wc -l)
        s=$((n * $(run_seconds "$(part_width "$p")")))
        total=$((total + s))
        echo "${MAP}.sh: part $p: $n runs to train, about $(awk -v s="$s" 'BEGIN { printf "%.1f", s / 3600 }') core-hours"
    done
    echo "${MAP}.sh: in all about $(awk -v s="$total" 'BEGIN { printf "%.1f", s / 3600 }') core-hours," \
        "$(awk -v s="$total" -v j="$JOBS" 'BEGIN { printf "%.1f", s / 3600 / j }') h with $JOBS runs at once"
    [ -n "${COST_ONLY:-}" ] && return 0

    for p in $PARTS; do
        # seed by seed, lr by lr within a seed: a stop leaves whole sets of the four arms
        jobs "$p" | sort -s -n -k1,1 -k2,2 | cut -f3- | tr '\n' '\0' |
            xargs -0 -r -P "$JOBS" -n 1 sh -c || echo "${MAP}.sh: part $p: some runs failed (see sweep.csv)"
        publish_part "$p"
    done
}
