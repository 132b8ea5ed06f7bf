# tools/lr_map_table.awk: the body of tools/lr_map_table.sh (read that first). stdin: the regimes
# file with its sweeps globs expanded; -v table=PATH names it in messages.
function die(msg) { print "lr_map_table.sh: " msg > "/dev/stderr"; failed = 1; exit 1 }
function esc(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return s }
function cstr(s) { return "\"" esc(s) "\"" }
function dir_of(p) { if (sub(/\/[^\/]*$/, "", p) == 0) p = "."; return p }
function isnum(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
function same(a, b) { return isnum(a) && isnum(b) ? a + 0 == b + 0 : a == b }
# the sweep.csv column of a config key
function column(key) {
    if (key == "attention.scale") return "scale"
    if (key == "run.seed") return "seed"
    if (key == "model.d_model") return "d_model"
    if (key == "model.n_heads") return "n_heads"
    return key
}
# a run's value of key: its own column, else its plan's base line
function value(key, plan,    cn) {
    cn = column(key)
    if (cn in col) return $col[cn]
    if (key in PB) return PB[key]
    if (key in DEF) return DEF[key]
    die(plan " has no base " key " and its sweep.csv no column " cn)
}
function read_plan(plan,    line, k, v) {
    split("", PB); split("", PAX); npb = 0
    while ((getline line < plan) > 0) {
        if (line ~ /^base /) {
            k = substr(line, 6); sub(/ = .*/, "", k); v = line; sub(/^base [^=]* = /, "", v)
            PB[k] = v; PO[++npb] = k
        } else if (line ~ /^axis /) { split(line, w, " "); PAX[w[2]] = 1 }
    }
    close(plan)
}
# a plan's value of key: its base line, else the key's default (the plan predates the key)
function plan_value(k) { return k in PB ? PB[k] : k in DEF ? DEF[k] : "" }
# the plan's base lines but the regime's axes and match keys into the regime's settings
function merge_base(r, plan,    i, k) {
    for (i = 1; i <= npb; i++) {
        k = PO[i]
        if ((r SUBSEP k) in AX || (r SUBSEP k) in MV) continue
        if (!((r SUBSEP k) in BASE)) {
            if (merged[r] && !same(PB[k], DEF[k])) die(plan ": base " k " = " PB[k] " but an earlier plan of regime " RN[r] " lacks it (its default: " DEF[k] ")")
            BASE[r, k] = PB[k]; BK[r, ++nbk[r]] = k
        }
    }
    for (i = 1; i <= nbk[r]; i++) {
        k = BK[r, i]
        if (!same(BASE[r, k], plan_value(k))) die(plan ": base " k " = " plan_value(k) " but an earlier plan of regime " RN[r] " has " BASE[r, k])
    }
    merged[r] = 1
}
# the finished runs of one sweep.csv that fall in regime r
function read_sweep(r, f,    plan, k, i, line, n, keep, arm, g, lr, st, m, learnt, took) {
    plan = dir_of(f) "/plan.txt"
    read_plan(plan)
    for (i = 1; i <= nm[r]; i++) {
        k = MK[r, i]
        if (k in PAX) continue
        if (plan_value(k) == "") die(plan " has no base " k " (regime " RN[r] " matches it)")
        if (!same(plan_value(k), MV[r, k])) return
    }
    for (k in PAX)
        if (k != "d_k" && !((r SUBSEP k) in AX) && !((r SUBSEP k) in MV))
            die(plan " varies " k ", which regime " RN[r] " neither matches nor has as an axis")
    if ((getline line < f) <= 0) die(f " is empty")
    FS = ","
    split("", col); n = split(line, hd, ",")
    for (i = 1; i <= n; i++) col[hd[i]] = i
    split("run d_model d_k seed status " RC[r], need, " ")
    for (i in need) if (!(need[i] in col)) die(f " lacks the column " need[i])
    while ((getline line < f) > 0) {
        $0 = line
        st = $col["status"]
        if (st != "ok" && st != "diverged") continue
        if ($col["d_k"] != RD[r]) continue
        keep = 1
        for (i = 1; i <= nm[r]; i++) if ((MK[r, i] in PAX) && !same(value(MK[r, i], plan), MV[r, MK[r, i]])) keep = 0
        if (!keep) continue
        arm = ""
        for (i = 1; i <= narm[r]; i++) arm = arm (i > 1 ? " " : "") ARM[r, i] "=" value(ARM[r, i], plan)
        lr = value("optim.lr", plan); m = $col[RC[r]]
        # whether it learnt is decided once every run is read (a relative criterion needs the
        # width's best): the run's fields wait in U*
        U_R[++nrun] = r; U_DIR[nrun] = dir_of(f); U_RUN[nrun] = $col["run"]
        U_DM[nrun] = $col["d_model"]; U_DK[nrun] = $col["d_k"]; U_ARM[nrun] = arm; U_LR[nrun] = lr
        U_SEED[nrun] = $col["seed"]; U_OK[nrun] = st == "ok" && m != ""; U_M[nrun] = m
        U_PEAK[nrun] = !("logit_std_peak" in col) || $col["logit_std_peak"] == "" ? "-1" : $col["logit_std_peak"]
        if (RREL[r] && U_OK[nrun] && (!((r SUBSEP U_DM[nrun]) in BEST) || m + 0 < BEST[r, U_DM[nrun]]))
            BEST[r, U_DM[nrun]] = m + 0
        took = 1
    }
    close(f)
    FS = " "
    if (took) { merge_base(r, plan); SRC[r] = SRC[r] " " f }
}
# run i learnt or not (status ok and the regime's criterion), into R[i] and its cell
function decide(i,    r, m, learnt, g, k) {
    r = U_R[i]; m = U_M[i]
    if (RREL[r]) learnt = U_OK[i] && m + 0 <= BEST[r, U_DM[i]] + RV[r]
    else learnt = U_OK[i] && (RO[r] == ">=" ? m + 0 >= RV[r] + 0 : m + 0 <= RV[r] + 0)
    R[i] = sprintf("    {%d, %s, %s, %d, %d, %s, %s, %s, %d, %d, %s, %s},", r - 1, cstr(U_DIR[i]),
        cstr(U_RUN[i]), U_DM[i], U_DK[i], cstr(U_ARM[i]), U_LR[i], cstr(U_LR[i]), U_SEED[i],
        learnt, m == "" ? "-1" : m, U_PEAK[i])
    g = (r - 1) SUBSEP U_ARM[i] SUBSEP U_DM[i]
    if (!(g in gseen)) { gseen[g] = 1; G[++ng] = g; GR[g] = r }
    k = g SUBSEP U_LR[i] + 0
    if (!(k in lrtext)) { lrtext[k] = U_LR[i]; nlr[g]++; L[g, nlr[g]] = U_LR[i] + 0; all[k] = 1 }
    if (!learnt) all[k] = 0
    if (!((g SUBSEP U_SEED[i]) in seeds)) { seeds[g SUBSEP U_SEED[i]] = 1; nseed[g]++ }
}
# like SRC: regime nr, which has no line yet, becomes a copy of regime SRC's lines (its own
# lines, and the ones it copied, in order: a later one of them replaces an earlier as below)
function copy_regime(src,    i, saved) {
    saved = $0; copying = 1
    for (i = 1; i <= nl[src]; i++) { $0 = LN[src, i]; parse() }
    copying = 0; $0 = saved
}
function parse(    d, rest, k, v, i, n, w) {
    if ($0 ~ /^[ \t]*(#|$)/) return
    if ($0 ~ /\r$/) die(table ":" NR ": a carriage return at the line's end (a CRLF file): save it with LF line ends")
    d = $1; rest = NF > 1 ? $0 : ""; sub(/^[^ \t]+[ \t]+/, "", rest)
    if (d == "regime") {
        if (NF != 2) die(table ":" NR ": regime NAME (one word)")
        for (i = 1; i <= nr; i++) if (RN[i] == $2) die(table ":" NR ": regime " $2 " is defined twice")
        RN[++nr] = $2; return
    }
    if (!nr) die(table ":" NR ": " d " before any regime line")
    # a directive of one value, given twice by the block itself (a copied one may be replaced once)
    if (!copying && d != "match" && d != "like") {
        if ((nr SUBSEP d) in OWN) die(table ":" NR ": " d " given twice in regime " RN[nr])
        OWN[nr, d] = 1
    }
    if (d == "like") {
        if (NF != 2) die(table ":" NR ": like REGIME (one name)")
        if (nl[nr]) die(table ":" NR ": like REGIME, right after the regime line")
        for (i = 1; i < nr; i++) if (RN[i] == $2) break
        if (i >= nr) die(table ":" NR ": like " $2 ": no regime " $2 " above this one to copy")
        copy_regime(i)
        return
    }
    LN[nr, ++nl[nr]] = $0 # the lines a later regime's like copies
    if (d == "title") TI[nr] = rest
    else if (d == "sweeps") SW[nr] = rest
    else if (d == "dk") RD[nr] = $2 + 0
    else if (d == "axes") {
        # a second axes line (a copied one replaced) replaces the first
        n = split(RX[nr], w, " "); for (i = 1; i <= n; i++) delete AX[nr, w[i]]
        narm[nr] = 0
        RX[nr] = rest; n = split(rest, w, " ")
        for (i = 1; i <= n; i++) {
            AX[nr, w[i]] = 1
            if (w[i] !~ /^(run\.seed|model\.d_model|model\.n_heads|optim\.lr|optim\.min_lr)$/) ARM[nr, ++narm[nr]] = w[i]
        }
    } else if (d == "learns") {
        # "learns COL OP NUMBER", or "learns COL <= best + NUMBER": within NUMBER of the smallest
        # COL of the regime's runs (status ok) at the run's width, any arm and lr
        RREL[nr] = 0
        if (NF == 6 && $3 == "<=" && $4 == "best" && $5 == "+" && isnum($6)) {
            RC[nr] = $2; RO[nr] = $3; RV[nr] = $6; RREL[nr] = 1
        } else if (NF != 4 || ($3 != ">=" && $3 != "<=") || !isnum($4))
            die(table ":" NR ": learns COLUMN >=|<= NUMBER, or learns COLUMN <= best + NUMBER")
        else { RC[nr] = $2; RO[nr] = $3; RV[nr] = $4 }
    } else if (d == "min_lr_ratio") {
        if (NF != 2 || !isnum($2) || $2 + 0 <= 0) die(table ":" NR ": min_lr_ratio NUMBER (> 0)")
        RT[nr] = $2
    } else if (d == "match") {
        if ($3 != "=" || NF < 4) die(table ":" NR ": match KEY = VALUE")
        k = $2; v = rest; sub(/^[^=]*=[ \t]*/, "", v)
        # a copied match of the key is replaced where it stands (the settings' order kept)
        if ((nr SUBSEP k) in MV && !copying && !((nr SUBSEP k) in CPM)) die(table ":" NR ": " k " matched twice")
        if (!((nr SUBSEP k) in MV)) MK[nr, ++nm[nr]] = k
        MV[nr, k] = v
        if (copying) CPM[nr, k] = 1
        else delete CPM[nr, k]
    } else die(table ":" NR ": unknown directive '" d "'")
}
function print_regime(r,    s, i, k, sec, lsec, ini, n, keys) {
    # the match keys, then the plans' other settings, by section in the order first seen
    n = 0
    for (i = 1; i <= nm[r]; i++) { keys[++n] = MK[r, i]; val[n] = MV[r, MK[r, i]] }
    for (i = 1; i <= nbk[r]; i++) { keys[++n] = BK[r, i]; val[n] = BASE[r, BK[r, i]] }
    ini = ""; split("", done)
    for (i = 1; i <= n; i++) {
        sec = keys[i]; sub(/\..*/, "", sec)
        if (sec in done) continue
        done[sec] = 1; ini = ini "\n        \"[" sec "]\\n\""
        for (s = i; s <= n; s++) {
            lsec = keys[s]; sub(/\..*/, "", lsec)
            if (lsec != sec) continue
            k = keys[s]; sub(/^[^.]*\./, "", k)
            ini = ini "\n        \"" k " = " esc(val[s]) "\\n\""
        }
    }
    printf "    {%s,\n     %s,\n     %s, %d, %s, %s, %s, %d, %s,%s,\n     %s},\n", cstr(RN[r]), cstr(TI[r]),
        cstr(RX[r]), RD[r], cstr(RC[r]), cstr(RO[r]), RV[r], RREL[r] ? 1 : 0, RT[r] ? RT[r] : "0", ini,
        cstr(substr(SRC[r], 2))
}
# A cell's thresholds: the largest lr at which every run learnt, the smallest at which one did not.
# With a relative criterion an lr too low to come near the best in the steps is no failure of the
# kind the map is about: the lrs below the smallest at which every run learnt are left out (that
# lr becomes the cell's smallest, below which --where says "not known").
function print_cell(q,    g, p, j, lr, k, best, worst, lo, hi, floor) {
    g = G[q]; split(g, p, SUBSEP); best = 0; worst = 0; lo = 0; hi = 0; floor = 0
    if (RREL[GR[g]])
        for (j = 1; j <= nlr[g]; j++)
            if (all[g SUBSEP L[g, j]] && (floor == 0 || L[g, j] < floor)) floor = L[g, j]
    for (j = 1; j <= nlr[g]; j++) {
        lr = L[g, j]; k = g SUBSEP lr
        if (lr < floor) continue
        if (lo == 0 || lr < lo) lo = lr
        if (lr > hi) hi = lr
        if (all[k] && lr > best) best = lr
        if (!all[k] && (worst == 0 || lr < worst)) worst = lr
    }
    printf "    {%d, %s, %d, %s, %s, %s, %s, %s, %s, %d, %d},\n", p[1], cstr(p[2]), p[3],
        best ? lrtext[g SUBSEP best] : "0", worst ? lrtext[g SUBSEP worst] : "0",
        cstr(best ? lrtext[g SUBSEP best] : ""), cstr(worst ? lrtext[g SUBSEP worst] : ""),
        lrtext[g SUBSEP lo], lrtext[g SUBSEP hi], nlr[g], nseed[g]
}
# the defaults: docs/configuration.md's reference table (make reference-table), "| `key` | `value` |"
function read_defaults(    line, n, w) {
    while ((getline line < defaults) > 0) {
        if (line !~ /^\| `[a-z_]+\.[a-z_0-9]+` \| `/) continue
        n = split(line, w, "`")
        DEF[w[2]] = w[4]
    }
    close(defaults)
    if (!("optim.lr" in DEF)) die(defaults " has no reference table of the keys' defaults")
}
NR == 1 { read_defaults() }
{ parse() }
END {
    if (failed) exit 1
    if (!nr) die(table ": no regime")
    for (r = 1; r <= nr; r++) {
        if (TI[r] == "" || RX[r] == "" || !RD[r] || RC[r] == "") die(table ": regime " RN[r] " lacks title, axes, dk or learns")
        if (RT[r] && !((r SUBSEP "optim.min_lr") in AX)) die(table ": regime " RN[r] " has min_lr_ratio but not optim.min_lr among its axes")
        n = split(SW[r], files, " ")
        for (i = 1; i <= n; i++) read_sweep(r, files[i])
    }
    if (failed) exit 1
    if (!nrun) die("no finished run in any regime")
    for (i = 1; i <= nrun; i++) decide(i)
    printf "/* lr_map_table.c: GENERATED by `make lr-map` (tools/lr_map_table.sh) from %s and\n", table
    printf " * the sweeps it names. Do not edit: change them and run make lr-map;\n"
    printf " * tests/test_lr_map_table.c fails when this table and they differ. */\n"
    printf "#include \"train/lr_map.h\"\n\n"
    printf "/* {id, title, axes, d_k, criterion column, op, value, relative, min_lr / lr (0: not tied),\n"
    printf " * settings (INI), sweeps} */\n"
    printf "const LrMapRegime lr_map_regimes[] = {\n"
    for (r = 1; r <= nr; r++) print_regime(r)
    printf "};\nconst int lr_map_n_regimes = %d;\n\n", nr
    printf "/* {regime, sweep folder, run, d_model, d_k, arm, lr, lr as written, seed, learnt,\n"
    printf " * criterion column, logit_std_peak} of every finished run in a regime (-1: not measured) */\n"
    printf "const LrMapRun lr_map_runs[] = {\n"
    for (i = 1; i <= nrun; i++) print R[i]
    printf "};\nconst int lr_map_n_runs = %d;\n\n", nrun
    printf "/* {regime, arm, d_model, largest lr at which every run learnt, smallest at which one did\n"
    printf " * not (0: none), the same as written, the smallest and largest lr, lrs, seeds} */\n"
    printf "const LrMapCell lr_map_cells[] = {\n"
    for (q = 1; q <= ng; q++) print_cell(q)
    printf "};\nconst int lr_map_n_cells = %d;\n", ng
}
