#!/usr/bin/env bash
# Run one study on one system at a scale: render its Ramble workspace (hpcaas render), set up
# (Spack builds), run (through the system's scheduler), analyse, then export the tidy CSV to
# results/<study>/.
# Usage: scripts/run-study.sh STUDY [SYSTEM] [SCALE]     (SCALE: paper, the default, or small)
# Exit status: 0 every experiment succeeded; 1 setup failed or an experiment FAILED (the CSV
# still has every experiment, failed ones with status FAILED and no value).
source "$(dirname "$0")/lib.sh"
study=${1:?usage: run-study.sh STUDY [SYSTEM] [SCALE]}
export HPCAAS_SYSTEM=${2:-${HPCAAS_SYSTEM:-local}}
scale=${3:-paper}
cd "$HPCAAS_ROOT"
ws=ramble-workspaces/$study
sys_dir=configs/$HPCAAS_SYSTEM
[ -f "$ws/study.yaml" ] || [ "$study" = catalog ] || die "no study '$study': $ws/study.yaml does not exist (see ls ramble-workspaces/)"
[ -f "$sys_dir/system.yaml" ] || die "no system '$HPCAAS_SYSTEM': $sys_dir/system.yaml is missing (make system writes configs/local)"
[ -f setup-env.sh ] || die "run 'make setup' first"
. ./setup-env.sh
scheduler=$("$VENV/bin/python" -c 'import sys; from hpcaas.systems import check_system_dir, value; print(value(check_system_dir(sys.argv[1]), "scheduler"))' "$sys_dir") ||
    die "configs/$HPCAAS_SYSTEM is not a valid system (hpcaas systems validate $sys_dir)"
if [ "$scheduler" = slurm ]; then
    # The system's Slurm must be up: on local-slurm that is the project's own (make slurm-up),
    # unless SLURM_CONF already names another (a test's cluster).
    # shellcheck source=/dev/null  # written by slurm/up.sh
    [ -z "${SLURM_CONF:-}" ] && [ -f .slurm/env.sh ] && . .slurm/env.sh
    sinfo -h >/dev/null 2>&1 || die "$HPCAAS_SYSTEM schedules with Slurm, but no Slurm answers (sinfo failed); on this machine run 'make slurm-up' first"
elif [ "$scheduler" != local ]; then
    die "$HPCAAS_SYSTEM schedules with $scheduler; this script waits for local runs and Slurm jobs only (use 'make dry-run' to generate its scripts)"
fi
# HPCAAS_PROFILE=hpctoolkit runs every MPI executable under HPCToolkit (make reproduce PROFILE=...).
hpcaas render "$study" "$HPCAAS_SYSTEM" --scale "$scale" ${HPCAAS_PROFILE:+--profile "$HPCAAS_PROFILE"} >/dev/null

if [ -e "$ws/results.latest.json" ]; then
    # A re-run overwrites experiment outputs: keep the earlier ones in Ramble's timestamped archive.
    say "$study: archiving the previous run (ramble workspace archive)"
    ramble -D "$ws" workspace archive >/dev/null
fi
say "$study on $HPCAAS_SYSTEM: ramble workspace setup (Spack concretize + install)"
# Concretizing takes ~25 s per environment, and a new clone would redo it for the same
# inputs. Keep each environment's spack.yaml + spack.lock in the cache, keyed by the hash of
# the system's Spack inputs (hpcaas spack-inputs); Ramble itself reuses a lock only while the
# spack.yaml it generates is unchanged.
lock_key=$(hpcaas spack-inputs "$HPCAAS_SYSTEM" | cut -c1-16)
locks=$HPCAAS_CACHE/locks/$lock_key/$study
for env in "$locks"/*/; do
    [ -d "$env" ] || continue
    name=$(basename "$env"); dst=$ws/software/$name
    [ -e "$dst/spack.lock" ] && continue
    mkdir -p "$dst" && cp -p "$env/spack.yaml" "$env/spack.lock" "$dst/"
done
# HPCAAS_SET='name=value[;name=value]' overrides Ramble variables for this run only (Ramble's
# command-line config scope outranks the workspace's and the system's).
set_args=()
IFS=';' read -ra assignments <<<"${HPCAAS_SET:-}"
for a in "${assignments[@]}"; do
    [[ "$a" == *=* ]] || die "SET: '$a' is not name=value (e.g. SET=pin=core0)"
    set_args+=(-c "variables:${a%%=*}:${a#*=}")
done
# Ramble solves the environments one after another, each keeping one core busy for ~20 s: let
# Ramble write them all first (its software_create_env phase), solve those without a lock side
# by side, one Spack per core, with Ramble's own concretize flags; Ramble then finds them solved.
# A solve that fails here is solved again, and reported, by its application's setup below.
ramble "${set_args[@]}" -D "$ws" workspace setup --phases software_create_env >/dev/null ||
    say "$study: writing the Spack environments failed; each application's setup below says why"
flags=$(ramble -D "$ws" config get config | "$VENV/bin/python" -c 'import sys, yaml; print(yaml.safe_load(sys.stdin)["config"]["spack"]["concretize"]["flags"] or "")')
unsolved=()
for env in "$ws"/software/*/spack.yaml; do
    [ -f "$env" ] && [ ! -f "${env%.yaml}.lock" ] && unsolved+=("$(dirname "$env")")
done
if [ ${#unsolved[@]} -gt 0 ]; then
    say "$study: solving ${#unsolved[@]} Spack environments, $(nproc) at a time"
    # shellcheck disable=SC2016  # $0 and $1 belong to the inner shell
    printf '%s\0' "${unsolved[@]}" | xargs -0 -P "$(nproc)" -n 1 sh -c 'spack -e "$1" concretize $0 >"$1/concretize.log" 2>&1 || true' "$flags"
    # Ramble checks an environment's packages by the names `spack find` prints, and it prints an
    # external root not yet in Spack's database as "[e] name@version", which Ramble's pattern
    # does not read (it dies: "Software spec ... is not defined in environment"). Such an
    # environment (a Debian-built application) is left for Ramble to solve, before its check.
    "$VENV/bin/python" - "${unsolved[@]}" <<'EOF'
import json
import os
import sys

for env in sys.argv[1:]:
    lock = os.path.join(env, "spack.lock")
    if os.path.isfile(lock):
        with open(lock) as f:
            solved = json.load(f)
        if any("external" in solved["concrete_specs"][root["hash"]] for root in solved["roots"]):
            os.remove(lock)
EOF
fi
# One application at a time, so that an application that does not build fails its own
# experiments (FAILED, never run) and not the whole study.
out=results/$study
mkdir -p "$out"
: > "$out/build-failed.txt"
mapfile -t apps < <("$VENV/bin/python" -c 'import sys, yaml; print(*yaml.safe_load(open(sys.argv[1]))["ramble"]["applications"], sep="\n")' "$ws/configs/ramble.yaml")
not_built=()
for app in "${apps[@]}"; do
    if ! ramble "${set_args[@]}" -D "$ws" workspace setup --where "'{application_name}' == '$app'"; then
        say "$study: $app did not build; its experiments are FAILED (Ramble's and Spack's messages above)"
        echo "$app" >> "$out/build-failed.txt"
        not_built+=("'{application_name}' == '$app'")
    fi
done
[ ${#not_built[@]} -lt ${#apps[@]} ] || die "$study: no application built"
for lock in "$ws"/software/*/spack.lock; do
    [ -f "$lock" ] || continue
    name=$(basename "$(dirname "$lock")"); mkdir -p "$locks/$name"
    cp -p "$(dirname "$lock")/spack.yaml" "$lock" "$locks/$name/"
done
say "$study on $HPCAAS_SYSTEM: ramble on"
t0=$(date +%s)
ramble -D "$ws" on ${not_built[0]+--exclude-where "${not_built[@]}"}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
jobs_ok=0
if [ "$scheduler" = slurm ]; then
    say "$study: waiting for its Slurm jobs"
    slurm/wait-jobs.py --workdir "$ws" --since "$t0" --csv "$out/jobs-$stamp.csv" || jobs_ok=$?
fi
say "$study on $HPCAAS_SYSTEM: ramble workspace analyze"
ramble -D "$ws" workspace analyze -f json text

jobs_arg=()
[ "$scheduler" = slurm ] && [ -f "$out/jobs-$stamp.csv" ] && jobs_arg=(--jobs "$out/jobs-$stamp.csv")
hpcaas-analyze collect "$ws" "${jobs_arg[@]}" -o "$out/results-$stamp.csv"
cp "$out/results-$stamp.csv" "$out/results.csv.part" && mv "$out/results.csv.part" "$out/results.csv"
hpcaas-analyze summary "$out/results.csv"
rm -f "$out/profiles.csv"  # a profile describes the run it was made in, never a later one
if [ -n "${HPCAAS_PROFILE:-}" ]; then
    # Each experiment's database stays in its run directory; the per-function table joins the results.
    "$VENV/bin/python" -m analysis.hpctoolkit --workspace "$ws" -o "$out/profiles.csv" ||
        say "$study: no profile read (analysis.hpctoolkit's messages above)"
fi
say "results: $out/results.csv (this run: $out/results-$stamp.csv)"
failed=$("$VENV/bin/python" -c 'import csv, sys; print(len({r["experiment"] for r in csv.DictReader(open(sys.argv[1])) if r["status"] != "SUCCESS"}))' "$out/results.csv")
if [ "$jobs_ok" -ne 0 ] || [ "$failed" -ne 0 ]; then
    die "$study: $failed experiment(s) FAILED (status and status_reason columns of $out/results.csv)"
fi
