#!/usr/bin/env bash
# experiments/mup_transfer.sh [MAP_DIR]: the three readings issue 42 asks of experiments/mup_map.sh's
# published parts (MAP_DIR, default results/mup_map; each part a folder <series>_d<width> holding
# sweep.csv and curves/), printed on stdout (make it results/mup_map/transfer.txt by redirection):
#  1. the best learning rate per width and arm, and the transfer slope d log2(lr*) / d log2(d_model)
#     (0 = the optimum transfers; -1 = it halves when the width doubles), least squares over the
#     widths present, from the grid's best lr and from the vertex of a parabola through the best
#     lr and its two neighbours in (log2 lr, bits per byte) (the grid's factor 2 alone cannot
#     resolve a slope under 1); a best lr at an end of the lrs a width ran is not bracketed, and
#     the slope line names that width; a width whose lrs ran with different numbers of seeds (a
#     part published while it trains) says so on its row ("seeds per lr 1-2"), and one that ran
#     under three lrs is left out of the slope, named on its line ("left out: d_model 512 (1 lr
#     run)");
#  2. the loss lost by training at the d_model 128 optimum: l(lr*_128) - l* at each width, bits per byte;
#     and whether each best lr beats the runner-up (the lr of the next lowest mean) in every seed:
#     the differences seed by seed (one seed's runs of two lrs share its data order and init), so a
#     best lr chosen by one seed's luck shows as "no";
#  3. the premise: std(q.k) = (the logits' std) / (the scale), per layer, at the last logged step
#     (step 1000) of each run (curves/<run>.csv, logit_std_l<layer>, over the visible entries of the
#     batch's heads), mean over seeds, and its exponent alpha in std(q.k) ~ d_k^alpha between the
#     series' d_k (1/2 = entries independent, 1 = q and k aligned), at each arm's own best lr and
#     at every lr both widths ran.
# l(lr) is the final val_loss / ln 2 (bits per byte), the mean over the seeds; a diverged run counts
# as its loss at initialisation (loss0), as in the LR sensitivity of the sweep report. The d_k 64
# runs (h2_d128) were planned once with scale sqrt_dk: 8/d_k is the same number there, so they stand
# for both scales' arms. A part with no ended run says "no runs" and is left out; an ended run
# whose loss is nan or inf (val_loss when ok, loss0 when diverged) is refused, naming it. Exit 2
# when MAP_DIR holds no part, or no ended run.
set -euo pipefail
dir=${1:-results/mup_map}
parts=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name '*_d*' -exec basename {} \; 2>/dev/null | LC_ALL=C sort) || true
[ -n "$parts" ] || { echo "mup_transfer.sh: $dir holds no published part (<series>_d<width>/sweep.csv)" >&2; exit 2; }

# one line per run, tab-separated: series width d_k param scale lr seed bits_per_byte, then
# std(q.k) per layer ("nan": the run's curve has no step-1000 value). A sweep.csv without a column
# the readings need, a scale it cannot read, or an ended run without its loss (or with nan or inf): exit 2, naming it.
rows() {
    local p f
    while IFS= read -r p; do
        f=$dir/$p/sweep.csv
        if [ ! -f "$f" ]; then echo "mup_transfer.sh: $dir/$p has no sweep.csv: left out" >&2; continue; fi
        awk -F, -v OFS='\t' -v part="$p" -v curves="$dir/$p/curves" '
            function die(m) { print "mup_transfer.sh: " FILENAME ": " m > "/dev/stderr"; bad = 1; exit 2 }
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
                      n = split("run d_k d_model scale seed model.param optim.lr status val_loss loss0", need, " ")
                      for (i = 1; i <= n; i++) if (!(need[i] in c)) die("no column " need[i])
                      next }
            $c["status"] != "ok" && $c["status"] != "diverged" { next }
            {
                series = part; sub(/_d[0-9]+$/, "", series)
                dk = $c["d_k"]; sc = $c["scale"]
                cval = sc == "sqrt_dk" ? 1 / sqrt(dk) : sc == "8/d_k" ? 8 / dk : sc + 0
                if (!(cval > 0) || dk + 0 <= 0) die("run " $c["run"] ": scale " sc " with d_k " dk " is not a positive factor")
                loss = $c["status"] == "ok" ? $c["val_loss"] : $c["loss0"]
                if (loss == "") die("run " $c["run"] " (" $c["status"] ") has no " ($c["status"] == "ok" ? "val_loss" : "loss0"))
                # nan or inf where the status promises a number (diverged: loss0) is a damaged row:
                # refused, as it would turn its arm'"'"'s means into nan
                # (1e999 is spelled as a number but is no finite double: the value is checked too)
                if (loss !~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ || !(loss + 0 < 1e308 && loss + 0 > -1e308))
                    die("run " $c["run"] " (" $c["status"] ") has " ($c["status"] == "ok" ? "val_loss" : "loss0") " " loss ", not a finite number")
                ended++
                l = loss / log(2)
                # the last row of the curve with logit stds: std(q.k) = logit std / scale
                file = curves "/" $c["run"] ".csv"; last = ""; hdr = ""
                while ((getline line < file) > 0) { if (hdr == "") hdr = line; else last = line }
                close(file)
                nh = split(hdr, h, ","); split(last, v, ","); stds = ""; nl = 0
                for (i = 1; i <= nh; i++) if (h[i] ~ /^logit_std_l/) { nl++; stds = stds OFS (v[i] == "" ? "nan" : v[i] / cval) }
                if (nl == 0) stds = OFS "nan"
                # d_k 64: 8/d_k is sqrt_dk, one set of runs for both arms
                scales = (sc == "sqrt_dk" && dk == 64) ? "sqrt_dk 8/d_k" : sc
                ns = split(scales, s, " ")
                for (k = 1; k <= ns; k++)
                    print series, $c["d_model"], dk, $c["model.param"], s[k], $c["optim.lr"], $c["seed"], l stds
            }
            END { if (!bad && !ended) print "mup_transfer.sh: " FILENAME ": no runs (none ended ok or diverged): left out" > "/dev/stderr" }' "$f" || exit 2
    done <<<"$parts"
}

# every row read first: a bad sweep.csv stops the script before any table is printed
all=$(rows)
[ -n "$all" ] || { echo "mup_transfer.sh: $dir: no runs in any part (none ended ok or diverged)" >&2; exit 2; }
printf '%s\n' "$all" | awk -F'\t' '
function lg2(x) { return log(x) / log(2) }
# the least-squares slope of y on x over n points (x[1..n], y[1..n]); "-" when under 2 widths
function slope(x, y, n,   i, mx, my, sxx, sxy) {
    if (n < 2) return "-"
    for (i = 1; i <= n; i++) { mx += x[i]; my += y[i] }
    mx /= n; my /= n
    for (i = 1; i <= n; i++) { sxx += (x[i] - mx) ^ 2; sxy += (x[i] - mx) * (y[i] - my) }
    return sprintf("%+.2f", sxy / sxx)
}
{
    arm = $1 " " $4 " " $5; key = arm SUBSEP $2 SUBSEP $6
    if (!(arm in seen_arm)) { seen_arm[arm] = 1; arms[++na] = arm }
    if (!((arm, $2) in seen_w)) { seen_w[arm, $2] = 1; nw[arm]++; widths[arm, nw[arm]] = $2; dkof[arm, $2] = $3 }
    if (!((arm, $2, $6) in seen_lr)) { seen_lr[arm, $2, $6] = 1; nl[arm, $2]++; lrs[arm, $2, nl[arm, $2]] = $6 }
    n[key]++; sum[key] += $8
    per_seed[key, $7] = $8; seeds[key] = seeds[key] " " $7
    miss = 0
    for (i = 9; i <= NF; i++) if ($i != "nan") { qk[key, i - 8] += $i; nq[key, i - 8]++ } else miss = 1
    nostd += miss && !($3 == 64 && $5 == "8/d_k")  # d_k 64: the sqrt_dk row is the same run
}
END {
    printf "The best learning rate per width, the transfer slope and the loss lost at the d_model 128 optimum\n"
    printf "(experiments/mup_map.sh parts, bits per byte = final val_loss / ln 2, mean over seeds)\n\n"
    printf "%-36s %8s %5s %6s %9s %9s %9s %12s %6s\n", "arm (series, model.param, scale)", "d_model", "d_k", "runs", "best lr", "vertex", "l* bpb", "l(lr*_128)", "lost"
    for (a = 1; a <= na; a++) {
        arm = arms[a]; np = 0; best128 = ""
        # widths in increasing order
        for (i = 1; i <= nw[arm]; i++) for (j = i + 1; j <= nw[arm]; j++)
            if (widths[arm, j] + 0 < widths[arm, i] + 0) { t = widths[arm, i]; widths[arm, i] = widths[arm, j]; widths[arm, j] = t }
        for (i = 1; i <= nw[arm]; i++) {
            w = widths[arm, i]; m = nl[arm, w]; runs = 0
            # lrs in increasing order, their mean losses
            for (p = 1; p <= m; p++) for (q = p + 1; q <= m; q++)
                if (lrs[arm, w, q] + 0 < lrs[arm, w, p] + 0) { t = lrs[arm, w, p]; lrs[arm, w, p] = lrs[arm, w, q]; lrs[arm, w, q] = t }
            bi = 0; smin = smax = 0
            for (p = 1; p <= m; p++) {
                k = arm SUBSEP w SUBSEP lrs[arm, w, p]; L[p] = sum[k] / n[k]; runs += n[k]
                if (bi == 0 || L[p] < L[bi]) bi = p
                if (p == 1 || n[k] < smin) smin = n[k]
                if (n[k] > smax) smax = n[k]
            }
            blr = lrs[arm, w, bi]; bestlr[arm, w] = blr
            # the runner-up: the lr of the second lowest mean, for the seed-by-seed reading
            ri = 0
            for (p = 1; p <= m; p++) if (p != bi && (ri == 0 || L[p] < L[ri])) ri = p
            runner[arm, w] = ri ? lrs[arm, w, ri] : ""
            # the parabola through (log2 lr, l) at the best lr and its neighbours (grid factor 2)
            vtx = "edge"
            if (bi > 1 && bi < m) {
                x0 = lg2(lrs[arm, w, bi - 1]); x1 = lg2(blr); x2 = lg2(lrs[arm, w, bi + 1])
                d = (L[bi - 1] - 2 * L[bi] + L[bi + 1])
                if ((x1 - x0) - (x2 - x1) < 1e-6 && (x2 - x1) - (x1 - x0) < 1e-6 && d > 0) vtx = sprintf("%.3g", 2 ^ (x1 - (x2 - x1) * (L[bi + 1] - L[bi - 1]) / (2 * d)))
            }
            if (i == 1 && w == 128) best128 = blr
            lost = "-"; l128 = "-"
            if (best128 != "") {
                k = arm SUBSEP w SUBSEP best128
                # under three lrs the best is only the best of what ran: no optimum, nothing lost
                if (k in n) { l128 = sprintf("%.4f", sum[k] / n[k]); if (m >= 3) lost = sprintf("%.4f", sum[k] / n[k] - L[bi]) }
            }
            # a width still being trained (a published part in progress): its lrs ran with
            # different numbers of seeds, so its means are not over the same seeds
            uneven = smin != smax ? sprintf("  seeds per lr %d-%d", smin, smax) : ""
            printf "%-36s %8d %5d %6d %9s %9s %9.4f %12s %6s%s\n", arm, w, dkof[arm, w], runs, blr, vtx, L[bi], l128, lost, uneven
            # a width that ran under three lrs (a part begun) has no optimum to speak of: its
            # one or two lrs would pull the slope wherever they were run, so it is left out
            if (m < 3) few = few (few == "" ? "" : ", ") "d_model " w " (" m " lr" (m == 1 ? "" : "s") " run)"
            else {
                np++; X[np] = lg2(w); Y[np] = lg2(blr); if (vtx != "edge") { nv++; XV[nv] = lg2(w); YV[nv] = lg2(vtx) }
                else edges = edges (edges == "" ? "" : ", ") w
            }
        }
        # a best lr at an end of the lrs run is not bracketed: the optimum may lie beyond it
        printf "%-36s transfer slope d log2 lr* / d log2 d_model: %s (grid), %s (vertex)%s%s\n\n", "", slope(X, Y, np), (nv == np ? slope(XV, YV, nv) : "-"),
            (edges != "" ? "; not bracketed at d_model " edges " (best lr at an end of the lrs run)" : ""),
            (few != "" ? "; left out: " few : "")
        edges = few = ""
        delete X; delete Y; delete XV; delete YV; nv = 0
    }
    printf "Is each best lr ahead of the runner-up (the lr of the next lowest mean) in every seed? Bits per byte\n"
    printf "of the runner-up minus the best lr, seed by seed over the seeds both ran (the two runs of a seed\n"
    printf "share its data order and init, so an offset common to the seed cancels); the mean gap is their mean\n\n"
    printf "%-36s %8s %9s %10s %9s  %-24s %s\n", "arm (series, model.param, scale)", "d_model", "best lr", "runner-up", "mean gap", "by seed (seed:gap)", "every seed"
    for (a = 1; a <= na; a++) {
        arm = arms[a]
        for (i = 1; i <= nw[arm]; i++) {
            w = widths[arm, i]; r = runner[arm, w]
            if (r == "") continue
            kb = arm SUBSEP w SUBSEP bestlr[arm, w]; kr = arm SUBSEP w SUBSEP r
            ns = split(seeds[kb], sd, " "); out = ""; tot = 0; cnt = 0; ahead = 0
            for (j = 1; j <= ns; j++) if ((kr, sd[j]) in per_seed) {
                g = per_seed[kr, sd[j]] - per_seed[kb, sd[j]]
                out = out sprintf("%s%s:%+.4f", (cnt ? " " : ""), sd[j], g); tot += g; cnt++; ahead += g > 0
            }
            if (cnt == 0) continue
            every = cnt == 1 ? "one seed" : ahead == cnt ? "yes" : "no (" ahead " of " cnt ")"
            printf "%-36s %8d %9s %10s %+9.4f  %-24s %s\n", arm, w, bestlr[arm, w], r, tot / cnt, out, every
        }
    }
    printf "\n"
    printf "The premise: std(q.k) = logit std / scale at step 1000, per layer (mean over seeds), and alpha in\n"
    printf "std(q.k) ~ d_k^alpha between consecutive d_k of a series (1/2 = independent entries, 1 = aligned;\n"
    printf "\"-\" where d_k does not change, as in the d_k 32 control)\n\n"
    printf "%-36s %9s %8s %5s %11s %11s %8s %8s\n", "arm", "lr", "d_model", "d_k", "std l0", "std l1", "alpha l0", "alpha l1"
    for (a = 1; a <= na; a++) {
        arm = arms[a]
        if (nw[arm] < 2) continue
        # at the arm own best lr of each width, then at every lr the widths share
        for (i = 1; i <= nw[arm]; i++) {
            w = widths[arm, i]; row(arm, "best", w, bestlr[arm, w], i)
        }
        m = nl[arm, widths[arm, 1]]
        for (p = 1; p <= m; p++) {
            lr = lrs[arm, widths[arm, 1], p]; all = 1
            for (i = 1; i <= nw[arm]; i++) if (!((arm SUBSEP widths[arm, i] SUBSEP lr) in n)) all = 0
            if (!all) continue
            for (i = 1; i <= nw[arm]; i++) row(arm, lr, widths[arm, i], lr, i)
        }
        print ""
    }
    if (nostd) printf "(%d runs had no step-1000 logit std in their curve, for a layer or all (a curve missing or empty): left out of those means; \"-\": no run had one)\n", nostd
}
# one line: std(q.k) per layer at (arm, width, lr), alpha against the previous width on the same row kind
function row(arm, label, w, lr, i,   k, j, s, al, out, pw, pk) {
    k = arm SUBSEP w SUBSEP lr; out = ""; al = ""
    for (j = 1; j <= 2; j++) {
        s = nq[k, j] ? qk[k, j] / nq[k, j] : 0
        out = out (s > 0 ? sprintf(" %11.4g", s) : sprintf(" %11s", "-"))
        # alpha needs two d_k: "-" in the d_k 32 control (its d_k is the same at every width)
        if (i > 1 && prev_s[j] > 0 && s > 0 && dkof[arm, w] != prev_dk) al = al sprintf(" %8.2f", log(s / prev_s[j]) / log(dkof[arm, w] / prev_dk))
        else al = al sprintf(" %8s", "-")
        cur_s[j] = s
    }
    printf "%-36s %9s %8d %5d%s%s\n", arm, (label == "best" ? "best " lr : lr), w, dkof[arm, w], out, al
    for (j = 1; j <= 2; j++) prev_s[j] = cur_s[j]
    prev_dk = dkof[arm, w]
}'
