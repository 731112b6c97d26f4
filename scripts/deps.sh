#!/usr/bin/env bash
# Debian packages the project uses: compilers, MPI and BLAS as Spack externals, dpkg-dev for
# `apt-get source` (the source mirror), and every package of scripts/debian-externals.tsv
# (libraries and applications make system registers as Spack externals, with their inputs).
# Installs only what is missing, so a second run is quick.
source "$(dirname "$0")/lib.sh"

PACKAGES=(gcc g++ gfortran make patch xz-utils bzip2 unzip file git dpkg-dev shellcheck
          openmpi-bin libopenmpi-dev mpich libmpich-dev libopenblas-dev)
while IFS=$'\t' read -r _ debs _; do
    case "$debs" in ''|'#'*) continue ;; esac
    IFS=, read -ra more <<<"$debs"
    PACKAGES+=("${more[@]}")
done < <(grep -v '^#' "$HPCAAS_ROOT/scripts/debian-externals.tsv")

# One dpkg-query for all of them (one a package costs seconds on a busy machine).
installed=" $(dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null |
    awk '/ install ok installed$/ {printf "%s ", $1}')"
missing=()
for p in "${PACKAGES[@]}"; do
    case "$installed" in *" $p "*) ;; *) missing+=("$p") ;; esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || die "missing Debian packages: ${missing[*]}; install them (sudo apt-get install ${missing[*]}) and run make setup again"
say "installing Debian packages: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
