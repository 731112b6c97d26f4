#!/usr/bin/env bash
# Run one study's Ramble workspace on one system: set up (Spack builds), run, analyse, then
# export the tidy CSV to results/<study>/. Usage: scripts/run-study.sh STUDY [SYSTEM]
source "$(dirname "$0")/lib.sh"
study=${1:?usage: run-study.sh STUDY [SYSTEM]}
export HPCAAS_SYSTEM=${2:-${HPCAAS_SYSTEM:-local}}
cd "$HPCAAS_ROOT"
ws=ramble-workspaces/$study
[ -f "$ws/configs/ramble.yaml" ] || die "no study '$study': $ws/configs/ramble.yaml does not exist (see ls ramble-workspaces/)"
[ -f "configs/$HPCAAS_SYSTEM/system.yaml" ] || die "no system '$HPCAAS_SYSTEM': configs/$HPCAAS_SYSTEM/system.yaml is missing (make system writes configs/local)"
[ -f setup-env.sh ] || die "run 'make setup' first"
. ./setup-env.sh

say "$study on $HPCAAS_SYSTEM: ramble workspace setup (Spack concretize + install)"
ramble -D "$ws" workspace setup
say "$study on $HPCAAS_SYSTEM: ramble on"
ramble -D "$ws" on
say "$study on $HPCAAS_SYSTEM: ramble workspace analyze"
ramble -D "$ws" workspace analyze -f json text

out=results/$study
mkdir -p "$out"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
hpcaas-analyze collect "$ws" -o "$out/results-$stamp.csv"
cp "$out/results-$stamp.csv" "$out/results.csv.part" && mv "$out/results.csv.part" "$out/results.csv"
hpcaas-analyze summary "$out/results.csv"
say "results: $out/results.csv (this run: $out/results-$stamp.csv)"
