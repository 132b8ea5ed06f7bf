# shellcheck shell=bash
# experiments/lr_map_lib.sh: the driver text_map.sh and mup_map.sh share (sourced after
# common.sh, not run): each (part, lr) a sweep in sweeps/${MAP}_<part>/lr-<L>/ (seeds 1,2; another
# SEEDS, e.g. a third seed at the lrs that decide a threshold, in lr-<L>_seeds-<S>/ beside it, as
# a different --seeds is a different plan), planned first,
# the cost printed, runs already published in results/$MAP/<part>/sweep.csv (ok or diverged)
# skipped, seed by seed, then published. The sourcing script sets MAP (the results folder's name),
# PARTS, SEEDS, LRS and defines plan PART LR (plans one sweep, prints its folder, returns 2 when
# ./train refuses it), part_width PART and run_seconds PART (one run's seconds on one core), and
# may define part_check PART (exits 2 with one line unless PART is a part; default part_width) and
# map_figure (called after publishing); then calls map_main. Publishing writes each part's plans as
# one plan.txt beside its sweep.csv (make lr-map reads it), and writes the same bytes for the same
# runs whatever LRS: plan.txt's runs and sweep.csv's rows by lr (numerically), arm and seed; a part
# none of whose runs has ended is not published (said).
# COST_ONLY=1 prints the cost and stops (a folder not planned yet is planned in a temporary place,
# so that nothing is left in sweeps/ for a later publish to take as the map's); PUBLISH_ONLY=1
# publishes what the local sweeps hold and trains nothing; ONLY (a POSIX extended regular
# expression on run names, matched by bash's =~) trains a subset. Refused before any work, in one
# line naming it (exit 2): JOBS not from 1 to 256 (common.sh), an unknown part or one given twice,
# a seed with a leading zero (01: seed 1 under another name), an ONLY that is no regular
# expression, an LRS value
# that is no positive number, repeats another's number (6e-4 0.0006), or spells an lr otherwise
# than the part's published plan or local sweep folders do (or is an lr they spell two ways), and
# a plan whose base lines give a key another value than the part's published plan.txt (e.g.
# INIT=fan_in on a part published with gpt2: its runs would be merged with the published ones
# under their names). SEEDS=2 (seeds 1..2) is the default set, 1,2.

# sweep_dir PART LR: the folder of the (part, lr) sweep with this SEEDS (plan uses it). While
# PLAN_ROOT is set (map_main's checks and the cost), a folder not planned yet is planned under
# PLAN_ROOT, a temporary folder removed after: a refused or cost-only start leaves no plan in
# sweeps/ that a later publish would take as the map's.
sweep_dir() {
    local suffix='' d
    [ "$SEEDS" = "1,2" ] || suffix=_seeds-${SEEDS//,/-}
    d=sweeps/${MAP}_$1/lr-$2$suffix
    [ -n "${PLAN_ROOT:-}" ] && [ ! -f "$d/plan.txt" ] && d=$PLAN_ROOT/$d
    echo "$d"
}

# sweep_dirs PART LR: every planned (part, lr) sweep folder, whatever its seeds
sweep_dirs() {
    local d
    for d in "sweeps/${MAP}_$1/lr-$2" "sweeps/${MAP}_$1/lr-$2"_seeds-*; do
        [ -f "$d/plan.txt" ] && echo "$d"
    done
    return 0
}

# runs_with_status "STATUS..." CSV...: the runs the sweep.csv files hold with one of the
# space-separated STATUSes, one name a line; a file may hold several sweep.csv one after another
# (each header read by its names); an absent file holds none
runs_with_status() {
    local want=$1 f have=()
    shift
    for f; do [ -f "$f" ] && have+=("$f"); done
    [ ${#have[@]} -gt 0 ] || return 0
    awk -F, -v want=" $want " '$1 == "run" { delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
        ("status" in c) && index(want, " " $c["status"] " ") { print $c["run"] }' "${have[@]}"
}

# published_done PART: the runs results/$MAP/PART/sweep.csv holds as ok or diverged (a guard run
# is trained again)
published_done() { runs_with_status "ok diverged" "results/$MAP/$1/sweep.csv"; }

# ended_in CSV...: the runs that ended (ok, diverged, guard), as runs_with_status reads them
ended_in() { runs_with_status "ok diverged guard" "$@"; }

# local_done OUT: the runs of the sweep folder OUT that ended (their marker's exit code 0, 3 or 4,
# src/sweep/results.c results_final: ./train --sweep-run does not train them again)
local_done() {
    local f
    for f in "$1"/runs/*/sweep_result.txt; do
        [ -f "$f" ] && awk '$1 == "exit_code" && ($2 == 0 || $2 == 3 || $2 == 4) { ok = 1 } END { exit !ok }' "$f" &&
            basename "$(dirname "$f")"
    done
    return 0
}

# jobs PART: the part's jobs.txt lines still to train (neither published nor finished in the local
# sweep), "SEED<TAB>LR-INDEX<TAB>LINE", unsorted
jobs() {
    local i=0 lr out done_list
    done_list=$(published_done "$1")
    for lr in $LRS; do
        i=$((i + 1))
        out=$(plan "$1" "$lr")
        sed -E 's/.*\/configs\/([^/]*)\.ini.*/\1\t&/' "$out/jobs.txt" |
            DONE="$done_list"$'\n'"$(local_done "$out")" awk -F '\t' -v i="$i" '
                BEGIN { n = split(ENVIRON["DONE"], d, "\n"); for (k = 1; k <= n; k++) skip[d[k]] = 1 }
                !($1 in skip) { s = $1; sub(/.*_s/, "", s); print $1 "\t" s "\t" i "\t" $2 }' |
            only_runs
    done
}

# only_runs: the lines "NAME<TAB>REST" of stdin whose run NAME matches ONLY (bash's =~, the
# system's POSIX extended regular expressions, intervals such as {2} included, which mawk's ~
# reads as text), printed as REST
only_runs() {
    local name rest re=${ONLY:-.}
    while IFS=$'\t' read -r name rest; do
        if [[ $name =~ $re ]]; then printf '%s\n' "$rest"; fi
    done
    return 0
}

# combined_plan PART: on stdout, the part's plans (one sweep per lr and seed set) as one plan.txt
# for results/$MAP/PART/ (make lr-map reads a plan beside each sweep.csv): the lrs one axis, the
# seeds one axis (their union), the base lines all plans share (optim.lr and optim.min_lr, lr / 10,
# are the run's), the corpus by its path in the checkout, every plan's runs. The part's published
# plan.txt, when there is one, adds its lrs, seeds and runs (an lr or seed set trained from another
# checkout, whose sweep folders are not here, stays in the plan; its base lines are not merged:
# an older ./train wrote fewer keys, at their defaults, and a key both give with different values
# was refused before any work, base_check). Exit 1 when two local plans differ elsewhere.
combined_plan() {
    local plans=() lrs=() lr f
    for lr in $LRS; do
        f=$(sweep_dirs "$1" "$lr")
        [ -n "$f" ] || continue
        lrs+=("$lr")
        while IFS= read -r f; do plans+=("$f/plan.txt"); done <<<"$(sweep_dirs "$1" "$lr")"
    done
    [ ${#plans[@]} -gt 0 ] || return 0
    local pub=results/$MAP/$1/plan.txt
    [ -f "$pub" ] || pub=/dev/null
    PREFIX="$PWD/" LRLIST=$(IFS=,; echo "${lrs[*]}") awk -v part="$1" -v map="$MAP" -v pub="$pub" '
        function fail(m) { print map ".sh: " m > "/dev/stderr"; bad = 1; exit 1 }
        # the lrs as written, each once (sorted at the end)
        function add_lrs(list,   n, v, i) { n = split(list, v, ","); for (i = 1; i <= n; i++) if (!(v[i] in haslr)) { haslr[v[i]] = 1; lr[++nlr] = v[i] } }
        # a[1..n] in increasing numeric order, each as written, joined by commas
        function sorted_list(a, n,   i, j, t, out) {
            for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
            out = a[1]; for (i = 2; i <= n; i++) out = out "," a[i]
            return out
        }
        BEGIN { add_lrs(ENVIRON["LRLIST"]) }
        FNR == 1 { k = 0; if (FILENAME != pub && first_file == "") first_file = FILENAME }
        # the published plan: its lrs, seeds and runs only
        FILENAME == pub { if (/^axis optim\.lr /) add_lrs($3)
                          else if (/^axis run\.seed /) { n = split($3, sd, ","); for (i = 1; i <= n; i++) seed[sd[i]] = 1 }
                          else if (/^run /) pubruns[++npub] = $0
                          else if (/^columns /) pubcols = $0
                          next }
        /^base optim\.(lr|min_lr) = / || /^#/ { next }
        # the corpus by its path in the checkout: ./train writes this checkout'"'"'s absolute path
        /^base task\.file = / || /^task-file / { i = index($0, ENVIRON["PREFIX"]); if (i) $0 = substr($0, 1, i - 1) substr($0, i + length(ENVIRON["PREFIX"])) }
        /^axis optim\.lr / { $0 = "axis optim.lr" }
        /^axis run\.seed / { n = split($3, sd, ","); for (i = 1; i <= n; i++) seed[sd[i]] = 1
                             $0 = "axis run.seed" }
        /^columns / { if (cols == "") cols = $0; next }
        /^run / { if (!($0 in had)) { had[$0] = 1; runs[++nr] = $0 }; next }
        FILENAME == first_file { first[++nf] = $0; next }
        { if (++k > nf || first[k] != $0) fail(FILENAME ": \"" $0 "\" is not in the first lr'"'"'s plan") }
        END {
            if (bad) exit 1
            ns = 0; for (s in seed) sl[++ns] = s + 0
            seeds = sorted_list(sl, ns); lrs = sorted_list(lr, nlr)
            print "# results/" map "/" part ": experiments/" map ".sh plans one sweep per lr"
            print "# (sweeps/" map "_" part "/lr-<L>/plan.txt, other seeds in lr-<L>_seeds-<S>/); this is"
            print "# their plan as one: the lrs one axis, the seeds one axis, optim.min_lr = optim.lr / 10"
            print "# in every run"
            for (i = 1; i <= nf; i++) print (first[i] == "axis run.seed" ? first[i] " " seeds : first[i] == "axis optim.lr" ? first[i] " " lrs : first[i])
            # the columns before the runs (./train --sweep --collect reads a plan so), then the
            # runs by lr (numerically), arm (in the order ./train plans the arms: the local plans
            # first, then the published one) and seed (numerically): the published plan depends
            # neither on LRS, nor on which lrs were trained this time, nor on the order earlier
            # publications listed the runs in
            for (i = 1; i <= npub; i++) if (!(pubruns[i] in had)) { had[pubruns[i]] = 1; runs[++nr] = pubruns[i] }
            if (cols == "") cols = pubcols
            if (cols != "") print cols
            nc = split(cols, cw, " "); li = 0; si = 0
            for (j = 2; j <= nc; j++) { if (cw[j] == "optim.lr") li = j + 1; if (cw[j] == "seed") si = j + 1 }
            for (i = 1; i <= nr; i++) {
                split(runs[i], rw, " "); rlr[i] = li ? rw[li] + 0 : 0; rsd[i] = si ? rw[si] + 0 : 0
                arm = rw[2]; sub(/_lr-[^_]*_s[0-9]+$/, "", arm)
                if (!(arm in armrank)) armrank[arm] = ++narm
                rarm[i] = armrank[arm] }
            for (i = 2; i <= nr; i++) for (j = i; j > 1 && (rlr[j - 1] > rlr[j] || (rlr[j - 1] == rlr[j] && (rarm[j - 1] > rarm[j] || (rarm[j - 1] == rarm[j] && rsd[j - 1] > rsd[j])))); j--) {
                t = runs[j]; runs[j] = runs[j - 1]; runs[j - 1] = t; t = rlr[j]; rlr[j] = rlr[j - 1]; rlr[j - 1] = t
                t = rarm[j]; rarm[j] = rarm[j - 1]; rarm[j - 1] = t; t = rsd[j]; rsd[j] = rsd[j - 1]; rsd[j - 1] = t }
            for (i = 1; i <= nr; i++) print runs[i]
        }' "$pub" "${plans[@]}"
}

# publish_part PART: collect every lr's sweep, merge with the published rows, report, curves. The
# published files do not depend on LRS or on what was trained this time: sweep.csv's rows follow
# the combined plan's runs (by lr, arm and seed), so that publishing again, with any LRS,
# writes the same bytes when no run changed. Nothing is written when the local plans disagree.
publish_part() {
    local dest=results/$MAP/$1 tmp lr out
    tmp=$(mktemp -d "/tmp/$MAP.XXXXXX")
    combined_plan "$1" >"$tmp/plan.txt" || { rm -rf "$tmp"; echo "${MAP}.sh: part $1: not published" >&2; return 2; }
    if [ ! -s "$tmp/plan.txt" ]; then
        rm -rf "$tmp"
        echo "== $dest: no local sweep of these lrs: nothing published"
        return 0
    fi
    for lr in $LRS; do
        for out in $(sweep_dirs "$1" "$lr"); do
            # a sweep planned and nothing trained yet (a new lr, ONLY choosing other runs) is a
            # normal state here, not the error --collect calls it; its other messages are shown
            ./train --sweep --collect --out "$out" >/dev/null 2>"$tmp/collect.err" || true
            grep -vF "has trained (none ok, diverged or guard)" "$tmp/collect.err" >&2 || true
            [ -f "$out/sweep.csv" ] && cat "$out/sweep.csv" >>"$tmp/fresh.csv"
        done
    done
    # a part none of whose runs has ended, here or published (a new part stopped before its first
    # run ended), has nothing to report: said, and the next part published
    if [ -z "$(ended_in "$tmp/fresh.csv" "$dest/sweep.csv")" ]; then
        rm -rf "$tmp"
        echo "== $dest: no run has ended yet: nothing published"
        return 0
    fi
    # curves only of the runs that ended in the local folder: an interrupted run's partial curve
    # would stand beside a row that says missing, or replace a whole curve published from
    # another machine
    local ended
    for lr in $LRS; do
        for out in $(sweep_dirs "$1" "$lr"); do
            mapfile -t ended < <(ended_in "$out/sweep.csv")
            [ "${#ended[@]}" -eq 0 ] || experiments/curves.sh "$out" "$dest/curves" "${ended[@]}" >/dev/null
        done
    done
    # the report is drawn in a folder of the published path's name, so that its summary names the
    # sweep by that path, not by the temporary folder
    local rep=$tmp/$dest
    mkdir -p "$dest" "$rep"
    [ -f "$dest/sweep.csv" ] && cp "$dest/sweep.csv" "$tmp/old.csv" || : >"$tmp/old.csv"
    : >>"$tmp/fresh.csv"
    # one header; per run the fresh row if it ended, else the published one, else the fresh one;
    # the rows in the plan's run order (runs the plan does not hold after them, by name). Columns
    # by name: this ./train's (the fresh rows'), then any only the published rows have, so that
    # rows an older ./train wrote with other columns are not read under the wrong names
    awk -F, 'FILENAME ~ /plan.txt$/ { if (/^run /) { split($0, w, " "); rank[w[2]] = ++nrank } next }
        # a header (fresh.csv is several sweep.csv files one after another): its columns by name
        $1 == "run" { cols[++nh] = $0; delete c
                      for (i = 1; i <= NF; i++) { c[$i] = i
                          if (FILENAME ~ /old.csv$/) { if (!($i in inold)) { inold[$i] = 1; oldcol[++nold] = $i } }
                          else if (!($i in infresh)) { infresh[$i] = 1; freshcol[++nfresh] = $i } }
                      next }
        FILENAME ~ /old.csv$/ { old[$c["run"]] = $0; oldh[$c["run"]] = nh; next }
        { r = $c["run"]; if (!(r in seen)) order[++n] = r; seen[r] = 1
          st = $c["status"]
          # a run in two folders (seeds 1,2 and a seed set around them): its ended row wins
          if (!(r in fresh) || !ended[r]) { fresh[r] = $0; freshh[r] = nh; ended[r] = (st == "ok" || st == "diverged" || st == "guard") } }
        function before(a, b,   ra, rb) { ra = a in rank ? rank[a] : nrank + 1; rb = b in rank ? rank[b] : nrank + 1
                                          return ra < rb || (ra == rb && a < b) }
        # emit ROW read under header H: its values under the output columns, empty where it has none
        function emit(row, h,   i, v, names, m) {
            split(row, v, ","); split(cols[h], names, ",")
            for (i in names) m[names[i]] = v[i]
            for (i = 1; i <= nout; i++) printf "%s%s", (i > 1 ? "," : ""), (out[i] in m ? m[out[i]] : "")
            printf "\n" }
        END { for (i = 1; i <= nfresh; i++) out[++nout] = freshcol[i]
              for (i = 1; i <= nold; i++) if (!(oldcol[i] in infresh)) out[++nout] = oldcol[i]
              for (i = 1; i <= nout; i++) printf "%s%s", (i > 1 ? "," : ""), out[i]
              printf "\n"
              for (r in old) if (!(r in seen)) { order[++n] = r; seen[r] = 1 }
              for (i = 2; i <= n; i++) for (j = i; j > 1 && before(order[j], order[j - 1]); j--) { t = order[j]; order[j] = order[j - 1]; order[j - 1] = t }
              for (k = 1; k <= n; k++) { r = order[k]
                  if (r in fresh && ended[r]) emit(fresh[r], freshh[r])
                  else if (r in old) emit(old[r], oldh[r])
                  else emit(fresh[r], freshh[r]) } }' "$tmp/plan.txt" "$tmp/old.csv" "$tmp/fresh.csv" >"$rep/sweep.csv"
    local train=$PWD/train
    (cd "$tmp" && "$train" --sweep-report "$dest" >/dev/null)
    cp "$rep/sweep.csv" "$dest/sweep.csv.tmp" && mv "$dest/sweep.csv.tmp" "$dest/sweep.csv"
    # and no curve of a run whose published row has not ended (left by an earlier publication)
    local c done_rows
    done_rows=$(ended_in "$dest/sweep.csv")
    for c in "$dest"/curves/*.csv; do
        [ -e "$c" ] || continue
        grep -qxF "$(basename "$c" .csv)" <<<"$done_rows" || rm -f "$c"
    done
    cp "$rep/summary.txt" "$dest/summary.txt"
    cp "$tmp/plan.txt" "$dest/plan.txt.tmp" && mv "$dest/plan.txt.tmp" "$dest/plan.txt"
    for f in "$rep"/*.svg; do [ -e "$f" ] && cp "$f" "$dest/"; done
    rm -rf "$tmp"
    echo "== $dest: $(awk -F, 'NR > 1 && /,(ok|diverged),/' "$dest/sweep.csv" | wc -l) of" \
        "$(($(wc -l <"$dest/sweep.csv") - 1)) runs ended"
}

# refuse MESSAGE: MESSAGE on stderr after the script's name, exit 2
refuse() {
    echo "${MAP}.sh: $*" >&2
    exit 2
}

# seeds_default: a SEEDS that names the default set (2: seeds 1..2 as ./train --seeds reads a
# count; 2,1) is the default 1,2, whose folders are lr-<L>/ (else it plans lr-<L>_seeds-2/ and
# trains the runs lr-<L>/ holds again)
seeds_default() {
    # a seed spelled with a leading zero is another run name for the same seed (01 is seed 1:
    # its runs would train again and be published beside _s1)
    [[ ! ",$SEEDS," =~ ,0[0-9] ]] || refuse "SEEDS: '$SEEDS' spells a seed with a leading zero; write it without (01 is seed 1)"
    case $SEEDS in
    2) SEEDS=1,2 ;;
    *,*) [ "$(tr ',' '\n' <<<"$SEEDS" | sort -n -u | paste -sd, -)" != 1,2 ] || SEEDS=1,2 ;;
    esac
    return 0
}

# lrs_check: exit 2 unless every lr of LRS is a positive number given once (6e-4 and 0.0006 are
# one lr: given twice, its runs are trained and counted twice) and spelled as each part's
# published plan and local sweep folders spell it (the spelling is in the run names: another one
# would train the part's published runs again and publish them as a second lr)
lrs_check() {
    local p d l known=
    for p in $PARTS; do
        d=results/$MAP/$p/plan.txt
        [ ! -f "$d" ] || known+=$(awk -v f="$d" '$1 == "axis" && $2 == "optim.lr" {
            n = split($3, v, ","); for (i = 1; i <= n; i++) printf "%s\t%s\n", v[i], f }' "$d")$'\n'
        for d in "sweeps/${MAP}_$p"/lr-*; do
            [ -f "$d/plan.txt" ] || continue
            l=${d##*/lr-}
            known+="${l%%_seeds-*}"$'\t'"$d"$'\n'
        done
    done
    LRS_LIST=$LRS KNOWN=$known awk -v map="$MAP" '
        function die(m) { print map ".sh: LRS: " m > "/dev/stderr"; exit 2 }
        BEGIN {
            n = split(ENVIRON["LRS_LIST"], v, " ")
            if (n == 0) die("no lr given")
            for (i = 1; i <= n; i++) {
                if (v[i] !~ /^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ || !(v[i] + 0 > 0)) die("\"" v[i] "\" is not a positive number")
                for (j = 1; j < i; j++) if (v[j] + 0 == v[i] + 0) die(v[j] " and " v[i] " are the same lr: give it once")
            }
            m = split(ENVIRON["KNOWN"], k, "\n")
            for (i = 1; i <= n; i++) {
                s0 = ""
                for (q = 1; q <= m; q++) {
                    if (split(k[q], kv, "\t") < 2 || kv[1] + 0 != v[i] + 0) continue
                    # compared as text ("" appended): as numbers 6e-4 and 0.0006 are equal
                    if (s0 == "") { s0 = kv[1]; f0 = kv[2] }
                    else if (kv[1] "" != s0 "") die("the lr " v[i] " is spelled " s0 " in " f0 " but " kv[1] " in " kv[2] ": two names for the same runs; remove the folder that is not published, or rename it")
                }
                if (s0 != "" && s0 "" != v[i] "") die(v[i] " is the lr " s0 " of " f0 ": write it " s0 " (the run names spell it so)")
            }
        }' || exit 2
}

# base_check PART PLAN: exit 2 when the base lines of the plan PLAN (or its corpus, task-file's
# hash) give a key another value than results/$MAP/PART/plan.txt does: its runs would train with
# other settings under the published runs' names and be merged into their sweep.csv. A key
# the published plan does not list is allowed at its default only (an older ./train wrote fewer
# keys, and trained them at their defaults); optim.lr and optim.min_lr are each run's, task.file a
# path that differs between checkouts.
base_check() {
    local pub=results/$MAP/$1/plan.txt
    [ -f "$pub" ] || return 0
    if [ -z "${CONFIG_DEFAULTS:-}" ]; then
        # every key at its default, "base section.key = value" as a plan writes it
        local empty
        empty=$(mktemp "/tmp/${MAP}_empty.XXXXXX.ini")
        CONFIG_DEFAULTS=$(./train --print-config "$empty" | awk '/^\[/ { sec = substr($0, 2, length($0) - 2); next }
            /^;/ || !/=/ { next } { v = $0; sub(/^[^=]*= /, "", v); print "base " sec "." $1 " = " v }')
        rm -f "$empty"
    fi
    DEFAULTS=$CONFIG_DEFAULTS awk -v map="$MAP" -v part="$1" -v pub="$pub" '
        BEGIN { n = split(ENVIRON["DEFAULTS"], d, "\n")
                for (i = 1; i <= n; i++) { k = d[i]; sub(/^base /, "", k); sub(/ = .*/, "", k); v = d[i]; sub(/^base [^ ]+ = /, "", v); def[k] = v } }
        /^base / { k = $2; if (k == "optim.lr" || k == "optim.min_lr" || k == "task.file") next
                   v = $0; sub(/^base [^ ]+ = /, "", v) }
        /^task-file / { k = "the corpus hash (task-file)"; v = $3 }
        !/^(base|task-file) / { next }
        FILENAME == pub { had[k] = v; next }
        (k in had) && had[k] != v {
            printf "%s.sh: part %s: the new plan has %s = %s, but %s has %s = %s (its runs trained so): plan with the published settings, or under another part name or results folder\n",
                map, part, k, v, pub, k, had[k] > "/dev/stderr"
            exit 2 }
        # a key the published plan does not list was written by an older ./train, which trained it
        # at its default: a new plan may only keep it there
        !(k in had) && (k in def) && def[k] != v {
            printf "%s.sh: part %s: the new plan has %s = %s, which %s does not list (its runs trained at the default %s): plan with the published settings, or under another part name or results folder\n",
                map, part, k, v, pub, def[k] > "/dev/stderr"
            exit 2 }' "$pub" "$2" || exit 2
}

# map_check: the settings refused before any work, each in one line naming it: PARTS (the
# sourcing script's part_check, else part_width, exits 2 on an unknown part), ONLY, LRS, SEEDS,
# and a local sweep whose base differs from the part's published plan
map_check() {
    local p lr d
    [ -n "${PARTS// /}" ] || refuse "PARTS: no part given"
    p=$(tr -s ' ' '\n' <<<"$PARTS" | sed '/^$/d' | sort | uniq -d | head -n 1)
    [ -z "$p" ] || refuse "PARTS: $p is given twice (its runs would be counted and trained twice)"
    for p in $PARTS; do
        if declare -F part_check >/dev/null; then part_check "$p"; else part_width "$p" >/dev/null; fi
    done
    local re=${ONLY:-.} rc=0
    [[ x =~ $re ]] || rc=$?
    [ "$rc" -ne 2 ] || refuse "ONLY: '$ONLY' is not an extended regular expression"
    seeds_default
    lrs_check
    for p in $PARTS; do
        for lr in $LRS; do
            for d in $(sweep_dirs "$p" "$lr"); do base_check "$p" "$d/plan.txt"; done
        done
    done
}

map_main() {
    map_check
    if [ -n "${PUBLISH_ONLY:-}" ]; then
        for p in $PARTS; do [ -d "sweeps/${MAP}_$p" ] && publish_part "$p"; done
        map_figure
        return 0
    fi

    # Every (part, lr) planned first, outside any pipeline: a plan ./train refuses (e.g. a sweep folder
    # planned by an older ./train, whose plan.txt lacks keys added since) or one whose base differs
    # from the part's published plan stops the script here, before any run trains. A folder not
    # planned yet is planned in a temporary place (sweep_dir) until the cost is printed.
    PLAN_ROOT=$(mktemp -d "/tmp/${MAP}_plans.XXXXXX")
    trap 'rm -rf "$PLAN_ROOT"' EXIT
    local out
    for p in $PARTS; do
        for lr in $LRS; do
            out=$(plan "$p" "$lr") || refuse "part $p, lr $lr: the plan was refused (above)"
            base_check "$p" "$out/plan.txt"
        done
    done

    # The cost first: every part's runs left, and their core-hours.
    total=0
    for p in $PARTS; do
        n=$(jobs "$p" | wc -l)
        s=$((n * $(run_seconds "$p")))
        total=$((total + s))
        echo "${MAP}.sh: part $p: $n runs to train, about $(awk -v s="$s" 'BEGIN { printf "%.1f", s / 3600 }') core-hours"
    done
    echo "${MAP}.sh: in all about $(awk -v s="$total" 'BEGIN { printf "%.1f", s / 3600 }') core-hours," \
        "$(awk -v s="$total" -v j="$JOBS" 'BEGIN { printf "%.1f", s / 3600 / j }') h with $JOBS runs at once"
    rm -rf "$PLAN_ROOT"
    PLAN_ROOT=
    trap - EXIT
    [ -n "${COST_ONLY:-}" ] && return 0

    for p in $PARTS; do
        # seed by seed, lr by lr within a seed: a stop leaves whole sets of the four arms
        jobs "$p" | sort -s -n -k1,1 -k2,2 | cut -f3- | tr '\n' '\0' |
            xargs -0 -r -P "$JOBS" -n 1 sh -c || echo "${MAP}.sh: part $p: some runs failed (see sweep.csv)"
        publish_part "$p"
    done
    map_figure
}

# map_figure: the sourcing script's figure over every published part (its own map_figure, when
# it defines one before calling map_main; else nothing)
declare -F map_figure >/dev/null || map_figure() { :; }
