#!/usr/bin/env bash
# Start a private Slurm cluster on this machine: munged, slurmctld and one slurmd per emulated
# node, all with their state, logs and sockets in STATE_DIR, on high non-default ports.
#   slurm/up.sh [STATE_DIR]        default STATE_DIR: <repo>/.slurm (git-ignored)
# Then `. STATE_DIR/env.sh` and use sbatch/srun/squeue; slurm/down.sh STATE_DIR stops it.
#
# Environment (all optional):
#   HPCAAS_SLURM_NODES=2           emulated nodes n1..nN, each with its own share of the cores
#   HPCAAS_SLURM_CTLD_PORT=26817   slurmctld; node i's slurmd listens on SLURMD_PORT+i-1
#   HPCAAS_SLURM_SLURMD_PORT=26818
#   HPCAAS_SLURM_TIMEOUT=30        seconds to wait for the nodes to become idle
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
state=$(realpath -m "${1:-$root/.slurm}")
nodes=${HPCAAS_SLURM_NODES:-2}
ctld_port=${HPCAAS_SLURM_CTLD_PORT:-26817}
slurmd_port=${HPCAAS_SLURM_SLURMD_PORT:-26818}
timeout=${HPCAAS_SLURM_TIMEOUT:-30}
marker=.hpcaas-slurm   # proves a directory is ours before we empty it

say() { echo "slurm/up.sh: $*" >&2; }
die() { say "$*"; exit 1; }
# A pidfile's process is alive and is ours (a recycled PID is not: see down.sh).
alive() {
    local pid
    pid=$(cat "$1" 2>/dev/null) && [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qxF "HPCAAS_SLURM_DAEMON=$state"
}

# A Unix socket path has at most 107 bytes (sun_path); munged would fail later and obscurely.
[ ${#state} -le 80 ] || die "STATE_DIR is too long for munge's socket path (max 80 characters): $state"

"$here/install.sh"

# One cluster per state directory: refuse to clobber a running one.
if [ -d "$state/run" ]; then
    for pidfile in "$state"/run/*.pid; do
        if alive "$pidfile"; then
            if SLURM_CONF=$state/slurm.conf sinfo -h >/dev/null 2>&1; then
                say "already running in $state (slurm/down.sh $state stops it)"
                exit 0
            fi
            die "a daemon of $state is alive but Slurm does not answer; run slurm/down.sh $state first"
        fi
    done
fi
if [ -e "$state" ]; then
    [ -d "$state" ] || die "$state exists and is not a directory"
    if [ -n "$(ls -A "$state")" ] && [ ! -e "$state/$marker" ]; then
        die "$state is not empty and was not made by slurm/up.sh; give another STATE_DIR"
    fi
    rm -rf "${state:?}"/* "$state"/.[!.]*
fi

[[ "$nodes" =~ ^[1-9][0-9]*$ ]] || die "HPCAAS_SLURM_NODES must be a positive integer, got '$nodes'"
ports=("$ctld_port")
for ((i = 0; i < nodes; i++)); do ports+=($((slurmd_port + i))); done
for port in "${ports[@]}"; do
    [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1024 ] && [ "$port" -le 65535 ] ||
        die "ports must be 1024-65535 (HPCAAS_SLURM_CTLD_PORT / HPCAAS_SLURM_SLURMD_PORT), got '$port'"
    # bash's /dev/tcp connects: success means something already listens there.
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        die "port $port is in use; choose others with HPCAAS_SLURM_CTLD_PORT / HPCAAS_SLURM_SLURMD_PORT"
    fi
done

# ---------------------------------------------------------------- layout
# Each emulated node claims the whole machine (what slurmd detects) and reserves every core
# but its own with CpuSpecList, so the nodes get disjoint cores and task/affinity binds there.
# More nodes than cores is allowed (node i then gets core i mod cores): such nodes share a
# core, which suits jobs that mostly wait (the tests' time-limit job), not measurements.
read -r sockets cores threads < <(slurmd -C | sed -n 's/.*SocketsPerBoard=\([0-9]*\) CoresPerSocket=\([0-9]*\) ThreadsPerCore=\([0-9]*\).*/\1 \2 \3/p')
[ -n "${threads:-}" ] || die "cannot read the CPU layout from 'slurmd -C'"
total_cores=$((sockets * cores))
[ "$nodes" -le "$total_cores" ] || say "$nodes nodes on $total_cores cores: nodes share cores"
per_node=$((total_cores >= nodes ? total_cores / nodes : 1))
# Each node's RealMemory is its share of the host's (MemTotal in MiB / nodes), so a job sized
# from a node's memory does not ask every node for all of it; hpcaas/local.py's share_gib says
# the same of configs/local-slurm.
memory=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 / nodes))
host=$(hostname -s)
node_lines=""
for ((i = 0; i < nodes; i++)); do
    first=$(((i * per_node) % total_cores))
    spec=()
    if [ "$nodes" -gt 1 ]; then
        for ((c = 0; c < total_cores; c++)); do
            if [ "$c" -lt "$first" ] || [ "$c" -ge $((first + per_node)) ]; then
                for ((t = 0; t < threads; t++)); do spec+=($((c * threads + t))); done
            fi
        done
    fi
    line="NodeName=n$((i + 1)) NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((slurmd_port + i))"
    line+=" Sockets=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$memory"
    [ ${#spec[@]} -gt 0 ] && line+=" CpuSpecList=$(IFS=,; echo "${spec[*]}")"
    node_lines+="$line State=UNKNOWN"$'\n'
done

# ---------------------------------------------------------------- files
mkdir -p "$state"/{munge,ctld,run,log} && touch "$state/$marker"
for ((i = 1; i <= nodes; i++)); do mkdir -p "$state/spool/n$i" "$state/tmp/n$i"; done
# munged wants its socket directory searchable by all but writable only by its owner, and a
# key nobody else can read.
chmod 755 "$state/munge"
dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$state/munge/munge.key"

user=$(id -un)
awk -v state="$state" -v user="$user" -v host="$host" -v port="$ctld_port" -v nodes="$node_lines" '
    /^@NODES@$/ { printf "%s", nodes; next }
    { gsub(/@STATE@/, state); gsub(/@USER@/, user); gsub(/@HOST@/, host); gsub(/@CTLD_PORT@/, port); print }
' "$here/slurm.conf.in" >"$state/slurm.conf"
cp "$here/mpi.conf" "$state/mpi.conf"

cat >"$state/env.sh" <<EOF
# Source this to use the cluster in $state (made by slurm/up.sh).
export SLURM_CONF=$state/slurm.conf
export HPCAAS_SLURM_STATE=$state
export HPCAAS_SLURM_JOBCOMP=$state/log/jobcomp.txt
EOF

# ---------------------------------------------------------------- daemons
export SLURM_CONF=$state/slurm.conf
# Each daemon runs in the foreground of its own session (so a Ctrl-C or the end of a test run
# in the caller's terminal does not reach it), with our pidfile written by the process that
# then becomes the daemon, and no file descriptor of the caller kept open (a test harness
# waiting for our output would wait for the daemons too). HPCAAS_SLURM_DAEMON in their
# environment tells down.sh which processes are this cluster's.
start() {
    local name=$1; shift
    # shellcheck disable=SC2016  # $$, $0 and $@ are the child shell's
    HPCAAS_SLURM_DAEMON=$state setsid bash -c 'echo $$ >"$0"; exec "$@"' "$state/run/$name.pid" "$@" \
        </dev/null >"$state/log/$name.out" 2>&1 &
    for _ in $(seq 50); do [ -s "$state/run/$name.pid" ] && return; sleep 0.1; done
    fail "$name did not start"
}
fail() {
    say "$*"
    for f in "$state"/log/*; do [ -s "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }; done
    "$here/down.sh" "$state" >&2 || true
    exit 1
}
t0=$(date +%s.%N)

# --force: munged insists that every directory above its socket be searchable by all users,
# which a private state directory (pytest's are 0700) is not; here only our user talks to it.
start munged munged -F --force --socket="$state/munge/munge.socket.2" --key-file="$state/munge/munge.key" \
    --pid-file="$state/run/munged.pid" --seed-file="$state/munge/munged.seed"  # -F: logs to munged.out
for _ in $(seq 100); do [ -S "$state/munge/munge.socket.2" ] && break; sleep 0.1; done
[ -S "$state/munge/munge.socket.2" ] || fail "munged did not open its socket"

start slurmctld slurmctld -D -f "$state/slurm.conf"
for ((i = 1; i <= nodes; i++)); do
    start "slurmd-n$i" slurmd -D -N "n$i" -f "$state/slurm.conf"
done

deadline=$(($(date +%s) + timeout))
want=$(for ((i = 1; i <= nodes; i++)); do echo "n$i idle"; done | sort -u)
while :; do
    got=$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u || true)
    [ "$got" = "$want" ] && break
    for pidfile in "$state"/run/*.pid; do
        alive "$pidfile" || fail "$(basename "$pidfile" .pid) exited"
    done
    [ "$(date +%s)" -lt "$deadline" ] || fail "nodes not idle after ${timeout}s; sinfo says: ${got:-nothing}"
    sleep 0.2
done
say "$nodes node(s) idle $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s after start; state in $state"
say "use it with: . $state/env.sh"
