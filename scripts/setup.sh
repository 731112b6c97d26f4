#!/usr/bin/env bash
# make setup: everything a new clone needs, each step skipped when already done.
source "$(dirname "$0")/lib.sh"
cd "$HPCAAS_ROOT"
scripts/deps.sh
scripts/tools.sh
scripts/venv.sh
# The project's own modules byte-compiled (those already up to date are skipped): every hpcaas
# and hpcaas-analyze process imports them, and with PYTHONDONTWRITEBYTECODE set each would
# compile them again (the venv's and the tools' modules are compiled once for the machine).
"$VENV/bin/python" -m compileall -q analysis bench hpcaas >/dev/null ||
    say "note: byte-compiling the project's modules failed; Python compiles them as it imports them"
scripts/configure.sh
scripts/mirror.sh
[ -f configs/local/system.yaml ] || scripts/make-system.sh --reuse
say "ready: . ./setup-env.sh  (spack $(cd .tools/spack && git describe --tags 2>/dev/null || git rev-parse --short HEAD), ramble $(git -C .tools/ramble rev-parse --short HEAD))"
