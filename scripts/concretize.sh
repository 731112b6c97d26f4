#!/usr/bin/env bash
# make concretize: the Spack environment of a study on one of its paper systems, solved offline
# with the pinned Spack and committed: environments/STUDY/SYSTEM/{spack.yaml,spack.lock,inputs.sha256}.
# The manifest is generated from the study's dry-run on the system (every Spack environment its
# experiments activate), the lock is Spack's solve of it (unify: false), and inputs.sha256 the
# hash of the Spack inputs it was solved from (hpcaas environments stale compares it).
# A solve is cached under $HPCAAS_CACHE/concretize/<hash of manifest + Spack inputs>.
# Usage: scripts/concretize.sh SYSTEM STUDY     (pairs: hpcaas environments pairs)
#        scripts/concretize.sh --stale          every pair whose lock is stale or missing
source "$(dirname "$0")/lib.sh"
cd "$HPCAAS_ROOT"
[ -f setup-env.sh ] || die "run 'make setup' first"
. ./setup-env.sh
if [ "${1:-}" = --stale ]; then
    # stale exits 1 when it lists a pair: that is the list, not a failure.
    { hpcaas environments stale || true; } | sed -n 's/^\([^ ]*\) on \([^:]*\):.*/\2 \1/p' | while read -r system study; do
        "$0" "$system" "$study" || exit 1
    done
    exit 0
fi
[ $# -eq 2 ] || die "usage: make concretize SYSTEM=<system> ENV=<study> (pairs: hpcaas environments pairs)"
system=$1 study=$2
hpcaas environments pairs | grep -x "$study $system" >/dev/null ||
    die "$study on $system: not a pair (a study's paper_system names its pairs; hpcaas environments pairs lists them)"

ws=$(scripts/dry-run.sh "$study" "$system" | tail -n 1)
manifest=$(hpcaas environments manifest "$study" "$system" "$ws")
env_dir=$(dirname "$manifest")
mkdir -p "$HPCAAS_CACHE/concretize"
key=$(hpcaas spack-inputs "$system" --manifest "$manifest")
cache=$HPCAAS_CACHE/concretize/$key
if [ -f "$cache/spack.lock" ]; then
    say "$study on $system: unchanged inputs, lock from the cache"
else
    work=$(mktemp -d "$HPCAAS_CACHE/concretize/.work.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    cp "$manifest" "$work/spack.yaml"
    hpcaas_system "$system"
    say "$study on $system: concretizing (unify: false, one solve per spec)"
    t0=$(date +%s)
    spack -e "$work" python scripts/concretize.py
    say "$study on $system: $(($(date +%s) - t0)) s"
    rm -rf "$work/.spack-env"
    mv -T "$work" "$cache" 2>/dev/null || rm -rf "$work"   # a parallel run may have won: same lock
    trap - EXIT
fi
cp "$cache/spack.lock" "$env_dir/spack.lock"
hpcaas environments record "$study" "$system"
say "$env_dir/spack.lock: $study solved for $system (spack env create -d <dir> $env_dir/spack.lock; spack -e <dir> install)"
