#!/usr/bin/env bash
# make dry-run: generate a study's experiments for a system without building or running anything
# (`ramble workspace setup --dry-run`), so that a paper's matrix can be checked on its own system
# from any machine: experiment names, launch lines, environment, and the Spack specs.
# The workspace is rendered into dry-runs/<system>/<scale>/<study>, so the study's own workspace
# (and its results) is never touched. The last line printed is that workspace's path.
# Usage: scripts/dry-run.sh STUDY SYSTEM [SCALE]     (SCALE: paper, the default, or small)
source "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] && [ $# -le 3 ] || die "usage: make dry-run STUDY=<study> SYSTEM=<system> [SCALE=paper|small] (studies: ls ramble-workspaces/)"
study=$1
export HPCAAS_SYSTEM=$2
scale=${3:-paper}
cd "$HPCAAS_ROOT"
[ -f "configs/$HPCAAS_SYSTEM/system.yaml" ] || die "no system '$HPCAAS_SYSTEM': configs/$HPCAAS_SYSTEM/system.yaml does not exist (see ls configs/)"
[ -f setup-env.sh ] || die "run 'make setup' first"
ws=$HPCAAS_ROOT/dry-runs/$HPCAAS_SYSTEM/$scale/$study
rm -rf "$ws"
. ./setup-env.sh
# The same inputs generate the same workspace (hpcaas/dryrun.py): one generated before from
# identical inputs is restored from the cache (HPCAAS_DRYRUN_CACHE=0 always runs Ramble).
key=$(hpcaas dry-run-cache key "$study" "$HPCAAS_SYSTEM" "$scale")
if [ "${HPCAAS_DRYRUN_CACHE:-1}" != 0 ] && hpcaas dry-run-cache restore "$key" "$ws"; then
    say "$study on $HPCAAS_SYSTEM ($scale scale): generated before from identical inputs (cache $key)"
else
    rm -rf "$ws"
    hpcaas render "$study" "$HPCAAS_SYSTEM" --scale "$scale" --out "$ws" >/dev/null
    hpcaas_system "$HPCAAS_SYSTEM"
    say "$study on $HPCAAS_SYSTEM ($scale scale): ramble workspace setup --dry-run"
    ramble -D "$ws" workspace setup --dry-run >"$ws/setup.log" 2>&1 || {
        tail -n 20 "$ws/setup.log" >&2
        die "$study on $HPCAAS_SYSTEM: ramble workspace setup --dry-run failed (log: $ws/setup.log)"
    }
    hpcaas dry-run-cache store "$key" "$ws"
fi
n=$(find "$ws/experiments" -name execute_experiment -type f | wc -l)
say "$study on $HPCAAS_SYSTEM: $n experiments, each experiments/<app>/<workload>/<name>/execute_experiment"
echo "$ws"
