# tools/layout_check.awk: the body of tools/layout_check.sh (which says what it checks). Input:
# the C files of the tree, one after the other (FILENAME relative to the tree's root); variables
# set by the caller: allow (the kernel files whose long functions are allowed, "PATH" per line),
# pending (the keys of findings that do not fail yet, one per line). POSIX awk (mawk, gawk).
#
# Per file it strips comments, strings and character constants, then tracks the braces at the top
# level: a top-level `{` after a head holding `(` and no `=` opens a function (its name is the
# last identifier before a `(` outside parentheses), one after `=` opens a data initializer. A
# function's length is the number of lines from its head's first line to its closing `}`,
# the `}` not counted (a one-line head: the head and the body).

function fail_or_pend(key, text) {
    if (key in pend) {
        print "pending: " text
        pend_seen[key] = 1
    } else {
        print "error: " text
        n_err++
    }
}

# The module of a file: X.c and X.h are one (its path without the extension); a header with no .c
# beside it has none ("").
function module_of(f, base) {
    base = f
    sub(/\.[ch]$/, "", base)
    if (f ~ /\.c$/ || ((base ".c") in is_file)) return base
    return ""
}

function basename_of(p) {
    sub(/.*\//, "", p)
    return p
}

# The last identifier followed by `(` outside parentheses in head s ("" when none).
function call_name(s, i, ch, depth, word, last, gap) {
    depth = 0
    word = ""
    last = ""
    gap = 0
    for (i = 1; i <= length(s); i++) {
        ch = substr(s, i, 1)
        if (ch ~ /[A-Za-z0-9_]/) {
            if (gap) word = ""
            word = word ch
            gap = 0
            continue
        }
        if (ch == " " || ch == "\t") {
            gap = 1
            continue
        }
        gap = 0
        if (ch == "(") {
            if (depth == 0 && word != "" && word !~ /^[0-9]/) last = word
            depth++
        } else if (ch == ")") {
            depth--
        }
        word = ""
    }
    return last
}

# The name a top-level data declaration or definition s declares: the identifier before its first
# `[`, `=` or `;` ("" when none).
function data_name(s, t) {
    t = s
    sub(/[\[=;].*/, "", t)
    sub(/[ \t]+$/, "", t)
    if (match(t, /[A-Za-z_][A-Za-z0-9_]*$/)) return substr(t, RSTART, RLENGTH)
    return ""
}

# The line without comments, string and character constants (their quotes kept, empty), using
# and updating in_comment.
function strip(line, out, i, ch, nx, q) {
    out = ""
    i = 1
    while (i <= length(line)) {
        ch = substr(line, i, 1)
        nx = substr(line, i + 1, 1)
        if (in_comment) {
            if (ch == "*" && nx == "/") { in_comment = 0; i += 2; continue }
            i++
            continue
        }
        if (ch == "/" && nx == "*") { in_comment = 1; i += 2; out = out " "; continue }
        if (ch == "/" && nx == "/") break
        if (ch == "\"" || ch == "'") {
            q = ch
            out = out q
            i++
            while (i <= length(line)) {
                ch = substr(line, i, 1)
                if (ch == "\\") { i += 2; continue }
                i++
                if (ch == q) break
            }
            out = out q
            continue
        }
        out = out ch
        i++
    }
    return out
}

# A top-level statement ended by `;` at depth 0: a prototype or an extern in a header, a global
# variable in a .c file.
function end_statement(f, s, name) {
    if (s ~ /^[ \t]*(typedef|struct|enum|union)[ \t{]/) return
    if (s ~ /\(/ && s !~ /=/) {
        name = call_name(s)
        if (name != "" && s !~ /^[ \t]*static[ \t]/ && f ~ /\.h$/) declared[f, name] = 1
        return
    }
    if (s ~ /^[ \t]*static[ \t]/) return
    name = data_name(s)
    if (name == "") return
    if (f ~ /\.c$/ && s !~ /^[ \t]*extern[ \t]/) define(name, f)
}

function define(name, f) {
    if (name == "main") return
    if (!(name in definer)) definer[name] = f
}

FNR == 1 {
    in_comment = 0
    in_macro = 0
    depth = 0
    head = ""
    head_line = 0
    block = ""
    files[++n_files] = FILENAME
}

{
    raw = $0
    if (in_macro) {
        in_macro = raw ~ /\\$/
        next
    }
    if (!in_comment && raw ~ /^[ \t]*#/) {
        if (raw ~ /^[ \t]*#[ \t]*include[ \t]*"/) {
            inc = raw
            sub(/^[^"]*"/, "", inc)
            sub(/".*/, "", inc)
            includes[FILENAME, ++n_inc[FILENAME]] = inc
        }
        in_macro = raw ~ /\\$/
        next
    }
    code = strip(raw)
    # identifiers used (a .c file's, and a header's outside its own declarations: below)
    t = code
    while (match(t, /[A-Za-z_][A-Za-z0-9_]*/)) {
        uses[FILENAME, substr(t, RSTART, RLENGTH)] = 1
        t = substr(t, RSTART + RLENGTH)
    }
    for (i = 1; i <= length(code); i++) {
        ch = substr(code, i, 1)
        if (depth == 0 && ch != "{" && ch != ";" && ch != "}") {
            if (head == "" && ch ~ /[ \t]/) continue
            if (head == "") head_line = FNR
            head = head ch
            continue
        }
        if (ch == "{") {
            if (depth == 0) {
                if (head ~ /^[ \t]*(typedef|struct|enum|union)[ \t{]/ || head ~ /=/ || head !~ /\(/) {
                    block = "data"
                } else {
                    block = "function"
                    fn_name = call_name(head)
                    fn_start = head_line
                    fn_static = head ~ /(^|[ \t])static[ \t]/
                }
            }
            depth++
        } else if (ch == "}") {
            depth--
            if (depth == 0 && block == "function") {
                fn_len = FNR - fn_start
                if (!fn_static) define(fn_name, FILENAME)
                if (fn_len > 70) long_fn[FILENAME, fn_name] = fn_len
                long_list[++n_long] = FILENAME SUBSEP fn_name
                head = ""
                block = ""
            }
        } else if (ch == ";" && depth == 0) {
            if (block == "data") {
                if (head !~ /^[ \t]*(typedef|struct|enum|union|static)[ \t{]/ && FILENAME ~ /\.c$/)
                    define(data_name(head), FILENAME)
            } else {
                end_statement(FILENAME, head)
            }
            head = ""
            block = ""
        }
    }
    if (depth == 0 && head != "") head = head " "
}

# Every header that file f sees: its includes, theirs, and so on (into seen_by[f, header]).
function visit(f, g, k, inc, path, dir) {
    dir = g
    if (dir ~ /\//) sub(/\/[^\/]*$/, "", dir)
    else dir = "."
    for (k = 1; k <= n_inc[g]; k++) {
        inc = includes[g, k]
        path = dir "/" inc
        if (!(path in is_file)) path = "src/" inc
        if (!(path in is_file)) continue
        if ((f, path) in seen_by) continue
        seen_by[f, path] = 1
        if (g == f) direct[f, path] = 1
        visit(f, path)
    }
}

function add_edge(a, b, why) {
    if (a == "" || b == "" || a == b) return
    if ((a, b) in edge) return
    edge[a, b] = why
    node[a] = 1
    node[b] = 1
}

END {
    for (k = 1; k <= n_files; k++) is_file[files[k]] = 1
    n_allow = split(allow, al, "\n")
    for (k = 1; k <= n_allow; k++) if (al[k] != "") allowed[al[k]] = 1
    n_pend = split(pending, pl, "\n")
    for (k = 1; k <= n_pend; k++) if (pl[k] != "") pend[pl[k]] = 1

    # the graph: module A -> module B when A's file includes B's header, or uses (calls, reads) a
    # name that B's .c file defines and a header A sees declares
    for (k = 1; k <= n_files; k++) {
        f = files[k]
        visit(f, f)
    }
    for (key in declared) {
        split(key, p, SUBSEP)
        h = p[1]
        name = p[2]
        if (!(name in definer)) continue
        for (k = 1; k <= n_files; k++) {
            f = files[k]
            if (!((f, h) in seen_by) && f != h) continue
            if (!((f, name) in uses)) continue
            if (f ~ /\.h$/ && ((f, name) in declared)) continue
            add_edge(module_of(f), module_of(definer[name]), "uses " name " (" h ")")
        }
    }
    for (key in direct) {
        split(key, p, SUBSEP)
        add_edge(module_of(p[1]), module_of(p[2]), "includes " p[2])
    }

    # (a) circles: the strongly connected parts of the graph, from who reaches whom
    n_nodes = 0
    for (a in node) nodes[++n_nodes] = a
    for (k = 1; k <= n_nodes; k++) {
        a = nodes[k]
        reach[a, a] = 1
        n_q = 0
        q[++n_q] = a
        for (j = 1; j <= n_q; j++) {
            for (m = 1; m <= n_nodes; m++) {
                b = nodes[m]
                if ((q[j], b) in edge && !((a, b) in reach)) {
                    reach[a, b] = 1
                    q[++n_q] = b
                }
            }
        }
    }
    # members of a circle, in sorted order (insertion sort: a few hundred modules)
    for (k = 2; k <= n_nodes; k++) {
        v = nodes[k]
        for (j = k - 1; j >= 1 && nodes[j] > v; j--) nodes[j + 1] = nodes[j]
        nodes[j + 1] = v
    }
    for (k = 1; k <= n_nodes; k++) {
        a = nodes[k]
        if (a in in_circle) continue
        members = a
        key = basename_of(a)
        for (m = k + 1; m <= n_nodes; m++) {
            b = nodes[m]
            if ((a, b) in reach && (b, a) in reach) {
                in_circle[b] = 1
                members = members " " b
                key = key " " basename_of(b)
            }
        }
        if (members == a) continue
        text = "circle between files: " members
        n_m = split(members, mm, " ")
        for (i = 1; i <= n_m; i++)
            for (j = 1; j <= n_m; j++)
                if ((mm[i], mm[j]) in edge) text = text "\n    " mm[i] " -> " mm[j] ": " edge[mm[i], mm[j]]
        fail_or_pend("circle " key, text)
    }

    # (b) report/ reaching up into train/ or cli/: an include, or a use of a name defined there
    for (key in edge) {
        split(key, p, SUBSEP)
        if (p[1] ~ /^src\/report\// && p[2] ~ /^src\/(train|cli)\//)
            fail_or_pend("upward " basename_of(p[1]), p[1] " -> " p[2] ": " edge[key] \
                         " (src/report/ may not reach src/train/ or src/cli/)")
    }

    # (c) functions over 70 lines, but in the allowed kernel files
    for (k = 1; k <= n_long; k++) {
        split(long_list[k], p, SUBSEP)
        if (!((p[1], p[2]) in long_fn) || (p[1] in allowed)) continue
        fail_or_pend("long " p[2], p[1] ": " p[2] " is " long_fn[p[1], p[2]] " lines (at most 70)")
        delete long_fn[p[1], p[2]]
    }

    for (key in pend)
        if (!(key in pend_seen)) print "note: pending entry '" key "' matches nothing now"
    if (n_err) {
        print n_err " error(s)"
        exit 1
    }
    print "layout: no circle between files, report/ does not reach train/ or cli/, no function over 70 lines"
}
