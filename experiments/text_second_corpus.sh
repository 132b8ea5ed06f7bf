#!/usr/bin/env bash
# The text pair on a second corpus (issue 29, item 4: is "no cost with GPT-2 init on text" a
# property of the Bible?): data/fortunes.txt (experiments/text_corpus.sh fortunes makes it, from
# Debian's fortunes package), each run as configs/text_scaled.ini ships it (d_model 64, one head,
# 600 steps) but for the file, init {fan_in, gpt2} x attention.scale {sqrt_dk, none} x seeds 1-3.
# Writes results/text/fortunes/ (sweep.csv, summary, curves/, bpb.txt: validation bits per byte
# per init and scale, median [min-max] over the seeds). Runs in sweeps/text_fortunes/ (git ignores
# them); started again, it skips finished runs and resumes interrupted ones.
#
# Cost: 12 runs of about 35 s each on one core of the 2-vCPU EPYC (the kjv pair's wall_s,
# results/text/gpt2/sweep.csv), about 7 core-minutes.
. "$(dirname "$(readlink -f "$0")")/common.sh"
experiments/text_corpus.sh fortunes
out=results/text/fortunes
# absolute, so a run resumed from its jobs.txt line in another folder finds the text
./train --sweep configs/text_scaled.ini --grid attention.scale=sqrt_dk,none \
    --grid init.scheme=fan_in,gpt2 --seeds 3 --set "task.file=$PWD/data/fortunes.txt" \
    --jobs "$JOBS" --out sweeps/text_fortunes
publish sweeps/text_fortunes "$out"
experiments/curves.sh sweeps/text_fortunes "$out/curves"
bpb "$out" init.scheme
