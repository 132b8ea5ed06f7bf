#!/bin/bash
# slurm_array.sh: runs a sweep's jobs.txt as a Slurm job array, one array task per line.
#
#   ./train --sweep configs/scaled.ini --dk 8,16,32,64,128 --seeds 3 --out /shared/sweeps/dk --plan
#   sbatch --array=1-$(wc -l < /shared/sweeps/dk/jobs.txt) experiments/slurm_array.sh /shared/sweeps/dk
#   ./train --sweep --collect --out /shared/sweeps/dk      # after the array has finished
#
# Each line of jobs.txt is self-contained (absolute paths): it trains its run, resumes it from
# its checkpoint when it was interrupted (a preempted or timed-out task: resubmit the same
# array), or does nothing when it has finished. A task's output is in its run's train.log.
# Add --array=1-N%K to run at most K tasks at once. The sweep folder and ./train must be on a
# filesystem that every node sees, at the same path.
#SBATCH --job-name=scaledot-sweep
#SBATCH --cpus-per-task=1
#SBATCH --time=01:00:00
#SBATCH --output=slurm-%A_%a.out
set -eu
sweep_dir=${1:?usage: sbatch --array=1-N slurm_array.sh SWEEP_DIR}
# A task without its line (jobs.txt not there on this node, or an index past its end) fails:
# piped into sh, the empty line would have been an array task that succeeded doing nothing.
line=$(sed -n "${SLURM_ARRAY_TASK_ID}p" "$sweep_dir/jobs.txt")
if [ -z "$line" ]; then
    echo "slurm_array.sh: no line $SLURM_ARRAY_TASK_ID in $sweep_dir/jobs.txt" >&2
    exit 1
fi
exec sh -c "$line"
