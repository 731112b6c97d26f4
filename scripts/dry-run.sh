#!/usr/bin/env bash
# make dry-run: generate a study's experiments for a system without building or running anything
# (`ramble workspace setup --dry-run`), so that a paper's matrix can be checked on its own system
# from any machine: experiment names, launch lines, environment, and the Spack specs.
# The workspace is a copy of the study's configs in dry-runs/<system>/<study>, so the study's own
# workspace (and its results) is never touched. The last line printed is that workspace's path.
# Usage: scripts/dry-run.sh STUDY SYSTEM
source "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || die "usage: make dry-run STUDY=<study> SYSTEM=<system> (studies: ls ramble-workspaces/)"
study=$1
export HPCAAS_SYSTEM=$2
cd "$HPCAAS_ROOT"
src=ramble-workspaces/$study
sys_dir=configs/$HPCAAS_SYSTEM
[ -f "$src/configs/ramble.yaml" ] || die "no study '$study': $src/configs/ramble.yaml does not exist (see ls ramble-workspaces/)"
[ -f "$sys_dir/system.yaml" ] || die "no system '$HPCAAS_SYSTEM': $sys_dir/system.yaml does not exist (see ls configs/)"
[ -f setup-env.sh ] || die "run 'make setup' first"
"$VENV/bin/python" -m analysis.systems validate "$sys_dir" >/dev/null

ws=$HPCAAS_ROOT/dry-runs/$HPCAAS_SYSTEM/$study
rm -rf "$ws"
mkdir -p "$ws/configs"
cp "$src/configs/ramble.yaml" "$ws/configs/"
cp "$sys_dir/ramble/batch.tpl" "$ws/configs/execute_experiment.tpl"
. ./setup-env.sh
hpcaas_system "$HPCAAS_SYSTEM"
say "$study on $HPCAAS_SYSTEM: ramble workspace setup --dry-run"
ramble -D "$ws" workspace setup --dry-run >"$ws/setup.log" 2>&1 || {
    tail -n 20 "$ws/setup.log" >&2
    die "$study on $HPCAAS_SYSTEM: ramble workspace setup --dry-run failed (log: $ws/setup.log)"
}
n=$(find "$ws/experiments" -name execute_experiment -type f | wc -l)
say "$study on $HPCAAS_SYSTEM: $n experiments, each experiments/<app>/<workload>/<name>/execute_experiment"
echo "$ws"
