#!/usr/bin/env bash
# Debian packages the project uses: compilers, MPI and BLAS as Spack externals, dpkg-dev for
# `apt-get source` (the source mirror), and the applications that cannot be built from source
# offline (GROMACS, LAMMPS, CP2K, OpenFOAM), used as Spack externals by the local-apps study, with
# the inputs it runs (lammps-examples, openfoam-examples; CP2K's basis sets in cp2k-data).
# Installs only what is missing, so a second run is quick.
source "$(dirname "$0")/lib.sh"

PACKAGES=(gcc g++ gfortran make patch xz-utils bzip2 unzip file git dpkg-dev
          openmpi-bin libopenmpi-dev mpich libmpich-dev libopenblas-dev
          gromacs lammps lammps-examples cp2k cp2k-data openfoam openfoam-examples)

missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || die "missing Debian packages: ${missing[*]}; install them (sudo apt-get install ${missing[*]}) and run make setup again"
say "installing Debian packages: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
