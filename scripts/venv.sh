#!/usr/bin/env bash
# The project venv: clingo for Spack, Ramble's runtime deps, the analysis layer and pytest.
# Re-installs only when requirements.txt or pyproject.toml changed (a stamp holds their hash).
source "$(dirname "$0")/lib.sh"

want=$(cat "$HPCAAS_ROOT/requirements.txt" "$HPCAAS_ROOT/pyproject.toml" | sha256sum | cut -d' ' -f1)
stamp=$VENV/.requirements.sha256
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && exit 0

say "creating the venv from requirements.txt"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check -r "$HPCAAS_ROOT/requirements.txt" ||
    die "pip could not install requirements.txt (is PyPI reachable, or a PIP_INDEX_URL mirror set?)"
"$VENV/bin/pip" install -q --disable-pip-version-check --no-deps --no-build-isolation -e "$HPCAAS_ROOT" ||
    die "pip could not install the project itself (pyproject.toml)"
echo "$want" > "$stamp"
