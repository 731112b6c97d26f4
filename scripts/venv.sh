#!/usr/bin/env bash
# A project venv, re-installed only when its inputs changed (a stamp holds their hash).
#   scripts/venv.sh                      .venv: clingo for Spack, Ramble's runtime deps, the
#                                        analysis layer (installed editable) and pytest
#   scripts/venv.sh DIR REQUIREMENTS     another venv from another pin list (e.g. .venv-hpctoolkit)
source "$(dirname "$0")/lib.sh"

venv=${1:-$VENV}
req=${2:-$HPCAAS_ROOT/requirements.txt}
inputs=("$req"); [ $# -eq 0 ] && inputs+=("$HPCAAS_ROOT/pyproject.toml")
want=$(cat "${inputs[@]}" | sha256sum | cut -d' ' -f1)
stamp=$venv/.requirements.sha256
# One maker at a time (tests in parallel ask for the same venv): a second one waits, then finds
# the stamp; without the lock it could run pip before the first's venv had it.
mkdir -p "$(dirname "$venv")"
exec 9<"$(dirname "$venv")"
flock 9
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && exit 0

say "creating $(basename "$venv") from $(basename "$req")"
# --no-compile: Python compiles each module on its first import; compiling all of numpy,
# pandas and matplotlib up front doubles the install time.
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check --no-compile -r "$req" ||
    die "pip could not install $req (is PyPI reachable, or a PIP_INDEX_URL mirror set?)"
if [ $# -eq 0 ]; then
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --no-build-isolation -e "$HPCAAS_ROOT" ||
        die "pip could not install the project itself (pyproject.toml)"
fi
echo "$want" > "$stamp"
