#!/usr/bin/env bash
# make setup: everything a new clone needs, each step skipped when already done.
source "$(dirname "$0")/lib.sh"
cd "$HPCAAS_ROOT"
scripts/deps.sh
scripts/tools.sh
scripts/venv.sh
scripts/configure.sh
scripts/mirror.sh
[ -f configs/local/system.yaml ] || scripts/make-system.sh
say "ready: . ./setup-env.sh  (spack $(cd .tools/spack && git describe --tags 2>/dev/null || git rev-parse --short HEAD), ramble $(git -C .tools/ramble rev-parse --short HEAD))"
