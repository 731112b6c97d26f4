#!/usr/bin/env bash
# make validate / make baseline: run the validation suite (ramble-workspaces/validate) through the
# system's scheduler, then gate it against the hardware's limits (hpcaas limits: each FOM's
# fraction of what the system's facts allow, against the fraction a healthy system reaches) and,
# when the system has a baseline, against it too (hpcaas-analyze gate: a FOM fails when it moved
# the bad way by more than its tolerance: analysis/gate.py).
# Usage: scripts/validate.sh SYSTEM [BASELINE]      exit 0 PASS, 1 FAIL (either gate, or a failed run)
#        scripts/validate.sh --baseline SYSTEM [FILE]   write FILE (baselines/<system>.csv) from a clean run
# A first validation without a baseline that PASSes the limits keeps its run as the baseline.
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

have_baseline=1
if [ "$mode" = validate ] && [ ! -f "$baseline" ]; then
    [ -n "$given" ] && bad "$baseline: BASELINE: no such file (make baseline SYSTEM=$system writes baselines/$system.csv)"
    say "no baseline for $system ($baseline): gating against the hardware's limits only"
    have_baseline=0
fi
if [ "$mode" = validate ] && [ "$have_baseline" = 1 ]; then
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
jobs=$(find "$out" -maxdepth 1 -name "jobs-*.csv" -printf "%T@ %p\n" | sort -rn | head -n 1 | cut -d" " -f2-)

if [ "$mode" = baseline ]; then
    [ "$run_rc" -eq 0 ] || die "not writing a baseline from a run with failed experiments ($csv)"
    mkdir -p "$(dirname "$baseline")"
    cp "$csv" "$baseline.part" && mv "$baseline.part" "$baseline"
    say "baseline: $baseline ($(($(wc -l <"$baseline") - 1)) rows); next: make validate SYSTEM=$system"
    exit 0
fi

limits_rc=0
hpcaas limits "$system" "$csv" -o "$out/limits.csv" --figure "$out/limits.png" || limits_rc=$?
[ "$limits_rc" -le 1 ] || exit "$limits_rc"
gate_rc=0 gate_args=()
if [ "$have_baseline" = 1 ]; then
    hpcaas-analyze gate "$csv" --baseline "$baseline" --metric "${GATED[@]}" -o "$out/gate.csv" || gate_rc=$?
    [ "$gate_rc" -le 1 ] || exit "$gate_rc"
    gate_args=(--baseline "$baseline" --gate "$out/gate.csv")
fi
verdict=PASS
{ [ "$run_rc" -ne 0 ] || [ "$gate_rc" -ne 0 ] || [ "$limits_rc" -ne 0 ]; } && verdict=FAIL
"$VENV/bin/python" -m analysis.validate_report --verdict "$verdict" --system "$system" "${gate_args[@]}" \
    --limits "$out/limits.csv" --results "$csv" ${jobs:+--jobs "$jobs"} -o "$out/report.md"
if [ "$have_baseline" = 0 ] && [ "$verdict" = PASS ]; then
    mkdir -p "$(dirname "$baseline")"
    cp "$csv" "$baseline.part" && mv "$baseline.part" "$baseline"
    say "baseline: $baseline (this run, healthy against the limits); later runs are gated against it too"
fi
hpcaas-analyze report "$csv" -o "$out/figures" 2>/dev/null || say "(no figures: hpcaas-analyze report failed)"
say "report: $out/report.md"
echo "$verdict"
[ "$verdict" = PASS ]
