#!/usr/bin/env bash
# The validation suite of one allocation (the node-validation application runs it as its job):
# each part (inventory, HPL, HPCC, STREAM, fio) on every node at once, one part after the other,
# then the network between neighbouring nodes (osu_latency, osu_bw) and one Allreduce over all
# of them. Writes the suite's results file: one section per node, pair and the whole
# allocation ("== node n1 =="), each tool's own output with its name in front of every line
# ("hpl| ..."), and a status line per tool ("status| hpl ok=1"); a tool that failed keeps its
# output in node-<name>/ only, so no number of a failed run reaches the results.
#
#   suite.sh RESULTS                 the suite (its settings come from the environment, below)
#   suite.sh inventory               this node's inventory (one "key: value" per line)
#   suite.sh task FAULT CMD...       CMD with FAULT injected (none: as it is), timed
#
# Environment: PPN (MPI ranks per node), CORES (cores per node), HPL_N, HPCC_N (the problem
# sizes written into HPL.dat and hpccinf.txt beside this job), SCRATCH (the file system fio
# writes to), FIO_SIZE, FAULT_NODE and FAULT (a fault injected on that node only), and the
# function `launch` (the system's MPI launcher). Under Slurm each part runs as a job step on its
# node (the launcher's own options, then -N/-n/-c/-w for the step: srun takes the last of each);
# without Slurm the job's one node runs the parts in place.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self=$here/$(basename "${BASH_SOURCE[0]}")

# A fault: what the node runs instead of CMD. Co-runners take a share of each core the task is
# bound to (a busy loop counting its own CPU time), or stream memory; the rest change the
# software the task loads.
task() {
    local fault=$1
    shift
    local corunner=""
    case "$fault" in
        none | "") ;;
        slowblas) export OPENBLAS_CORETYPE=Prescott ;; # OpenBLAS's generic SSE3 kernels
        tcp) export OMPI_MCA_btl=self,tcp MPIR_CVAR_NOLOCAL=1 ;; # no shared memory between ranks
        kill) set -- timeout -s KILL 3 "$@" ;;
        corunner[0-9]*) corunner=cpu:${fault#corunner} ;;
        membw) corunner=mem ;;
        *)
            echo "suite.sh: unknown fault '$fault'" >&2
            return 2
            ;;
    esac
    local pid=""
    if [ -n "$corunner" ]; then
        python3 "$here/corunner.py" "$corunner" &
        pid=$!
    fi
    local TIMEFORMAT="timing| real %R user %U sys %S" rc
    time "$@"
    rc=$?
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    fi
    return $rc
}

inventory() {
    local gov smt thp
    gov=$(cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor 2>/dev/null | sort -u | paste -sd, -)
    smt=$(cat /sys/devices/system/cpu/smt/control 2>/dev/null || echo "$(lscpu | sed -n 's/^Thread(s) per core: *//p') thread(s) per core")
    thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
    echo "node: ${SLURMD_NODENAME:-$(hostname -s)}"
    echo "kernel: $(uname -r)"
    echo "cpu: $(lscpu | sed -n 's/^Model name: *//p')"
    echo "cpus allowed: $(sed -n 's/^Cpus_allowed_list:\s*//p' /proc/self/status)"
    echo "cpu governor: ${gov:-none (no cpufreq)}"
    echo "smt: $smt"
    echo "transparent hugepages: ${thp:-unknown}"
    echo "mpi: $(mpirun --version 2>&1 | head -n 1)"
    echo "blas: $(ldd "$(command -v xhpl)" 2>/dev/null | awk '/blas|blis|mkl/ {print $3}' | paste -sd, -)"
    echo "fabric: ${FABRIC:-} $(env | grep -E '^(OMPI_MCA_(pml|btl|mtl)|FI_PROVIDER|UCX_TLS)=' | sort | paste -sd' ' -)"
    echo "fabric libraries: $(ldconfig -p 2>/dev/null | grep -oE 'lib(fabric|ucp|ibverbs)\.so\.[0-9]+' | sort -u | paste -sd, -)"
    echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(getconf _NPROCESSORS_ONLN) cpu(s)"
}

case "${1:-}" in
    inventory)
        inventory
        exit
        ;;
    task)
        shift
        task "$@"
        exit
        ;;
esac

results=${1:?usage: suite.sh RESULTS | inventory | task FAULT CMD...}
run_dir=$(pwd)
if [ -n "${SLURM_JOB_NODELIST:-}" ]; then
    mapfile -t nodes < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
else
    nodes=("$(hostname -s)")
fi

# step NODE RANKS CPUS CMD...: CMD as RANKS tasks of CPUS cores each on NODE.
step() {
    local node=$1 ranks=$2 cpus=$3
    shift 3
    if [ -n "${SLURM_JOB_NODELIST:-}" ]; then
        launch -N 1 -n "$ranks" -c "$cpus" -w "$node" "$@"
    elif [ "$ranks" -gt 1 ]; then
        launch "$@"
    else
        "$@"
    fi
}

# check TOOL FILE EXIT: "ok" when the tool's own output says its run is complete and correct
# (the criteria of its Ramble application), else why not.
check() {
    local tool=$1 file=$2 rc=$3
    [ "$rc" -eq 0 ] || { echo "exit status $rc"; return; }
    case "$tool" in
        hpl)
            grep -q '^End of Tests\.' "$file" || { echo "no 'End of Tests.'"; return; }
            grep -qE '^\s+0 tests completed and failed residual checks' "$file" || { echo "a residual check failed"; return; }
            grep -qE '^\s+[1-9][0-9]* tests completed and passed' "$file" || { echo "no test passed"; return; }
            grep -qE "^N\s+:\s+$HPL_N\s*$" "$file" || { echo "HPL did not run N=$HPL_N"; return; } ;;
        hpcc)
            grep -q 'End of HPC Challenge tests' "$file" || { echo "no 'End of HPC Challenge tests'"; return; }
            ! grep -qE '\bFAILED\b|errors in .* locations \(failed\)' "$file" || { echo "a check FAILED"; return; }
            grep -qE "^N\s+:\s+$HPCC_N\s*$" "$file" || { echo "HPCC did not run N=$HPCC_N"; return; } ;;
        stream)
            grep -q 'Solution Validates' "$file" || { echo "no 'Solution Validates'"; return; } ;;
        fio)
            [ "$(grep -c '^3;fio-' "$file")" -eq 2 ] || { echo "no write and read result"; return; } ;;
        osu_*)
            grep -qE '^[0-9]+\s+[0-9.]+' "$file" || { echo "no result row"; return; } ;;
    esac
    echo ok
}

# record SECTION_FILE TOOL FILE EXIT [CPUS]: the tool's status, and its output when it is ok
# (CPUS: the cores each of its tasks had).
record() {
    local out=$1 tool=$2 file=$3 rc=$4 cpus=${5:-1} verdict
    verdict=$(check "$tool" "$file" "$rc")
    if [ "$verdict" = ok ]; then
        {
            echo "status| $tool ok=1"
            sed "s/^/$tool| /" "$file"
            # The share of its cores the tool's ranks had (CPU time over wall time).
            awk -v t="$tool" -v c="$cpus" '/^timing\| real/ { if ($3 > real) real = $3; cpu += $5 + $7; n++ }
                END { if (n && real > 0) printf "cpu| %s share=%.3f\n", t, cpu / (real * n * c) }' "$file"
        } >>"$out"
    else
        printf 'status| %s ok=0\nstatus| %s FAILED: %s (output: %s)\n' "$tool" "$tool" "$verdict" "$file" >>"$out"
    fi
}

fault_of() { [ "$1" = "${FAULT_NODE:-}" ] && echo "${FAULT:-none}" || echo none; }

# One part on one node, into the node's section: PART is inventory, hpl, hpcc, stream or fio.
part_on() {
    local part=$1 node=$2 dir=$run_dir/node-$2 fault rc
    local out=$run_dir/section-$node
    fault=$(fault_of "$node")
    cd "$dir" || return
    case "$part" in
        inventory)
            echo "== node $node ==" >"$out"
            step "$node" 1 1 bash "$self" inventory >inventory.txt 2>&1
            sed 's/^/inventory| /' inventory.txt >>"$out"
            echo "inventory| fault: $fault" >>"$out"
            ;;
        hpl)
            OPENBLAS_VERBOSE=2 step "$node" "$PPN" 1 bash "$self" task "$fault" xhpl >hpl.txt 2>&1
            record "$out" hpl hpl.txt $?
            ;;
        hpcc)
            rm -f hpccoutf.txt
            OPENBLAS_VERBOSE=2 step "$node" "$PPN" 1 bash "$self" task "$fault" hpcc >hpcc.log 2>&1
            rc=$?
            cat hpccoutf.txt hpcc.log >hpcc.txt 2>/dev/null
            record "$out" hpcc hpcc.txt $rc
            ;;
        stream)
            OMP_NUM_THREADS=$CORES OMP_PROC_BIND=spread OMP_PLACES=cores \
                step "$node" 1 "$CORES" bash "$self" task "$fault" stream_c.exe >stream.txt 2>&1
            record "$out" stream stream.txt $? "$CORES"
            ;;
        fio)
            local file=$SCRATCH/fio-$node-$$
            {
                step "$node" 1 1 bash "$self" task "$fault" fio --name=write --filename="$file" --rw=write \
                    --bs=1M --size="$FIO_SIZE" --direct=1 --end_fsync=1 --output-format=terse --terse-version=3 &&
                    step "$node" 1 1 bash "$self" task "$fault" fio --name=read --filename="$file" --rw=read \
                        --bs=1M --size="$FIO_SIZE" --direct=1 --output-format=terse --terse-version=3
            } >fio.txt 2>&1
            rc=$?
            rm -f "$file"
            record "$out" fio fio.txt $rc
            ;;
    esac
}

header="suite: ${#nodes[@]} node(s): ${nodes[*]}; fault: ${FAULT:-none}"
[ "${FAULT:-none}" = none ] || header+=" on ${FAULT_NODE:-}"
echo "$header"
mkdir -p "$SCRATCH"
for node in "${nodes[@]}"; do
    mkdir -p "$run_dir/node-$node" && cp HPL.dat hpccinf.txt "$run_dir/node-$node/"
done
# Each part on every node at once, the next part when all are done: the nodes run the same
# thing at the same time, so what they share (a file system, a host's memory, the machine's
# load) weighs on each alike and they can be judged against each other.
for part in inventory hpl hpcc stream fio; do
    for node in "${nodes[@]}"; do
        part_on "$part" "$node" &
    done
    wait
done
echo "$header" >"$results"
for node in "${nodes[@]}"; do
    cat "$run_dir/section-$node" >>"$results"
done

# The network: each node with the next (a ring when there are more than two), one pair at a
# time, then every node in one Allreduce; a fault goes with the steps its node is part of.
cd "$run_dir" || exit 1
count=${#nodes[@]}
pairs=$((count > 2 ? count : count - 1))
for ((i = 0; i < pairs; i++)); do
    a=${nodes[i]} b=${nodes[(i + 1) % count]}
    fault=$(fault_of "$a")
    [ "$fault" = none ] && fault=$(fault_of "$b")
    out=$run_dir/section-$a-$b
    echo "== pair $a-$b ==" >"$out"
    for tool in osu_latency osu_bw; do
        launch -N 2 -n 2 -c 1 -w "$a,$b" bash "$self" task "$fault" "$tool" >"$tool-$a-$b.txt" 2>&1
        record "$out" "$tool" "$tool-$a-$b.txt" $?
    done
    cat "$out" >>"$results"
done
if [ "$count" -gt 1 ]; then
    fault=none
    for node in "${nodes[@]}"; do [ "$(fault_of "$node")" != none ] && fault=$FAULT; done
    all=$(
        IFS=,
        echo "${nodes[*]}"
    )
    out=$run_dir/section-all
    echo "== all $all ==" >"$out"
    launch -N "$count" -n "$count" -c 1 bash "$self" task "$fault" osu_allreduce >osu_allreduce.txt 2>&1
    record "$out" osu_allreduce osu_allreduce.txt $?
    cat "$out" >>"$results"
fi
echo "== suite done ==" >>"$results"
echo "suite: done; results in $results"
