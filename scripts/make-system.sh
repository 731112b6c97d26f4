#!/usr/bin/env bash
# make system: describe a system from what Spack and the kernel find on it.
#   scripts/make-system.sh                  this machine: configs/local/ and configs/local-slurm/
#                                           (the same machine behind slurm/up.sh's Slurm);
#                                           generated, git-ignored
#   scripts/make-system.sh --scheduler slurm [--partition P] [--configs DIR] NAME
#                                           a cluster: probes its compute nodes through Slurm,
#                                           one task per node, and writes configs/NAME/
#   scripts/make-system.sh --node DIR       (run on each node by the above) this node into DIR/<node>/
# On each node Spack finds the compilers and the MPI, fabric and C library externals, `spack
# arch` the archspec target, and hpcaas/probe.py the hardware as a job sees it; hpcaas/local.py
# turns Debian's /usr layout into Spack-shaped prefixes, hpcaas/probed.py compares the nodes
# (nodes that differ are reported, never averaged) and writes the description.
source "$(dirname "$0")/lib.sh"
cd "$HPCAAS_ROOT"
. ./setup-env.sh

# What `spack external find` registers on a probed node: its MPIs and fabric libraries (its C
# library: hpcaas/local.py, which Spack v0.23.1 cannot detect).
PROBED_EXTERNALS=(openmpi mpich mvapich2 mvapich intel-oneapi-mpi libfabric ucx rdma-core gmake)

# spack_find DIR PACKAGE...: the compilers and the externals Spack finds here, into DIR (a user scope).
spack_find() {
    local dir=$1
    shift
    SPACK_USER_CONFIG_PATH=$dir spack compiler find --scope user "$(dirname "$(command -v gcc)")" >/dev/null
    SPACK_USER_CONFIG_PATH=$dir spack external find --scope user --not-buildable "$@" >/dev/null
    # Spack also records the compiler in its platform scope (linux/) when it first needs one;
    # one definition is enough.
    rm -f "$dir/linux/compilers.yaml"
}

scheduler="" partition="" configs=$HPCAAS_ROOT/configs reuse=0
while [ $# -gt 0 ]; do
    case $1 in
        --node)
            # One compute node, inside the probe's job step: DIR is on the cluster's shared file system.
            node=${SLURMD_NODENAME:-$(hostname -s)}
            out=$2/$node
            mkdir -p "$out/spack"
            spack_find "$out/spack" "${PROBED_EXTERNALS[@]}"
            target=$(SPACK_USER_CONFIG_PATH=$out/spack spack arch --target)
            echo "$target" >"$out/target"
            "$VENV/bin/python" -m hpcaas.local --spack-dir "$out/spack" --target "$target"
            # The other nodes' addresses (name=address), to find the interface that reaches them.
            peers=()
            for p in ${HPCAAS_PROBE_PEERS:-}; do [ "${p%%=*}" = "$node" ] || peers+=("${p#*=}"); done
            "$VENV/bin/python" -m hpcaas.probe --peers "${peers[@]}" >"$out/facts.json"
            exit 0
            ;;
        --reuse) reuse=1; shift ;;  # make setup: a description kept for this very machine will do
        --scheduler) scheduler=$2; shift 2 ;;
        --partition) partition=$2; shift 2 ;;
        --configs) configs=$(realpath "$2"); shift 2 ;;  # where to write it (default: configs/)
        -*) die "usage: make system [SYSTEM=<name> SCHEDULER=slurm [PARTITION=<p>]] (got '$1')" ;;
        *) name=$1; shift ;;
    esac
done

if [ -z "$scheduler" ]; then
    out=configs/local
    mkdir -p configs
    # The machine's description is kept per fingerprint (the CPU, memory, kernel, OS and its
    # packages, PATH but this clone's own folders, the pinned Spack and the code that
    # describes), so a new clone on the same machine copies it (make setup: --reuse) instead of
    # asking Spack again; `make system` describes anew and refreshes the copy.
    fingerprint=$({
        grep -m1 '^model name' /proc/cpuinfo; grep -m1 '^flags' /proc/cpuinfo
        nproc; grep '^MemTotal' /proc/meminfo; uname -r; hostname; cat /etc/os-release
        sha256sum /var/lib/dpkg/status 2>/dev/null; echo "${PATH//$HPCAAS_ROOT/} ${HPCAAS_SLURM_NODES:-}"
        cat pins.env scripts/make-system.sh hpcaas/local.py hpcaas/probe.py slurm/up.sh
    } | sha256sum | cut -c1-16)
    kept=$HPCAAS_CACHE/systems/local-$fingerprint
    # (Its externals' prefixes, hpcaas/local.py's links in the cache, must still be there.)
    if [ "$reuse" = 1 ] && [ -f "$kept/local/system.yaml" ] &&
        sed -n 's/^ *prefix: *//p' "$kept/local/spack/packages.yaml" | xargs -r -n1 test -d; then
        tmp=$(mktemp -d "$HPCAAS_ROOT/configs/.local.XXXXXX")
        cp -a "$kept/local/." "$tmp/" && cp -a "$kept/local-slurm" "configs/.local-slurm.new" ||
            die "cannot copy the machine's description from $kept"
        rm -rf "$out" configs/local-slurm && mv "$tmp" "$out" && mv configs/.local-slurm.new configs/local-slurm
        say "configs/local/ as this machine was described before ($kept; make system describes it anew)"
        exit 0
    fi
    tmp=$(mktemp -d "$HPCAAS_ROOT/configs/.local.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    say "make system: spack compiler find, spack external find (MPI, build tools)"
    spack_find "$tmp/spack" openmpi mpich gmake
    target=$(SPACK_USER_CONFIG_PATH=$tmp/spack spack arch --target)
    "$VENV/bin/python" -m hpcaas.local --spack-dir "$tmp/spack" --target "$target" --out "$tmp"
    # Replace the old description only once the new one is complete.
    rm -rf "$out.old"; [ -d "$out" ] && mv "$out" "$out.old"
    mv "$tmp" "$out"; rm -rf "$out.old"
    trap - EXIT
    rm -rf "$kept.tmp" && mkdir -p "$kept.tmp" && cp -a "$out" configs/local-slurm "$kept.tmp/" &&
        rm -rf "$kept" && mv "$kept.tmp" "$kept" || say "note: could not keep the description in $kept"
    say "wrote $out/ (target $target)"
    exit 0
fi

[ "$scheduler" = slurm ] || die "SCHEDULER=$scheduler: only slurm is probed (make system SYSTEM=<name> SCHEDULER=slurm)"
[ -n "${name:-}" ] || die "usage: make system SYSTEM=<name> SCHEDULER=slurm [PARTITION=<p>]"
[[ "$name" =~ ^[a-z0-9]+(-[a-z0-9]+)*$ ]] || die "SYSTEM=$name: a system name is lower-case words joined by '-' (configs/README.md)"
case $name in local | local-slurm) die "SYSTEM=$name is make system's description of this machine; name the cluster" ;; esac
# The cluster to probe: SLURM_CONF's, else this project's own (make slurm-up).
# shellcheck source=/dev/null  # written by slurm/up.sh
[ -z "${SLURM_CONF:-}" ] && [ -f .slurm/env.sh ] && . .slurm/env.sh
sinfo -h >/dev/null 2>&1 || die "no Slurm answers (sinfo failed); on this machine run 'make slurm-up' first"

mapfile -t nodes < <(sinfo -h -N ${partition:+-p "$partition"} -t idle,mix,alloc -o %N | sort -u)
[ ${#nodes[@]} -gt 0 ] || die "no node up in ${partition:-the default partition} (sinfo -N${partition:+ -p $partition})"
peers=()
for n in "${nodes[@]}"; do
    peers+=("$n=$(scontrol show node "$n" | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p')")
done
list=$(IFS=,; echo "${nodes[*]}")
tmp=$(mktemp -d "$HPCAAS_ROOT/configs/.probe.XXXXXX")   # on the shared file system the nodes see
trap 'rm -rf "$tmp"' EXIT
say "make system: probing ${#nodes[@]} node(s) of ${partition:-the default partition} ($list), one task each"
HPCAAS_PROBE_PEERS="${peers[*]}" srun ${partition:+-p "$partition"} -N "${#nodes[@]}" --ntasks-per-node=1 \
    --exclusive -w "$list" --time=10 -J hpcaas-probe "$HPCAAS_ROOT/scripts/make-system.sh" --node "$tmp" ||
    die "the probe job failed on ${partition:-the default partition} (srun -w $list)"
"$VENV/bin/python" -m hpcaas.probed "$tmp" --name "$name" --configs "$configs" --scheduler slurm ${partition:+--partition "$partition"} \
    --plugins "$(srun --mpi=list 2>&1 | tr '\n' ' ')" \
    --cluster "$(scontrol show config | sed -n 's/^ClusterName *= *//p')"
say "wrote $configs/$name/ (hpcaas systems diff <system> $name: what differs from another system)"
