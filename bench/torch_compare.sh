#!/usr/bin/env bash
# torch_compare.sh: `make bench-torch`, scaledot's training step against the same model in
# PyTorch (bench/torch_step.py), at make bench's three shapes, on 1 and 2 threads; with
# TORCH_SHAPES=gpt2 (`make bench-torch-gpt2`) at GPT-2 small's shape instead.
#
# A yardstick, not part of the product: it needs Debian's python3-torch
# (apt-get install python3-torch). For each round, shape and thread count it runs one program
# and then the other (the order flips every round, so a slow drift of the machine's speed hits
# both alike), each timing whole AdamW steps for SECONDS; it prints each pair's ratio and the
# median ratio over the rounds.
#
# PyTorch is given its fast kernel: Debian's OpenBLAS does not pick its AVX-512 (SkylakeX)
# kernels on these CPUs by itself, so OPENBLAS_CORETYPE is set to TORCH_CORETYPE (default
# SkylakeX; an OPENBLAS_CORETYPE already in the environment is replaced, and said so: this
# project's machines export OPENBLAS_CORETYPE=Haswell, with which PyTorch's step is 1.5x slower),
# its thread count follows the run's (OPENBLAS_NUM_THREADS, torch.set_num_threads), and idle
# OpenMP threads sleep (OMP_WAIT_POLICY=passive), as ./train's do.
#
# The yardstick reports itself before it is used (issue 24): a PyTorch whose BLAS is slow is no
# yardstick (with Debian's reference BLAS, libblas3, PyTorch's step is many times slower and every
# ratio flatters us). So the script first prints the library PyTorch's sgemm_ runs in
# (bench/torch_blas.py which) and REFUSES, exit 2, before timing anything, when that is Debian's
# reference BLAS (a real path .../blas/libblas.so.3*, what the libblas.so.3-x86_64-linux-gnu
# alternative resolves to without OpenBLAS). Then, on each thread count it compares, it times
# PyTorch's sgemm and our matmul_forward_scratch (bench --matmul) at 1024^3 (best of 5 calls
# each) and prints both; it REFUSES, exit 2, before timing any step, when PyTorch's sgemm is
# "far below" ours, defined as under HALF of our GFLOP/s on the same thread count (a tuned sgemm
# is at or above our matmul on large squares; half leaves room for a loaded machine's noise).
# The fix in both cases: apt-get install libopenblas0-pthread.
#
# Then the same rounds for bf16: our step with model.matmul = bf16 (bench --path bf16) against
# PyTorch's step under torch.autocast("cpu", dtype=torch.bfloat16) (torch_step.py --bf16),
# refused (exit 2, after the float32 results) when the CPU has no AVX512_BF16 or AMX-BF16 or when
# PyTorch's bf16 matmul is slower than its float32 one; TORCH_BF16=0 leaves the bf16 part out.
#
# TORCH_SHAPES=gpt2 (issue 43 item 5): the one shape of `bench --gpt2`, (4,64,768,12,12,50257),
# the same model as make bench-gpt2 times (torch_step.py's docstring says what is matched), with
# the same yardstick checks, rounds and paths; each row adds tokens per second (B*T / median step
# time) and the peak RSS of both processes: bench's child that ran the steps (its memory table)
# and torch_step.py (ru_maxrss, which counts the interpreter and PyTorch's libraries: the line
# after the table gives that part, the peak right after `import torch`). At this shape a step takes
# seconds, so SECONDS is a floor: bench --quick times at least 3 steps and torch_step.py 5.
# With either set of shapes the script refuses (exit 1) a pair whose parameter counts differ: the
# two programs did not build the same model.
#
# Usage: bench/torch_compare.sh BENCH_BINARY [ROUNDS] [SECONDS]   (defaults 3 and 4)
set -euo pipefail
bench=${1:?usage: torch_compare.sh BENCH_BINARY [ROUNDS] [SECONDS]}
rounds=${2:-3}
seconds=${3:-4}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-/usr/bin/python3}
case ${TORCH_SHAPES:-bench} in
    bench) shapes=("64 32 128 2 2 16" "16 128 256 4 4 64" "8 256 512 6 8 256"); shape_set=(); wide=0 ;;
    gpt2) shapes=("4 64 768 12 12 50257"); shape_set=(--gpt2); wide=1 ;;
    *) echo "torch_compare: TORCH_SHAPES=$TORCH_SHAPES: expected bench (make bench's three shapes)" \
        "or gpt2 (GPT-2 small's)" >&2; exit 2 ;;
esac
# wide=1: rows with tokens/s and peak RSS (GPT-2 small's shape)
if ! "$py" -c 'import torch' 2>/dev/null; then
    echo "torch_compare: $py cannot import torch; install Debian's PyTorch: apt-get install python3-torch" >&2
    exit 2
fi
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
coretype=${TORCH_CORETYPE:-SkylakeX}
if [[ -n ${OPENBLAS_CORETYPE:-} && $OPENBLAS_CORETYPE != "$coretype" ]]; then
    echo "torch_compare: OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE from the environment replaced by $coretype (TORCH_CORETYPE=... to choose)" >&2
fi
export OPENBLAS_CORETYPE=$coretype

path=float32 # the linear layers' path being compared: float32, then bf16
# shape index, threads -> "median_ms n_params peak_rss_mb" (the time table's row, the memory table's)
ours() {
    "$bench" "${shape_set[@]}" --quick --seconds "$seconds" --shape "$1" --threads "$2" \
        --path "$path" 2>/dev/null |
        awk -v t="$2" -v p="$path" '
            $1 ~ /^\(/ && $2 == p && $3 == t && NF >= 11 && ms == "" { ms = $5 }
            $1 ~ /^\(/ && $2 == p && NF == 7 { n = $3; rss = $5 }
            END { if (ms != "" && rss != "") print ms, n, rss }'
}
# shape, threads -> "median_ms n_params peak_rss_mb import_rss_mb"
theirs() {
    local flag=
    [[ $path == bf16 ]] && flag=--bf16
    # shellcheck disable=SC2086
    OPENBLAS_NUM_THREADS=$2 OMP_NUM_THREADS=$2 "$py" "$here/torch_step.py" $1 "$2" "$seconds" $flag |
        awk 'NF >= 15 { print $10, $13, $14, $15 }'
}

install_blas="apt-get install libopenblas0-pthread"
blas=$("$py" "$here/torch_blas.py" which)
echo "PyTorch's BLAS (the library its sgemm_ runs in): $blas"
if [[ $blas == */blas/libblas.so.3* ]]; then
    echo "torch_compare: PyTorch runs Debian's reference BLAS ($blas), which is no yardstick;" \
        "install OpenBLAS: $install_blas" >&2
    exit 2
fi
sgemm_n=1024
echo "sgemm GFLOP/s at ${sgemm_n}^3 (out = x.W^T, best of 5 calls):" \
    "PyTorch's BLAS against our matmul_forward_scratch"
for t in 1 2; do
    g_ours=$("$bench" --matmul "$sgemm_n" --threads "$t")
    g_theirs=$(OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t \
        "$py" "$here/torch_blas.py" gflops "$sgemm_n" "$t")
    [[ -n $g_ours && -n $g_theirs ]] ||
        { echo "torch_compare: an sgemm run printed nothing" >&2; exit 1; }
    printf '  %d thread(s): PyTorch %8.1f   scaledot %8.1f\n' "$t" "$g_theirs" "$g_ours"
    if awk -v a="$g_theirs" -v b="$g_ours" 'BEGIN { exit !(a < 0.5 * b) }'; then
        echo "torch_compare: PyTorch's sgemm ($blas) runs $g_theirs GFLOP/s on $t thread(s)," \
            "under half of our matmul's $g_ours: no yardstick; install OpenBLAS: $install_blas;" \
            "if it is OpenBLAS already, choose its kernel with TORCH_CORETYPE (now $OPENBLAS_CORETYPE)" >&2
        exit 2
    fi
done

torch_ver=$("$py" -c 'import torch; print(torch.__version__)')
echo "scaledot vs PyTorch $torch_ver (OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE), ms per AdamW step,"
echo "medians over ${seconds} s per program and round, $rounds rounds, programs alternated;"
echo "ratio = PyTorch ms / scaledot ms (above 1: scaledot is faster)"
if ((wide)); then
    echo "shape: GPT-2 small's, bench --gpt2's model; a step takes seconds, so each program times at" \
        "least its minimum of steps after warm-up (scaledot 3, PyTorch 5) whatever the ${seconds} s"
fi
grep -m1 'model name' /proc/cpuinfo | sed 's/^model name\s*:\s*/cpu: /'
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# The alternated rounds and their medians for the current $path.
compare() {
    printf '%-22s %3s %5s %12s %12s %8s' "shape (B,T,C,L,NH,V)" thr round "scaledot ms" "PyTorch ms" ratio
    ((wide)) && printf ' %14s %14s %12s %12s' "scaledot tok/s" "PyTorch tok/s" "scaledot MB" "PyTorch MB"
    echo
    declare -A ratios
    local a b a_n b_n a_rss b_rss b_base sb st tokens
    for r in $(seq 1 "$rounds"); do
        for i in "${!shapes[@]}"; do
            read -r sb st _ <<<"${shapes[$i]}"
            tokens=$((sb * st)) # B*T, a step's tokens
            for t in 1 2; do
                if (( r % 2 )); then a=$(ours "$i" "$t"); b=$(theirs "${shapes[$i]}" "$t")
                else b=$(theirs "${shapes[$i]}" "$t"); a=$(ours "$i" "$t"); fi
                [[ -n $a && -n $b ]] || { echo "torch_compare: a run printed no time" >&2; exit 1; }
                read -r a a_n a_rss <<<"$a"
                read -r b b_n b_rss b_base <<<"$b"
                if [[ $a_n != "$b_n" ]]; then
                    echo "torch_compare: not the same model at (${shapes[$i]}): scaledot has $a_n" \
                        "parameters, torch_step.py $b_n" >&2
                    exit 1
                fi
                q=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')
                ratios[$i,$t]+="$q "
                printf '%-22s %3d %5d %12.1f %12.1f %7.2fx' "($(tr ' ' , <<<"${shapes[$i]}"))" "$t" "$r" "$a" "$b" "$q"
                ((wide)) && awk -v n="$tokens" -v a="$a" -v b="$b" -v ra="$a_rss" -v rb="$b_rss" \
                    'BEGIN { printf " %14.1f %14.1f %12.1f %12.1f", 1e3 * n / a, 1e3 * n / b, ra, rb }'
                echo
            done
        done
    done
    ((wide)) && echo "(tok/s: B*T / median ms per step; MB: peak RSS, bench's child that ran the steps" \
        "and torch_step.py's process, of which $b_base MB was already resident after \`import torch\`)"
    echo
    echo "median ratio over the rounds (PyTorch ms / scaledot ms):"
    for i in "${!shapes[@]}"; do
        for t in 1 2; do
            m=$(tr ' ' '\n' <<<"${ratios[$i,$t]}" | grep . | sort -g |
                awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
            printf '%-22s %3d %7.2fx\n' "($(tr ' ' , <<<"${shapes[$i]}"))" "$t" "$m"
        done
    done
}
compare

# ---- bf16 (issue 31 item 4): PyTorch's bf16 autocast step against ours with model.matmul = bf16.
# A PyTorch without a fast bf16 path is no yardstick (its bf16 matmuls are emulated, many times
# slower than its float32 ones, and every ratio would flatter us): refused, exit 2, unless the CPU
# has AVX512_BF16 (or AMX-BF16) and PyTorch's bf16 matmul at ${sgemm_n}^3 runs at least as fast as
# its float32 one. TORCH_BF16=0 leaves the bf16 part out.
if [[ ${TORCH_BF16:-1} != 0 ]]; then
    echo
    if ! grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo; then
        echo "torch_compare: no bf16 yardstick: this CPU has neither AVX512_BF16 nor AMX-BF16" \
            "(/proc/cpuinfo), so PyTorch's bf16 autocast runs emulated bf16 matmuls and our" \
            "bf16 step its AVX2 or portable kernel; the float32 comparison above stands" \
            "(TORCH_BF16=0 skips this part)" >&2
        echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
        exit 2
    fi
    g32=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$py" "$here/torch_blas.py" gflops "$sgemm_n" 1)
    g16=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$py" "$here/torch_blas.py" bf16gflops "$sgemm_n" 1)
    echo "PyTorch's matmul at ${sgemm_n}^3 on 1 thread: bf16 $g16 GFLOP/s, float32 $g32;" \
        "ours in bf16: $("$bench" --matmul "$sgemm_n" --threads 1 --path bf16)"
    if awk -v a="$g16" -v b="$g32" 'BEGIN { exit !(a < b) }'; then
        echo "torch_compare: PyTorch's bf16 matmul ($g16 GFLOP/s) is slower than its float32 one" \
            "($g32): no fast bf16 path, no yardstick (TORCH_BF16=0 skips this part)" >&2
        exit 2
    fi
    echo "bf16: scaledot with model.matmul = bf16 against PyTorch's torch.autocast(\"cpu\", bfloat16)"
    path=bf16
    compare
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
