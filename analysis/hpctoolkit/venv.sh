#!/usr/bin/env bash
# .venv-hpctoolkit: the interpreter of `python -m analysis.hpctoolkit`, with hatchet and the
# pins of requirements-hpctoolkit.txt, apart from the project venv. Idempotent: installs only
# when requirements-hpctoolkit.txt changed (a stamp holds its hash).
source "$(dirname "$0")/../../scripts/lib.sh"

venv=$HPCAAS_ROOT/.venv-hpctoolkit
req=$HPCAAS_ROOT/requirements-hpctoolkit.txt
want=$(sha256sum "$req" | cut -d' ' -f1)
stamp=$venv/.requirements.sha256
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && exit 0

say "creating .venv-hpctoolkit from requirements-hpctoolkit.txt"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r "$req" ||
    die "pip could not install requirements-hpctoolkit.txt (is PyPI reachable, or a PIP_INDEX_URL mirror set?)"
echo "$want" > "$stamp"
