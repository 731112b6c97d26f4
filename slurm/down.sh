#!/usr/bin/env bash
# Stop the cluster slurm/up.sh started in STATE_DIR (default <repo>/.slurm): cancel its jobs,
# stop exactly the daemons named by its pidfiles, wait until they are gone. Exit 1 if a process
# of this cluster is still alive afterwards. The state directory (logs, job completion log) stays.
#   slurm/down.sh [STATE_DIR]
set -uo pipefail
# Run without the daemons' marker ourselves, or the /proc scan below would find this script.
[ -n "${HPCAAS_SLURM_DAEMON+x}" ] && exec env -u HPCAAS_SLURM_DAEMON "$0" "$@"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
state=$(realpath -m "${1:-$root/.slurm}")
say() { echo "slurm/down.sh: $*" >&2; }

[ -d "$state/run" ] || { say "no cluster in $state"; exit 0; }
export SLURM_CONF=$state/slurm.conf

# Ours = started by up.sh for this state directory: the daemons (and slurmscriptd, which
# slurmctld forks) carry HPCAAS_SLURM_DAEMON=<state> in their environment. Checking it also
# keeps a recycled PID in a stale pidfile from being killed.
ours() { { tr '\0' '\n' <"/proc/$1/environ"; } 2>/dev/null | grep -qxF "HPCAAS_SLURM_DAEMON=$state"; }
pids_of_pidfiles() {
    local f pid
    for f in "$state"/run/"$1"*.pid; do
        [ -f "$f" ] || continue
        pid=$(cat "$f")
        [[ "$pid" =~ ^[0-9]+$ ]] && ours "$pid" && echo "$pid"
    done
}
# Left over when slurmctld was gone and jobs could not be cancelled: slurmstepds have an empty
# environment but keep their node's log in the state directory open; their children are the
# job's processes.
stragglers() {
    local p f steps=()
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        [ "$p" = $$ ] && continue
        if ours "$p"; then
            echo "$p"
        elif [ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmstepd ]; then
            for f in /proc/"$p"/fd/*; do
                [[ "$(readlink "$f" 2>/dev/null)" == "$state"/* ]] && { steps+=("$p"); echo "$p"; break; }
            done
        fi
    done
    [ ${#steps[@]} -gt 0 ] && descendants "${steps[@]}"
}
descendants() {
    local -A parent_of=()
    local p ppid todo=("$@") next
    for p in /proc/[0-9]*/stat; do
        read -r ppid < <(sed 's/.*) [A-Za-z] \([0-9]*\).*/\1/' "$p" 2>/dev/null) || continue
        p=${p#/proc/}; parent_of[${p%/stat}]=$ppid
    done
    while [ ${#todo[@]} -gt 0 ]; do
        next=()
        for p in "${!parent_of[@]}"; do
            for q in "${todo[@]}"; do [ "${parent_of[$p]}" = "$q" ] && { echo "$p"; next+=("$p"); }; done
        done
        todo=("${next[@]}")
    done
}
# TERM, wait up to $1 s, then KILL what is left and wait again.
stop() {
    local grace=$1; shift
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null
    for _ in $(seq $((grace * 10))); do
        local left=()
        for p in "$@"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
        [ ${#left[@]} -eq 0 ] && return 0
        set -- "${left[@]}"
        sleep 0.1
    done
    say "killing $* (still alive after ${grace}s)"
    kill -KILL "$@" 2>/dev/null
    sleep 0.5
}

# Jobs first, through Slurm, so that slurmstepd ends the job's processes itself; this needs
# slurmctld, slurmd and munged still up.
if [ -n "$(pids_of_pidfiles slurmctld)" ]; then
    jobs=$(squeue -h -o %i 2>/dev/null)
    if [ -n "$jobs" ]; then
        # shellcheck disable=SC2086
        scancel $jobs 2>/dev/null
        for _ in $(seq 100); do
            [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
fi

# The jobs are gone, so the daemons need nothing from each other any more: stop them together
# (each takes about 2 s to exit after SIGTERM here, one after the other would add that up).
mapfile -t p < <(pids_of_pidfiles slurmd-; pids_of_pidfiles slurmctld; pids_of_pidfiles munged)
stop 10 "${p[@]}"
mapfile -t p < <(stragglers); stop 5 "${p[@]}"

mapfile -t p < <(stragglers)
if [ ${#p[@]} -gt 0 ]; then
    say "still alive: ${p[*]}"
    exit 1
fi
rm -f "$state"/run/*.pid
say "stopped the cluster in $state"
