#!/usr/bin/env bash
# make system: describe the machine this runs on as configs/local/, and as configs/local-slurm/
# (the same machine behind slurm/up.sh's Slurm): generated, git-ignored. Spack finds the
# compilers and the MPI externals; hpcaas/local.py turns Debian's /usr layout into Spack-shaped
# prefixes and writes the hardware facts and Ramble variables.
source "$(dirname "$0")/lib.sh"
cd "$HPCAAS_ROOT"
. ./setup-env.sh

out=configs/local
mkdir -p configs
tmp=$(mktemp -d "$HPCAAS_ROOT/configs/.local.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export SPACK_USER_CONFIG_PATH=$tmp/spack

say "make system: spack compiler find"
spack compiler find --scope user "$(dirname "$(command -v gcc)")" >/dev/null
say "make system: spack external find (MPI, build tools)"
spack external find --scope user --not-buildable openmpi mpich gmake >/dev/null
# Spack also records the compiler in its platform scope (linux/) when it first needs one;
# one definition is enough.
rm -f "$tmp/spack/linux/compilers.yaml"
target=$(spack arch --target)
"$VENV/bin/python" -m hpcaas.local --spack-dir "$tmp/spack" --target "$target" --out "$tmp"

# Replace the old description only once the new one is complete.
rm -rf "$out.old"; [ -d "$out" ] && mv "$out" "$out.old"
mv "$tmp" "$out"; rm -rf "$out.old"
trap - EXIT
say "wrote $out/ (target $target)"
