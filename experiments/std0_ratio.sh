#!/usr/bin/env bash
# docs/findings.md's "measured step-0 std is A-B times the predicted one (N runs)": over the sweep.csv
# files given (default: every one published under results/ except sort_merged, whose rows repeat
# sort/ and sort_constant_s45/), the runs that finished (status ok) and log both logit_std0 (the
# measured step-0 attention-logit std, layer 0) and predicted_logit_std (the formula of
# init_check.txt), and the smallest and largest ratio of the two. Reads the files only.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
if [ $# -eq 0 ]; then
    mapfile -t files < <(find results -name sweep.csv -not -path '*/sort_merged/*' | sort)
else
    files=("$@")
fi
awk -F, '
FNR == 1 { m = s = p = 0; for (i = 1; i <= NF; i++) { if ($i == "logit_std0") m = i;
           if ($i == "status") s = i; if ($i == "predicted_logit_std") p = i }; next }
m && s && p && $s == "ok" && $m != "" && $p != "" && $p + 0 > 0 {
    r = $m / $p; n++; if (n == 1 || r < lo) lo = r; if (n == 1 || r > hi) hi = r
    f[FILENAME] = 1 }
END { k = 0; for (x in f) k++
      if (n) printf "%d runs in %d sweeps: measured / predicted step-0 logit std %.2f-%.2f\n", n, k, lo, hi
      else print "no run logs both logit_std0 and predicted_logit_std" }' "${files[@]}"
