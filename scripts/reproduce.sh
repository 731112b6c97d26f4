#!/usr/bin/env bash
# make reproduce: one study on one system, end to end. Checks first that the system has what
# the study needs (nodes, cores, GPUs, licensed sources, swept variables) and stops with what
# is missing, so no experiment is silently skipped; then runs the study through the system's
# scheduler (scripts/run-study.sh) and writes results/<study>/report.md with the study's
# tables and, where reference/ has the paper's numbers, the ratio per cell.
# Usage: scripts/reproduce.sh STUDY SYSTEM [SCALE]     (SCALE: paper, the default, or small)
source "$(dirname "$0")/lib.sh"
study=${1:?usage: reproduce.sh STUDY SYSTEM [SCALE]}
system=${2:?usage: reproduce.sh STUDY SYSTEM [SCALE]}
scale=${3:-paper}
cd "$HPCAAS_ROOT"
[ -x "$VENV/bin/hpcaas" ] || die "run 'make setup' first"
"$VENV/bin/hpcaas" study check "$study" "$system" --scale "$scale" || exit 2

rc=0
scripts/run-study.sh "$study" "$system" "$scale" || rc=$?
csv=results/$study/results.csv
[ -f "$csv" ] || die "$study on $system produced no results ($csv); see the messages above"
# The run's failure wins; a failed report alone still fails the command.
"$VENV/bin/hpcaas" study report "$study" "$csv" "results/$study" || { report_rc=$?; [ "$rc" -ne 0 ] || rc=$report_rc; }
exit "$rc"
