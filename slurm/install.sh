#!/usr/bin/env bash
# Install the Debian packages the local Slurm cluster needs, only those missing (idempotent).
#   slurm/install.sh          Slurm 22.05 daemons + client, munge, the PMIx library srun loads
#   slurm/install.sh --mpi    also Debian's Open MPI and MPICH with their compilers (tests/slurm)
# Prints nothing and exits 0 when everything is there already.
set -euo pipefail

pkgs=(
    slurmctld slurmd slurm-client   # = slurm-wlm without its Recommends (mysql, hdf5, rrd, ... plugins)
    slurm-wlm-basic-plugins         # mpi_pmix.so, mpi_pmi2.so, proctrack/linuxproc, jobcomp/filetxt
    munge
    # Debian's mpi_pmix_v4.so dlopen()s the unversioned .../pmix2/lib/libpmix.so, which only
    # libpmix-dev ships; without it `srun --mpi=pmix` fails with "can not load PMIx library".
    libpmix2 libpmix-dev
)
if [ "${1:-}" = --mpi ]; then
    pkgs+=(openmpi-bin libopenmpi-dev mpich libmpich-dev gcc)
elif [ $# -gt 0 ]; then
    echo "usage: $0 [--mpi]" >&2
    exit 2
fi

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "slurm/install.sh: installing ${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "slurm/install.sh: need root (or sudo) to apt-get install ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
fi

# The packages' postinst scripts would start the system munged/slurmd on /etc and /var; the
# project runs its own daemons, so forbid service starts for the duration (Debian's policy-rc.d).
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    "${sudo[@]}" sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod 755 $policy"
    trap '"${sudo[@]}" rm -f "$policy"' EXIT
fi

export DEBIAN_FRONTEND=noninteractive
apt_install() { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; }
# A fresh machine has no package lists yet; update only when the install cannot find something.
if ! apt_install; then
    "${sudo[@]}" apt-get update -q
    apt_install
fi
