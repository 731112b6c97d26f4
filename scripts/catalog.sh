#!/usr/bin/env bash
# make catalog: every application of ramble-repo/ built by Spack from its pinned source (or the
# system's binary where the system says so) and its smallest real workload run through Ramble
# on the system, at 1 and 2 ranks with each MPI (threads for OpenMP-only codes). Writes
# results/catalog/results.csv (the tidy CSV) and results/catalog/catalog.csv (one row per
# application). A second run rebuilds nothing (Spack's installs are kept).
# Usage: scripts/catalog.sh [SYSTEM] [TIER]     TIER: all (default) or fast (no slow builds)
# Exit status: 0 every application SUCCESS or SKIPPED (licensed); 1 otherwise.
source "$(dirname "$0")/lib.sh"
system=${1:-local}
export HPCAAS_CATALOG_TIER=${2:-all}
cd "$HPCAAS_ROOT"
. ./setup-env.sh
# Every pinned git source must be reachable (upstream, or a mirror mapped with insteadOf)
# before anything builds: a missing one stops here with its URL and the mapping line.
hpcaas catalog sources "$system" --tier "$HPCAAS_CATALOG_TIER" || die "the catalog's sources are not all reachable"
# The inputs the mirror serves from pinned git commits (the fast tier reads none of them).
[ "$HPCAAS_CATALOG_TIER" = fast ] || HPCAAS_INPUTS_REQUIRED=1 scripts/mirror.sh
rc=0
scripts/run-study.sh catalog "$system" || rc=$?
if [ "$HPCAAS_CATALOG_TIER" = all ]; then
    # The tools the studies use, each from its environment, for the system.
    hpcaas_system "$system"
    for tool in $(hpcaas catalog tools); do
        say "$tool: spack -e environments/$tool install (a cold build takes hours on a small machine)"
        spack -e "environments/$tool" install --fail-fast || rc=1
    done
fi
hpcaas catalog table "$system" results/catalog/results.csv results/catalog/catalog.csv \
    --tier "$HPCAAS_CATALOG_TIER" || rc=1
column -s, -t < results/catalog/catalog.csv | cut -c1-160
say "catalog: results/catalog/catalog.csv"
exit "$rc"
