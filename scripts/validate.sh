#!/usr/bin/env bash
# make validate / make baseline: run the validation suite (ramble-workspaces/validate) through the
# system's scheduler, then gate it against the system's baseline (hpcaas-analyze gate: a FOM fails
# when it moved the bad way by more than max(2 %, 3 x its run-to-run CV)).
# Usage: scripts/validate.sh SYSTEM [BASELINE]      exit 0 PASS, 1 FAIL (regression or failed run)
#        scripts/validate.sh --baseline SYSTEM [FILE]   write FILE (baselines/<system>.csv) from a clean run
# SET='name=value' overrides one Ramble variable of the suite for this run (e.g. exec_prefix).
source "$(dirname "$0")/lib.sh"
PATH=$VENV/bin:$PATH
# Bad input (usage, system, SET, baseline) stops before anything runs: one line, exit status 2.
bad() { printf '[hpcaas] error: %s\n' "$*" >&2; exit 2; }
mode=validate
[ "${1:-}" = --baseline ] && { mode=baseline; shift; }
[ $# -ge 1 ] && [ -n "$1" ] || bad "usage: make validate SYSTEM=<system> [BASELINE=<csv>] | make baseline SYSTEM=<system> [BASELINE=<csv>]"
system=$1
cd "$HPCAAS_ROOT"
[ -f "configs/$system/system.yaml" ] || bad "configs/$system/system.yaml: SYSTEM: no such system (see ls configs/)"
IFS=';' read -ra assignments <<<"${HPCAAS_SET:-}"
for a in "${assignments[@]}"; do
    [[ "$a" =~ ^[A-Za-z_][A-Za-z0-9_]*=[^\ :]+$ ]] || bad "SET: '$a' is not name=value (a Ramble variable of ramble-workspaces/validate, e.g. SET=pin=core0)"
done
baseline=${2:-baselines/$system.csv}
given=${2:-}
out=results/validate
# The FOMs the gate judges: memory bandwidth, MPI latency and bandwidth, DGEMM, HPL.
GATED=(StarSTREAM_Triad SingleSTREAM_Triad MaxPingPongLatency_usec MinPingPongBandwidth_GBytes
       StarDGEMM_Gflops HPL_Tflops)

if [ "$mode" = validate ] && [ ! -f "$baseline" ]; then
    [ -n "$given" ] && bad "$baseline: BASELINE: no such file (make baseline SYSTEM=$system writes baselines/$system.csv)"
    say "no baseline for $system ($baseline): writing one first (make baseline)"
    mode=baseline
fi
if [ "$mode" = validate ]; then
    # Check the baseline before spending a run on it (gating it against itself reads it fully).
    pre=0; err=$(mktemp); hpcaas-analyze gate "$baseline" --baseline "$baseline" --metric "${GATED[@]}" \
        -o /dev/null 2>"$err" || pre=$?
    [ "$pre" -le 1 ] || { cat "$err" >&2; rm -f "$err"; exit 2; }
    rm -f "$err"
fi

run_rc=0
mkdir -p "$out"
started=$(mktemp "$out/.started.XXXXXX"); trap 'rm -f "$started"' EXIT
scripts/run-study.sh validate "$system" || run_rc=$?
csv=$out/results.csv
[ "$csv" -nt "$started" ] || die "validate on $system produced no results (no new $csv); see the messages above"
jobs=$(ls -t "$out"/jobs-*.csv 2>/dev/null | head -n 1 || true)

if [ "$mode" = baseline ]; then
    [ "$run_rc" -eq 0 ] || die "not writing a baseline from a run with failed experiments ($csv)"
    mkdir -p "$(dirname "$baseline")"
    cp "$csv" "$baseline.part" && mv "$baseline.part" "$baseline"
    say "baseline: $baseline ($(($(wc -l <"$baseline") - 1)) rows); next: make validate SYSTEM=$system"
    exit 0
fi

gate_rc=0
hpcaas-analyze gate "$csv" --baseline "$baseline" --metric "${GATED[@]}" -o "$out/gate.csv" || gate_rc=$?
[ "$gate_rc" -le 1 ] || exit "$gate_rc"
verdict=PASS
{ [ "$run_rc" -ne 0 ] || [ "$gate_rc" -ne 0 ]; } && verdict=FAIL
"$VENV/bin/python" -m analysis.validate_report --verdict "$verdict" --system "$system" --baseline "$baseline" \
    --results "$csv" --gate "$out/gate.csv" ${jobs:+--jobs "$jobs"} -o "$out/report.md"
hpcaas-analyze report "$csv" -o "$out/figures" 2>/dev/null || say "(no figures: hpcaas-analyze report failed)"
say "report: $out/report.md"
echo "$verdict"
[ "$verdict" = PASS ]
