#!/usr/bin/env bash
# The curves behind the long horizon's words (docs/findings.md, "How long is 'never'?": unscaled
# sort "not stalled but slow", "16-43x later", unscaled recall "stalls on all five seeds"). The
# published sweeps (results/long_horizon/{sort_merged,recall}/sweep.csv) predate
# experiments/curves.sh and their run folders were not kept, so this trains their 20 unscaled runs
# again (sort and recall x cosine and constant learning rate x seeds 1-5, 20000 steps) from the same
# plan as experiments/long_horizon.sh (both scales planned, the unscaled jobs run: the same run
# names, configs and seeds), and writes results/long_horizon/rerun_<task>/:
#   sweep.csv, summary.txt   the re-run's rows (the scaled runs of the plan stay "missing")
#   curves/<run>.csv         each run's loss, answer accuracy and per-layer logit std by step
#   compare.txt              per run, the re-run against the published row: final and best answer
#                            accuracy, first step at 50 / 90 / 99 % ("never": not within the 20000
#                            steps), final validation loss, and "same" when all are equal to the digit.
# The re-run is the published run only on a build for the same instruction set as the one that
# trained it (docs/findings.md, "One cell's digits are the machine's"): compare.txt says which.
# Cost: the published rows' wall_s for these 20 runs sum to 8 641 s (two at once on a 2-vCPU
# machine); one at a time on one core of the 2-vCPU AMD EPYC Zen 5 the re-runs took 2 074 s (sort)
# and about 2 000 s (recall): about 1.2 core-hours. Resumable: started again, finished runs are skipped and an
# interrupted one resumes from its checkpoint. JOBS=N runs N at once; TASKS (default "sort
# recall") chooses the tasks.
. "$(dirname "$(readlink -f "$0")")/common.sh"
TASKS=${TASKS:-sort recall}

# published TASK: the published sweep.csv the re-run is compared with
published() { case $1 in sort) echo results/long_horizon/sort_merged/sweep.csv ;;
    recall) echo results/long_horizon/recall/sweep.csv ;; esac; }

for task in $TASKS; do
    cfg=configs/scaled.ini
    [ "$task" = recall ] && cfg=configs/recall_scaled.ini
    out=sweeps/long_curves_$task
    ./train --sweep "$cfg" --grid attention.scale=sqrt_dk,none --grid optim.schedule=cosine,constant \
        --seeds 5 --steps 20000 --out "$out" --plan >/dev/null
    echo "long_horizon_curves.sh: $task: $(grep -c '/configs/scale-none_' "$out/jobs.txt" || true) unscaled runs to train or resume"
    grep '/configs/scale-none_' "$out/jobs.txt" | tr '\n' '\0' |
        xargs -0 -r -P "$JOBS" -n 1 sh -c || echo "long_horizon_curves.sh: $task: some runs failed (see sweep.csv)"
    ./train --sweep --collect --out "$out" >/dev/null || true
    dest=results/long_horizon/rerun_$task
    publish "$out" "$dest"
    experiments/curves.sh "$out" "$dest/curves"
    awk -F, -v pub="$(published "$task")" '
        function cols(   i) { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i }
        function v(k) { return $c[FILENAME, k] }
        FNR == 1 { cols(); next }
        # a run is matched by its scale, schedule and seed (the merged sort table holds rows of a
        # second sweep whose run names differ: scale-none_schedule-constant_seed-4)
        function id() { return v("scale") "|" v("optim.schedule") "|" v("seed") }
        FILENAME == pub { for (j = 1; j <= nk; j++) old[id(), j] = v(key[j]); next }
        v("status") != "ok" && v("status") != "diverged" { next }
        { r = v("run"); if (!((id(), 1) in old)) { printf "%-32s not in %s\n", r, pub; next }
          same = 1; line = sprintf("%-32s", r)
          for (j = 1; j <= nk; j++) { a = old[id(), j]; b = v(key[j]); if (a != b) same = 0
                                      line = line sprintf("  %s %s -> %s", short[j], a == "" ? "never" : a, b == "" ? "never" : b) }
          print line "  " (same ? "same" : "differs"); n++; ns += same }
        END { printf "%d runs compared, %d the same to the digit\n", n, ns }
        BEGIN { nk = split("val_answer_acc best_val_answer_acc first_step_50 first_step_90 first_step_99 val_loss", key, " ")
                split("acc best 50% 90% 99% val_loss", short, " ")
                print "re-run (this sweep) against the published row: published -> re-run" }
    ' "$(published "$task")" "$out/sweep.csv" >"$dest/compare.txt"
    tail -1 "$dest/compare.txt"
done
