#!/usr/bin/env bash
# The text pair on a second corpus (issue 29, item 4: is "no cost with GPT-2 init on text" a
# property of the Bible?): data/fortunes.txt (experiments/text_corpus.sh fortunes makes it, from
# Debian's fortunes package), each run as configs/text_scaled.ini ships it (d_model 64, one head,
# 600 steps) but for the file. Parts (PARTS, default "pair long"):
#   pair  init {fan_in, gpt2} x attention.scale {sqrt_dk, none} x seeds 1-3  -> results/text/fortunes/
#   long  the gpt2 pair at 3000 steps instead of 600 (the cosine schedule stretched to the new
#         length), seeds 1-3: does a gap seen at 600 steps close?  -> results/text/fortunes_long/
# Each writes sweep.csv, the summary, curves/ and bpb.txt (validation bits per byte per init and
# scale, median [min-max] over the seeds). Runs in sweeps/text_fortunes*/ (git ignores them);
# started again, it skips finished runs and resumes interrupted ones.
#
# Cost on one core of the 2-vCPU EPYC: about 35 s a 600-step run (the kjv pair's wall_s,
# results/text/gpt2/sweep.csv): pair 12 runs, about 7 core-minutes; long 6 runs, about 18.
. "$(dirname "$(readlink -f "$0")")/common.sh"
experiments/text_corpus.sh fortunes
part() { # NAME SWEEP OPTIONS...
    local name=$1
    shift
    # absolute, so a run resumed from its jobs.txt line in another folder finds the text
    ./train --sweep configs/text_scaled.ini --grid attention.scale=sqrt_dk,none "$@" --seeds 3 \
        --set "task.file=$PWD/data/fortunes.txt" --jobs "$JOBS" --out "sweeps/text_$name"
    publish "sweeps/text_$name" "results/text/$name"
    experiments/curves.sh "sweeps/text_$name" "results/text/$name/curves"
    bpb "results/text/$name" init.scheme
}
for p in ${PARTS:-pair long}; do
    case "$p" in
    pair) part fortunes --grid init.scheme=fan_in,gpt2 ;;
    long) part fortunes_long --grid init.scheme=gpt2 --steps 3000 ;;
    *) echo "text_second_corpus.sh: unknown part $p" >&2; exit 2 ;;
    esac
done
